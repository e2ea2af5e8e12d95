/* Linear scatter (and scatterv): the root sends every block straight from
 * its place in the send buffer; the mirror of coll_gather_linear. */
#include "coll.h"

void coll_scatter_linear(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;

    if (r != a->root) {
        if (coll_bytes(a->rcount, a->rdt))
            coll_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
        coll_fence(s);
        return;
    }
    for (int i = 0; i < n; i++) {
        struct rdmpi_datatype *dt;
        const void *p;
        size_t cnt;

        coll_sblock(a, i, &p, &cnt, &dt);
        if (i != r && coll_bytes(cnt, dt))
            coll_send(s, p, cnt, dt, i);
        else if (i == r && !a->inplace)
            coll_copy(s, p, cnt, dt, a->rbuf, a->rcount, a->rdt);
    }
    coll_fence(s);
}
