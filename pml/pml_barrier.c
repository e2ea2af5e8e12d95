/* A dissemination barrier over the pml, on an internal tag: correct for any
 * size in ceil(log2 n) rounds. The pml's own, for finalize; MPI_Barrier is
 * in coll/. */
#include "pml_check.h"

int pml_barrier(struct pml_comm *pc)
{
    for (int dist = 1; dist < pc->size; dist <<= 1) {
        struct pml_req *s = pml_req_alloc(), *r = pml_req_alloc();
        int to = (pc->rank + dist) % pc->size;
        int from = (pc->rank - dist + pc->size) % pc->size;

        if (!s || !r)
            rt_fatal("out of requests in a barrier");
        pml_recv_setup(r, NULL, 0, rt_dt_get(MPI_BYTE), from, PML_TAG_BARRIER, pc);
        pml_irecv(r);
        pml_isend(NULL, 0, rt_dt_get(MPI_BYTE), to, PML_TAG_BARRIER, pc, PML_STANDARD, s);
        pml_wait(s);
        pml_wait(r);
        pml_req_release(s);
        pml_req_release(r);
    }
    return MPI_SUCCESS;
}
