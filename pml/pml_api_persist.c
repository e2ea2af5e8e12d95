/* Persistent point-to-point requests: MPI_*_init records the arguments,
 * MPI_Start runs one operation with them, completion leaves the request
 * inactive for the next start. */
#include "pml_check.h"

static int persist_start(struct rdmpi_request *br);
static void persist_release(struct rdmpi_request *br)
{
    pml_req_release((struct pml_req *)br);
}
static const struct rt_req_ops persist_ops = {
    .start = persist_start, .cancel = pml_req_cancel, .release = persist_release};

static int persist_start(struct rdmpi_request *br)
{
    struct pml_req *r = (struct pml_req *)br;

    r->base.complete = 0;
    r->base.active = 1;
    r->done = r->issued = 0;
    r->put_wait = 0;
    r->inflight = 0;
    r->error = 0;
    if (r->peer == MPI_PROC_NULL) {
        rt_status_empty(&r->base.status);
        pml_status_proc_null(&r->base.status);
        r->base.complete = 1;
        return MPI_SUCCESS;
    }
    if (r->send) {
        if (r->mode == PML_BUFFERED) {
            int err = pml_bsend_start(r->buf, r->count, r->dt, r->peer, r->tag, r->pc, "MPI_Start");
            rt_status_empty(&r->base.status);
            r->base.complete = 1;
            return err;
        }
        return pml_isend(r->buf, r->count, r->dt, r->peer, r->tag, r->pc, r->mode, r);
    }
    r->len = r->count * r->dt->size;
    return pml_irecv(r);
}

static int send_init(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, enum pml_mode mode, MPI_Request *request, const char *fn)
{
    struct rdmpi_comm *c;
    struct rdmpi_datatype *dt;
    struct pml_req *r;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = pml_check_comm(comm, fn, &c)) ||
        (err = pml_check_buf(comm, buf, count, datatype, fn, &dt)) ||
        (err = pml_check_dest(comm, c, dest, tag, fn)) || (err = pml_check_reqp(comm, request, fn)))
        return err;
    if (!(r = pml_req_alloc()))
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    r->send = 1;
    r->base.type = RT_REQ_SEND;
    r->base.comm = comm;
    r->base.persistent = 1;
    r->base.ops = &persist_ops;
    r->buf = (void *)buf;
    r->count = (size_t)count;
    pml_req_set_dt(r, dt);
    r->peer = dest;
    r->tag = tag;
    r->pc = c->pml;
    r->mode = (uint8_t)mode;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

static int recv_init(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request, const char *fn)
{
    struct rdmpi_comm *c;
    struct rdmpi_datatype *dt;
    struct pml_req *r;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = pml_check_comm(comm, fn, &c)) ||
        (err = pml_check_buf(comm, buf, count, datatype, fn, &dt)) ||
        (err = pml_check_source(comm, c, source, tag, fn)) ||
        (err = pml_check_reqp(comm, request, fn)))
        return err;
    if (!(r = pml_req_alloc()))
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    pml_recv_setup(r, buf, (size_t)count, dt, source, tag, c->pml);
    r->base.persistent = 1;
    r->base.ops = &persist_ops;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

#define SEND_INIT_API(NAME, CT, MODE)                                                              \
    int PMPI_##NAME(const void *buf, CT count, MPI_Datatype datatype, int dest, int tag,           \
                    MPI_Comm comm, MPI_Request *request)                                           \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return send_init(buf, count, datatype, dest, tag, comm, MODE, request, "MPI_" #NAME);      \
    }

#pragma weak MPI_Send_init = PMPI_Send_init
SEND_INIT_API(Send_init, int, PML_STANDARD)
#pragma weak MPI_Send_init_c = PMPI_Send_init_c
SEND_INIT_API(Send_init_c, MPI_Count, PML_STANDARD)
#pragma weak MPI_Ssend_init = PMPI_Ssend_init
SEND_INIT_API(Ssend_init, int, PML_SYNC)
#pragma weak MPI_Ssend_init_c = PMPI_Ssend_init_c
SEND_INIT_API(Ssend_init_c, MPI_Count, PML_SYNC)
#pragma weak MPI_Rsend_init = PMPI_Rsend_init
SEND_INIT_API(Rsend_init, int, PML_READY)
#pragma weak MPI_Rsend_init_c = PMPI_Rsend_init_c
SEND_INIT_API(Rsend_init_c, MPI_Count, PML_READY)
#pragma weak MPI_Bsend_init = PMPI_Bsend_init
SEND_INIT_API(Bsend_init, int, PML_BUFFERED)
#pragma weak MPI_Bsend_init_c = PMPI_Bsend_init_c
SEND_INIT_API(Bsend_init_c, MPI_Count, PML_BUFFERED)

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    RT_API_ENTER();
    return recv_init(buf, count, datatype, source, tag, comm, request, "MPI_Recv_init");
}

#pragma weak MPI_Recv_init_c = PMPI_Recv_init_c
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    RT_API_ENTER();
    return recv_init(buf, count, datatype, source, tag, comm, request, "MPI_Recv_init_c");
}
