/* The write rendezvous: the receiver registers where the message goes
 * on every rail and sends a WCTS with a key per rail; the sender writes it
 * in chunks over the rails (pml_stripe.c; packing each chunk into a
 * registered staging slot when its datatype is not contiguous,
 * pml_bounce.c) and answers with a PUTFIN. */
#include "pml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool pml_write_offer(struct pml_req *r, size_t n)
{
    struct pml_peer *p = &pml_peers[r->wpeer];
    const uint32_t need = BTL_CAP_PUT | BTL_CAP_NEED_REG;
    uint8_t msg[sizeof(struct pml_hdr_wcts) + PML_KEYS_MAX];
    struct pml_hdr_wcts h = {.type = PML_HDR_WCTS, .sreq = r->other, .len = n};
    bool contig = rt_dt_contig(r->dt, r->count);
    size_t klen;
    void *base;

    /* BTLs without registration (self, sm) read every message directly. */
    if (!n || pml_rndv_mode == PML_RNDV_READ || (p->btl->flags & need) != need)
        return false;
    /* A non-contiguous receive is written packed and unpacked at the end. */
    if (!contig && !(r->tmp = malloc(n)))
        rt_fatal("out of memory staging a %zu-byte receive", n);
    base = contig ? (char *)r->buf + r->dt->lb : r->tmp;
    klen = pml_regs_make(r->wpeer, BTL_CAP_PUT, base, n, &r->regs, msg + sizeof(h), &h.raddr);
    if (!klen) {
        free(r->tmp);
        r->tmp = NULL;
        return false;
    }
    r->len = n;
    r->wrndv = 1;
    r->state = PML_S_GET;
    r->issued = r->get_end = 0;
    r->put_wait = 1;
    h.rreq = pml_req_handle(r);
    memcpy(msg, &h, sizeof(h));
    pml_send_ctl(r->wpeer, msg, sizeof(h) + klen);
    return true;
}

/* Sender: every write is done, or one failed and the rest are in. A
 * success completes the send (its buffer is at the receiver); a failure
 * waits for the receiver's CTS and the copy pipeline. */
void pml_write_finish(struct pml_req *r)
{
    struct pml_hdr_fin fin = {.type = PML_HDR_PUTFIN, .sreq = r->other};

    fin.status = r->error ? (r->error < 0 ? r->error : -EIO) : (int64_t)r->issued;
    pml_send_ctl(r->wpeer, &fin, sizeof(fin));
    if (r->error)
        r->error = 0;
    else
        pml_req_complete(r);
}

void pml_recv_wcts(int peer, const void *data, size_t len)
{
    const struct pml_hdr_wcts *h = data;
    struct pml_req *r = pml_req_lookup(h->sreq);
    struct pml_peer *p = &pml_peers[peer];

    pml_credit_arrived(peer);
    if (!r || !r->send || h->len > r->len || len < sizeof(*h) + sizeof(struct pml_hdr_keys))
        rt_fatal("a write clear-to-send from rank %d names no send (handle %#llx, %llu bytes)",
                 peer, (unsigned long long)h->sreq, (unsigned long long)h->len);
    r->other = h->rreq;
    /* It offered a read the receiver did not take (RDMPI_PML_RNDV=write). */
    pml_regs_drop(&r->regs);
    if (r->exposed) {
        p->rndv_out--;
        r->exposed = 0;
    }
    r->raddr = h->raddr;
    r->issued = 0;
    r->get_end = h->len;
    r->inflight = 0;
    r->error = 0;
    /* No rail of ours has a key of its: the receiver takes the copy pipeline. */
    pml_stripe_close(r);
    if (!pml_stripe_open(r, h + 1, len - sizeof(*h), true)) {
        r->error = -ENOENT;
        pml_write_finish(r);
        return;
    }
    pml_stripe_run(r);
}
