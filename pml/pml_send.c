/* Sending: protocol choice (eager, synchronous, rendezvous by RDMA read,
 * RDMA write or copy pipeline) and the retry of sends the BTL could not take yet. */
#include "param.h"
#include "pml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline void make_match(struct pml_hdr_match *h, uint8_t type, uint8_t flags, uint16_t seq,
                              const struct pml_comm *pc, int tag)
{
    h->type = type;
    h->flags = flags;
    h->seq = seq;
    h->cid = pc->cid;
    h->src = pc->rank;
    h->tag = tag;
}

/* The blocking fast path: a small contiguous message goes out inline with
 * no request at all. *done says whether it went. */
int pml_send_now(const void *buf, size_t count, struct rdmpi_datatype *dt, int dst, int tag,
                 struct pml_comm *pc, enum pml_mode mode, bool *done)
{
    int w = pml_world(pc, dst);
    struct pml_peer *p = &pml_peers[w];
    struct pml_comm_peer *cp = &pc->peers[dst];
    size_t len = count * dt->size;
    struct pml_hdr_match h;

    *done = false;
    pml_credit_piggyback(w);
    if (mode == PML_SYNC || p->failed || !pml_credit_fits(p, len) || p->npending ||
        len + sizeof(h) > p->btl->sendi_limit || !rt_dt_contig(dt, count))
        return 0;
    make_match(&h, PML_HDR_MATCH, 0, cp->send_seq, pc, tag);
    if (p->btl->sendi(p->ep, &h, sizeof(h), (const char *)buf + dt->lb, len))
        return 0;
    cp->send_seq++;
    pml_credit_spend(p, len);
    p->stats->eager_msgs++;
    p->stats->eager_bytes += len;
    *done = true;
    return 0;
}

RT_PARAM(p_detach, "PML_DETACH_LIMIT", RT_PARAM_SIZE, "64m",
         "Bytes of small blocking sends a rank may hold in private copies while "
         "their receivers are out of eager credits (0: such sends block until matched)")

RT_PARAM(p_credit_wait, "PML_CREDIT_WAIT", RT_PARAM_INT, "2000",
         "Microseconds a small send out of eager credits waits for its receiver to return "
         "some before it goes by rendezvous (a blocking one from a private copy); a receiver "
         "that lets the wait run out gets rendezvous until it returns credits")

size_t pml_detached_bytes;

static double credit_wait(void)
{
    static double wait = -1;

    if (wait < 0)
        wait = rt_param_int(&p_credit_wait) * 1e-6;
    return wait;
}

/* A receiver that keeps up returns credits in batches of half the window
 * (a few hundred microseconds of tiny messages), and an eager message costs
 * it far less than the rendezvous (a read and a FIN) a detached send
 * becomes: a stream whose sender detached every message once it ran ahead
 * slowed to a crawl. So wait for credits first, unless this receiver
 * already let a wait run out (it may be waiting for a later message). */
static bool await_credits(struct pml_peer *p, size_t len)
{
    unsigned spins = 0;
    double until;

    if (p->stalled)
        return false;
    until = rt_wtime() + credit_wait();
    while (!pml_credit_fits(p, len)) {
        if (rt_progress())
            continue;
        if (rt_wtime() > until) {
            p->stalled = true;
            return false;
        }
        rt_progress_idle(&spins);
    }
    return true;
}

bool pml_send_detached(const void *buf, size_t count, struct rdmpi_datatype *dt, int dst, int tag,
                       struct pml_comm *pc)
{
    static size_t limit = (size_t)-1;
    struct pml_peer *p = &pml_peers[pml_world(pc, dst)];
    size_t len = count * dt->size;
    struct pml_req *r;
    void *copy;

    if (limit == (size_t)-1)
        limit = rt_param_size(&p_detach);
    /* Behind queued sends the credits we see are theirs: they may spend
     * them, leaving this one a rendezvous its caller waits on until the
     * receiver matches it. So it goes from a copy at once. */
    if (len + sizeof(struct pml_hdr_match) > p->btl->eager_limit ||
        (!p->npending && (pml_credit_fits(p, len) || await_credits(p, len))) ||
        pml_detached_bytes + len > limit || !(r = pml_req_alloc()))
        return false;
    if (!(copy = malloc(len ? len : 1))) {
        pml_req_release(r);
        return false;
    }
    rt_dt_pack(dt, buf, count, 0, copy, len);
    r->internal = 1;
    r->detached = 1;
    r->tmp = copy;
    pml_detached_bytes += len;
    pml_isend(copy, len, rt_dt_get(MPI_BYTE), dst, tag, pc, PML_STANDARD, r);
    return true;
}

