/* Collectives too large for the slots, on ranks that can read each
 * other's memory (cross-memory attach on one host): a rank puts the
 * address of its data in its slot, the others read the data from there
 * straight into their own buffers with the BTL's get, and the owner
 * returns only once every rank is done, so its buffer stays valid while
 * read. Against a rendezvous per pair this saves the request-to-send and
 * FIN messages, their matching and the waits for them: a rank needs only
 * the others' addresses. Data a rank holds in a non-contiguous layout is
 * packed into (or read into and unpacked from) a buffer of its own. */
#include "coll_shm.h"

#include <stdlib.h>
#include <string.h>

/* An allreduce folds n inputs per piece; 64 KiB keeps the piece and the
 * one being read in the cache. */
#define ALLREDUCE_PIECE (64u << 10)

/* Reads len bytes at raddr in rank r's memory into local, or writes
 * them there from local. */
static void rdma(struct coll_shm *s, int r, void *local, uint64_t raddr, size_t len, bool write)
{
    int rc = pml_rdma(s->world[r], local, raddr, len, write);

    if (rc)
        rt_fatal("coll: %s %zu bytes %s rank %d's buffer in a collective failed (%s); the "
                 "buffers passed must stay valid for the whole call",
                 write ? "writing" : "reading", len, write ? "into" : "of", r, strerror(-rc));
}

void coll_shm_read_peer(struct coll_shm *s, int r, void *local, uint64_t raddr, size_t len)
{
    rdma(s, r, local, raddr, len, false);
}

void coll_shm_write_peer(struct coll_shm *s, int r, const void *local, uint64_t raddr, size_t len)
{
    rdma(s, r, (void *)(uintptr_t)local, raddr, len, true);
}

const char *coll_shm_readable(const void *buf, size_t count, struct rdmpi_datatype *dt, size_t len,
                              void **tmp)
{
    *tmp = NULL;
    if (rt_dt_contig(dt, count))
        return (const char *)buf + dt->lb;
    if (!(*tmp = malloc(len ? len : 1)))
        rt_fatal("coll: out of memory for %zu bytes packing a collective's data", len);
    rt_dt_pack(dt, buf, count, 0, *tmp, len);
    return *tmp;
}

void coll_shm_read_into(struct coll_shm *s, int r, uint64_t raddr, void *buf, size_t count,
                        struct rdmpi_datatype *dt, size_t len)
{
    void *tmp;

    if (rt_dt_contig(dt, count)) {
        coll_shm_read_peer(s, r, (char *)buf + dt->lb, raddr, len);
        return;
    }
    if (!(tmp = malloc(len ? len : 1)))
        rt_fatal("coll: out of memory for %zu bytes unpacking a collective's data", len);
    coll_shm_read_peer(s, r, tmp, raddr, len);
    rt_dt_unpack(dt, buf, count, 0, tmp, len);
    free(tmp);
}

/* Takes the next collective number and publishes our addresses for it:
 * `a` (the data others read) and `b` (a second buffer, or NULL). */
static uint64_t announce(struct coll_shm *s, const void *a, const void *b)
{
    uint64_t op = ++s->op, *sl = coll_shm_slot(s, s->me, op);

    coll_shm_await_slot(s, op);
    ((uint64_t *)coll_shm_data(sl))[0] = (uint64_t)(uintptr_t)a;
    ((uint64_t *)coll_shm_data(sl))[1] = (uint64_t)(uintptr_t)b;
    coll_shm_publish(sl, op);
    return op;
}

/* Rank r's address `which` (0: a, 1: b) for collective op, once it has
 * announced it. */
static uint64_t address(struct coll_shm *s, int r, uint64_t op, int which)
{
    uint64_t *sl = coll_shm_slot(s, r, op);

    coll_shm_await(sl, op);
    return ((const uint64_t *)coll_shm_data(sl))[which];
}

/* Each rank reads its block of every other rank's data straight into its
 * receive buffer, starting with the next rank so that not all read the
 * same one at once. Used on two ranks with a core each, where it saves
 * the rendezvous handshake of messages (coll_shm_ops.c). In-place
 * alltoall would overwrite blocks the other is yet to read. */
