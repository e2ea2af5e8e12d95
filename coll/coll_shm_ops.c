/* Collectives through the shared segment. Collective number `op` uses slot
 * op % SLOTS of each rank: a rank writes its data there and then the
 * slot's sequence word (release); readers wait for that word to say `op`
 * (acquire) and read the data in place. A rank announces it has read
 * everything of collective `op` in its "done" line; a slot is written
 * again (for op + SLOTS) only once every rank is done with op, so a fast
 * rank runs up to SLOTS collectives ahead and never overwrites what a slow
 * one has yet to read. Reductions combine the ranks' data in rank order
 * on every rank that needs the result, so non-commutative operations come
 * out right and every rank of an allreduce gets the same bits. */
#include "coll_shm.h"
#include "win.h"

#include <string.h>

/* Waits keep the rest of the library moving (a peer may need our
 * messages to reach this collective) and yield when ranks outnumber
 * cores. */
void coll_shm_await(const uint64_t *word, uint64_t want)
{
    unsigned spins = 0;

    for (;;) {
        for (int i = 0; i < 64; i++)
            if (__atomic_load_n(word, __ATOMIC_ACQUIRE) == want)
                return;
        if (!rt_progress())
            rt_progress_idle(&spins);
    }
}

uint64_t coll_shm_await_op(const uint64_t *word, uint64_t op)
{
    unsigned spins = 0;

    for (;;) {
        for (int i = 0; i < 64; i++) {
            uint64_t w = __atomic_load_n(word, __ATOMIC_ACQUIRE);
            if ((w & ~COLL_SHM_ADDR) == op)
                return w;
        }
        if (!rt_progress())
            rt_progress_idle(&spins);
    }
}

void coll_shm_await_done(struct coll_shm *s, uint64_t op)
{
    unsigned spins = 0;

    while (s->min_done < op) {
        uint64_t m = UINT64_MAX;

        for (int r = 0; r < s->n; r++) {
            uint64_t d = __atomic_load_n(coll_shm_done_line(s, r), __ATOMIC_ACQUIRE);
            if (d < m)
                m = d;
        }
        s->min_done = m;
        if (m < op && !rt_progress())
            rt_progress_idle(&spins);
    }
}

int coll_shm_await_next(struct coll_shm *s, uint64_t op, bool *got, int r, uint64_t *w)
{
    unsigned spins = 0;

    for (;;) {
        r = (r + 1) % s->n;
        *w = __atomic_load_n(coll_shm_slot(s, r, op), __ATOMIC_ACQUIRE);
        if (!got[r] && (*w & ~(COLL_SHM_ADDR | COLL_SHM_PUT)) == op) {
            got[r] = true;
            return r;
        }
        if (r == s->me && !rt_progress())
            rt_progress_idle(&spins);
    }
}

/* Before writing our slot for `op`: every rank is done with op - SLOTS.
 * A rank that has run that far ahead waits until the slowest is within
 * half the slots, so it reads the others' "done" lines once per SLOTS/2
 * collectives rather than on every one. */
void coll_shm_await_slot(struct coll_shm *s, uint64_t op)
{
    if (op > COLL_SHM_SLOTS && s->min_done < op - COLL_SHM_SLOTS)
        coll_shm_await_done(s, op - COLL_SHM_SLOTS / 2);
}

/* The largest bcast that goes through the slots. Oversubscribed, pieces
 * pay while all fit in the slots at once, so the root never waits for
 * one to be read: beyond, the flat bcast by messages won (8 ranks on 2
 * cores, 512 KiB in 32 KiB slots: 0.71x the time; 4 ranks, 1 MiB in 64
 * KiB slots: pieces 0.85x of it). */
static size_t bcast_limit(const struct coll_shm *s)
{
    size_t limit = s->piece_max;

    if (!coll_oversubscribed && s->n == 2)
        limit = 2 * s->max < COLL_SHM_BCAST_TWO_MAX ? 2 * s->max : COLL_SHM_BCAST_TWO_MAX;
    return limit < COLL_SHM_SLOTS * s->max ? limit : COLL_SHM_SLOTS * s->max;
}