/* Eager: header + payload in one BTL message; completes at once. */
static int send_eager(struct pml_req *r, struct pml_peer *p)
{
    struct pml_hdr_match h;
    struct btl_desc *d;
    bool contig = rt_dt_contig(r->dt, r->count);

    make_match(&h, PML_HDR_MATCH, 0, r->seq, r->pc, r->tag);
    if (contig && sizeof(h) + r->len <= p->btl->sendi_limit &&
        p->btl->sendi(p->ep, &h, sizeof(h), (const char *)r->buf + r->dt->lb, r->len) == 0)
        goto sent;
    d = p->btl->alloc(p->ep, sizeof(h) + r->len);
    if (!d)
        return -EAGAIN;
    memcpy(d->buf, &h, sizeof(h));
    rt_dt_pack(r->dt, r->buf, r->count, 0, (char *)d->buf + sizeof(h), r->len);
    d->len = sizeof(h) + r->len;
    p->btl->send(p->ep, d);
sent:
    pml_credit_spend(p, r->len);
    p->stats->eager_msgs++;
    p->stats->eager_bytes += r->len;
    pml_req_complete(r);
    return 0;
}

/* Whether the receiver is to read the message. Over a BTL that registers
 * memory and writes (ofi) it takes it by write instead when asked to
 * (RDMPI_PML_RNDV=write) or, under auto, when it is not contiguous: the
 * sender then packs it chunk by chunk into staging slots as it writes,
 * instead of packing it whole before the RNDV can go. */
static bool offer_read(const struct pml_req *r, const struct btl_module *b)
{
    const uint32_t rdma = BTL_CAP_PUT | BTL_CAP_NEED_REG;

    if (!(b->flags & BTL_CAP_GET) || !r->len)
        return false;
    if ((b->flags & rdma) != rdma)
        return true;
    return pml_rndv_mode == PML_RNDV_READ ||
           (pml_rndv_mode == PML_RNDV_AUTO && rt_dt_contig(r->dt, r->count));
}

/* The bytes of a keys block for p's rails (pml_regs_make), at most. */
static size_t keys_room(const struct pml_peer *p)
{
    int n = 0;

    for (int i = 0; i < p->nroutes && n < PML_MAX_RAILS; i++)
        n += pml_rail_like(p->btl, p->routes[i].btl);
    return sizeof(struct pml_hdr_keys) + (size_t)n * PML_KEY_STRIDE(p->btl->rkey_size);
}

/* The rendezvous header: inline data (small Ssend), an RDMA-readable
 * address, or neither (the receiver answers with a WCTS to write into its
 * buffer, or a CTS for the copy pipeline). */
