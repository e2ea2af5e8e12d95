/* Binomial-tree broadcast: relative to the root, rank v receives from
 * v - lowbit(v) and then sends to v + 2^k for each 2^k below lowbit(v),
 * largest subtree first. ceil(log2 n) steps; the latency choice. */
#include "coll.h"

void coll_bcast_binomial(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, v = (s->rank - a->root + n) % n, mask = 1;

    while (mask < n && !(v & mask))
        mask <<= 1;
    if (v) {
        coll_recv(s, a->rbuf, a->rcount, a->rdt, (v - mask + a->root) % n);
        coll_fence(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            coll_send(s, a->rbuf, a->rcount, a->rdt, (v + mask + a->root) % n);
    coll_fence(s);
}
