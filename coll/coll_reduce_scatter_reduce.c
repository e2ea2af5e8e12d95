/* Reduce-scatter as a reduce of the whole vector to rank 0 followed by a
 * scatterv of the blocks: two trees' worth of latency, but it keeps rank
 * order, so it serves non-commutative ops. */
#include "coll.h"

void coll_reduce_scatter_reduce(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;
    size_t total = 0;
    MPI_Aint *displs = coll_tmp_bytes(s, (size_t)n * sizeof(*displs));
    struct coll_args red = {.sbuf = a->inplace ? a->rbuf : a->sbuf, .rdt = a->rdt, .root = 0};
    struct coll_args sc = {.sdt = a->rdt,
                           .scounts = a->rcounts,
                           .sdispls = displs,
                           .rbuf = a->rbuf,
                           .rcount = (size_t)a->rcounts[r],
                           .rdt = a->rdt};

    if (!displs)
        return;
    for (int i = 0; i < n; i++) {
        displs[i] = (MPI_Aint)total;
        total += (size_t)a->rcounts[i];
    }
    red.rcount = total;
    if (r == 0)
        red.rbuf = coll_tmp(s, total, a->rdt);
    sc.sbuf = red.rbuf;
    coll_reduce_binomial(s, &red);
    coll_fence(s);
    coll_scatter_linear(s, &sc);
}