/* A message larger than a slot goes in slot-sized pieces, each its own
 * collective number (every rank cuts it the same way), so the root fills
 * up to SLOTS pieces ahead while the others copy out. */
bool coll_shm_bcast(struct coll_shm *s, void *buf, size_t count, struct rdmpi_datatype *dt,
                    int root)
{
    size_t bytes = count * dt->size, off = 0, piece = s->max;

    if (bytes > bcast_limit(s)) {
        if (coll_oversubscribed || s->n != 2)
            return false;
        if (bytes <= COLL_SHM_TWO_WAY_MAX && bytes <= s->max) {
            coll_shm_two_bcast(s, buf, count, dt, root);
            return true;
        }
        return bytes <= COLL_SHM_BCAST_TWO_DIRECT_MAX &&
               coll_shm_direct_bcast(s, buf, count, dt, root);
    }
    if (!coll_oversubscribed && s->n == 2 && bytes > COLL_SHM_BCAST_TWO_PIECE)
        piece = (bytes + 1) / 2 < piece ? (bytes + 1) / 2 : piece;
    do {
        size_t len = bytes - off < piece ? bytes - off : piece;
        uint64_t op = ++s->op, *sl = coll_shm_slot(s, root, op);

        if (s->me == root) {
            coll_shm_await_slot(s, op);
            coll_shm_put_part(coll_shm_data(sl), buf, count, dt, off, len);
            coll_shm_publish(sl, op);
        } else {
            coll_shm_await(sl, op);
            coll_shm_get_part(buf, count, dt, coll_shm_data(sl), off, len);
        }
        coll_shm_finish(s, op);
        off += len;
    } while (off < bytes);
    return true;
}

/* Every rank publishes its whole contribution (allgather: its block;
 * alltoall: all its blocks, packed) and takes its share of everyone's.
 * Larger than a slot (ranks outnumbering cores), it goes in slot-sized
 * pieces, each its own collective number; a rank reads from a piece only
 * the bytes it needs. */
bool coll_shm_allgather(struct coll_shm *s, const struct coll_args *a, bool all_to_all)
{
    size_t block = a->rcount * a->rdt->size, nb = all_to_all ? (size_t)s->n : 1;
    size_t total = nb * block, lo = all_to_all ? (size_t)s->me * block : 0, off = 0;
    const void *src = a->sbuf;
    struct rdmpi_datatype *sdt = a->sdt;
    size_t scount = nb * a->scount;

    /* Pieces pay when a rank's data is small beside everyone's: measured
     * up to n/2 slots (4 ranks on 2 cores: allgather 16 KiB 17-20 us
     * against 19-24 by messages, 32 KiB 31-39 against 25-32; 8 ranks: 32
     * KiB 93-103 against 152-211). An alltoall piece serves only the
     * ranks whose blocks it holds, so it needs four or more blocks (4
     * ranks, 32 KiB blocks, two per 64 KiB piece: 1.5x the time by
     * messages; 8 ranks, 8 KiB, four per piece: 0.6x). In-place alltoall
     * would overwrite blocks not yet published. */
    size_t limit = s->piece_max > s->max ? (size_t)s->n * s->max / 2 : s->max;

    if (limit > s->piece_max)
        limit = s->piece_max;
    if (all_to_all && block > s->max / 4)
        limit = s->max;
    if (s->n == 2 && !coll_oversubscribed && block > COLL_SHM_TWO_WAY_MIN) {
        if (block <= COLL_SHM_TWO_WAY_MAX && block <= s->max) {
            coll_shm_two_allgather(s, a, all_to_all);
            return true;
        }
        if (block <= COLL_SHM_DIRECT_TWO_MAX && coll_shm_direct_allgather(s, a, all_to_all))
            return true;
    }
    if (total > (all_to_all && a->inplace ? s->max : limit))
        return false;
    if (a->inplace) {
        src = all_to_all ? a->rbuf : coll_at(a->rbuf, (size_t)s->me * a->rcount, a->rdt);
        sdt = a->rdt;
        scount = nb * a->rcount;
    }
    do {
        size_t len = total - off < s->max ? total - off : s->max;
        size_t a0 = off > lo ? off : lo, a1 = off + len < lo + block ? off + len : lo + block;
        uint64_t op = ++s->op, *sl = coll_shm_slot(s, s->me, op);

        coll_shm_await_slot(s, op);
        coll_shm_put_part(coll_shm_data(sl), src, scount, sdt, off, len);
        coll_shm_publish(sl, op);
        /* With a core per rank, our own block first, which is ready when
         * the others may not be, then the ranks after us (OSU allgather, 2
         * ranks, 512 B-4 KiB: 0.76-0.91x the time of rank order).
         * Oversubscribed, rank order (4 and 8 ranks on 2 cores, 1-64 B:
         * 1.0-1.35x the time the other way). */
        for (int k = 0; k < s->n && a0 < a1; k++) {
            int r = coll_oversubscribed ? k : (s->me + k) % s->n;
            uint64_t *from = coll_shm_slot(s, r, op);

            if (r == s->me && a->inplace && !all_to_all)
                continue;
            coll_shm_await(from, op);
            coll_shm_get_part(coll_at(a->rbuf, (size_t)r * a->rcount, a->rdt), a->rcount, a->rdt,
                              coll_shm_data(from) + (a0 - off), a0 - lo, a1 - a0);
        }
        coll_shm_finish(s, op);
        off += len;
    } while (off < total);
    return true;
}

