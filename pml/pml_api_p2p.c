/* MPI_Send, MPI_Recv and their immediate, synchronous, ready and buffered
 * forms, plus Sendrecv: argument checks, then the pml. Each has a big-count
 * (_c) twin sharing one body. */
#include "pml_check.h"

static int send_common(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, enum pml_mode mode, const char *fn)
{
    struct rdmpi_comm *c;
    struct rdmpi_datatype *dt;
    struct pml_req *r;
    bool done;
    int err;

    RT_CHECK_INIT(fn);
    if (RT_UNLIKELY((err = pml_check_comm(comm, fn, &c)) ||
                    (err = pml_check_buf(comm, buf, count, datatype, fn, &dt)) ||
                    (err = pml_check_dest(comm, c, dest, tag, fn))))
        return err;
    if (RT_UNLIKELY(dest == MPI_PROC_NULL))
        return MPI_SUCCESS;
    if (RT_UNLIKELY(mode == PML_BUFFERED))
        return pml_bsend_start(buf, (size_t)count, dt, dest, tag, c->pml, fn);
    pml_send_now(buf, (size_t)count, dt, dest, tag, c->pml, mode, &done);
    if (RT_LIKELY(done))
        return MPI_SUCCESS;
    if (mode == PML_STANDARD && pml_send_detached(buf, (size_t)count, dt, dest, tag, c->pml))
        return MPI_SUCCESS;
    r = pml_req_alloc();
    if (!r)
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    pml_isend(buf, (size_t)count, dt, dest, tag, c->pml, mode, r);
    pml_wait(r);
    err = r->base.status.MPI_ERROR;
    pml_req_release(r);
    if (RT_UNLIKELY(err))
        return rdmpi_err_comm(comm, err, fn, "the send to rank %d failed", dest);
    return MPI_SUCCESS;
}

static int isend_common(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, enum pml_mode mode, MPI_Request *request, const char *fn)
{
    struct rdmpi_comm *c;
    struct rdmpi_datatype *dt;
    struct pml_req *r;
    int err;

    RT_CHECK_INIT(fn);
    if (RT_UNLIKELY((err = pml_check_comm(comm, fn, &c)) ||
                    (err = pml_check_buf(comm, buf, count, datatype, fn, &dt)) ||
                    (err = pml_check_dest(comm, c, dest, tag, fn)) ||
                    (err = pml_check_reqp(comm, request, fn))))
        return err;
    if (RT_UNLIKELY(dest == MPI_PROC_NULL || mode == PML_BUFFERED)) {
        /* A buffered send is complete once copied. */
        if (dest != MPI_PROC_NULL &&
            (err = pml_bsend_start(buf, (size_t)count, dt, dest, tag, c->pml, fn)))
            return err;
        r = pml_req_done(comm, dest == MPI_PROC_NULL);
    } else {
        /* A small message that goes out at once needs no protocol state:
         * hand back a request that is already complete. */
        bool done = false;
        if (mode != PML_SYNC)
            pml_send_now(buf, (size_t)count, dt, dest, tag, c->pml, mode, &done);
        if (done) {
            r = pml_req_done(comm, 0);
        } else if ((r = pml_req_alloc())) {
            pml_isend(buf, (size_t)count, dt, dest, tag, c->pml, mode, r);
        }
    }
    if (!r)
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

static int recv_common(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Status *status, const char *fn)
{
    struct rdmpi_comm *c;
    struct rdmpi_datatype *dt;
    struct pml_req *r;
    int err;

    RT_CHECK_INIT(fn);
    if (RT_UNLIKELY((err = pml_check_comm(comm, fn, &c)) ||
                    (err = pml_check_buf(comm, buf, count, datatype, fn, &dt)) ||
                    (err = pml_check_source(comm, c, source, tag, fn))))
        return err;
    if (RT_UNLIKELY(source == MPI_PROC_NULL)) {
        pml_status_proc_null(status);
        return MPI_SUCCESS;
    }
    r = pml_req_alloc();
    if (!r)
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    pml_recv_setup(r, buf, (size_t)count, dt, source, tag, c->pml);
    pml_irecv(r);
    pml_wait(r);
    if (status != MPI_STATUS_IGNORE)
        rt_status_give(status, &r->base.status);
    err = r->base.status.MPI_ERROR;
    pml_req_release(r);
    if (RT_UNLIKELY(err))
        return rdmpi_err_comm(comm, err, fn,
                              err == MPI_ERR_TRUNCATE
                                  ? "the message is longer than the receive buffer (count %lld)"
                                  : "the receive failed (count %lld)",
                              (long long)count);
    return MPI_SUCCESS;
}

static int irecv_common(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Request *request, const char *fn)
{
    struct rdmpi_comm *c;
    struct rdmpi_datatype *dt;
    struct pml_req *r;
    int err;

    RT_CHECK_INIT(fn);
    if (RT_UNLIKELY((err = pml_check_comm(comm, fn, &c)) ||
                    (err = pml_check_buf(comm, buf, count, datatype, fn, &dt)) ||
                    (err = pml_check_source(comm, c, source, tag, fn)) ||
                    (err = pml_check_reqp(comm, request, fn))))
        return err;
    if (RT_UNLIKELY(source == MPI_PROC_NULL)) {
        r = pml_req_done(comm, 1);
    } else {
        r = pml_req_alloc();
        if (r) {
            pml_recv_setup(r, buf, (size_t)count, dt, source, tag, c->pml);
            pml_irecv(r);
        }
    }
    if (!r)
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

struct pml_req *pml_req_done(MPI_Comm comm, int proc_null)
{
    struct pml_req *r = pml_req_alloc();

    if (!r)
        return NULL;
    r->send = 1;
    r->base.comm = comm;
    rt_status_empty(&r->base.status);
    if (proc_null)
        pml_status_proc_null(&r->base.status);
    r->state = PML_S_DONE;
    r->base.complete = 1;
    return r;
}

#define SEND_API(NAME, CT, MODE)                                                                   \
    int PMPI_##NAME(const void *buf, CT count, MPI_Datatype datatype, int dest, int tag,           \
                    MPI_Comm comm)                                                                 \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return send_common(buf, count, datatype, dest, tag, comm, MODE, "MPI_" #NAME);             \
    }
#define ISEND_API(NAME, CT, MODE)                                                                  \
    int PMPI_##NAME(const void *buf, CT count, MPI_Datatype datatype, int dest, int tag,           \
                    MPI_Comm comm, MPI_Request *request)                                           \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return isend_common(buf, count, datatype, dest, tag, comm, MODE, request, "MPI_" #NAME);   \
    }

