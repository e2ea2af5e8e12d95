/* Rendezvous data movement. RGET: the receiver reads the sender's buffer in
 * chunks over every rail to the sender (pml_stripe.c: into staging slots
 * it unpacks from when its datatype is not contiguous), then sends one
 * FIN. The write rendezvous is in pml_rndv_write.c. Fallback: CTS and a FRAG copy
 * pipeline driven by the sender. */
#include "param.h"
#include "pml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

RT_PARAM(p_get_chunk, "PML_GET_CHUNK", RT_PARAM_SIZE, "4m",
         "Bytes per RDMA read of a rendezvous (the BTL's own limit also applies)")
RT_PARAM(p_get_depth, "PML_GET_DEPTH", RT_PARAM_INT, "8",
         "RDMA reads or writes in flight per rendezvous on each rail")
RT_PARAM(p_pack_chunk, "PML_PACK_CHUNK", RT_PARAM_SIZE, "256k",
         "Bytes per registered staging slot of a non-contiguous rendezvous over RDMA (ofi): "
         "the sender packs, or the receiver unpacks, one such chunk while "
         "RDMPI_PML_GET_DEPTH are in flight")
RT_PARAM(p_split_min, "PML_SPLIT_MIN", RT_PARAM_SIZE, "32k",
         "Rendezvous of at least this many bytes over a BTL that can write a peer's memory "
         "without registration (sm) are copied by both sides at once, the sender writing "
         "the second half, when the receiver is not itself sending the sender a rendezvous "
         "(then both cores copy already: see PML_SPLIT_BUSY_MIN); 0 turns it off. Unless "
         "set, off when ranks outnumber cores (the sender may not be running to do its "
         "part).")
RT_PARAM(p_split_busy_min, "PML_SPLIT_BUSY_MIN", RT_PARAM_SIZE, "1m",
         "PML_SPLIT_MIN for a receiver that is itself sending the sender a rendezvous, as "
         "in exchanges: below this, splitting only adds a round trip to two busy cores")

RT_PARAM(p_rndv, "PML_RNDV", RT_PARAM_STRING, "auto",
         "How rendezvous data moves over a BTL that registers memory (ofi): read (the "
         "receiver reads the sender's buffer), write (the receiver registers its buffer and "
         "the sender writes into it), or auto: read where the BTL reads and the sender's "
         "buffer could be registered, else write")

size_t pml_get_chunk;
int pml_get_depth;
size_t pml_pack_chunk;
enum pml_rndv_mode pml_rndv_mode;
static size_t split_min, split_busy_min;

/* A split needs the sender running: unless asked for, none when ranks
 * outnumber cores. */
static size_t split_param(const struct rt_param *p, const char *env)
{
    return rt.oversubscribed && !getenv(env) ? 0 : rt_param_size(p);
}

void pml_rndv_params(void)
{
    const char *mode = rt_param_string(&p_rndv);

    pml_get_chunk = rt_param_size(&p_get_chunk);
    pml_get_depth = (int)rt_param_int(&p_get_depth);
    if (pml_get_chunk < 4096)
        pml_get_chunk = 4096;
    if (pml_get_depth < 1)
        pml_get_depth = 1;
    pml_pack_chunk = rt_param_size(&p_pack_chunk);
    if (pml_pack_chunk < 4096)
        pml_pack_chunk = 4096;
    if (!strcmp(mode, "auto"))
        pml_rndv_mode = PML_RNDV_AUTO;
    else if (!strcmp(mode, "read"))
        pml_rndv_mode = PML_RNDV_READ;
    else if (!strcmp(mode, "write"))
        pml_rndv_mode = PML_RNDV_WRITE;
    else
        rt_fatal("RDMPI_PML_RNDV=%s: choose auto, read or write", mode);
    split_min = split_param(&p_split_min, "RDMPI_PML_SPLIT_MIN");
    split_busy_min = split_param(&p_split_busy_min, "RDMPI_PML_SPLIT_BUSY_MIN");
}

/* ---- receiver: RDMA reads ---- */

/* Once the chunks are in (pml_stripe.c) and the sender's part, if it has
 * one, is written: unpack, FIN, complete; after a failure, one fallback to
 * the copy pipeline. */
