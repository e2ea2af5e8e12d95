/* Linear allgather (and allgatherv): every rank posts all n - 1 receives
 * and sends its block to every other rank at once: one round, for small
 * blocks on few ranks. */
#include "coll.h"

void coll_allgather_linear(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;
    const void *own = a->sbuf;
    struct rdmpi_datatype *odt = a->sdt, *rdt;
    size_t oc = a->scount, rc;
    void *rp;

    if (a->inplace) {
        coll_rblock(a, r, &rp, &oc, &odt);
        own = rp;
    }
    for (int k = 1; k < n; k++) {
        int from = (r - k + n) % n;
        coll_rblock(a, from, &rp, &rc, &rdt);
        if (coll_bytes(rc, rdt))
            coll_recv(s, rp, rc, rdt, from);
    }
    if (coll_bytes(oc, odt))
        for (int k = 1; k < n; k++)
            coll_send(s, own, oc, odt, (r + k) % n);
    if (!a->inplace) {
        coll_rblock(a, r, &rp, &rc, &rdt);
        coll_copy(s, a->sbuf, a->scount, a->sdt, rp, rc, rdt);
    }
    coll_fence(s);
}