bool coll_shm_direct_allgather(struct coll_shm *s, const struct coll_args *a, bool all_to_all)
{
    size_t block = a->rcount * a->rdt->size, nb = all_to_all ? (size_t)s->n : 1;
    size_t lo = all_to_all ? (size_t)s->me * block : 0;
    const void *src = a->sbuf;
    struct rdmpi_datatype *sdt = a->sdt;
    size_t scount = nb * a->scount;
    const char *mine;
    uint64_t op;
    void *tmp;

    if (!s->direct || (all_to_all && a->inplace))
        return false;
    if (a->inplace) {
        src = coll_at(a->rbuf, (size_t)s->me * a->rcount, a->rdt);
        sdt = a->rdt;
        scount = a->rcount;
    }
    mine = coll_shm_readable(src, scount, sdt, nb * block, &tmp);
    op = announce(s, mine, NULL);
    for (int k = 1; k < s->n; k++) {
        int r = (s->me + k) % s->n;

        coll_shm_read_into(s, r, address(s, r, op, 0) + lo,
                           coll_at(a->rbuf, (size_t)r * a->rcount, a->rdt), a->rcount, a->rdt,
                           block);
    }
    if (!a->inplace) {
        void *own = coll_at(a->rbuf, (size_t)s->me * a->rcount, a->rdt);

        if (rt_dt_contig(a->rdt, a->rcount))
            memcpy((char *)own + a->rdt->lb, mine + lo, block);
        else
            rt_dt_unpack(a->rdt, own, a->rcount, 0, mine + lo, block);
    }
    coll_shm_finish(s, op);
    coll_shm_await_done(s, op);
    free(tmp);
    return true;
}

/* Two ranks: the root publishes its buffer's address, the other its
 * own; the other reads the first half of the root's data while the root
 * writes the second half into the other's buffer, so both cores copy at
 * once (each read or write also costs a system call of about 2 us), and
 * both return once both are done. OSU, 32 KiB: 0.75x the time of the
 * other reading it all, which took 0.88x the time of messages (a
 * request-to-send, the same read and a FIN). A receiver whose buffer is
 * not contiguous publishes none and reads it all. */
bool coll_shm_direct_bcast(struct coll_shm *s, void *buf, size_t count, struct rdmpi_datatype *dt,
                           int root)
{
    size_t len = count * dt->size, cut = (len / 2) & ~(size_t)(COLL_SHM_LINE - 1);
    void *tmp = NULL;
    uint64_t op;

    if (!s->direct)
        return false;
    if (s->me == root) {
        const char *src = coll_shm_readable(buf, count, dt, len, &tmp);
        uint64_t dst;

        op = announce(s, src, NULL);
        if ((dst = address(s, !root, op, 0)))
            rdma(s, !root, (void *)(uintptr_t)(src + cut), dst + cut, len - cut, true);
    } else {
        char *mine = rt_dt_contig(dt, count) ? (char *)buf + dt->lb : NULL;
        uint64_t from;

        op = announce(s, mine, NULL);
        from = address(s, root, op, 0);
        if (mine)
            coll_shm_read_peer(s, root, mine, from, cut);
        else
            coll_shm_read_into(s, root, from, buf, count, dt, len);
    }
    coll_shm_finish(s, op);
    coll_shm_await_done(s, op);
    free(tmp);
    return true;
}

/* Two ranks, a commutative op: the other writes the second half of its
 * data into the root's result buffer while the root reads the first half
 * into it, so both cores copy at once (each read or write also costs a
 * system call of about 2 us); the root folds its own data into the first
 * half, and into the second once the other is done. In place, the
 * root's result holds its data, so both halves go to a scratch buffer.
 * OSU, interleaved medians of 11 with the cores near: 32-128 KiB
 * 0.61-0.78x the time of the root reading it all; 256 KiB-1 MiB
 * 0.73-0.79x that of both cores reading, folding and the other writing
 * back a share each. The root reading 5/16-11/16 took up to 1.18x the
 * time of halves. */
bool coll_shm_direct_reduce(struct coll_shm *s, const void *sbuf, void *rbuf, size_t count,
                            struct rdmpi_datatype *dt, const struct rdmpi_op *op, int root)
{
    size_t ext = (size_t)dt->extent, half = count / 2, span;
    bool inplace = sbuf == MPI_IN_PLACE;
    const char *src = (const char *)(inplace ? rbuf : sbuf) + dt->true_lb;
    char *res = s->me == root ? (char *)rbuf + dt->true_lb : NULL, *into = res, *tmp = NULL;
    const char *in;
    uint64_t seq;

