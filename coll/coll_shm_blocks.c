/* Gather, scatter, their v forms, allgatherv, alltoallv and alltoallw
 * through the slots, as bcast and reduce go (coll_shm_ops.c): no
 * messages, matching or requests. The senders of a gather and the root of a scatter leave as
 * soon as their data is out, as a bcast's root does (OSU's small gather
 * and scatter on 4 ranks over 2 cores went by messages in 1.9-2.4 us
 * against Open MPI's 0.6-2.0). The regular forms and allgatherv go only
 * when every block fits (every rank knows every count). In the v forms
 * of gather and scatter only the root knows every count, so a block
 * beyond a slot goes straight between the user buffers instead (every
 * rank reads and writes every other's memory: s->direct). */
#include "coll_shm.h"

#include <stdlib.h>

/* The root's table in its slot: an entry per rank, 16-byte aligned. */
static size_t table_bytes(const struct coll_shm *s)
{
    return ((size_t)s->n * sizeof(uint64_t) + 15) & ~(size_t)15;
}

/* Every rank copies its block into its slot and every other's out, as
 * allgather does (coll_shm_ops.c); every rank knows every count, so all
 * agree on the way. */
bool coll_shm_allgatherv(struct coll_shm *s, const struct coll_args *a)
{
    size_t size = a->rdt->size, n;
    struct rdmpi_datatype *dt;
    uint64_t op, *sl;
    void *at;

    for (int r = 0; r < s->n; r++)
        if ((size_t)a->rcounts[r] * size > s->max)
            return false;
    op = ++s->op;
    sl = coll_shm_slot(s, s->me, op);
    coll_shm_await_slot(s, op);
    coll_rblock(a, s->me, &at, &n, &dt);
    if (a->inplace)
        coll_shm_put_part(coll_shm_data(sl), at, n, dt, 0, n * size);
    else
        coll_shm_put_part(coll_shm_data(sl), a->sbuf, a->scount, a->sdt, 0, n * size);
    coll_shm_publish(sl, op);
    for (int k = 0; k < s->n; k++) {
        int r = (s->me + k) % s->n;
        uint64_t *from = coll_shm_slot(s, r, op);

        if (r == s->me && a->inplace)
            continue;
        coll_rblock(a, r, &at, &n, &dt);
        coll_shm_await(from, op);
        coll_shm_get_part(at, n, dt, coll_shm_data(from), 0, n * size);
    }
    coll_shm_finish(s, op);
    return true;
}

/* Gather and gatherv. Each sender decides for its own block: through
 * its slot if it fits. Beyond, it writes the block straight into the
 * root's buffer, whose address the root publishes for every block in a
 * table in its slot (both cores copy, and the root need not be scheduled
 * for it: 8 ranks on 2 cores, 64 KiB blocks read by the root took 1.3x
 * the time of messages); where the root's block is not contiguous, the
 * sender publishes its block's address for the root to read and returns
 * once the root is done. The root takes the blocks as they come. */