/* rbuf = x0 op x1 op ... op x(n-1), folded from the right: the op
 * function computes inout = in op inout. Slots hold each rank's buffer
 * as laid out in memory (`span` bytes from the true lower bound, taken
 * from byte `at` of each slot), so the pair types' gaps ride along; ours
 * comes from `mine` when not NULL. */
static void combine(struct coll_shm *s, void *rbuf, size_t count, struct rdmpi_datatype *dt,
                    const struct rdmpi_op *op, uint64_t seq, size_t span, const char *mine,
                    size_t at)
{
    const char *in[COLL_SHM_MAX_RANKS];

    for (int r = 0; r < s->n; r++) {
        uint64_t *sl = coll_shm_slot(s, r, seq);

        if (r == s->me && mine) {
            in[r] = mine;
            continue;
        }
        coll_shm_await(sl, seq);
        in[r] = coll_shm_data(sl) + at;
    }
    memcpy((char *)rbuf + dt->true_lb, in[s->n - 1], span);
    for (int r = s->n - 2; r >= 0; r--)
        coll_op_apply(op, in[r] - dt->true_lb, rbuf, count, dt);
}

/* Reduce (root >= 0) or allreduce (root < 0) of a predefined type (the
 * standard has every rank pass the same one, so all take this path or
 * none). A reduce larger than COLL_SHM_REDUCE_PIECE (or the slot) goes in
 * pieces of whole elements, each its own collective number. When ranks
 * outnumber cores a reduce to a root takes this path at any size: 4 and
 * 8 ranks on 2 cores, 128 KiB-4 MiB, 0.5-0.8x the time of the pipelined
 * tree of messages (which waits for each forwarding rank's turn). */
bool coll_shm_reduce(struct coll_shm *s, const void *sbuf, void *rbuf, size_t count,
                     struct rdmpi_datatype *dt, const struct rdmpi_op *op, int root)
{
    size_t ext = (size_t)dt->extent, tx = (size_t)dt->true_extent, per, piece;
    size_t span = count ? tx + (count - 1) * ext : 0;
    const char *src = (const char *)(sbuf == MPI_IN_PLACE ? rbuf : sbuf) + dt->true_lb;
    size_t limit = s->reduce_max;
    uint64_t t0 = 0;
    bool own, two;

