/* The request pool: slots that never move, so a 64-bit (slot, generation)
 * handle names a request on the wire and a stale handle is detected. */
#include "pml.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK      256
#define MAX_CHUNKS 16384 /* 4 M requests outstanding */

static struct pml_req *chunks[MAX_CHUNKS];
static uint32_t nslots;
static struct pml_req *free_list; /* linked through base.comm */

static void req_release_op(struct rdmpi_request *r);
static const struct rt_req_ops req_ops = {.cancel = pml_req_cancel, .release = req_release_op};

static int grow(void)
{
    struct pml_req *c;

    if (nslots / CHUNK >= MAX_CHUNKS)
        return -1;
    c = calloc(CHUNK, sizeof(*c));
    if (!c)
        return -1;
    chunks[nslots / CHUNK] = c;
    for (int i = CHUNK - 1; i >= 0; i--) {
        c[i].slot = nslots + (uint32_t)i;
        c[i].base.comm = (MPI_Comm)free_list;
        free_list = &c[i];
    }
    nslots += CHUNK;
    return 0;
}

struct pml_req *pml_req_alloc(void)
{
    struct pml_req *r = free_list;
    uint32_t slot, gen;

    if (RT_UNLIKELY(!r)) {
        if (grow())
            return NULL;
        r = free_list;
    }
    free_list = (struct pml_req *)r->base.comm;
    slot = r->slot;
    gen = r->gen;
    memset(r, 0, offsetof(struct pml_req, link));
    r->slot = slot;
    r->gen = gen;
    r->base.obj.kind = RT_KIND_REQUEST;
    r->base.obj.findex = (int32_t)slot;
    r->base.ops = &req_ops;
    r->error = 0;
    r->tmp = NULL;
    r->regs.n = 0;
    r->stripe = NULL;
    r->rdma_pending = 0;
    r->bounce = NULL;
    r->done = r->issued = 0;
    r->put_wait = 0;
    r->wrndv = 0;
    r->inflight = 0;
    r->bsend_buf = NULL;
    r->part = NULL;
    r->detached = 0;
    r->cancel_asked = 0;
    r->cancel_wanted = 0;
    pml_list_init(&r->link);
    return r;
}

void pml_req_release(struct pml_req *r)
{
    if (r->dt) {
        rt_dt_release(r->dt);
        r->dt = NULL;
    }
    r->base.obj.kind = 0;
    r->gen++;
    r->base.comm = (MPI_Comm)free_list;
    free_list = r;
}

static struct rdmpi_request *by_findex(int findex)
{
    struct pml_req *r;

    if (findex < 0 || (uint32_t)findex >= nslots)
        return NULL;
    r = &chunks[findex / CHUNK][findex % CHUNK];
    return r->base.obj.kind == RT_KIND_REQUEST ? &r->base : NULL;
}

void pml_req_init(void)
{
    rt_req_by_findex = by_findex;
}

struct pml_req *pml_req_lookup(uint64_t handle)
{
    uint32_t slot = (uint32_t)handle, gen = (uint32_t)(handle >> 32);
    struct pml_req *r;

    if (slot >= nslots)
        return NULL;
    r = &chunks[slot / CHUNK][slot % CHUNK];
    return (r->gen == gen && r->base.obj.kind == RT_KIND_REQUEST) ? r : NULL;
}

struct pml_req *pml_req_next(uint32_t *slot)
{
    while (*slot < nslots) {
        struct pml_req *r = &chunks[*slot / CHUNK][*slot % CHUNK];

        ++*slot;
        if (r->base.obj.kind == RT_KIND_REQUEST && !r->base.complete && r->state != PML_S_DONE)
            return r;
    }
    return NULL;
}

bool pml_req_using(const struct pml_comm *pc)
{
    for (uint32_t i = 0; i < nslots; i++) {
        const struct pml_req *r = &chunks[i / CHUNK][i % CHUNK];
        if (r->base.obj.kind == RT_KIND_REQUEST && r->pc == pc)
            return true;
    }
    return false;
}

