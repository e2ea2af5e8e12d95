/* Dissemination barrier (Hensgen, Finkel, Manber): in round k every rank
 * signals rank + 2^k and hears from rank - 2^k, so after ceil(log2 n)
 * rounds each rank has heard, directly or not, from every other. Any n. */
#include "coll.h"

void coll_barrier_dissemination(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;

    (void)a;
    for (int d = 1; d < n; d <<= 1) {
        coll_recv(s, NULL, 0, coll_byte, (r - d + n) % n);
        coll_send(s, NULL, 0, coll_byte, (r + d) % n);
        coll_fence(s);
    }
}
