/* Linear alltoall (and v, w): every receive and send posted at once, one
 * round; the transport overlaps them all. For small and medium blocks on
 * few ranks. */
#include "coll.h"

void coll_alltoall_linear(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;
    struct rdmpi_datatype *sdt, *rdt;
    size_t sc, rc;
    const void *sp;
    void *rp;

    for (int k = 1; k < n; k++) {
        int from = (r - k + n) % n;
        coll_rblock(a, from, &rp, &rc, &rdt);
        if (coll_bytes(rc, rdt))
            coll_recv(s, rp, rc, rdt, from);
    }
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n;
        coll_sblock(a, to, &sp, &sc, &sdt);
        if (coll_bytes(sc, sdt))
            coll_send(s, sp, sc, sdt, to);
    }
    coll_sblock(a, r, &sp, &sc, &sdt);
    coll_rblock(a, r, &rp, &rc, &rdt);
    coll_copy(s, sp, sc, sdt, rp, rc, rdt);
    coll_fence(s);
}
