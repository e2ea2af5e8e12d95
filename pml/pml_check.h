/* Argument checks of the point-to-point API (those the collectives share
 * are in pml_api.h): each raises the right error class with a message
 * naming the function, the argument and the fix. Private to the files in pml/. */
#ifndef PML_CHECK_H
#define PML_CHECK_H

#include "pml.h"

static inline int pml_check_dest(MPI_Comm comm, const struct rdmpi_comm *c, int dest, int tag,
                                 const char *fn)
{
    if (RT_UNLIKELY(dest != MPI_PROC_NULL && (dest < 0 || dest >= c->remote_size)))
        return rdmpi_err_comm(comm, MPI_ERR_RANK, fn,
                              "dest is %d but the communicator has %d %sranks; pass 0..%d or "
                              "MPI_PROC_NULL",
                              dest, c->remote_size, c->inter ? "remote " : "", c->remote_size - 1);
    if (RT_UNLIKELY(tag < 0 || tag > PML_TAG_UB))
        return rdmpi_err_comm(comm, MPI_ERR_TAG, fn,
                              "tag is %d; send tags must be in 0..MPI_TAG_UB (%d)", tag,
                              PML_TAG_UB);
    return MPI_SUCCESS;
}

static inline int pml_check_source(MPI_Comm comm, const struct rdmpi_comm *c, int source, int tag,
                                   const char *fn)
{
    if (RT_UNLIKELY(source != MPI_PROC_NULL && source != MPI_ANY_SOURCE &&
                    (source < 0 || source >= c->remote_size)))
        return rdmpi_err_comm(comm, MPI_ERR_RANK, fn,
                              "source is %d but the communicator has %d %sranks; pass 0..%d, "
                              "MPI_ANY_SOURCE or MPI_PROC_NULL",
                              source, c->remote_size, c->inter ? "remote " : "",
                              c->remote_size - 1);
    if (RT_UNLIKELY(tag != MPI_ANY_TAG && (tag < 0 || tag > PML_TAG_UB)))
        return rdmpi_err_comm(comm, MPI_ERR_TAG, fn,
                              "tag is %d; receive tags must be in 0..MPI_TAG_UB (%d) or "
                              "MPI_ANY_TAG",
                              tag, PML_TAG_UB);
    return MPI_SUCCESS;
}

/* A status for a receive from MPI_PROC_NULL; MPI_ERROR is left alone
 * (only the calls that return several statuses set it). */
static inline void pml_status_proc_null(MPI_Status *s)
{
    if (s == MPI_STATUS_IGNORE)
        return;
    s->MPI_SOURCE = MPI_PROC_NULL;
    s->MPI_TAG = MPI_ANY_TAG;
    s->rdmpi_cancelled = 0;
    s->rdmpi_count = 0;
}

/* A request that is complete from the start (MPI_PROC_NULL, Ibsend). */
struct pml_req *pml_req_done(MPI_Comm comm, int proc_null);

/* Internal: receive setup shared by Recv, Irecv, Recv_init, Mrecv. */
static inline void pml_recv_setup(struct pml_req *r, void *buf, size_t count,
                                  struct rdmpi_datatype *dt, int source, int tag,
                                  struct pml_comm *pc)
{
    r->send = 0;
    r->base.type = RT_REQ_RECV;
    r->base.comm = pc->handle;
    r->buf = buf;
    r->count = count;
    pml_req_set_dt(r, dt);
    r->len = count * dt->size;
    r->peer = source;
    r->tag = tag;
    r->pc = pc;
}

int pml_bsend_start(const void *buf, size_t count, struct rdmpi_datatype *dt, int dest, int tag,
                    struct pml_comm *pc, const char *fn);

#endif
