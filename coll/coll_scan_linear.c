/* Linear scan and exscan: a chain, rank r waits for the prefix of ranks
 * below it, folds its own data in and passes the new prefix on. n - 1
 * steps, but one message per rank; also a plain reference for the tests. */
#include "coll.h"

void coll_scan_linear(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;
    size_t count = a->rcount;
    struct rdmpi_datatype *dt = a->rdt;

    if (!a->inplace)
        coll_copy(s, a->sbuf, count, dt, a->rbuf, count, dt);
    if (r > 0) {
        void *t = coll_tmp(s, count, dt);
        coll_recv(s, t, count, dt, r - 1);
        coll_fence(s);
        coll_reduce(s, t, a->rbuf, count, dt, COLL_SRC_LOWER);
    }
    if (r < n - 1) {
        coll_send(s, a->rbuf, count, dt, r + 1);
        coll_fence(s);
    }
}

void coll_exscan_linear(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;
    size_t count = a->rcount;
    struct rdmpi_datatype *dt = a->rdt;
    const void *own = a->inplace ? a->rbuf : a->sbuf;
    void *t = NULL, *u;

    if (r > 0) {
        t = coll_tmp(s, count, dt);
        coll_recv(s, t, count, dt, r - 1);
        coll_fence(s);
    }
    if (r < n - 1) {
        if (t) {
            u = coll_tmp(s, count, dt);
            coll_copy(s, own, count, dt, u, count, dt);
            coll_reduce(s, t, u, count, dt, COLL_SRC_LOWER);
            coll_send(s, u, count, dt, r + 1);
        } else {
            coll_send(s, own, count, dt, r + 1);
        }
    }
    if (t)
        coll_copy(s, t, count, dt, a->rbuf, count, dt);
    coll_fence(s);
}