void pml_get_finish(struct pml_req *r)
{
    struct pml_hdr_fin fin = {.type = PML_HDR_FIN, .sreq = r->other};

    if (r->error && pml_peers[r->wpeer].failed) {
        pml_fail_req(r); /* the copy pipeline would need the lost peer too */
        return;
    }
    if (r->error) {
        /* One fallback, never a retry loop: ask for the copy pipeline. */
        struct pml_hdr_cts cts = {.type = PML_HDR_CTS, .sreq = r->other, .rreq = pml_req_handle(r)};
        rt_info(1, "RDMA %s rank %d failed; falling back to the copy pipeline",
                r->wrndv ? "write by" : "read from", r->wpeer);
        r->wrndv = 0;
        pml_peers[r->wpeer].stats->fb_read++;
        r->error = 0;
        r->state = PML_S_FRAGS;
        r->done = 0;
        pml_send_ctl(r->wpeer, &cts, sizeof(cts));
        return;
    }
    if (r->tmp)
        rt_dt_unpack(r->dt, r->buf, r->count, 0, r->tmp, r->len);
    /* A writing sender completed when it sent its PUTFIN. */
    if (!r->wrndv) {
        fin.status = (int64_t)r->len;
        pml_send_ctl(r->wpeer, &fin, sizeof(fin));
    }
    pml_req_complete(r);
}

/* Starts the reads of a matched RGET; a large contiguous receive over a
 * BTL that writes peer memory directly hands its second half to the
 * sender, so two processes copy at once (single-copy reads alone are
 * bound by one core: see docs/pml.md). A sender that is reading a
 * rendezvous of ours is busy already: in 2-rank bibw a split lost
 * 1.03-1.2x at 128-512 KiB and won 1.25-1.5x from 1 MiB. */
void pml_get_start(struct pml_req *r)
{
    struct pml_peer *p = &pml_peers[r->wpeer];
    size_t half = (r->len / 2) & ~(size_t)4095;
    size_t min = p->rndv_out ? split_busy_min : split_min;

    r->get_end = r->len;
    if (min && r->len >= min && r->len == r->msg_len && r->wpeer != rt.rank &&
        pml_direct_ok(r->wpeer) && rt_dt_contig(r->dt, r->count) && half) {
        struct pml_hdr_put put = {.type = PML_HDR_PUT,
                                  .sreq = r->other,
                                  .rreq = pml_req_handle(r),
                                  .offset = half,
                                  .raddr =
                                      (uint64_t)(uintptr_t)((char *)r->buf + r->dt->lb + half)};
        r->get_end = half;
        r->put_wait = 1;
        pml_send_ctl(r->wpeer, &put, sizeof(put));
    }
    pml_stripe_run(r);
}

/* Receiver: the sender wrote its part, or could not (then we read it, or
 * after a failed write rendezvous ask for the copy pipeline). */
void pml_recv_putfin(int peer, const void *data, size_t len)
{
    const struct pml_hdr_fin *h = data;
    struct pml_req *r = pml_req_lookup(h->sreq);

    pml_credit_arrived(peer);
    (void)len;
    if (!r || r->send || !r->put_wait)
        rt_fatal("a PUTFIN from rank %d names no split receive (handle %#llx)", peer,
                 (unsigned long long)h->sreq);
    r->put_wait = 0;
    if (h->status < 0 && r->wrndv) {
        r->error = (int)h->status;
        pml_get_finish(r);
    } else if (h->status < 0) {
        r->get_end = r->len;
        pml_stripe_run(r);
    } else if (r->wrndv || r->inflight == 0) {
        /* A write rendezvous moves nothing here; a split read finishes on
         * its last chunk unless that came first. */
        if (r->wrndv)
            pml_get_finish(r);
        else
            pml_stripe_run(r);
    }
}

/* ---- sender: its part of a split rendezvous ---- */

static void put_done(void *ctx, int status)
{
    struct pml_req *r = ctx;
    struct pml_hdr_fin fin = {.type = PML_HDR_PUTFIN, .sreq = r->other, .status = status};

    pml_send_ctl(r->wpeer, &fin, sizeof(fin));
}

void pml_recv_put(int peer, const void *data, size_t len)
{
    const struct pml_hdr_put *h = data;
    struct pml_req *r = pml_req_lookup(h->sreq);
    struct pml_peer *p = &pml_peers[peer];
    const char *src;
    int rc;

    pml_credit_arrived(peer);
    (void)len;
    if (!r || !r->send || h->offset > r->len)
        rt_fatal("a PUT request from rank %d names no send (handle %#llx)", peer,
                 (unsigned long long)h->sreq);
    r->other = h->rreq;
    src = r->tmp ? r->tmp : (const char *)r->buf + r->dt->lb;
    rc = p->btl->put(p->ep, src + h->offset, NULL, h->raddr, NULL, r->len - h->offset, put_done, r);
    if (rc)
        put_done(r, rc < 0 ? rc : -rc);
}

