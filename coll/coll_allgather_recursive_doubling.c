/* Recursive-doubling allgather for powers of two: log2 n exchanges, each
 * doubling the run of blocks a rank holds, in place in the receive buffer
 * (the runs stay contiguous there). The first exchange sends straight from
 * the send buffer, and our own block is copied into place while it runs. */
#include "coll.h"

void coll_allgather_recursive_doubling(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;
    size_t rc = a->rcount;
    void *mine = coll_at(a->rbuf, (size_t)r * rc, a->rdt);

    if (!coll_bytes(rc, a->rdt))
        return;
    for (int d = 1; d < n; d <<= 1) {
        int peer = r ^ d, lo = r & ~(d - 1), theirs = peer & ~(d - 1);
        coll_recv(s, coll_at(a->rbuf, (size_t)theirs * rc, a->rdt), (size_t)d * rc, a->rdt, peer);
        if (d == 1 && !a->inplace) {
            coll_send(s, a->sbuf, a->scount, a->sdt, peer);
            coll_copy(s, a->sbuf, a->scount, a->sdt, mine, rc, a->rdt);
        } else {
            coll_send(s, coll_at(a->rbuf, (size_t)lo * rc, a->rdt), (size_t)d * rc, a->rdt, peer);
        }
        coll_fence(s);
    }
    if (n == 1 && !a->inplace)
        coll_copy(s, a->sbuf, a->scount, a->sdt, mine, rc, a->rdt);
}
