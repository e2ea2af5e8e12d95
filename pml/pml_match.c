/* Arrivals: sequence check, matching against posted receives, and the
 * unexpected queue. The earliest posted receive that matches wins, whether
 * it named the source or said MPI_ANY_SOURCE (compared by posting stamp). */
#include "pml.h"

#include <stdlib.h>
#include <string.h>

static inline bool tag_match(int want, int have)
{
    return want == have || (want == MPI_ANY_TAG && have >= 0);
}

static struct pml_req *first_match(struct pml_link *q, int tag)
{
    for (struct pml_link *l = q->next; l != q; l = l->next) {
        struct pml_req *r = pml_container(l, struct pml_req, link);
        if (tag_match(r->tag, tag))
            return r;
    }
    return NULL;
}

static struct pml_req *find_posted(struct pml_comm *pc, struct pml_comm_peer *cp, int tag)
{
    struct pml_req *a = pml_list_empty(&cp->posted) ? NULL : first_match(&cp->posted, tag);
    struct pml_req *b;

    if (RT_LIKELY(pml_list_empty(&pc->any_posted)))
        return a;
    b = first_match(&pc->any_posted, tag);
    if (a && b)
        return a->stamp < b->stamp ? a : b;
    return a ? a : b;
}

/* Bytes of the header in front of the payload or key of a match-class
 * message. */
static size_t hdr_len(const struct pml_hdr_match *h)
{
    return h->type == PML_HDR_MATCH ? sizeof(struct pml_hdr_match) : sizeof(struct pml_hdr_rndv);
}

static struct pml_frag *frag_new(int wsrc, const void *data, size_t len)
{
    const struct pml_hdr_match *h = data;
    size_t hl = hdr_len(h), plen = len - hl;
    struct pml_frag *f;

    /* Eager and inline payloads are copied so the BTL's buffer returns at
     * once; a rendezvous keeps only its envelope and keys. */
    if (h->type == PML_HDR_RNDV && !(h->flags & PML_F_INLINE))
        plen = !(h->flags & PML_F_GET) ? 0 : plen < PML_KEYS_MAX ? plen : PML_KEYS_MAX;
    f = malloc(sizeof(*f) + plen);
    if (!f)
        rt_fatal("out of memory queueing an unexpected message from rank %d", wsrc);
    f->wsrc = wsrc;
    memcpy(&f->hdr, data, hl);
    if (h->type == PML_HDR_MATCH) {
        f->len = plen;
        f->klen = 0;
        memcpy(f->data, (const char *)data + hl, plen);
    } else {
        f->len = f->hdr.len;
        f->klen = (h->flags & PML_F_INLINE) ? 0 : plen;
        memcpy(f->data, (const char *)data + hl, plen);
    }
    return f;
}

/* Fills status and reports whether the message fits the receive. */
static size_t status_for(struct pml_req *r, const struct pml_hdr_match *h, size_t msg_len)
{
    r->base.status.MPI_SOURCE = h->src;
    r->base.status.MPI_TAG = h->tag;
    r->base.status.rdmpi_cancelled = 0;
    if (RT_UNLIKELY(msg_len > r->len)) {
        r->base.status.MPI_ERROR = MPI_ERR_TRUNCATE;
        msg_len = r->len;
    } else {
        r->base.status.MPI_ERROR = MPI_SUCCESS;
    }
    r->base.status.rdmpi_count = (long long)msg_len;
    return msg_len;
}

static inline void copy_in(struct pml_req *r, size_t offset, const void *src, size_t n)
{
    if (!n)
        return;
    if (RT_LIKELY(rt_dt_contig(r->dt, r->count)))
        memcpy((char *)r->buf + r->dt->lb + offset, src, n);
    else
        rt_dt_unpack(r->dt, r->buf, r->count, offset, src, n);
}