    if (!count || !(dt->flags & RT_DT_PREDEF))
        return false;
    if (root >= 0)
        limit = coll_oversubscribed ? SIZE_MAX : COLL_SHM_ROOTED_MAX;
    else if (limit > COLL_SHM_REDUCE_MAX && limit > bcast_limit(s))
        limit = bcast_limit(s);
    /* Two ranks, allreduce 4-16 KiB (messages beyond), reduce 8-16 KiB:
     * the slots or reads, as measured. */
    if (root < 0 && s->n == 2 && !coll_oversubscribed && s->direct && span > limit &&
        span <= COLL_SHM_TWO_WAY_MAX && span <= s->max) {
        coll_shm_two_allreduce(s, sbuf, rbuf, count, dt, op);
        return true;
    }
    two = root >= 0 && s->n == 2 && !coll_oversubscribed && s->direct && op->commute &&
          span > limit && span <= COLL_SHM_TWO_WAY_MAX && tx <= s->max;
    if (two && coll_shm_two_reduce(s, src, rbuf, count, dt, op, root, &t0))
        return true;
    if (!two && (span > limit || tx > s->max)) {
        if (root >= 0)
            return coll_shm_direct_reduce(s, sbuf, rbuf, count, dt, op, root);
        /* Left to coll_shm_reduce_to_bcast. */
        if (coll_oversubscribed && span <= s->reduce_max)
            return false;
        return coll_shm_direct_allreduce(s, sbuf, rbuf, count, dt, op);
    }
    /* A large allreduce (ranks outnumbering cores: reduce_max is larger
     * then) goes to rank 0 and back out, so a rank reads two copies of
     * the data rather than one per rank; the limit above keeps the bcast
     * back in the slots. */
    if (root < 0 && span > COLL_SHM_REDUCE_MAX) {
        coll_shm_reduce(s, sbuf, rbuf, count, dt, op, 0);
        return coll_shm_bcast(s, rbuf, count, dt, 0);
    }
    piece =
        coll_oversubscribed && span >= COLL_SHM_REDUCE_QUARTERS ? span / 4 : COLL_SHM_REDUCE_PIECE;
    per = ((s->max < piece ? s->max : piece) - tx) / ext + 1;
    /* A reduce's root is the only reader of its data: it folds it from
     * its send buffer and publishes nothing (in place, the result would
     * overwrite it first). */
    own = root == s->me && sbuf != MPI_IN_PLACE;
    for (size_t done = 0, k; done < count; done += k) {
        size_t off = done * ext, piece_span;
        uint64_t seq = ++s->op, *sl = coll_shm_slot(s, s->me, seq);

        k = count - done < per ? count - done : per;
        piece_span = tx + (k - 1) * ext;
        if (own) {
            combine(s, (char *)rbuf + off, k, dt, op, seq, piece_span, src + off, 0);
        } else {
            coll_shm_await_slot(s, seq);
            memcpy(coll_shm_data(sl), src + off, piece_span);
            coll_shm_publish(sl, seq);
            if (root < 0 || s->me == root)
                combine(s, (char *)rbuf + off, k, dt, op, seq, piece_span, NULL, 0);
        }
        coll_shm_finish(s, seq);
    }
    if (two && s->me == root)
        coll_shm_two_reduced(s, t0);
    return true;
}

/* Reduce_scatter of a predefined type whose whole vector fits in a
 * slot: every rank publishes its vector and folds its own block of
 * everyone's in rank order (in place, from its slot: its result
 * overwrites the start of its input). A rank reads its block of each
 * other rank, (n - 1) / n of the vector in all. */
bool coll_shm_reduce_scatter(struct coll_shm *s, const struct coll_args *a,
                             const struct rdmpi_op *op)
{
    struct rdmpi_datatype *dt = a->rdt;
    size_t ext = (size_t)dt->extent, tx = (size_t)dt->true_extent, total = 0, at = 0, k;
    const char *src = (const char *)(a->inplace ? a->rbuf : a->sbuf) + dt->true_lb;
    uint64_t seq, *sl;

    for (int r = 0; r < s->n; r++) {
        if (r == s->me)
            at = total * ext;
        total += (size_t)a->rcounts[r];
    }
    if (!total || !(dt->flags & RT_DT_PREDEF) || tx + (total - 1) * ext > s->max)
        return false;
    seq = ++s->op;
    sl = coll_shm_slot(s, s->me, seq);
    coll_shm_await_slot(s, seq);
    memcpy(coll_shm_data(sl), src, tx + (total - 1) * ext);
    coll_shm_publish(sl, seq);
    if ((k = (size_t)a->rcounts[s->me]))
        combine(s, (char *)a->rbuf + dt->true_lb, k, dt, op, seq, tx + (k - 1) * ext,
                a->inplace ? NULL : src + at, at);
    coll_shm_finish(s, seq);
    return true;
}

