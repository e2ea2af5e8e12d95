/* The write rendezvous: the receiver registers where the message goes
 * and sends a WCTS; the sender writes it in chunks (packing each chunk
 * into a registered staging slot when its datatype is not contiguous,
 * pml_bounce.c) and answers with a PUTFIN. */
#include "pml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool pml_write_offer(struct pml_req *r, size_t n)
{
    struct pml_peer *p = &pml_peers[r->wpeer];
    const uint32_t need = BTL_CAP_PUT | BTL_CAP_NEED_REG;
    uint8_t msg[sizeof(struct pml_hdr_wcts) + sizeof(r->rkey)];
    struct pml_hdr_wcts h = {.type = PML_HDR_WCTS, .sreq = r->other, .len = n};
    bool contig = rt_dt_contig(r->dt, r->count);
    void *base;

    /* BTLs without registration (self, sm) read every message directly. */
    if (!n || pml_rndv_mode == PML_RNDV_READ || (p->btl->flags & need) != need ||
        p->btl->rkey_size > sizeof(r->rkey))
        return false;
    /* A non-contiguous receive is written packed and unpacked at the end. */
    if (!contig && !(r->tmp = malloc(n)))
        rt_fatal("out of memory staging a %zu-byte receive", n);
    base = contig ? (char *)r->buf + r->dt->lb : r->tmp;
    if (p->btl->register_mem(p->btl, base, n, &r->reg, r->rkey, &h.raddr)) {
        free(r->tmp);
        r->tmp = NULL;
        r->reg = NULL;
        return false;
    }
    r->len = n;
    r->wrndv = 1;
    r->state = PML_S_GET;
    r->issued = r->get_end = 0;
    r->put_wait = 1;
    h.rreq = pml_req_handle(r);
    memcpy(msg, &h, sizeof(h));
    memcpy(msg + sizeof(h), r->rkey, p->btl->rkey_size);
    pml_send_ctl(r->wpeer, msg, sizeof(h) + p->btl->rkey_size);
    return true;
}

/* Sender: every write is done, or one failed and the rest are in. A
 * success completes the send (its buffer is at the receiver); a failure
 * waits for the receiver's CTS and the copy pipeline. */
static bool write_complete(const struct pml_req *r)
{
    return (r->issued == r->get_end || r->error) && r->inflight == 0;
}

static void write_finish(struct pml_req *r)
{
    struct pml_hdr_fin fin = {.type = PML_HDR_PUTFIN, .sreq = r->other};

    fin.status = r->error ? (r->error < 0 ? r->error : -EIO) : (int64_t)r->issued;
    pml_send_ctl(r->wpeer, &fin, sizeof(fin));
    if (r->error)
        r->error = 0;
    else
        pml_req_complete(r);
}

static void write_done(void *ctx, int status)
{
    struct pml_req *r = ctx;

    r->inflight--;
    if (status)
        r->error = status;
    if (r->in_issue)
        return;
    if (write_complete(r))
        write_finish(r);
    else if (!r->error && r->issued < r->get_end)
        pml_write_continue(r);
}

/* A staging slot is free again once its chunk is written. */
static void write_bounced(void *ctx, int status)
{
    struct pml_bounce_slot *s = ctx;
    struct pml_req *r = s->r;

    pml_bounce_give(s);
    write_done(r, status);
}

void pml_write_continue(struct pml_req *r)
{
    struct pml_peer *p = &pml_peers[r->wpeer];
    size_t limit = pml_get_chunk < p->btl->put_limit ? pml_get_chunk : p->btl->put_limit;
    const char *src = r->tmp ? r->tmp : (const char *)r->buf + r->dt->lb;
    bool contig = r->tmp || rt_dt_contig(r->dt, r->count);

    /* Non-contiguous: packed chunk by chunk into staging slots, or, where
     * they cannot be had, whole into a copy first. */
    if (!contig && !r->bounce && !pml_bounce_open(r, limit)) {
        if (!(r->tmp = malloc(r->len)))
            rt_fatal("out of memory packing a %zu-byte send", r->len);
        rt_dt_pack(r->dt, r->buf, r->count, 0, r->tmp, r->len);
        src = r->tmp;
    }
    r->in_issue = 1;
    while (!r->error && r->issued < r->get_end && r->inflight < pml_get_depth) {
        size_t n = r->get_end - r->issued < limit ? r->get_end - r->issued : limit;
        struct pml_bounce_slot *s = r->bounce ? pml_bounce_take(r) : NULL;
        int rc;

        if (r->bounce && !s)
            break;
        if (s) {
            n = n < r->bounce->chunk ? n : r->bounce->chunk;
            s->off = r->issued;
            s->len = n;
            rt_dt_pack(r->dt, r->buf, r->count, r->issued, s->buf, n);
        }
        r->inflight++;
        rc = s ? p->btl->put(p->ep, s->buf, r->bounce->reg, r->raddr + r->issued, r->rkey, n,
                             write_bounced, s)
               : p->btl->put(p->ep, src + r->issued, NULL, r->raddr + r->issued, r->rkey, n,
                             write_done, r);
        if (rc) {
            r->inflight--;
            if (s)
                pml_bounce_give(s);
        }
        if (rc == -EAGAIN) {
            pml_pending_get(r);
            break;
        }
        if (rc) {
            r->error = rc;
            break;
        }
        r->issued += n;
    }
    r->in_issue = 0;
    if (write_complete(r))
        write_finish(r);
}

void pml_recv_wcts(int peer, const void *data, size_t len)
{
    const struct pml_hdr_wcts *h = data;
    struct pml_req *r = pml_req_lookup(h->sreq);
    struct pml_peer *p = &pml_peers[peer];

    pml_credit_arrived(peer);
    if (!r || !r->send || h->len > r->len || len < sizeof(*h) + p->btl->rkey_size)
        rt_fatal("a write clear-to-send from rank %d names no send (handle %#llx, %llu bytes)",
                 peer, (unsigned long long)h->sreq, (unsigned long long)h->len);
    r->other = h->rreq;
    /* It offered a read the receiver did not take (RDMPI_PML_RNDV=write). */
    if (r->reg) {
        p->btl->deregister_mem(p->btl, r->reg);
        r->reg = NULL;
    }
    if (r->exposed) {
        p->rndv_out--;
        r->exposed = 0;
    }
    r->raddr = h->raddr;
    memcpy(r->rkey, h + 1, p->btl->rkey_size);
    r->issued = 0;
    r->get_end = h->len;
    r->inflight = 0;
    r->error = 0;
    pml_write_continue(r);
}
