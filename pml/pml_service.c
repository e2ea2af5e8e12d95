/* The pml's entry points for internal traffic (pml_api.h): the sends,
 * receives and probes of collective schedules and of communicator
 * construction, on negative tags no user call matches; and the blocking
 * exchange it offers through the runtime's table of communicator services. */
#include "pml_check.h"

/* A user tag here would mix internal messages with the user's. */
static void check_tag(int tag, const char *fn)
{
    if (RT_UNLIKELY(!pml_tag_internal(tag)))
        rt_fatal("%s: tag is %d; internal traffic needs a negative tag other than "
                 "MPI_ANY_TAG (pml_api.h lists the ranges)",
                 fn, tag);
}

int pml_int_isend(const void *buf, size_t count, struct rdmpi_datatype *dt, int dst, int tag,
                  struct pml_comm *pc, struct rdmpi_request **req)
{
    struct pml_req *r;
    bool done;

    check_tag(tag, "pml_int_isend");
    *req = NULL;
    pml_send_now(buf, count, dt, dst, tag, pc, PML_STANDARD, &done);
    if (done)
        return MPI_SUCCESS;
    if (RT_UNLIKELY(!(r = pml_req_alloc())))
        return MPI_ERR_NO_MEM;
    pml_isend(buf, count, dt, dst, tag, pc, PML_STANDARD, r);
    *req = &r->base;
    return MPI_SUCCESS;
}

int pml_int_irecv(void *buf, size_t count, struct rdmpi_datatype *dt, int src, int tag,
                  struct pml_comm *pc, struct rdmpi_request **req)
{
    struct pml_req *r;

    check_tag(tag, "pml_int_irecv");
    *req = NULL;
    if (RT_UNLIKELY(!(r = pml_req_alloc())))
        return MPI_ERR_NO_MEM;
    pml_recv_setup(r, buf, count, dt, src, tag, pc);
    pml_irecv(r);
    *req = &r->base;
    return MPI_SUCCESS;
}

bool pml_int_iprobe(struct pml_comm *pc, int src, int tag, MPI_Status *status)
{
    struct pml_frag *f;

    check_tag(tag, "pml_int_iprobe");
    if (!(f = pml_find_unexpected(pc, src, tag, false)))
        return false;
    if (status != MPI_STATUS_IGNORE)
        pml_status_from_frag(status, f);
    return true;
}

void pml_int_release(struct rdmpi_request *r)
{
    pml_req_release((struct pml_req *)r);
}

int pml_comm_sendrecv(struct rdmpi_comm *c, const void *sbuf, size_t slen, int dst, void *rbuf,
                      size_t rlen, int src, int tag)
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
