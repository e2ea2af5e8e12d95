/* Pairwise-exchange alltoall (and v, w): n - 1 steps; in step k a rank
 * sends to rank + k and receives from rank - k, so each step is a
 * permutation and no rank is flooded. For large blocks. */
#include "coll.h"

void coll_alltoall_pairwise(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;
    struct rdmpi_datatype *sdt, *rdt;
    size_t sc, rc;
    const void *sp;
    void *rp;

    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r - k + n) % n;
        coll_rblock(a, from, &rp, &rc, &rdt);
        if (coll_bytes(rc, rdt))
            coll_recv(s, rp, rc, rdt, from);
        coll_sblock(a, to, &sp, &sc, &sdt);
        if (coll_bytes(sc, sdt))
            coll_send(s, sp, sc, sdt, to);
        if (k == 1) {
            coll_sblock(a, r, &sp, &sc, &sdt);
            coll_rblock(a, r, &rp, &rc, &rdt);
            coll_copy(s, sp, sc, sdt, rp, rc, rdt);
        }
        coll_fence(s);
    }
    if (n == 1) {
        coll_sblock(a, r, &sp, &sc, &sdt);
        coll_rblock(a, r, &rp, &rc, &rdt);
        coll_copy(s, sp, sc, sdt, rp, rc, rdt);
    }
}
