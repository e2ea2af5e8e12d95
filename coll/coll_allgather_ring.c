/* Ring allgather (and allgatherv): n - 1 steps, each passing the block
 * received last to the right neighbour, straight between the users'
 * buffers. Bandwidth-optimal on any n; the choice for large blocks. */
#include "coll.h"

void coll_allgather_ring(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, right = (r + 1) % n, left = (r - 1 + n) % n;

    for (int i = 0; i < n - 1; i++) {
        struct rdmpi_datatype *sdt, *rdt;
        size_t sc, rc;
        const void *sp;
        void *rp;

        coll_rblock(a, (r - i - 1 + n) % n, &rp, &rc, &rdt);
        if (coll_bytes(rc, rdt))
            coll_recv(s, rp, rc, rdt, left);
        if (i == 0 && !a->inplace) {
            sp = a->sbuf, sc = a->scount, sdt = a->sdt;
        } else {
            void *p;
            coll_rblock(a, (r - i + n) % n, &p, &sc, &sdt);
            sp = p;
        }
        if (coll_bytes(sc, sdt))
            coll_send(s, sp, sc, sdt, right);
        if (i == 0 && !a->inplace) {
            coll_rblock(a, r, &rp, &rc, &rdt);
            coll_copy(s, a->sbuf, a->scount, a->sdt, rp, rc, rdt);
        }
        coll_fence(s);
    }
    if (n == 1 && !a->inplace) {
        struct rdmpi_datatype *rdt;
        size_t rc;
        void *rp;
        coll_rblock(a, r, &rp, &rc, &rdt);
        coll_copy(s, a->sbuf, a->scount, a->sdt, rp, rc, rdt);
    }
}