static void gather_blocks(struct coll_shm *s, const struct coll_args *a)
{
    bool got[COLL_SHM_MAX_RANKS] = {false}, big = false;
    struct rdmpi_datatype *dt;
    void *tmp = NULL, *at;
    uint64_t op, *sl, *table, w;
    size_t n, len;

    op = ++s->op;
    table = (uint64_t *)coll_shm_data(coll_shm_slot(s, a->root, op));
    if (s->me != a->root) {
        const char *mine;

        len = a->scount * a->sdt->size;
        sl = coll_shm_slot(s, s->me, op);
        coll_shm_await_slot(s, op);
        if (len <= s->max) {
            coll_shm_put_part(coll_shm_data(sl), a->sbuf, a->scount, a->sdt, 0, len);
            coll_shm_publish(sl, op);
            coll_shm_finish(s, op);
            return;
        }
        mine = coll_shm_readable(a->sbuf, a->scount, a->sdt, len, &tmp);
        coll_shm_await(coll_shm_slot(s, a->root, op), op);
        if (table[s->me]) {
            coll_shm_write_peer(s, a->root, mine, table[s->me], len);
            coll_shm_publish(sl, op | COLL_SHM_PUT);
            coll_shm_finish(s, op);
        } else {
            coll_shm_publish_addr(sl, op, mine);
            coll_shm_finish(s, op);
            coll_shm_await_done(s, op);
        }
        free(tmp);
        return;
    }
    /* The table only if some block is beyond a slot: the senders know
     * which (the counts match), and only those look for it. */
    for (int r = 0; r < s->n; r++) {
        coll_rblock(a, r, &at, &n, &dt);
        if (r == s->me || n * dt->size <= s->max)
            continue;
        if (!big)
            coll_shm_await_slot(s, op);
        big = true;
        table[r] = rt_dt_contig(dt, n) ? (uint64_t)(uintptr_t)((char *)at + dt->lb) : 0;
    }
    if (big)
        coll_shm_publish(coll_shm_slot(s, s->me, op), op);
    if (!a->inplace) {
        const char *mine;

        coll_rblock(a, s->me, &at, &n, &dt);
        len = n * dt->size;
        mine = coll_shm_readable(a->sbuf, a->scount, a->sdt, len, &tmp);
        coll_shm_get_part(at, n, dt, mine, 0, len);
        free(tmp);
    }
    /* Whichever block is there first. */
    got[s->me] = true;
    for (int left = s->n - 1, r = s->me; left; left--) {
        r = coll_shm_await_next(s, op, got, r, &w);
        sl = coll_shm_slot(s, r, op);
        coll_rblock(a, r, &at, &n, &dt);
        len = n * dt->size;
        if (w & COLL_SHM_ADDR)
            coll_shm_read_into(s, r, coll_shm_addr_in(sl), at, n, dt, len);
        else if (!(w & COLL_SHM_PUT))
            coll_shm_get_part(at, n, dt, coll_shm_data(sl), 0, len);
    }
    coll_shm_finish(s, op);
}

/* `block` is a rank's bytes. */
bool coll_shm_gather(struct coll_shm *s, const struct coll_args *a, size_t block)
{
    if (!block || block > s->max)
        return false;
    gather_blocks(s, a);
    return true;
}

bool coll_shm_gatherv(struct coll_shm *s, const struct coll_args *a)
{
    if (!s->direct || table_bytes(s) > s->max)
        return false;
    gather_blocks(s, a);
    return true;
}

/* Every rank knows every offset, so no table: the root copies every
 * block into its slot (its own too: one pass over its send buffer), each
 * rank copies its own out. Through scatterv's table (below), small scatters
 * took 1.2-1.4x the time (4 ranks over 2 cores, OSU 1-512 B). `block`
 * is a rank's bytes. */
bool coll_shm_scatter(struct coll_shm *s, const struct coll_args *a, size_t block)
{
    size_t all = (size_t)s->n * block;
    uint64_t op, *sl;

    if (!block || all > s->max)
        return false;
    op = ++s->op;
    sl = coll_shm_slot(s, a->root, op);
    if (s->me == a->root) {
        coll_shm_await_slot(s, op);
        coll_shm_put_part(coll_shm_data(sl), a->sbuf, (size_t)s->n * a->scount, a->sdt, 0, all);
        coll_shm_publish(sl, op);
    } else {
        coll_shm_await(sl, op);
    }
    if (!a->inplace)
        coll_shm_get_part(a->rbuf, a->rcount, a->rdt, coll_shm_data(sl) + (size_t)s->me * block, 0,
                          block);
    coll_shm_finish(s, op);
    return true;
}

/* Scatterv: only the root knows every count, so its slot starts with a
 * table, an entry per rank: the offset of its block in the slot after the table, or
 * (COLL_SHM_ADDR) the block's address in the root's memory once the
 * blocks no longer fit; then the root returns only once every rank is
 * done. */