/* Starts the data phase of a matched rendezvous. */
static void rndv_matched(struct pml_req *r, int wsrc, const struct pml_hdr_rndv *rh,
                         const void *extra, size_t xlen)
{
    struct pml_peer *p = &pml_peers[wsrc];
    size_t n = status_for(r, &rh->m, rh->len);

    r->wpeer = wsrc;
    r->other = rh->sreq;
    r->msg_len = rh->len;
    r->wrndv = 0;
    if (rh->m.flags & PML_F_INLINE) {
        copy_in(r, 0, extra, n);
        if (rh->m.flags & PML_F_SYNC) {
            struct pml_hdr_fin fin = {.type = PML_HDR_FIN, .sreq = rh->sreq, .status = (int64_t)n};
            pml_send_ctl(wsrc, &fin, sizeof(fin));
        }
        pml_req_complete(r);
    } else if ((rh->m.flags & PML_F_GET) && (p->btl->flags & BTL_CAP_GET) &&
               (pml_rndv_mode != PML_RNDV_WRITE || !(p->btl->flags & BTL_CAP_NEED_REG)) &&
               (r->get_end = n, pml_stripe_open(r, extra, xlen, false))) {
        r->raddr = rh->raddr;
        r->len = n; /* read no more than fits */
        r->state = PML_S_GET;
        pml_get_start(r);
    } else if (!pml_write_offer(r, n)) {
        struct pml_hdr_cts cts = {.type = PML_HDR_CTS, .sreq = rh->sreq, .rreq = pml_req_handle(r)};
        p->stats->fb_nordma += rh->len != 0;
        r->state = PML_S_FRAGS;
        r->done = 0;
        pml_send_ctl(wsrc, &cts, sizeof(cts));
        if (rh->len == 0)
            pml_req_complete(r);
    }
}

/* Hands a fresh in-order arrival to receive r. */
static void deliver(struct pml_req *r, int wsrc, const void *data, size_t len)
{
    const struct pml_hdr_match *h = data;

    if (RT_LIKELY(h->type == PML_HDR_MATCH)) {
        size_t n = status_for(r, h, len - sizeof(*h));
        copy_in(r, 0, (const char *)data + sizeof(*h), n);
        pml_credit_consumed(wsrc, len - sizeof(*h));
        pml_req_complete(r);
        return;
    }
    rndv_matched(r, wsrc, data, (const char *)data + sizeof(struct pml_hdr_rndv),
                 len - sizeof(struct pml_hdr_rndv));
}

/* A probe's status; MPI_ERROR is left alone, as for every single status. */
void pml_status_from_frag(MPI_Status *s, const struct pml_frag *f)
{
    s->MPI_SOURCE = f->hdr.m.src;
    s->MPI_TAG = f->hdr.m.tag;
    s->rdmpi_cancelled = 0;
    s->rdmpi_count = (long long)f->len;
}

/* Receive r takes unexpected message f (already off its queue). */
void pml_recv_from_frag(struct pml_req *r, struct pml_frag *f)
{
    if (f->hdr.m.type == PML_HDR_MATCH) {
        size_t n = status_for(r, &f->hdr.m, f->len);
        copy_in(r, 0, f->data, n);
        pml_credit_consumed(f->wsrc, f->len);
        pml_req_complete(r);
    } else {
        bool in = f->hdr.m.flags & PML_F_INLINE;

        rndv_matched(r, f->wsrc, &f->hdr, f->data, in ? f->len : f->klen);
    }
    free(f);
}

static void match_one(struct pml_comm *pc, struct pml_comm_peer *cp, int wsrc, const void *data,
                      size_t len)
{
    const struct pml_hdr_match *h = data;
    struct pml_req *r = find_posted(pc, cp, h->tag);

    if (RT_LIKELY(r != NULL)) {
        pml_list_remove(&r->link);
        deliver(r, wsrc, data, len);
        return;
    }
    pml_list_append(&cp->unexpected, &frag_new(wsrc, data, len)->link);
}

/* Keeps an early arrival, sorted by sequence number (wrap-aware), as raw
 * bytes to be matched once its turn comes. */
static struct pml_frag *stash_ooo(struct pml_comm_peer *cp, int wsrc, const void *data, size_t len)
{
    const struct pml_hdr_match *h = data;
    struct pml_frag *f = malloc(sizeof(*f) + len);
    struct pml_link *l;

    if (!f)
        rt_fatal("out of memory holding an out-of-order message from rank %d", wsrc);
    pml_peers[wsrc].stats->ooo_msgs++;
    f->wsrc = wsrc;
    f->len = len;
    memcpy(&f->hdr.m, h, sizeof(*h));
    memcpy(f->data, data, len);
    for (l = cp->ooo.next; l != &cp->ooo; l = l->next) {
        struct pml_frag *g = pml_container(l, struct pml_frag, link);
        if ((int16_t)(h->seq - g->hdr.m.seq) < 0)
            break;
    }
    /* Insert before l. */
    f->link.next = l;
    f->link.prev = l->prev;
    l->prev->next = &f->link;
    l->prev = &f->link;
    return f;
}

