/* What the communicator layer needs from the pml while it builds new
 * communicators: a blocking exchange on an internal tag, offered through
 * the runtime's table of communicator services. */
#include "pml_check.h"

int pml_comm_sendrecv(struct rdmpi_comm *c, const void *sbuf, size_t slen, int dst,
                      void *rbuf, size_t rlen, int src, int tag)
{
    struct rdmpi_datatype *byte = rt_dt_get(MPI_BYTE);
    struct pml_req *s = NULL, *r = NULL;
    int err = MPI_SUCCESS;

    if (src != MPI_PROC_NULL) {
        if (!(r = pml_req_alloc()))
            return MPI_ERR_NO_MEM;
        pml_recv_setup(r, rbuf, rlen, byte, src, tag, c->pml);
        pml_irecv(r);
    }
    if (dst != MPI_PROC_NULL) {
        if (!(s = pml_req_alloc()))
            rt_fatal("out of requests building a communicator");
        pml_isend(sbuf, slen, byte, dst, tag, c->pml, PML_STANDARD, s);
        pml_wait(s);
        err = s->base.status.MPI_ERROR;
        pml_req_release(s);
    }
    if (r) {
        pml_wait(r);
        if (!err)
            err = r->base.status.MPI_ERROR;
        if (!err && (size_t)r->base.status.rdmpi_count != rlen)
            err = MPI_ERR_INTERN;
        pml_req_release(r);
    }
    return err;
}

const struct rt_comm_services pml_comm_services = {.sendrecv = pml_comm_sendrecv};