    if (!s->direct || s->n != 2 || root < 0 || !count || !op->commute ||
        !(dt->flags & RT_DT_PREDEF))
        return false;
    span = dt->true_extent + (count - 1) * ext;
    /* Whole extents: the op's kernels write an element's padding too. */
    if (s->me == root && inplace && !(into = tmp = malloc(count * ext)))
        rt_fatal("coll: out of memory for a %zu-byte reduce", span);
    seq = announce(s, src, s->me == root ? into : NULL);
    if (s->me != root) {
        uint64_t to = address(s, root, seq, 1);

        if (half < count)
            rdma(s, root, (void *)(uintptr_t)(src + half * ext), to + half * ext, span - half * ext,
                 true);
        coll_shm_finish(s, seq);
        coll_shm_await_done(s, seq);
        return true;
    }
    if (half)
        coll_shm_read_peer(s, !s->me, into, address(s, !s->me, seq, 0), half * ext);
    coll_shm_finish(s, seq);
    /* The result is x(other) op x(root): the op commutes. */
    in = inplace ? tmp : src;
    coll_op_apply(op, in - dt->true_lb, res - dt->true_lb, half, dt);
    coll_shm_await_done(s, seq);
    coll_op_apply(op, in + half * ext - dt->true_lb, res + half * ext - dt->true_lb, count - half,
                  dt);
    free(tmp);
    return true;
}

/* Allreduce when ranks outnumber cores, as a reduce-scatter and an
 * allgather by direct reads: rank i folds element range i of every rank's
 * data in rank order (non-commutative ops come out right, every rank gets
 * the same bits), in pieces that stay in the cache; once all are done
 * (in place, the ranges read are about to be overwritten) each reads the
 * others' results. A rank reads 2 (n - 1) / n of the data, as
 * Rabenseifner's algorithm does, with no handshakes waiting on
 * descheduled ranks. */
bool coll_shm_direct_allreduce(struct coll_shm *s, const void *sbuf, void *rbuf, size_t count,
                               struct rdmpi_datatype *dt, const struct rdmpi_op *op)
{
    size_t ext = (size_t)dt->extent, tx = (size_t)dt->true_extent, gap = ext - tx;
    size_t per = ALLREDUCE_PIECE > tx ? (ALLREDUCE_PIECE - tx) / ext + 1 : 1;
    /* Two pieces of whole extents (the op's kernels write an element's
     * padding too), the second aligned as the first. */
    size_t stride = (per * ext + COLL_SHM_LINE - 1) & ~(size_t)(COLL_SHM_LINE - 1);
    bool inplace = sbuf == MPI_IN_PLACE;
    const char *src = (const char *)(inplace ? rbuf : sbuf) + dt->true_lb;
    char *res = (char *)rbuf + dt->true_lb, *acc, *tmp;
    size_t lo = count * (size_t)s->me / (size_t)s->n,
           hi = count * (size_t)(s->me + 1) / (size_t)s->n;
    uint64_t seq, gathered, from[COLL_SHM_MAX_RANKS], res_at[COLL_SHM_MAX_RANKS];
    int n = s->n;

    if (!s->direct || !coll_oversubscribed || count < (size_t)n || !(dt->flags & RT_DT_PREDEF))
        return false;
    if (!(tmp = malloc(2 * stride)))
        rt_fatal("coll: out of memory for %zu-byte allreduce pieces", stride);
    acc = tmp + stride;
    seq = announce(s, src, res);
    for (int r = 0; r < n; r++) {
        from[r] = address(s, r, seq, 0);
        res_at[r] = address(s, r, seq, 1);
    }
    for (size_t done = lo, k; done < hi; done += k) {
        size_t off = done * ext, span;
        char *dst = inplace ? acc : res + off;

        k = hi - done < per ? hi - done : per;
        span = tx + (k - 1) * ext;
        /* dst = x(n-1); then dst = x(r) op dst down to r = 0. */
        if (n - 1 == s->me)
            memcpy(dst, src + off, span);
        else
            coll_shm_read_peer(s, n - 1, dst, from[n - 1] + off, span);
        for (int r = n - 2; r >= 0; r--) {
            const char *in = src + off;

            if (r != s->me) {
                coll_shm_read_peer(s, r, tmp, from[r] + off, span);
                in = tmp;
            }
            coll_op_apply(op, in - dt->true_lb, dst - dt->true_lb, k, dt);
        }
        if (inplace)
            memcpy(res + off, acc, span);
    }
    free(tmp);
    coll_shm_finish(s, seq);
    coll_shm_await_done(s, seq);
    gathered = ++s->op;
    for (int k = 1; k < n; k++) {
        int r = (s->me + k) % n;
        size_t rlo = count * (size_t)r / (size_t)n, rhi = count * (size_t)(r + 1) / (size_t)n;

        coll_shm_read_peer(s, r, res + rlo * ext, res_at[r] + rlo * ext, (rhi - rlo) * ext - gap);
    }
    coll_shm_finish(s, gathered);
    coll_shm_await_done(s, gathered);
    return true;
}
