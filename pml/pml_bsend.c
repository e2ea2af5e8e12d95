/* Buffered sends: the message is packed into an attached buffer and sent
 * from there by an internal request, which gives the space back when it
 * completes. A buffer is a first-fit list of regions, or with
 * MPI_BUFFER_AUTOMATIC memory we allocate per message. The buffer used is
 * the communicator's if one is attached (MPI_Comm_attach_buffer), else its
 * session's, else the process's (MPI_Buffer_attach), as MPI-4.1 says. */
#include "pml_check.h"
#include "session.h"

#include <stdlib.h>
#include <string.h>

struct pml_bbuf {
    char *buf; /* the user's, or MPI_BUFFER_AUTOMATIC; NULL: none */
    size_t size;
    struct bregion *regions;
    int inflight;            /* messages sent from it, not yet complete */
    struct pml_link flushes; /* MPI_*_iflush_buffer requests waiting for inflight 0 */
};

/* Each message's space starts with this header (within MPI_BSEND_OVERHEAD). */
struct bregion {
    size_t size; /* bytes including this header */
    int used;
    struct bregion *next; /* next region by address */
    struct pml_bbuf *owner;
};

static struct pml_bbuf proc = {.flushes = {&proc.flushes, &proc.flushes}};

static void *balloc(struct pml_bbuf *bb, size_t need)
{
    if (bb->buf == MPI_BUFFER_AUTOMATIC) {
        struct bregion *b = malloc(sizeof(*b) + need);

        if (!b)
            return NULL;
        b->owner = bb;
        return b + 1;
    }
    need = (need + sizeof(struct bregion) + 15) & ~(size_t)15;
    for (struct bregion *b = bb->regions; b; b = b->next) {
        if (b->used || b->size < need)
            continue;
        if (b->size >= need + sizeof(struct bregion) + 64) {
            struct bregion *rest = (struct bregion *)((char *)b + need);
            rest->size = b->size - need;
            rest->used = 0;
            rest->next = b->next;
            b->next = rest;
            b->size = need;
        }
        b->used = 1;
        b->owner = bb;
        return b + 1;
    }
    return NULL;
}

static void bfree(void *p)
{
    struct bregion *b = (struct bregion *)p - 1;
    struct pml_bbuf *bb = b->owner;

    if (bb->buf == MPI_BUFFER_AUTOMATIC) {
        free(b);
        return;
    }
    b->used = 0;
    /* Merge free neighbours so space does not fragment away. */
    for (b = bb->regions; b && b->next;) {
        if (!b->used && !b->next->used) {
            b->size += b->next->size;
            b->next = b->next->next;
        } else {
            b = b->next;
        }
    }
}

void pml_bsend_done(struct pml_req *r)
{
    struct pml_bbuf *bb = ((struct bregion *)r->bsend_buf - 1)->owner;

    bfree(r->bsend_buf);
    r->bsend_buf = NULL;
    if (--bb->inflight)
        return;
    while (!pml_list_empty(&bb->flushes)) {
        struct pml_req *f = pml_container(bb->flushes.next, struct pml_req, link);
        pml_list_remove(&f->link);
        pml_req_complete(f);
    }
}

static struct pml_bbuf *buffer_for(struct pml_comm *pc)
{
    struct rdmpi_comm *c = rt_comm_get(pc->handle);
    struct rdmpi_session *s = c && c->session ? rt_session_get(c->session) : NULL;
    struct pml_bbuf *sb = s ? s->bbuf : NULL;

    /* A detached buffer leaves its object behind: skip it. */
    if (pc->bbuf && pc->bbuf->buf)
        return pc->bbuf;
    return sb && sb->buf ? sb : &proc;
}

int pml_bsend_start(const void *buf, size_t count, struct rdmpi_datatype *dt, int dest, int tag,
                    struct pml_comm *pc, const char *fn)
{
    struct pml_bbuf *bb = buffer_for(pc);
    size_t len = count * dt->size;
    struct pml_req *r;
    void *copy;
    unsigned spins = 0;