/* An allreduce too large for the bcast through the slots, ranks
 * outnumbering cores, up to reduce_max: reduced to rank 0 through the
 * slots, the caller broadcasting the result by messages. 8 ranks on 2
 * cores, OSU, 1 MiB with the cores near: 0.67x the time of direct reads
 * (coll_shm_direct_allreduce, still taken beyond reduce_max); with them
 * far, 1.3x. */
bool coll_shm_reduce_to_bcast(struct coll_shm *s, const void *sbuf, void *rbuf, size_t count,
                              struct rdmpi_datatype *dt, const struct rdmpi_op *op)
{
    size_t span = count ? (size_t)dt->true_extent + (count - 1) * (size_t)dt->extent : 0;

    if (!coll_oversubscribed || !count || !(dt->flags & RT_DT_PREDEF) || span > s->reduce_max ||
        span <= bcast_limit(s))
        return false;
    return coll_shm_reduce(s, sbuf, rbuf, count, dt, op, 0);
}

/* With a core per rank every rank publishes its arrival and reads all
 * the others'. Two ranks share one line, rank 0's slot word and a word of
 * its data: the second to arrive finds the first's word in the line its
 * own store fetches, one hand-off instead of two (OSU, 2 ranks: 0.23 us
 * against 0.33 with a line each). When ranks outnumber cores,
 * rank 0 gathers the arrivals and releases the others through a word of
 * its slot: n lines move instead of n * n, and rank 0, the usual root,
 * leaves first, so the ranks do not wait in the next collective for it to
 * be scheduled again (4 ranks on 2 cores, OSU's loop of a bcast and a
 * barrier, 1-256 B: 0.12-0.14 us per bcast against 1.3). A barrier right
 * after a barrier has no root to favour, and the release costs a turn of
 * rank 0 after the last arrival: there, every rank reads all arrivals
 * (every rank counts the same collectives, so all agree). OSU's barrier
 * on 2 cores: 3 ranks 0.53x the time, 4 ranks 0.79x, 8 ranks 0.92x. */
void coll_shm_barrier(struct coll_shm *s)
{
    uint64_t op = ++s->op, *lead = coll_shm_slot(s, 0, op);
    /* In rank 0's line: rank 1's arrival (2 ranks), or the release. The
     * word between the sequence word and the data, which no collective
     * writes: data left in the slot by an earlier one may equal op. */
    uint64_t *word = lead + 1;

    coll_shm_await_slot(s, op);
    if (s->n == 2 && !coll_oversubscribed) {
        coll_shm_publish(s->me ? word : lead, op);
        coll_shm_await(s->me ? lead : word, op);
    } else if (!coll_oversubscribed || s->barrier_op == op - 1) {
        coll_shm_publish(coll_shm_slot(s, s->me, op), op);
        for (int r = 0; r < s->n; r++)
            coll_shm_await(coll_shm_slot(s, r, op), op);
    } else if (s->me == 0) {
        for (int r = 1; r < s->n; r++)
            coll_shm_await(coll_shm_slot(s, r, op), op);
        coll_shm_publish(word, op);
    } else {
        coll_shm_publish(coll_shm_slot(s, s->me, op), op);
        coll_shm_await(word, op);
    }
    coll_shm_finish(s, op);
    s->barrier_op = op;
    /* Every rank has arrived, so each is done with what came before: no
     * need to read their "done" lines before reusing those slots. */
    if (s->min_done < op - 1)
        s->min_done = op - 1;
    /* What a peer sent us before it entered is in our queues now (its
     * slot was published after); with windows open, deliver it, so the
     * one-sided operations it carries are applied when the barrier
     * returns, as after a message barrier (a pass costs 2 ranks' barrier
     * 7%, so not otherwise). */
    if (rt_live_windows)
        rt_progress();
}