/* Envelopes cancelled before they arrived (the CANCEL overtook them):
 * each is dropped when it comes, taking only its turn. Rare and short. */
struct ahead {
    struct pml_link link;
    uint32_t cid;
    int32_t src;
    uint16_t seq;
    uint64_t sreq;
};
static struct pml_link cancelled_ahead = {&cancelled_ahead, &cancelled_ahead};

static bool claim_ahead(uint32_t cid, const struct pml_hdr_rndv *h)
{
    for (struct pml_link *l = cancelled_ahead.next; l != &cancelled_ahead; l = l->next) {
        struct ahead *a = pml_container(l, struct ahead, link);
        if (a->cid == cid && a->src == h->m.src && a->seq == h->m.seq && a->sreq == h->sreq) {
            pml_list_remove(l);
            free(a);
            return true;
        }
    }
    return false;
}

static void drain_ooo(struct pml_comm *pc, struct pml_comm_peer *cp)
{
    while (!pml_list_empty(&cp->ooo)) {
        struct pml_frag *f = pml_container(cp->ooo.next, struct pml_frag, link);
        if (f->hdr.m.seq != cp->recv_seq)
            return;
        pml_list_remove(&f->link);
        cp->recv_seq++;
        /* An early arrival its sender cancelled only takes its turn. */
        if (!(((const struct pml_hdr_match *)f->data)->flags & PML_F_DROPPED))
            match_one(pc, cp, f->wsrc, f->data, f->len);
        free(f);
    }
}

/* An arrival, in sequence order or stashed until its turn. Only a parked
 * one (`replayed`) can carry PML_F_DROPPED, so the wire's path does not
 * test it. */
static inline void arrive(int wsrc, const void *data, size_t len, bool replayed)
{
    const struct pml_hdr_match *h = data;
    struct pml_comm *pc = pml_comm_lookup(h->cid);
    struct pml_comm_peer *cp;
    bool dropped;

    rt_noise();
    if (RT_UNLIKELY(!pc)) {
        pml_comm_park(wsrc, data, len);
        return;
    }
    cp = &pc->peers[h->src];
    /* An arrival its sender cancelled (marked while parked, or cancelled
     * before it came) only takes its turn. */
    dropped = replayed && (h->flags & PML_F_DROPPED);
    if (RT_UNLIKELY(!pml_list_empty(&cancelled_ahead)) && h->type == PML_HDR_RNDV)
        dropped |= claim_ahead(h->cid, data);
    if (RT_UNLIKELY(h->seq != cp->recv_seq)) {
        struct pml_frag *f = stash_ooo(cp, wsrc, data, len);
        if (dropped)
            ((struct pml_hdr_match *)f->data)->flags |= PML_F_DROPPED;
        return;
    }
    cp->recv_seq++;
    if (!dropped)
        match_one(pc, cp, wsrc, data, len);
    if (RT_UNLIKELY(!pml_list_empty(&cp->ooo)))
        drain_ooo(pc, cp);
}

void pml_recv_match(int wsrc, const void *data, size_t len)
{
    pml_credit_arrived(wsrc);
    arrive(wsrc, data, len, false);
}

void pml_recv_replay(int wsrc, const void *data, size_t len)
{
    arrive(wsrc, data, len, true);
}

/* The first unexpected message for (src, tag); src may be MPI_ANY_SOURCE,
 * scanned round-robin so no sender starves. */
struct pml_frag *pml_find_unexpected(struct pml_comm *pc, int src, int tag, bool remove)
{
    int first = src, n = 1;

    if (src == MPI_ANY_SOURCE) {
        first = pc->last_probed + 1;
        n = pc->size;
    }
    for (int i = 0; i < n; i++) {
        int s = (first + i) % pc->size;
        struct pml_link *q = &pc->peers[s].unexpected;
        for (struct pml_link *l = q->next; l != q; l = l->next) {
            struct pml_frag *f = pml_container(l, struct pml_frag, link);
            if (!tag_match(tag, f->hdr.m.tag))
                continue;
            if (remove) {
                pml_list_remove(l);
                if (src == MPI_ANY_SOURCE)
                    pc->last_probed = s;
            }
            return f;
        }
    }
    return NULL;
}

