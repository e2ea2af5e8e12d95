/* What the pml offers the layers above it (coll/, osc/, and whatever in
 * runtime/ or io/ needs it): the only pml header they include. The others
 * (pml.h, pml_check.h, pml_hdr.h) are private to the files in pml/, so a
 * change to the protocols or the request layout stays inside pml/
 * (test/pml/t_private.sh fails `make check` otherwise).
 *
 * Internal traffic: messages the library sends for its own purposes
 * (collective schedules, communicator construction) travel on a
 * communicator's matching state with a negative tag. MPI_ANY_TAG and every
 * user tag (0..PML_TAG_UB) never match one, so they cannot be confused with
 * the user's messages on the same communicator. Their requests are the
 * runtime's generic `struct rdmpi_request`: complete and status are all a
 * caller reads. */
#ifndef PML_API_H
#define PML_API_H

#include "comm.h"
#include "datatype.h"
#include "errors.h"
#include "request.h"
#include "rt.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A communicator's matching state (rdmpi_comm.pml), opaque above the pml. */
struct pml_comm;

/* ---- the tag space ---- */

/* User tags are 0..PML_TAG_UB (MPI_TAG_UB). */
#define PML_TAG_UB INT_MAX

/* Internal tags, by owner. Each range is disjoint from the others:
 *   -2                  the pml's barrier (pml_barrier.c)
 *   -3                  communicator construction (RT_TAG_COMM, comm.h)
 *   -4                  the transport report (pml_stats.c)
 *   -1024 .. -(1024 + 2^20 - 1)   collectives (coll_comm.c)
 *   -(2^21) and below   communicator construction by tag (comm.h) */
#define PML_TAG_BARRIER (-2)
#define PML_TAG_REPORT  (-4)

static inline bool pml_tag_internal(int tag)
{
    return tag < 0 && tag != MPI_ANY_TAG;
}

/* ---- internal traffic ---- */

/* Starts a send of count elements of dt to rank dst of pc on an internal
 * tag. A message that can go at once goes with no request (*req NULL);
 * otherwise *req is the request to test and release. MPI_SUCCESS, or
 * MPI_ERR_NO_MEM when no request could be had (nothing was sent). */
int pml_int_isend(const void *buf, size_t count, struct rdmpi_datatype *dt, int dst, int tag,
                  struct pml_comm *pc, struct rdmpi_request **req);
/* Posts a receive from rank src of pc (or MPI_ANY_SOURCE) on an internal
 * tag; *req as above, never NULL on success. */
int pml_int_irecv(void *buf, size_t count, struct rdmpi_datatype *dt, int src, int tag,
                  struct pml_comm *pc, struct rdmpi_request **req);
/* Whether a message from src (or MPI_ANY_SOURCE) with this internal tag
 * has arrived and not been received; *status then says its source and
 * length (status may be MPI_STATUS_IGNORE). Does not run progress. */
bool pml_int_iprobe(struct pml_comm *pc, int src, int tag, MPI_Status *status);

/* Completion: a request is done once its `complete` is set; its status
 * (MPI_ERROR, rdmpi_count in bytes) is valid from then on, and the caller
 * then releases it. Progress (rt_progress) moves it along. */
static inline bool pml_int_done(const struct rdmpi_request *r)
{
    return __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);
}
void pml_int_release(struct rdmpi_request *r);

/* A blocking exchange of bytes on an internal tag; dst or src may be
 * MPI_PROC_NULL. An MPI error class; a short receive is MPI_ERR_INTERN. */
int pml_comm_sendrecv(struct rdmpi_comm *c, const void *sbuf, size_t slen, int dst, void *rbuf,
                      size_t rlen, int src, int tag);

/* A layer that will post requests on pc later (a collective schedule)
 * holds it, so a communicator freed meanwhile keeps its matching state. */
void pml_comm_hold(struct pml_comm *pc);
void pml_comm_unhold(struct pml_comm *pc);
/* An operation of a layer above (a non-blocking collective's run) is under
 * way on pc from op_start to op_done: MPI_Comm_disconnect waits for it as
 * for the pml's own requests. */
void pml_comm_op_start(struct pml_comm *pc);
void pml_comm_op_done(struct pml_comm *pc);

/* ---- direct access to a peer's memory (pml_rdma.c) ---- */

/* Whether the BTL reaching world rank wpeer reads and writes its memory
 * with no registration, and a blocking read or write of len bytes at raddr
 * there (0, or a negative errno). */
bool pml_direct_ok(int wpeer);
int pml_rdma(int wpeer, void *local, uint64_t raddr, size_t len, bool write);

/* ---- argument checks shared by the MPI entry points ---- */

/* Each raises the right error class with a message naming the function,
 * the argument and the fix, and returns it; MPI_SUCCESS otherwise. */
static inline int pml_check_comm(MPI_Comm comm, const char *fn, struct rdmpi_comm **c)
{
    int err = MPI_ERR_COMM;

    *c = rt_comm_get(comm);
    if (RT_LIKELY(*c != NULL))
        return MPI_SUCCESS;
    rt_comm_check(comm, fn, &err);
    return err;
}

static inline int pml_check_buf(MPI_Comm comm, const void *buf, MPI_Count count,
                                MPI_Datatype datatype, const char *fn, struct rdmpi_datatype **dt)
{
    *dt = NULL;
    if (RT_UNLIKELY(count < 0))
        return rdmpi_err_comm(comm, MPI_ERR_COUNT, fn, "count is %lld; it must be >= 0",
                              (long long)count);
    /* An empty message may name no datatype (as MPICH allows, and codes
     * such as PIO rely on): it is the same empty message in bytes. */
    if (RT_UNLIKELY(datatype == MPI_DATATYPE_NULL && count == 0))
        datatype = MPI_BYTE;
    *dt = rt_dt_get(datatype);
    if (RT_UNLIKELY(!*dt))
        return rdmpi_err_comm(comm, MPI_ERR_TYPE, fn, "datatype is %s",
                              datatype == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                                                            : "not a valid datatype (freed?)");
    if (RT_UNLIKELY(!((*dt)->flags & RT_DT_COMMITTED)))
        return rdmpi_err_comm(comm, MPI_ERR_TYPE, fn,
                              "datatype %s is not committed; call MPI_Type_commit first",
                              (*dt)->name[0] ? (*dt)->name : "(unnamed)");
    /* MPI_BOTTOM with absolute addresses needs a derived type. */
    if (RT_UNLIKELY(!buf && count > 0 && (*dt)->size && ((*dt)->flags & RT_DT_PREDEF)))
        return rdmpi_err_comm(comm, MPI_ERR_BUFFER, fn,
                              "buf is NULL but count is %lld; pass a buffer of count elements",
                              (long long)count);
    return MPI_SUCCESS;
}

static inline int pml_check_reqp(MPI_Comm comm, MPI_Request *request, const char *fn)
{
    if (RT_UNLIKELY(!request))
        return rdmpi_err_comm(comm, MPI_ERR_REQUEST, fn,
                              "request is NULL; pass the address of an MPI_Request");
    return MPI_SUCCESS;
}

#endif
