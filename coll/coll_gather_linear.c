/* Linear gather (and gatherv): every rank sends straight to the root,
 * which has all receives posted at once into their final places. No
 * copies, n - 1 messages at the root; the choice for large blocks, and
 * the only one for gatherv, where only the root knows the counts. */
#include "coll.h"

void coll_gather_linear(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;

    if (r != a->root) {
        if (coll_bytes(a->scount, a->sdt))
            coll_send(s, a->sbuf, a->scount, a->sdt, a->root);
        coll_fence(s);
        return;
    }
    for (int i = 0; i < n; i++) {
        struct rdmpi_datatype *dt;
        size_t cnt;
        void *p;

        coll_rblock(a, i, &p, &cnt, &dt);
        if (i != r && coll_bytes(cnt, dt))
            coll_recv(s, p, cnt, dt, i);
        else if (i == r && !a->inplace)
            coll_copy(s, a->sbuf, a->scount, a->sdt, p, cnt, dt);
    }
    coll_fence(s);
}