/* Posts receive r (fields set by the caller), or matches it at once. */
int pml_irecv(struct pml_req *r)
{
    struct pml_comm *pc = r->pc;
    struct pml_frag *f;
    bool any = r->peer == MPI_ANY_SOURCE;

    if (!any && pml_list_empty(&pc->peers[r->peer].unexpected))
        f = NULL;
    else
        f = pml_find_unexpected(pc, r->peer, r->tag, true);
    if (f) {
        pml_recv_from_frag(r, f);
        return MPI_SUCCESS;
    }
    r->state = PML_S_POSTED;
    r->stamp = pc->next_stamp++;
    pml_list_append(any ? &pc->any_posted : &pc->peers[r->peer].posted, &r->link);
    if (RT_UNLIKELY(pml_nfailed) && !any && pml_peers[pml_world(pc, r->peer)].failed)
        pml_fail_req(r); /* what it sent before is matched above */
    return MPI_SUCCESS;
}

/* A sender cancels its rendezvous: the envelope goes if it is still in the
 * unexpected queue (nothing matched it, so nothing will read the data); if
 * it came ahead of its turn, or before its communicator, it is marked to
 * be dropped when its turn comes. */
void pml_recv_cancel(int wsrc, const void *data, size_t len)
{
    const struct pml_hdr_cancel *h = data;
    struct pml_comm *pc = pml_comm_lookup(h->cid);
    struct pml_hdr_fin ack = {.type = PML_HDR_CANCELED, .sreq = h->sreq, .status = 0};

    pml_credit_arrived(wsrc);
    (void)len;
    if (pc && h->src >= 0 && h->src < pc->size) {
        struct pml_link *q = &pc->peers[h->src].unexpected;
        for (struct pml_link *l = q->next; l != q; l = l->next) {
            struct pml_frag *f = pml_container(l, struct pml_frag, link);
            if (f->hdr.m.type == PML_HDR_RNDV && f->hdr.sreq == h->sreq) {
                pml_list_remove(l);
                free(f);
                ack.status = 1;
                break;
            }
        }
        q = &pc->peers[h->src].ooo;
        for (struct pml_link *l = q->next; l != q && !ack.status; l = l->next) {
            struct pml_frag *f = pml_container(l, struct pml_frag, link);
            struct pml_hdr_rndv *e = (void *)f->data;
            if (e->m.type == PML_HDR_RNDV && e->sreq == h->sreq && !(e->m.flags & PML_F_DROPPED)) {
                e->m.flags |= PML_F_DROPPED;
                ack.status = 1;
            }
        }
    }
    if (!ack.status && pml_comm_park_cancel(wsrc, h->cid, h->sreq))
        ack.status = 1;
    /* Not here, and its turn has not come: the CANCEL overtook it (only
     * MATCH and RNDV keep order). Saying no would leave the send waiting
     * for a receive, where MPI_Wait after MPI_Cancel must return. */
    if (!ack.status && pc && h->src >= 0 && h->src < pc->size &&
        (int16_t)(h->seq - pc->peers[h->src].recv_seq) >= 0) {
        struct ahead *a = malloc(sizeof(*a));
        if (a) {
            *a = (struct ahead){.cid = h->cid, .src = h->src, .seq = h->seq, .sreq = h->sreq};
            pml_list_append(&cancelled_ahead, &a->link);
            ack.status = 1;
        }
    }
    pml_send_ctl(wsrc, &ack, sizeof(ack));
}

/* The answer: a cancelled send completes here; otherwise its FIN (already
 * here or on its way) completes it. */
void pml_recv_canceled(int peer, const void *data, size_t len)
{
    const struct pml_hdr_fin *h = data;
    struct pml_req *r = pml_req_lookup(h->sreq);

    pml_credit_arrived(peer);
    (void)len;
    if (h->status != 1 || !r || !r->send || r->state != PML_S_WAIT_FIN)
        return;
    r->base.status.rdmpi_cancelled = 1;
    pml_req_complete(r);
}