/* ---- receiver: FRAGs of the copy pipeline ---- */

void pml_recv_frag(int peer, const void *data, size_t len)
{
    const struct pml_hdr_frag *h = data;
    struct pml_req *r = pml_req_lookup(h->rreq);
    size_t n = len - sizeof(*h);

    pml_credit_arrived(peer);
    if (!r || r->send)
        rt_fatal("a data fragment from rank %d names no receive (handle %#llx); "
                 "the peers disagree on the protocol",
                 peer, (unsigned long long)h->rreq);
    /* Data past the receive buffer (truncation) is dropped. */
    if (h->offset < r->len) {
        size_t keep = r->len - h->offset < n ? r->len - h->offset : n;
        if (rt_dt_contig(r->dt, r->count))
            memcpy((char *)r->buf + r->dt->lb + h->offset, h + 1, keep);
        else
            rt_dt_unpack(r->dt, r->buf, r->count, h->offset, h + 1, keep);
    }
    r->done += n;
    if (r->done >= r->msg_len)
        pml_req_complete(r);
}

/* ---- sender: CTS, FRAG streaming, FIN ---- */

void pml_recv_cts(int peer, const void *data, size_t len)
{
    const struct pml_hdr_cts *h = data;
    struct pml_req *r = pml_req_lookup(h->sreq);

    pml_credit_arrived(peer);
    (void)len;
    if (!r || !r->send)
        rt_fatal("a clear-to-send from rank %d names no send (handle %#llx)", peer,
                 (unsigned long long)h->sreq);
    r->other = h->rreq;
    r->state = PML_S_FRAGS;
    r->done = 0;
    /* A read failed at the receiver; the copy pipeline replaces it. */
    pml_regs_drop(&r->regs);
    pml_send_continue(r);
}

void pml_recv_fin(int peer, const void *data, size_t len)
{
    const struct pml_hdr_fin *h = data;
    struct pml_req *r = pml_req_lookup(h->sreq);

    pml_credit_arrived(peer);
    (void)len;
    if (!r || !r->send)
        rt_fatal("a FIN from rank %d names no send (handle %#llx)", peer,
                 (unsigned long long)h->sreq);
    if (h->status < 0)
        r->base.status.MPI_ERROR = MPI_ERR_OTHER;
    pml_req_complete(r);
}

void pml_recv_credit(int peer, const void *data, size_t len)
{
    const struct pml_hdr_credit *h = data;

    (void)len;
    pml_peers[peer].msgs += h->msgs;
    /* Only returned units end a stall: places in the message window come
     * back whether or not the receiver matches anything. */
    if (!h->credits)
        return;
    pml_peers[peer].credits += h->credits;
    pml_peers[peer].stalled = false;
    pml_peers[peer].credit_until = 0;
}

/* Streams the rest of the message as FRAGs; stops when the BTL has no
 * buffers or the message window is closed, and resumes from the pending
 * list. */
void pml_frags_stream(struct pml_req *r)
{
    struct pml_peer *p = &pml_peers[r->wpeer];
    size_t max = p->btl->eager_limit - sizeof(struct pml_hdr_frag);
    const char *src = r->tmp ? r->tmp : (const char *)r->buf + r->dt->lb;
    bool packed = r->tmp || rt_dt_contig(r->dt, r->count);

    while (r->done < r->len) {
        size_t n = r->len - r->done < max ? r->len - r->done : max;
        struct btl_desc *d =
            pml_window_open(p) ? p->btl->alloc(p->ep, sizeof(struct pml_hdr_frag) + n) : NULL;
        struct pml_hdr_frag *h;

        if (!d) {
            pml_pending_send(r);
            return;
        }
        h = d->buf;
        h->type = PML_HDR_FRAG;
        h->rreq = r->other;
        h->offset = r->done;
        if (packed)
            memcpy(h + 1, src + r->done, n);
        else
            rt_dt_pack(r->dt, r->buf, r->count, r->done, h + 1, n);
        d->len = sizeof(*h) + n;
        p->btl->send(p->ep, d);
        pml_window_take(p);
        r->done += n;
    }
    pml_req_complete(r);
}