    /* Space held by messages still in flight comes back as they finish;
     * only when none are left is the buffer truly too small. */
    while (!(copy = bb->buf ? balloc(bb, len) : NULL) && bb->inflight) {
        if (!pml_progress())
            rt_progress_idle(&spins);
    }
    if (!copy)
        return rdmpi_err_comm(pc->handle, MPI_ERR_BUFFER, fn,
                              "no room for %zu bytes in the attached buffer (%zu bytes, %s); "
                              "attach a larger one with MPI_Buffer_attach (each message needs "
                              "its size plus MPI_BSEND_OVERHEAD) or attach "
                              "MPI_BUFFER_AUTOMATIC",
                              len, bb->size, bb->buf ? "partly in use" : "none attached");
    if (!(r = pml_req_alloc())) {
        bfree(copy);
        return rdmpi_err_comm(pc->handle, MPI_ERR_NO_MEM, fn, "out of requests");
    }
    r->internal = 1;
    /* A message to self may wait (rendezvous) for a receive that only this
     * process can post, perhaps after the detach that would wait for it:
     * it goes from a private copy and leaves the buffer at once. */
    if (pml_world(pc, dest) == rt.rank) {
        bfree(copy);
        if (!(copy = malloc(len ? len : 1))) {
            pml_req_release(r);
            return rdmpi_err_comm(pc->handle, MPI_ERR_NO_MEM, fn,
                                  "out of memory copying a %zu-byte message to self", len);
        }
        r->tmp = copy;
    } else {
        r->bsend_buf = copy;
        bb->inflight++;
    }
    rt_dt_pack(dt, buf, count, 0, copy, len);
    return pml_isend(copy, len, rt_dt_get(MPI_BYTE), dest, tag, pc, PML_STANDARD, r);
}

/* ---- attach, detach, flush: one body for process, communicator and
 * session buffers; `handle` is where errors go ---- */

static int attach(struct pml_bbuf *bb, MPI_Comm handle, void *buffer, MPI_Count size,
                  const char *fn)
{
    if (bb->buf)
        return rdmpi_err_comm(handle, MPI_ERR_BUFFER, fn,
                              "a buffer is already attached; detach it first");
    if (buffer == MPI_BUFFER_AUTOMATIC) {
        bb->buf = MPI_BUFFER_AUTOMATIC;
        bb->size = 0;
        return MPI_SUCCESS;
    }
    if (size < 0 || (size > 0 && !buffer))
        return rdmpi_err_comm(handle, MPI_ERR_ARG, fn, "invalid buffer or size %lld",
                              (long long)size);
    if ((size_t)size < sizeof(struct bregion) + 16)
        return MPI_SUCCESS; /* too small to hold anything; attach nothing */
    bb->buf = buffer;
    bb->size = (size_t)size;
    bb->regions = (struct bregion *)(((uintptr_t)buffer + 15) & ~(uintptr_t)15);
    bb->regions->size = bb->size - (size_t)((char *)bb->regions - bb->buf);
    bb->regions->used = 0;
    bb->regions->next = NULL;
    return MPI_SUCCESS;
}

/* Waits until every message sent from bb is complete. */
static void flush(struct pml_bbuf *bb)
{
    unsigned spins = 0;

    while (bb->inflight) {
        if (!pml_progress())
            rt_progress_idle(&spins);
    }
}

/* The standard: detach waits until every buffered message is sent. */
static int detach(struct pml_bbuf *bb, MPI_Comm handle, void *buffer_addr, MPI_Count *size,
                  const char *fn)
{
    if (!buffer_addr || !size)
        return rdmpi_err_comm(handle, MPI_ERR_ARG, fn, "%s is NULL",
                              buffer_addr ? "size" : "buffer_addr");
    flush(bb);
    *(void **)buffer_addr = bb->buf;
    *size = (MPI_Count)bb->size;
    bb->buf = NULL;
    bb->size = 0;
    bb->regions = NULL;
    return MPI_SUCCESS;
}