bool pml_req_pending(const struct pml_comm *pc)
{
    if (pc->ops)
        return true;
    for (uint32_t i = 0; i < nslots; i++) {
        const struct pml_req *r = &chunks[i / CHUNK][i % CHUNK];
        /* An inactive persistent request (made by MPI_*_init and not
         * started, or completed since) is no communication under way
         * (MPI-4.1 sec. 11.10.4): MPI_Comm_disconnect does not wait for it. */
        if (r->base.obj.kind == RT_KIND_REQUEST && r->pc == pc && !r->base.complete &&
            (!r->base.persistent || r->base.active))
            return true;
    }
    return false;
}

static void req_release_op(struct rdmpi_request *r)
{
    pml_req_release((struct pml_req *)r);
}

/* A receive still in a posted queue is cancelled at once (an Isendrecv's
 * by its receive half). A rendezvous send asks its receiver to drop the
 * envelope if nothing matched it yet: the answer completes the send as
 * cancelled, or the send completes normally. Eager sends are already
 * complete (the standard allows a cancel that does not take effect); so is
 * a buffered send's user request. Either way a wait after the cancel
 * depends on no receive being posted. */
int pml_req_cancel(struct rdmpi_request *br)
{
    struct pml_req *r = (struct pml_req *)br;

    if (r->state == PML_S_PAIR) {
        struct pml_req *half = pml_req_lookup(r->other);
        return half ? pml_req_cancel(&half->base) : MPI_SUCCESS;
    }
    if (r->send && r->state == PML_S_WAIT_FIN && !r->cancel_asked) {
        struct pml_hdr_cancel h = {.type = PML_HDR_CANCEL,
                                   .cid = r->pc->cid,
                                   .src = r->pc->rank,
                                   .seq = r->seq,
                                   .sreq = pml_req_handle(r)};
        r->cancel_asked = 1;
        pml_send_ctl(r->wpeer, &h, sizeof(h));
        /* To this process the whole exchange is local: the envelope and
         * the CANCEL wait in the self BTL's queue, and the answer comes on
         * the next pass. Run those passes now, so the send is withdrawn
         * and its request complete when MPI_Cancel returns, not one status
         * query later (a program that saw it incomplete received it). */
        for (int i = 0; i < 4 && r->wpeer == rt.rank && !r->base.complete; i++)
            pml_progress();
        return MPI_SUCCESS;
    }
    /* Still queued for credits or ring space: it has its sequence number,
     * so it must go; if it goes as a rendezvous, the CANCEL follows it
     * (send_rndv), else nothing could ever complete a Wait on an Issend
     * nobody receives. */
    if (r->send && r->state != PML_S_FRAGS && r->link.next != &r->link) {
        r->cancel_wanted = 1;
        return MPI_SUCCESS;
    }
    if (r->send || r->state != PML_S_POSTED)
        return MPI_SUCCESS;
    pml_list_remove(&r->link);
    rt_status_empty(&r->base.status);
    r->base.status.rdmpi_cancelled = 1;
    r->state = PML_S_DONE;
    pml_req_complete(r);
    return MPI_SUCCESS;
}

/* Completion: the request's status is filled; internal requests (no user
 * handle, e.g. a buffered send's copy) go back to the pool. */
void pml_req_complete(struct pml_req *r)
{
    r->state = PML_S_DONE;
    if (r->detached)
        pml_detached_bytes -= r->len;
    if (r->exposed) {
        pml_peers[r->wpeer].rndv_out--;
        r->exposed = 0;
    }
    if (r->tmp) {
        free(r->tmp);
        r->tmp = NULL;
    }
    /* Eager requests have none of these: no call for them. */
    if (RT_UNLIKELY(r->regs.n))
        pml_regs_drop(&r->regs);
    if (RT_UNLIKELY(r->stripe || r->rdma_pending))
        pml_stripe_close(r);
    if (RT_UNLIKELY(r->bounce))
        pml_bounce_close(r);
    if (r->pair)
        pml_pair_half_done(r);
    if (r->internal) {
        if (r->bsend_buf)
            pml_bsend_done(r);
        pml_req_release(r);
        return;
    }
    rt_req_complete(&r->base);
}
