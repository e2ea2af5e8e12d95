/* MPI_Isendrecv and MPI_Isendrecv_replace (and MPI_Sendrecv_replace, which
 * waits for one): one request made of a receive and a send, both internal
 * requests that report to it when they finish. It completes with the
 * receive's status once both have. Partitioned requests (pml_part.c) run
 * their rounds through such halves too. */
#include "pml_check.h"

#include <stdlib.h>

void pml_pair_half_done(struct pml_req *half)
{
    struct pml_req *r = half->pair;

    if (!half->send)
        r->base.status = half->base.status;
    else if (half->base.status.MPI_ERROR && !r->error)
        r->error = half->base.status.MPI_ERROR;
    if (--r->inflight)
        return;
    if (r->error && !r->base.status.MPI_ERROR)
        r->base.status.MPI_ERROR = r->error;
    pml_req_complete(r); /* frees the packed copy of a replace */
}

struct pml_req *pml_pair_half(struct pml_req *r)
{
    struct pml_req *h = pml_req_alloc();

    if (h) {
        h->internal = 1;
        h->pair = r;
    }
    return h;
}

/* Takes both halves first (nothing is posted unless all are there), then
 * posts the receive and the send; r counts one guard until both are
 * posted, so a half that finishes at once cannot complete it early. */
static int start(struct pml_req *r, const void *sbuf, size_t scount, struct rdmpi_datatype *sdt,
                 int dest, int stag, void *rbuf, size_t rcount, struct rdmpi_datatype *rdt,
                 int source, int rtag, struct pml_comm *pc)
{
    struct pml_req *rh = source != MPI_PROC_NULL ? pml_pair_half(r) : NULL;
    struct pml_req *sh = dest != MPI_PROC_NULL ? pml_pair_half(r) : NULL;

    if ((source != MPI_PROC_NULL && !rh) || (dest != MPI_PROC_NULL && !sh)) {
        if (rh)
            pml_req_release(rh);
        if (sh)
            pml_req_release(sh);
        return MPI_ERR_NO_MEM;
    }
    r->state = PML_S_PAIR;
    r->base.type = RT_REQ_RECV;
    r->base.comm = pc->handle;
    r->pc = pc;
    r->inflight = 1 + !!rh + !!sh;
    rt_status_empty(&r->base.status);
    r->other = rh ? pml_req_handle(rh) : PML_NO_HANDLE; /* what MPI_Cancel takes back */
    if (rh) {
        pml_recv_setup(rh, rbuf, rcount, rdt, source, rtag, pc);
        pml_irecv(rh);
    } else {
        rt_status_empty(&r->base.status);
        pml_status_proc_null(&r->base.status);
    }
    if (sh)
        pml_isend(sbuf, scount, sdt, dest, stag, pc, PML_STANDARD, sh);
    if (!--r->inflight)
        pml_req_complete(r);
    return MPI_SUCCESS;
}

static int isendrecv_common(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                            MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                            MPI_Request *request, const char *fn)
{
    struct rdmpi_comm *c;
    struct rdmpi_datatype *sdt, *rdt;
    struct pml_req *r;
    int err;

    RT_CHECK_INIT(fn);
    if (RT_UNLIKELY((err = pml_check_comm(comm, fn, &c)) ||
                    (err = pml_check_buf(comm, sendbuf, sendcount, sendtype, fn, &sdt)) ||
                    (err = pml_check_buf(comm, recvbuf, recvcount, recvtype, fn, &rdt)) ||
                    (err = pml_check_dest(comm, c, dest, sendtag, fn)) ||
                    (err = pml_check_source(comm, c, source, recvtag, fn)) ||
                    (err = pml_check_reqp(comm, request, fn))))
        return err;
    if (!(r = pml_req_alloc()))
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    if (start(r, sendbuf, (size_t)sendcount, sdt, dest, sendtag, recvbuf, (size_t)recvcount, rdt,
              source, recvtag, c->pml)) {
        pml_req_release(r);
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    }
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

static int isendrecv_replace_common(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                    int sendtag, int source, int recvtag, MPI_Comm comm,
                                    MPI_Request *request, const char *fn)
{
    struct rdmpi_comm *c;
    struct rdmpi_datatype *dt;
    struct pml_req *r;
    size_t bytes;
    int err;

    RT_CHECK_INIT(fn);
    if (RT_UNLIKELY((err = pml_check_comm(comm, fn, &c)) ||
                    (err = pml_check_buf(comm, buf, count, datatype, fn, &dt)) ||
                    (err = pml_check_dest(comm, c, dest, sendtag, fn)) ||
                    (err = pml_check_source(comm, c, source, recvtag, fn)) ||
                    (err = pml_check_reqp(comm, request, fn))))
        return err;
    if (!(r = pml_req_alloc()))
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    /* The outgoing data is packed aside so the receive can land in buf;
     * the request owns the copy (tmp) until it completes. */
    bytes = dt->size * (size_t)count;
    if (dest != MPI_PROC_NULL) {
        if (!(r->tmp = malloc(bytes + 1))) {
            pml_req_release(r);
            return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of memory for %lld elements",
                                  (long long)count);
        }
        rt_dt_pack(dt, buf, (size_t)count, 0, r->tmp, bytes);
    }
    if (start(r, r->tmp, bytes, rt_dt_get(MPI_BYTE), dest, sendtag, buf, (size_t)count, dt, source,
              recvtag, c->pml)) {
        free(r->tmp);
        pml_req_release(r);
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    }
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Isendrecv = PMPI_Isendrecv
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    RT_API_ENTER();
    return isendrecv_common(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                            recvtype, source, recvtag, comm, request, "MPI_Isendrecv");
}

#pragma weak MPI_Isendrecv_c = PMPI_Isendrecv_c
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    RT_API_ENTER();
    return isendrecv_common(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                            recvtype, source, recvtag, comm, request, "MPI_Isendrecv_c");
}

#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    RT_API_ENTER();
    return isendrecv_replace_common(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                    request, "MPI_Isendrecv_replace");
}

#pragma weak MPI_Isendrecv_replace_c = PMPI_Isendrecv_replace_c
int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    RT_API_ENTER();
    return isendrecv_replace_common(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                    request, "MPI_Isendrecv_replace_c");
}

static int sendrecv_replace_common(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                                   int sendtag, int source, int recvtag, MPI_Comm comm,
                                   MPI_Status *status, const char *fn)
{
    MPI_Request q;
    struct pml_req *r;
    int err;

    if ((err = isendrecv_replace_common(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                        &q, fn)))
        return err;
    r = (struct pml_req *)q;
    pml_wait(r);
    if (status != MPI_STATUS_IGNORE)
        *status = r->base.status;
    err = r->base.status.MPI_ERROR;
    pml_req_release(r);
    if (err)
        return rdmpi_err_comm(comm, err, fn, "the exchange failed (count %lld)", (long long)count);
    return MPI_SUCCESS;
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    RT_API_ENTER();
    return sendrecv_replace_common(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                   status, "MPI_Sendrecv_replace");
}

#pragma weak MPI_Sendrecv_replace_c = PMPI_Sendrecv_replace_c
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    RT_API_ENTER();
    return sendrecv_replace_common(buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                   status, "MPI_Sendrecv_replace_c");
}