static int send_rndv(struct pml_req *r, struct pml_peer *p)
{
    size_t hl = sizeof(struct pml_hdr_rndv), extra = 0;
    uint8_t flags = r->mode == PML_SYNC ? PML_F_SYNC : 0;
    struct pml_hdr_rndv *h;
    struct btl_desc *d;

    if (!pml_window_open(p))
        return -EAGAIN;
    if (r->mode == PML_SYNC && hl + r->len <= p->btl->eager_limit) {
        flags |= PML_F_INLINE;
        extra = r->len;
    } else if (offer_read(r, p->btl)) {
        /* Room for a key per rail; the block is written once alloc gave it. */
        flags |= PML_F_GET;
        extra = keys_room(p);
    }
    d = p->btl->alloc(p->ep, hl + extra);
    if (!d)
        return -EAGAIN;
    h = d->buf;
    if (flags & PML_F_GET) {
        void *base = (char *)r->buf + r->dt->lb;

        if (!rt_dt_contig(r->dt, r->count)) {
            if (!r->tmp && !(r->tmp = malloc(r->len)))
                rt_fatal("out of memory packing a %zu-byte send", r->len);
            rt_dt_pack(r->dt, r->buf, r->count, 0, r->tmp, r->len);
            base = r->tmp;
        }
        pml_regs_drop(&r->regs);
        extra = pml_regs_make(r->wpeer, BTL_CAP_GET, base, r->len, &r->regs, h + 1, &r->raddr);
        if (!extra)
            flags &= (uint8_t)~PML_F_GET;
    }
    make_match(&h->m, PML_HDR_RNDV, flags, r->seq, r->pc, r->tag);
    h->len = r->len;
    h->sreq = pml_req_handle(r);
    h->raddr = r->raddr;
    if (flags & PML_F_INLINE)
        rt_dt_pack(r->dt, r->buf, r->count, 0, (char *)(h + 1), r->len);
    d->len = hl + extra;
    r->state = PML_S_WAIT_FIN;
    if (flags & PML_F_GET) {
        r->exposed = 1;
        p->rndv_out++;
    }
    p->btl->send(p->ep, d);
    pml_window_take(p);
    if (r->cancel_wanted) { /* asked while it waited in the queue */
        r->cancel_wanted = 0;
        pml_req_cancel(&r->base);
    }
    p->stats->rndv_msgs++;
    p->stats->rndv_bytes += r->len;
    p->stats->fb_credit +=
        r->mode != PML_SYNC && sizeof(struct pml_hdr_match) + r->len <= p->btl->eager_limit;
    return 0;
}

/* The same for a non-blocking send: it waits in the peer's queue, as for a
 * full ring, while progress runs. In osu_bibw each side starts its next
 * window before the other has consumed the last one (and returned its
 * credits): without the wait half of the 4 KiB messages went by
 * rendezvous. */
static bool queue_for_credits(struct pml_peer *p)
{
    double now;

    if (p->stalled)
        return false;
    now = rt_wtime();
    if (!p->credit_until)
        p->credit_until = now + credit_wait();
    if (now < p->credit_until)
        return true;
    p->stalled = true;
    p->credit_until = 0;
    return false;
}

/* One attempt at the current step of send r. */
void pml_send_continue(struct pml_req *r)
{
    struct pml_peer *p = &pml_peers[r->wpeer];
    int rc;

    if (RT_UNLIKELY(p->failed)) {
        pml_fail_req(r);
        return;
    }
    if (r->state == PML_S_FRAGS) {
        pml_frags_stream(r);
        return;
    }
    /* Places in the window come back as our messages reach the peer,
     * matched or not: waiting for them needs no deadline. */
    if (!pml_window_open(p))
        rc = -EAGAIN;
    else if (r->mode == PML_SYNC || sizeof(struct pml_hdr_match) + r->len > p->btl->eager_limit)
        rc = send_rndv(r, p);
    else if (pml_credit_fits(p, r->len))
        rc = send_eager(r, p);
    else
        rc = queue_for_credits(p) ? -EAGAIN : send_rndv(r, p);
    if (rc == -EAGAIN)
        pml_pending_send(r);
}

int pml_isend(const void *buf, size_t count, struct rdmpi_datatype *dt, int dst, int tag,
              struct pml_comm *pc, enum pml_mode mode, struct pml_req *r)
{
    struct pml_peer *p;

    r->send = 1;
    r->base.type = RT_REQ_SEND;
    r->base.comm = pc->handle;
    r->buf = (void *)buf;
    r->count = count;
    pml_req_set_dt(r, dt);
    r->len = count * dt->size;
    r->peer = dst;
    r->tag = tag;
    r->pc = pc;
    r->mode = (uint8_t)mode;
    r->wpeer = pml_world(pc, dst);
    r->raddr = 0;
    r->cancel_asked = 0;
    r->cancel_wanted = 0;
    r->base.status.MPI_ERROR = MPI_SUCCESS;
    r->base.status.rdmpi_cancelled = 0;
    r->seq = pc->peers[dst].send_seq++;
    rt_noise(); /* between taking a sequence number and sending */
    p = &pml_peers[r->wpeer];
    pml_credit_piggyback(r->wpeer);
    /* Behind a queued send to the same peer: keep the order. */
    if (p->npending)
        pml_pending_send(r);
    else
        pml_send_continue(r);
    return MPI_SUCCESS;
}