bool coll_shm_scatterv(struct coll_shm *s, const struct coll_args *a)
{
    size_t used = table_bytes(s), n, len;
    uint64_t op, *sl, *table, e;
    void *tmp[COLL_SHM_MAX_RANKS] = {NULL};
    struct rdmpi_datatype *dt;
    bool far = false;
    const void *at;

    if (!s->direct || used > s->max)
        return false;
    op = ++s->op;
    sl = coll_shm_slot(s, a->root, op);
    table = (uint64_t *)coll_shm_data(sl);
    if (s->me != a->root) {
        coll_shm_await(sl, op);
        e = table[s->me];
        len = a->rcount * a->rdt->size;
        if (e & COLL_SHM_ADDR)
            coll_shm_read_into(s, a->root, e & ~COLL_SHM_ADDR, a->rbuf, a->rcount, a->rdt, len);
        else
            coll_shm_get_part(a->rbuf, a->rcount, a->rdt, coll_shm_data(sl) + e, 0, len);
        coll_shm_finish(s, op);
        return true;
    }
    coll_shm_await_slot(s, op);
    for (int r = 0; r < s->n; r++) {
        if (r == s->me)
            continue;
        coll_sblock(a, r, &at, &n, &dt);
        len = n * dt->size;
        if (len <= s->max - used) {
            coll_shm_put_part(coll_shm_data(sl) + used, at, n, dt, 0, len);
            table[r] = used;
            used += len;
        } else {
            table[r] =
                COLL_SHM_ADDR | (uint64_t)(uintptr_t)coll_shm_readable(at, n, dt, len, &tmp[r]);
            far = true;
        }
    }
    coll_shm_publish(sl, op);
    if (!a->inplace) {
        coll_sblock(a, s->me, &at, &n, &dt);
        len = n * dt->size;
        coll_shm_get_part(a->rbuf, a->rcount, a->rdt,
                          coll_shm_readable(at, n, dt, len, &tmp[s->me]), 0, len);
    }
    coll_shm_finish(s, op);
    if (far)
        coll_shm_await_done(s, op);
    for (int r = 0; r < s->n; r++)
        free(tmp[r]);
    return true;
}

/* Alltoallv and alltoallw: only a block's sender and receiver know its
 * size, so each rank's slot starts with a table, an entry per receiver:
 * the block's length and offset in the slot after the table (so
 * receivers catch counts that differ), or COLL_SHM_ADDR once the
 * sender's blocks no longer fit. Those go by messages on m (a
 * schedule run as it is built, its tag taken whether or not any rank
 * sends one): the sender posts them as soon as its slot is out, the
 * receiver as it reads the table. Oversubscribed, messages measured
 * faster for them than reads of the senders' buffers (8 ranks on 2
 * cores, 16 KiB-1 MiB blocks: 1.07-1.28x the time of messages), and than
 * messages started only once every rank had read every slot (1.16-1.33x).
 * Each rank takes the others' blocks as they come. */
void coll_shm_alltoallv(struct coll_shm *s, struct coll_sched *m, const struct coll_args *a)
{
    size_t used = table_bytes(s), n, sn, len;
    bool got[COLL_SHM_MAX_RANKS] = {false};
    struct rdmpi_datatype *dt, *rdt;
    uint64_t op, *sl, *table, w;
    int far[COLL_SHM_MAX_RANKS], nfar = 0;
    const void *from;
    void *at;

    op = ++s->op;
    sl = coll_shm_slot(s, s->me, op);
    table = (uint64_t *)coll_shm_data(sl);
    coll_shm_await_slot(s, op);
    for (int k = 1; k < s->n; k++) {
        int r = (s->me + k) % s->n;

        coll_sblock(a, r, &from, &n, &dt);
        len = n * dt->size;
        if (len <= s->max - used) {
            coll_shm_put_part(coll_shm_data(sl) + used, from, n, dt, 0, len);
            table[r] = (uint64_t)len << 32 | used;
            used += len;
        } else {
            table[r] = COLL_SHM_ADDR;
            far[nfar++] = r;
        }
    }
    coll_shm_publish(sl, op);
    for (int i = 0; i < nfar; i++) {
        coll_sblock(a, far[i], &from, &n, &dt);
        coll_send(m, from, n, dt, far[i]);
    }
    coll_sblock(a, s->me, &from, &sn, &dt);
    coll_rblock(a, s->me, &at, &n, &rdt);
    coll_copy(m, from, sn, dt, at, n, rdt);
    got[s->me] = true;
    for (int left = s->n - 1, r = s->me; left; left--) {
        uint64_t e;

        r = coll_shm_await_next(s, op, got, r, &w);
        sl = coll_shm_slot(s, r, op);
        e = ((const uint64_t *)coll_shm_data(sl))[s->me];
        coll_rblock(a, r, &at, &n, &rdt);
        len = n * rdt->size;
        if (e & COLL_SHM_ADDR) {
            coll_recv(m, at, n, rdt, r);
            continue;
        }
        if (RT_UNLIKELY(e >> 32 != len)) {
            coll_sched_mismatch(m, r, e >> 32, len);
            len = e >> 32 < len ? e >> 32 : len;
        }
        coll_shm_get_part(at, n, rdt, coll_shm_data(sl) + (uint32_t)e, 0, len);
    }
    coll_shm_finish(s, op);
}