static int iflush(struct pml_bbuf *bb, MPI_Comm handle, MPI_Request *request, const char *fn)
{
    struct pml_req *r;

    if (!request)
        return rdmpi_err_comm(handle, MPI_ERR_ARG, fn,
                              "request is NULL; pass the address of an MPI_Request");
    if (!(r = pml_req_done(handle, 0)))
        return rdmpi_err_comm(handle, MPI_ERR_NO_MEM, fn, "out of requests");
    if (bb->inflight) {
        r->state = PML_S_PAIR;
        r->other = PML_NO_HANDLE; /* nothing for MPI_Cancel to take back */
        r->base.complete = 0;
        pml_list_append(&bb->flushes, &r->link);
    }
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

/* A communicator's or session's buffer object, made on first attach. */
static struct pml_bbuf *bbuf_new(void)
{
    struct pml_bbuf *bb = calloc(1, sizeof(*bb));

    if (bb)
        pml_list_init(&bb->flushes);
    return bb;
}

/* An object going away takes its buffer with it, as a detach would. */
void pml_bsend_session_free(void *bbuf)
{
    if (!bbuf)
        return;
    flush(bbuf);
    free(bbuf);
}

void pml_bsend_comm_free(struct pml_comm *pc)
{
    pml_bsend_session_free(pc->bbuf);
    pc->bbuf = NULL;
}

/* A communicator's buffer (made when make is set); NULL after raising. */
static struct pml_bbuf *comm_buffer(MPI_Comm comm, bool make, const char *fn, int *err)
{
    struct rdmpi_comm *c;
    struct pml_comm *pc;

    RT_CHECK_INIT(fn);
    if ((*err = pml_check_comm(comm, fn, &c)))
        return NULL;
    pc = c->pml;
    if (make && !pc->bbuf && !(pc->bbuf = bbuf_new()))
        *err = rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    else if (!make && (!pc->bbuf || !pc->bbuf->buf))
        *err = rdmpi_err_comm(comm, MPI_ERR_BUFFER, fn,
                              "no buffer is attached to this "
                              "communicator; MPI_Comm_attach_buffer one first");
    return *err ? NULL : pc->bbuf;
}

/* A session's buffer, as comm_buffer. */
static struct pml_bbuf *session_buffer(MPI_Session session, bool make, const char *fn, int *err)
{
    struct rdmpi_session *s = rt_session_get(session);
    struct pml_bbuf *bb;

    *err = MPI_SUCCESS;
    if (!s)
        *err = rdmpi_err_session(session, MPI_ERR_SESSION, fn,
                                 "session is not a valid "
                                 "session (MPI_SESSION_NULL, finalized, or not a session)");
    else if (make && !s->bbuf && !(s->bbuf = bbuf_new()))
        *err = rdmpi_err_session(session, MPI_ERR_NO_MEM, fn, "out of memory");
    else if (!make && (!(bb = s->bbuf) || !bb->buf))
        *err = rdmpi_err_session(session, MPI_ERR_BUFFER, fn,
                                 "no buffer is attached to this "
                                 "session; MPI_Session_attach_buffer one first");
    return *err ? NULL : s->bbuf;
}

/* ---- the API ---- */

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    RT_API_ENTER();
    RT_CHECK_INIT("MPI_Buffer_attach");
    return attach(&proc, MPI_COMM_SELF, buffer, size, "MPI_Buffer_attach");
}

#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    RT_API_ENTER();
    RT_CHECK_INIT("MPI_Buffer_attach_c");
    return attach(&proc, MPI_COMM_SELF, buffer, size, "MPI_Buffer_attach_c");
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    RT_API_ENTER();
    MPI_Count s = 0;
    int err;

    RT_CHECK_INIT("MPI_Buffer_detach");
    err = detach(&proc, MPI_COMM_SELF, buffer_addr, size ? &s : NULL, "MPI_Buffer_detach");
    if (!err)
        *size = (int)s;
    return err;
}

#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    RT_API_ENTER();
    RT_CHECK_INIT("MPI_Buffer_detach_c");
    return detach(&proc, MPI_COMM_SELF, buffer_addr, size, "MPI_Buffer_detach_c");
}

