/* Gather, scatter (the regular forms) and allgatherv through the slots,
 * as bcast and reduce go (coll_shm_ops.c): no messages, matching or
 * requests. A gather's or allgatherv's every block, or all of a
 * scatter's blocks, must fit in one slot; larger ones keep messages. The root of a scatter and the
 * senders of a gather leave as soon as their data is in their slot, as a bcast's root does. OSU's
 * small gather and scatter on 4 ranks over 2 cores went by messages in 1.9-2.4 us against Open
 * MPI's 0.6-2.0. */
#include "coll_shm.h"

#include <stdlib.h>

/* Every rank but the root copies its block into its slot; the root
 * copies its own block and then everyone's out of their slots. */
bool coll_shm_gather(struct coll_shm *s, const struct coll_args *a, size_t block)
{
    uint64_t op, *sl;

    if (!block || block > s->max)
        return false;
    op = ++s->op;
    if (s->me != a->root) {
        sl = coll_shm_slot(s, s->me, op);
        coll_shm_await_slot(s, op);
        coll_shm_put_part(coll_shm_data(sl), a->sbuf, a->scount, a->sdt, 0, block);
        coll_shm_publish(sl, op);
        coll_shm_finish(s, op);
        return true;
    }
    if (!a->inplace) {
        void *tmp;
        const char *mine = coll_shm_readable(a->sbuf, a->scount, a->sdt, block, &tmp);

        coll_shm_get_part(coll_at(a->rbuf, (size_t)s->me * a->rcount, a->rdt), a->rcount, a->rdt,
                          mine, 0, block);
        free(tmp);
    }
    for (int r = 0; r < s->n; r++) {
        if (r == s->me)
            continue;
        sl = coll_shm_slot(s, r, op);
        coll_shm_await(sl, op);
        coll_shm_get_part(coll_at(a->rbuf, (size_t)r * a->rcount, a->rdt), a->rcount, a->rdt,
                          coll_shm_data(sl), 0, block);
    }
    coll_shm_finish(s, op);
    return true;
}

/* The root copies every block into its slot (its own too: one pass over
 * its send buffer), each rank copies its own out. */
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
