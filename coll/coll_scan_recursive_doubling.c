/* Recursive-doubling scan and exscan: in step k a rank swaps the partial
 * result of its aligned run of 2^k ranks with rank r ^ 2^k; data from
 * below joins both the result and the partial, data from above only the
 * partial. ceil(log2 n) steps; rank order is kept, so any op works. */
#include "coll.h"

static void scan(struct coll_sched *s, const struct coll_args *a, bool exclusive)
{
    int n = s->size, r = s->rank;
    size_t count = a->rcount;
    struct rdmpi_datatype *dt = a->rdt;
    const void *own = a->inplace ? a->rbuf : a->sbuf;
    void *partial = coll_tmp(s, count, dt), *t = coll_tmp(s, count, dt);
    bool first = true;

    coll_copy(s, own, count, dt, partial, count, dt);
    if (!exclusive && !a->inplace)
        coll_copy(s, a->sbuf, count, dt, a->rbuf, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        int peer = r ^ mask;
        if (peer >= n)
            continue;
        coll_recv(s, t, count, dt, peer);
        coll_send(s, partial, count, dt, peer);
        coll_fence(s);
        if (peer < r) {
            if (exclusive && first)
                coll_copy(s, t, count, dt, a->rbuf, count, dt);
            else
                coll_reduce(s, t, a->rbuf, count, dt, COLL_SRC_LOWER);
            first = false;
            coll_reduce(s, t, partial, count, dt, COLL_SRC_LOWER);
        } else {
            coll_reduce(s, t, partial, count, dt, COLL_SRC_HIGHER);
        }
    }
}

void coll_scan_recursive_doubling(struct coll_sched *s, const struct coll_args *a)
{
    scan(s, a, false);
}

void coll_exscan_recursive_doubling(struct coll_sched *s, const struct coll_args *a)
{
    scan(s, a, true);
}
