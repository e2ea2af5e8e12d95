/* Probe and matched probe: look at (or take) the first unexpected message
 * that matches, driving progress until one arrives. */
#include "obj.h"
#include "pml_check.h"

/* An MPI_Message: a message taken off the unexpected queue by Mprobe. */
struct rdmpi_message {
    struct rt_obj obj;
    struct pml_frag *frag;
    struct pml_comm *pc;
};

static int probe_common(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                        bool want_msg, MPI_Status *status, bool block, const char *fn)
{
    struct rdmpi_comm *c;
    struct pml_frag *f;
    unsigned spins = 0;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = pml_check_comm(comm, fn, &c)) || (err = pml_check_source(comm, c, source, tag, fn)))
        return err;
    if ((!block && !flag) || (want_msg && !message))
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL",
                              want_msg && !message ? "message" : "flag");
    if (source == MPI_PROC_NULL) {
        pml_status_proc_null(status);
        if (flag)
            *flag = 1;
        if (want_msg)
            *message = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    for (;;) {
        int progressed;

        if ((f = pml_find_unexpected(c->pml, source, tag, want_msg)))
            break;
        progressed = pml_progress();
        if ((f = pml_find_unexpected(c->pml, source, tag, want_msg)))
            break;
        if (!block) {
            *flag = 0;
            if (want_msg)
                *message = MPI_MESSAGE_NULL;
            return MPI_SUCCESS;
        }
        if (!progressed)
            rt_progress_wait(&spins);
    }
    if (status != MPI_STATUS_IGNORE)
        pml_status_from_frag(status, f);
    if (flag)
        *flag = 1;
    if (want_msg) {
        struct rdmpi_message *m = rt_obj_new(RT_KIND_MESSAGE, sizeof(*m));
        if (!m)
            return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of memory");
        m->frag = f;
        m->pc = c->pml;
        *message = (MPI_Message)m;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    RT_API_ENTER();
    return probe_common(source, tag, comm, NULL, NULL, false, status, true, "MPI_Probe");
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    RT_API_ENTER();
    return probe_common(source, tag, comm, flag, NULL, false, status, false, "MPI_Iprobe");
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    RT_API_ENTER();
    return probe_common(source, tag, comm, NULL, message, true, status, true, "MPI_Mprobe");
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    RT_API_ENTER();
    return probe_common(source, tag, comm, flag, message, true, status, false, "MPI_Improbe");
}

/* Starts receiving a matched message; r completes as a normal receive. */
static int mrecv_start(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                       struct pml_req **out, const char *fn)
{
    struct rdmpi_message *m;
    struct rdmpi_datatype *dt;
    struct pml_req *r;
    MPI_Comm comm;
    int err;

    RT_CHECK_INIT(fn);
    if (!message)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "message is NULL");
    if (*message == MPI_MESSAGE_NO_PROC) {
        r = pml_req_done(MPI_COMM_SELF, 1);
        *message = MPI_MESSAGE_NULL;
        *out = r;
        return r ? MPI_SUCCESS
                 : rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "out of requests");
    }
    m = (struct rdmpi_message *)*message;
    if ((uintptr_t)*message < RDMPI_PREDEF_LIMIT || m->obj.kind != RT_KIND_MESSAGE)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, fn,
                              "message is not a message from MPI_Mprobe/MPI_Improbe "
                              "(or it was received already)");
    comm = m->pc->handle;
    if ((err = pml_check_buf(comm, buf, count, datatype, fn, &dt)))
        return err;
    r = pml_req_alloc();
    if (!r)
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    pml_recv_setup(r, buf, (size_t)count, dt, m->frag->hdr.m.src, m->frag->hdr.m.tag, m->pc);
    pml_recv_from_frag(r, m->frag);
    rt_obj_delete(m);
    *message = MPI_MESSAGE_NULL;
    *out = r;
    return MPI_SUCCESS;
}

static int mrecv_common(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                        MPI_Status *status, const char *fn)
{
    struct pml_req *r;
    MPI_Comm comm;
    int err = mrecv_start(buf, count, datatype, message, &r, fn);

    if (err)
        return err;
    pml_wait(r);
    if (status != MPI_STATUS_IGNORE)
        rt_status_give(status, &r->base.status);
    err = r->base.status.MPI_ERROR;
    comm = r->base.comm;
    pml_req_release(r);
    return err ? rdmpi_err_comm(comm, err, fn, "the matched receive failed") : MPI_SUCCESS;
}

static int imrecv_common(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                         MPI_Request *request, const char *fn)
{
    struct pml_req *r;
    int err;

    if (!request)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, fn, "request is NULL");
    if ((err = mrecv_start(buf, count, datatype, message, &r, fn)))
        return err;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    RT_API_ENTER();
    return mrecv_common(buf, count, datatype, message, status, "MPI_Mrecv");
}

#pragma weak MPI_Mrecv_c = PMPI_Mrecv_c
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status)
{
    RT_API_ENTER();
    return mrecv_common(buf, count, datatype, message, status, "MPI_Mrecv_c");
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    RT_API_ENTER();
    return imrecv_common(buf, count, datatype, message, request, "MPI_Imrecv");
}

#pragma weak MPI_Imrecv_c = PMPI_Imrecv_c
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request)
{
    RT_API_ENTER();
    return imrecv_common(buf, count, datatype, message, request, "MPI_Imrecv_c");
}