#pragma weak MPI_Buffer_flush = PMPI_Buffer_flush
int PMPI_Buffer_flush(void)
{
    RT_API_ENTER();
    RT_CHECK_INIT("MPI_Buffer_flush");
    flush(&proc);
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_iflush = PMPI_Buffer_iflush
int PMPI_Buffer_iflush(MPI_Request *request)
{
    RT_API_ENTER();
    RT_CHECK_INIT("MPI_Buffer_iflush");
    return iflush(&proc, MPI_COMM_SELF, request, "MPI_Buffer_iflush");
}

#define COMM_API(NAME, MAKE, CALL)                                                                 \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        int err;                                                                                   \
        struct pml_bbuf *bb = comm_buffer(comm, MAKE, "MPI_" #NAME, &err);                         \
        return bb ? CALL : err;                                                                    \
    }

#pragma weak MPI_Comm_attach_buffer = PMPI_Comm_attach_buffer
int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
    COMM_API(Comm_attach_buffer, true, attach(bb, comm, buffer, size, "MPI_Comm_attach_buffer"))

#pragma weak MPI_Comm_attach_buffer_c = PMPI_Comm_attach_buffer_c
        int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
            COMM_API(Comm_attach_buffer_c, true,
                     attach(bb, comm, buffer, size, "MPI_Comm_attach_buffer_c"))

#pragma weak MPI_Comm_detach_buffer = PMPI_Comm_detach_buffer
                int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    RT_API_ENTER();
    MPI_Count s = 0;
    int err;
    struct pml_bbuf *bb = comm_buffer(comm, false, "MPI_Comm_detach_buffer", &err);

    if (!bb || (err = detach(bb, comm, buffer_addr, size ? &s : NULL, "MPI_Comm_detach_buffer")))
        return err;
    *size = (int)s;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_detach_buffer_c = PMPI_Comm_detach_buffer_c
int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
    COMM_API(Comm_detach_buffer_c, false,
             detach(bb, comm, buffer_addr, size, "MPI_Comm_detach_buffer_c"))

#pragma weak MPI_Comm_flush_buffer = PMPI_Comm_flush_buffer
        int PMPI_Comm_flush_buffer(MPI_Comm comm)
            COMM_API(Comm_flush_buffer, false, (flush(bb), MPI_SUCCESS))

#pragma weak MPI_Comm_iflush_buffer = PMPI_Comm_iflush_buffer
                int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
                    COMM_API(Comm_iflush_buffer, false,
                             iflush(bb, comm, request, "MPI_Comm_iflush_buffer"))

#define SESSION_API(NAME, MAKE, CALL)                                                              \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        int err;                                                                                   \
        struct pml_bbuf *bb;                                                                       \
        RT_CHECK_INIT("MPI_" #NAME);                                                               \
        bb = session_buffer(session, MAKE, "MPI_" #NAME, &err);                                    \
        return bb ? CALL : err;                                                                    \
    }

#pragma weak MPI_Session_attach_buffer = PMPI_Session_attach_buffer
                        int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
                            SESSION_API(Session_attach_buffer, true,
                                        attach(bb, MPI_COMM_SELF, buffer, size,
                                               "MPI_Session_attach_buffer"))

#pragma weak MPI_Session_attach_buffer_c = PMPI_Session_attach_buffer_c
                                int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer,
                                                                 MPI_Count size)
                                    SESSION_API(Session_attach_buffer_c, true,
                                                attach(bb, MPI_COMM_SELF, buffer, size,
                                                       "MPI_Session_attach_buffer_c"))

#pragma weak MPI_Session_detach_buffer = PMPI_Session_detach_buffer
                                        int PMPI_Session_detach_buffer(MPI_Session session,
                                                                       void *buffer_addr, int *size)
{
    RT_API_ENTER();
    MPI_Count s = 0;
    int err;
    struct pml_bbuf *bb;

    RT_CHECK_INIT("MPI_Session_detach_buffer");
    if (!(bb = session_buffer(session, false, "MPI_Session_detach_buffer", &err)) ||
        (err =
             detach(bb, MPI_COMM_SELF, buffer_addr, size ? &s : NULL, "MPI_Session_detach_buffer")))
        return err;
    *size = (int)s;
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_detach_buffer_c = PMPI_Session_detach_buffer_c
int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
    SESSION_API(Session_detach_buffer_c, false,
                detach(bb, MPI_COMM_SELF, buffer_addr, size, "MPI_Session_detach_buffer_c"))

#pragma weak MPI_Session_flush_buffer = PMPI_Session_flush_buffer
        int PMPI_Session_flush_buffer(MPI_Session session)
            SESSION_API(Session_flush_buffer, false, (flush(bb), MPI_SUCCESS))

#pragma weak MPI_Session_iflush_buffer = PMPI_Session_iflush_buffer
                int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
                    SESSION_API(Session_iflush_buffer, false,
                                iflush(bb, MPI_COMM_SELF, request, "MPI_Session_iflush_buffer"))