#pragma weak MPI_Send = PMPI_Send
SEND_API(Send, int, PML_STANDARD)
#pragma weak MPI_Send_c = PMPI_Send_c
SEND_API(Send_c, MPI_Count, PML_STANDARD)
#pragma weak MPI_Ssend = PMPI_Ssend
SEND_API(Ssend, int, PML_SYNC)
#pragma weak MPI_Ssend_c = PMPI_Ssend_c
SEND_API(Ssend_c, MPI_Count, PML_SYNC)
#pragma weak MPI_Rsend = PMPI_Rsend
SEND_API(Rsend, int, PML_READY)
#pragma weak MPI_Rsend_c = PMPI_Rsend_c
SEND_API(Rsend_c, MPI_Count, PML_READY)
#pragma weak MPI_Bsend = PMPI_Bsend
SEND_API(Bsend, int, PML_BUFFERED)
#pragma weak MPI_Bsend_c = PMPI_Bsend_c
SEND_API(Bsend_c, MPI_Count, PML_BUFFERED)
#pragma weak MPI_Isend = PMPI_Isend
ISEND_API(Isend, int, PML_STANDARD)
#pragma weak MPI_Isend_c = PMPI_Isend_c
ISEND_API(Isend_c, MPI_Count, PML_STANDARD)
#pragma weak MPI_Issend = PMPI_Issend
ISEND_API(Issend, int, PML_SYNC)
#pragma weak MPI_Issend_c = PMPI_Issend_c
ISEND_API(Issend_c, MPI_Count, PML_SYNC)
#pragma weak MPI_Irsend = PMPI_Irsend
ISEND_API(Irsend, int, PML_READY)
#pragma weak MPI_Irsend_c = PMPI_Irsend_c
ISEND_API(Irsend_c, MPI_Count, PML_READY)
#pragma weak MPI_Ibsend = PMPI_Ibsend
ISEND_API(Ibsend, int, PML_BUFFERED)
#pragma weak MPI_Ibsend_c = PMPI_Ibsend_c
ISEND_API(Ibsend_c, MPI_Count, PML_BUFFERED)

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    RT_API_ENTER();
    return recv_common(buf, count, datatype, source, tag, comm, status, "MPI_Recv");
}

#pragma weak MPI_Recv_c = PMPI_Recv_c
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status)
{
    RT_API_ENTER();
    return recv_common(buf, count, datatype, source, tag, comm, status, "MPI_Recv_c");
}

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    RT_API_ENTER();
    return irecv_common(buf, count, datatype, source, tag, comm, request, "MPI_Irecv");
}

#pragma weak MPI_Irecv_c = PMPI_Irecv_c
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    RT_API_ENTER();
    return irecv_common(buf, count, datatype, source, tag, comm, request, "MPI_Irecv_c");
}

/* Sendrecv: both halves posted before either is waited for, so two ranks
 * exchanging with each other cannot deadlock. */
static int sendrecv_common(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                           MPI_Status *status, const char *fn)
{
    MPI_Request reqs[2];
    MPI_Status st[2];
    int err;

    if ((err = irecv_common(recvbuf, recvcount, recvtype, source, recvtag, comm, &reqs[0], fn)))
        return err;
    if ((err = isend_common(sendbuf, sendcount, sendtype, dest, sendtag, comm, PML_STANDARD,
                            &reqs[1], fn))) {
        PMPI_Cancel(&reqs[0]);
        PMPI_Request_free(&reqs[0]);
        return err;
    }
    /* Errors are reported once, on the communicator, not as IN_STATUS. */
    for (int i = 0; i < 2; i++) {
        struct pml_req *r = (struct pml_req *)reqs[i];
        pml_wait(r);
        st[i] = r->base.status;
        pml_req_release(r);
    }
    if (status != MPI_STATUS_IGNORE)
        *status = st[0];
    if ((err = st[0].MPI_ERROR ? st[0].MPI_ERROR : st[1].MPI_ERROR))
        return rdmpi_err_comm(comm, err, fn, "the %s half failed",
                              st[0].MPI_ERROR ? "receive" : "send");
    return MPI_SUCCESS;
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    RT_API_ENTER();
    return sendrecv_common(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                           recvtype, source, recvtag, comm, status, "MPI_Sendrecv");
}

#pragma weak MPI_Sendrecv_c = PMPI_Sendrecv_c
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    RT_API_ENTER();
    return sendrecv_common(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                           recvtype, source, recvtag, comm, status, "MPI_Sendrecv_c");
}
