/* Ring allreduce for long vectors on any n: n - 1 steps of reduce-scatter
 * around the ring, then n - 1 steps of allgather, each moving one block of
 * count/n elements to the right neighbour. Bandwidth-optimal with only
 * nearest-neighbour traffic; commutative ops only (block results are
 * folded in ring order). Blocks arrive straight in rbuf and our own
 * contribution is folded into them, so there is no initial copy. */
#include "coll.h"

struct vec {
    const struct coll_args *a;
    size_t q, rm;
};

static size_t off(const struct vec *v, int i)
{
    return (size_t)i * v->q + ((size_t)i < v->rm ? (size_t)i : v->rm);
}

static size_t len(const struct vec *v, int i)
{
    return off(v, i + 1) - off(v, i);
}

void coll_allreduce_ring(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, right = (r + 1) % n, left = (r - 1 + n) % n;
    size_t count = a->rcount;
    struct rdmpi_datatype *dt = a->rdt;
    struct vec v = {.a = a, .q = count / (size_t)n, .rm = count % (size_t)n};
    void *tmp = a->inplace ? coll_tmp(s, v.q + 1, dt) : NULL;

    if (n == 1) {
        if (!a->inplace)
            coll_copy(s, a->sbuf, count, dt, a->rbuf, count, dt);
        return;
    }
    for (int i = 0; i < n - 1; i++) {
        int sb = (r - i + n) % n, rb = (r - i - 1 + n) % n;
        const void *src = i == 0 && !a->inplace ? a->sbuf : a->rbuf;
        void *dst = coll_at(a->rbuf, off(&v, rb), dt);

        if (len(&v, rb))
            coll_recv(s, a->inplace ? tmp : dst, len(&v, rb), dt, left);
        if (len(&v, sb))
            coll_send(s, coll_at(src, off(&v, sb), dt), len(&v, sb), dt, right);
        coll_fence(s);
        if (a->inplace)
            coll_reduce(s, tmp, dst, len(&v, rb), dt, COLL_SRC_LOWER);
        else
            coll_reduce(s, coll_at(a->sbuf, off(&v, rb), dt), dst, len(&v, rb), dt, COLL_SRC_LOWER);
    }
    for (int i = 0; i < n - 1; i++) {
        int sb = (r + 1 - i + n) % n, rb = (r - i + n) % n;

        if (len(&v, rb))
            coll_recv(s, coll_at(a->rbuf, off(&v, rb), dt), len(&v, rb), dt, left);
        if (len(&v, sb))
            coll_send(s, coll_at(a->rbuf, off(&v, sb), dt), len(&v, sb), dt, right);
        coll_fence(s);
    }
}
