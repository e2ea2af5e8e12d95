/* Recursive-doubling allgather for powers of two: log2 n exchanges, each
 * doubling the run of blocks a rank holds, in place in the receive buffer
 * (the runs stay contiguous there). */
#include "coll.h"

void coll_allgather_recursive_doubling(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;
    size_t rc = a->rcount;

    if (!a->inplace)
        coll_copy(s, a->sbuf, a->scount, a->sdt, coll_at(a->rbuf, (size_t)r * rc, a->rdt), rc,
                  a->rdt);
    if (!coll_bytes(rc, a->rdt))
        return;
    for (int d = 1; d < n; d <<= 1) {
        int peer = r ^ d, mine = r & ~(d - 1), theirs = peer & ~(d - 1);
        coll_recv(s, coll_at(a->rbuf, (size_t)theirs * rc, a->rdt), (size_t)d * rc, a->rdt,
                  peer);
        coll_send(s, coll_at(a->rbuf, (size_t)mine * rc, a->rdt), (size_t)d * rc, a->rdt, peer);
        coll_fence(s);
    }
}
