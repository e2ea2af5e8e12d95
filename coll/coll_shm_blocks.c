/* Gather, scatter, their v forms and allgatherv through the slots, as
 * bcast and reduce go (coll_shm_ops.c): no messages, matching or
 * requests. The senders of a gather and the root of a scatter leave as
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
    /* Whichever block is there first: with ranks outnumbering cores the
     * senders come in any order. */
    got[s->me] = true;
    for (int left = s->n - 1, r = s->me; left; left--) {
        unsigned spins = 0;

        for (;;) {
            r = (r + 1) % s->n;
            sl = coll_shm_slot(s, r, op);
            w = __atomic_load_n(sl, __ATOMIC_ACQUIRE);
            if (!got[r] && (w & ~(COLL_SHM_ADDR | COLL_SHM_PUT)) == op)
                break;
            if (r == s->me && !rt_progress())
                rt_progress_idle(&spins);
        }
        got[r] = true;
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
