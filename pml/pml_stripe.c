/* Rails and the one chunk scheduler of the RDMA rendezvous. A peer's
 * rails are the modules of its list of routes[0]'s kind; a large
 * message's reads (RGET, by the receiver) or writes (write rendezvous, by
 * the sender) go in chunks over all of them, each rail taking the next
 * chunk while it has fewer than RDMPI_PML_GET_DEPTH in flight and the
 * smallest share of the bytes for its bandwidth. Each chunk is keyed on its
 * rail from the other side's keys block (pml_hdr.h). A chunk that fails on
 * a rail the peer is no longer reached by goes again on the others. */
#include "pml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Chunks of a striped message: at least this, so small messages do not
 * pay a completion per few pages. */
#define STRIPE_MIN_CHUNK (64u << 10)

struct pml_chunk {
    struct pml_req *r;
    struct pml_stripe *s;
    struct pml_chunk *next; /* free list, or the list of chunks to issue again */
    struct pml_bounce_slot *slot;
    size_t off, len;
    int rail;
};

struct pml_stripe_rail {
    struct btl_module *btl;
    struct btl_endpoint *ep;
    uint8_t rkey[PML_RKEY_MAX]; /* the other side's key on this rail */
    size_t limit;               /* largest chunk it takes */
    uint64_t bytes;             /* bytes given to it so far */
    int inflight;
};

struct pml_stripe {
    bool write;
    bool orphan; /* its request completed (failed) with chunks in flight */
    int inflight;
    int nrails;
    int nrec;     /* records in pool */
    size_t chunk; /* bytes per chunk, before the rails' limits */
    struct pml_stripe_rail rail[PML_MAX_RAILS];
    struct pml_chunk *free, *redo;
    struct pml_chunk pool[];
};

/* Stripes of a message of one or two chunks, kept for the next: a flood
 * of rendezvous just above the eager limit (when credits run out) would
 * otherwise allocate and free one per message. */
#define STRIPE_SMALL 2
#define STRIPE_CACHE 64
static struct pml_stripe *cache[STRIPE_CACHE];
static int ncache;

static struct pml_stripe *stripe_new(int nrec)
{
    struct pml_stripe *s;

    nrec = nrec < STRIPE_SMALL ? STRIPE_SMALL : nrec;
    if (nrec == STRIPE_SMALL && ncache) {
        s = cache[--ncache];
        memset(s, 0, sizeof(*s) + (size_t)(2 * nrec) * sizeof(s->pool[0]));
    } else if (!(s = calloc(1, sizeof(*s) + (size_t)(2 * nrec) * sizeof(s->pool[0])))) {
        return NULL;
    }
    s->nrec = nrec;
    return s;
}

static void stripe_free(struct pml_stripe *s)
{
    if (s->nrec == STRIPE_SMALL && ncache < STRIPE_CACHE)
        cache[ncache++] = s;
    else
        free(s);
}

void pml_stripe_fini(void)
{
    while (ncache)
        free(cache[--ncache]);
}

bool pml_rail_like(const struct btl_module *a, const struct btl_module *b)
{
    const uint32_t kind =
        BTL_CAP_GET | BTL_CAP_PUT | BTL_CAP_NEED_REG | BTL_CAP_DIRECT | BTL_CAP_OFFHOST;

    return (a->flags & kind) == (b->flags & kind) && a->rkey_size == b->rkey_size;
}

bool pml_route_has(int w, const struct btl_module *btl)
{
    const struct pml_peer *p = &pml_peers[w];

    for (int i = 0; i < p->nroutes; i++)
        if (p->routes[i].btl == btl)
            return true;
    return false;
}

/* ---- registrations on several rails ---- */

size_t pml_regs_make(int wpeer, uint32_t need, void *base, size_t len, struct pml_regs *regs,
                     void *keys, uint64_t *raddr)
{
    const struct pml_peer *p = &pml_peers[wpeer];
    struct pml_hdr_keys *kh = keys;
    size_t off = sizeof(*kh), stride = PML_KEY_STRIDE(p->btl->rkey_size);

    memset(kh, 0, sizeof(*kh));
    regs->n = 0;
    if (p->btl->rkey_size > PML_RKEY_MAX)
        return 0;
    kh->size = (uint8_t)p->btl->rkey_size;
    for (int i = 0; i < p->nroutes && regs->n < PML_MAX_RAILS; i++) {
        struct btl_module *m = p->routes[i].btl;
        struct pml_hdr_key *k = (struct pml_hdr_key *)((char *)keys + off);
        uint64_t a;

        if (!pml_rail_like(p->btl, m) || (m->flags & need) != need)
            continue;
        memset(k, 0, stride);
        if (m->register_mem(m, base, len, &regs->reg[regs->n], k + 1, &a))
            continue; /* that rail takes no part */
        *raddr = a;
        k->rail = m->rail;
        regs->btl[regs->n++] = m;
        off += stride;
    }
    kh->n = (uint8_t)regs->n;
    pml_rdma_out += regs->n != 0;
    return regs->n ? off : 0;
}

void pml_regs_drop(struct pml_regs *regs)
{
    pml_rdma_out -= regs->n != 0;
    for (int i = 0; i < regs->n; i++)
        regs->btl[i]->deregister_mem(regs->btl[i], regs->reg[i]);
    regs->n = 0;
}

struct btl_reg *pml_regs_find(const struct pml_regs *regs, const struct btl_module *btl)
{
    for (int i = 0; i < regs->n; i++)
        if (regs->btl[i] == btl)
            return regs->reg[i];
    return NULL;
}

/* ---- the scheduler ---- */

/* The key for rail number `rail` in a keys block, or NULL. A block of
 * one key read over a peer's only rail is that rail's, whatever its
 * number: two rails that pair across different networks (a routed one,
 * btl/ofi's rail 0) number their keys differently. */
static const void *key_for(const void *keys, size_t klen, uint32_t rail, size_t size, bool only)
{
    const struct pml_hdr_keys *kh = keys;
    size_t stride = PML_KEY_STRIDE(size), off = sizeof(*kh);

    if (klen < sizeof(*kh) || kh->size != size)
        return NULL;
    for (int i = 0; i < kh->n && off + stride <= klen; i++, off += stride) {
        const struct pml_hdr_key *k = (const void *)((const char *)keys + off);

        if (k->rail == rail || (only && kh->n == 1))
            return k + 1;
    }
    return NULL;
}

bool pml_stripe_open(struct pml_req *r, const void *keys, size_t klen, bool write)
{
    const struct pml_peer *p = &pml_peers[r->wpeer];
    const uint32_t need = write ? BTL_CAP_PUT : BTL_CAP_GET;
    struct pml_stripe_rail rails[PML_MAX_RAILS];
    int n = 0, depth = pml_get_depth, nrec, like = 0;
    size_t chunk;
    struct pml_stripe *s;

    for (int i = 0; i < p->nroutes; i++)
        like += pml_rail_like(p->btl, p->routes[i].btl);
    for (int i = 0; i < p->nroutes && n < PML_MAX_RAILS; i++) {
        struct btl_module *m = p->routes[i].btl;
        const void *k = key_for(keys, klen, m->rail, m->rkey_size, like == 1);
        size_t lim = write ? m->put_limit : m->get_limit;

        if (!pml_rail_like(p->btl, m) || (m->flags & need) != need || !k)
            continue;
        rails[n] = (struct pml_stripe_rail){.btl = m, .ep = p->routes[i].ep};
        memcpy(rails[n].rkey, k, m->rkey_size);
        rails[n].limit = pml_get_chunk < lim ? pml_get_chunk : lim;
        n++;
    }
    /* One rail: today's chunks. Several: at least two chunks per rail, so
     * a slow rail's last chunk does not leave the others idle long. */
    chunk = pml_get_chunk;
    if (n > 1) {
        size_t c =
            (r->get_end / (size_t)(2 * n) + STRIPE_MIN_CHUNK - 1) & ~(size_t)(STRIPE_MIN_CHUNK - 1);
        chunk = c < STRIPE_MIN_CHUNK ? STRIPE_MIN_CHUNK : c < pml_get_chunk ? c : pml_get_chunk;
    }
    /* Records for every chunk in flight, and as many again for failed
     * ones waiting to go on another rail; no more than the message has
     * chunks at the smallest rail's size (a flood of small rendezvous
     * allocates each stripe anew). Staged chunks may be smaller still. */
    nrec = n * depth;
    if (!r->bounce) {
        size_t least = chunk, pieces;

        for (int i = 0; i < n; i++)
            least = rails[i].limit < least ? rails[i].limit : least;
        pieces = least ? (r->get_end + least - 1) / least : 1;
        if (pieces < (size_t)nrec)
            nrec = pieces ? (int)pieces : 1;
    }
    if (!n || !(s = stripe_new(nrec)))
        return false;
    s->write = write;
    s->nrails = n;
    memcpy(s->rail, rails, (size_t)n * sizeof(rails[0]));
    s->chunk = chunk;
    for (int k = 2 * s->nrec - 1; k >= 0; k--) {
        s->pool[k].r = r;
        s->pool[k].s = s;
        s->pool[k].next = s->free;
        s->free = &s->pool[k];
    }
    r->stripe = s;
    return true;
}

/* A request failed with its peer may complete while chunks are in
 * flight: the BTL still completes each, so the stripe outlives it until
 * the last comes back. */
void pml_stripe_close(struct pml_req *r)
{
    struct pml_stripe *s = r->stripe;

    if (r->rdma_pending) {
        pml_list_remove(&r->link);
        r->rdma_pending = 0;
    }
    r->stripe = NULL;
    if (s && s->inflight)
        s->orphan = true;
    else if (s)
        stripe_free(s);
}

/* The live rail that, given the next chunk, has the fewest bytes for its
 * bandwidth: a weighted round robin, so each rail's share follows its
 * bandwidth_mbs within a chunk. -1 when that rail is at its depth (the
 * others wait for it rather than run ahead) or no rail is left. */
static int pick(const struct pml_req *r, const struct pml_stripe *s, size_t n)
{
    double best = 0;
    int k = -1;

    for (int i = 0; i < s->nrails; i++) {
        const struct pml_stripe_rail *rl = &s->rail[i];
        double load =
            (double)(rl->bytes + n) / (rl->btl->bandwidth_mbs ? rl->btl->bandwidth_mbs : 1);

        if (!pml_route_has(r->wpeer, rl->btl))
            continue;
        if (k < 0 || load < best) {
            best = load;
            k = i;
        }
    }
    return k >= 0 && s->rail[k].inflight < pml_get_depth ? k : -1;
}

static bool live_rails(const struct pml_req *r, const struct pml_stripe *s)
{
    for (int i = 0; i < s->nrails; i++)
        if (pml_route_has(r->wpeer, s->rail[i].btl))
            return true;
    return false;
}

static bool stripe_complete(const struct pml_req *r)
{
    const struct pml_stripe *s = r->stripe;

    return ((r->issued == r->get_end && !s->redo) || r->error) && r->inflight == 0 &&
           (s->write || !r->put_wait);
}

static void stripe_finish(struct pml_req *r)
{
    if (r->stripe->write)
        pml_write_finish(r);
    else
        pml_get_finish(r);
}

/* Rail k of r failed a chunk: when other rails still reach the peer the
 * failed one leaves its list (if its error callback did not take it off
 * already) and the chunk goes again; false when it was the last. */
static bool fail_over(struct pml_req *r, int k)
{
    struct pml_stripe *s = r->stripe;
    struct btl_module *m = s->rail[k].btl;
    bool others = false;

    for (int i = 0; i < s->nrails; i++)
        others |= i != k && pml_route_has(r->wpeer, s->rail[i].btl);
    if (!others)
        return false;
    if (pml_route_has(r->wpeer, m)) {
        rt_info(1, "RDMA %s rank %d failed on rail %u (btl %s); its chunks go over the other rails",
                s->write ? "write to" : "read from", r->wpeer, m->rail, m->name);
        pml_peer_unlist(r->wpeer, m);
    }
    return true;
}

static void chunk_done(void *ctx, int status)
{
    struct pml_chunk *c = ctx;
    struct pml_stripe *s = c->s;
    struct pml_req *r = c->r;

    pml_rdma_out--;
    if (s->orphan) {
        if (!--s->inflight)
            stripe_free(s);
        return;
    }
    s->inflight--;
    s->rail[c->rail].inflight--;
    r->inflight--;
    if (c->slot) {
        if (!status && !s->write)
            rt_dt_unpack(r->dt, r->buf, r->count, c->slot->off, c->slot->buf, c->slot->len);
        pml_bounce_give(c->slot);
        c->slot = NULL;
    }
    if (status && !r->error && fail_over(r, c->rail)) {
        c->next = s->redo;
        s->redo = c;
    } else {
        if (status && !r->error)
            r->error = status;
        c->next = s->free;
        s->free = c;
    }
    if (r->in_issue)
        return;
    if (stripe_complete(r))
        stripe_finish(r);
    else if (!r->error)
        pml_stripe_run(r);
}

/* Where chunk [off, off+n) comes from (write) or goes to (read), staged
 * in slot when there is one. */
static char *chunk_buf(struct pml_req *r, struct pml_bounce_slot *slot, size_t off, size_t n)
{
    if (slot) {
        slot->off = off;
        slot->len = n;
        if (r->stripe->write)
            rt_dt_pack(r->dt, r->buf, r->count, off, slot->buf, n);
        return slot->buf;
    }
    return (r->tmp ? (char *)r->tmp : (char *)r->buf + r->dt->lb) + off;
}

/* Non-contiguous data without staging slots: a whole copy, packed now
 * for writes, unpacked at the end for reads. */
static bool stage_whole(struct pml_req *r)
{
    size_t limit = r->stripe->chunk;

    if (rt_dt_contig(r->dt, r->count) || r->tmp || r->bounce || !r->get_end)
        return true;
    for (int i = 0; i < r->stripe->nrails; i++)
        if (r->stripe->rail[i].limit < limit)
            limit = r->stripe->rail[i].limit;
    if (pml_bounce_open(r, limit))
        return true;
    if (!(r->tmp = malloc(r->len)))
        return false;
    if (r->stripe->write)
        rt_dt_pack(r->dt, r->buf, r->count, 0, r->tmp, r->len);
    return true;
}

void pml_stripe_run(struct pml_req *r)
{
    struct pml_stripe *s = r->stripe;

    if (!stage_whole(r))
        rt_fatal("out of memory staging a %zu-byte rendezvous", r->len);
    r->in_issue = 1;
    while (!r->error && (s->redo || r->issued < r->get_end)) {
        int k = pick(r, s, s->chunk);
        struct pml_stripe_rail *rl;
        struct pml_chunk *c = s->redo;
        struct pml_bounce_slot *slot;
        size_t off, n;
        char *local;
        int rc;

        if (k < 0) {
            if (!live_rails(r, s))
                r->error = -ENETUNREACH;
            break;
        }
        rl = &s->rail[k];
        if (c) {
            off = c->off;
            n = c->len;
        } else {
            off = r->issued;
            n = r->get_end - r->issued;
        }
        n = n < s->chunk ? n : s->chunk;
        n = n < rl->limit ? n : rl->limit;
        if (r->bounce)
            n = n < r->bounce->chunk ? n : r->bounce->chunk;
        if ((!c || n < c->len) && !s->free)
            break;
        slot = r->bounce ? pml_bounce_take(r) : NULL;
        if (r->bounce && !slot)
            break;
        local = chunk_buf(r, slot, off, n);
        if (!c) {
            c = s->free;
            s->free = c->next;
        } else if (n < c->len) {
            /* The rest of a redone chunk waits for the next pass. */
            c->off += n;
            c->len -= n;
            c = s->free;
            s->free = c->next;
        } else {
            s->redo = c->next;
        }
        c->off = off;
        c->len = n;
        c->rail = k;
        c->slot = slot;
        rl->inflight++;
        r->inflight++;
        s->inflight++;
        pml_rdma_out++;
        rc = s->write ? rl->btl->put(rl->ep, local,
                                     slot ? pml_regs_find(&r->bounce->regs, rl->btl) : NULL,
                                     r->raddr + off, rl->rkey, n, chunk_done, c)
                      : rl->btl->get(rl->ep, local,
                                     slot ? pml_regs_find(&r->bounce->regs, rl->btl) : NULL,
                                     r->raddr + off, rl->rkey, n, chunk_done, c);
        if (rc) {
            rl->inflight--;
            r->inflight--;
            s->inflight--;
            pml_rdma_out--;
            if (slot)
                pml_bounce_give(slot);
            c->slot = NULL;
            /* Back where it came from: to issue again, not lost. */
            if (off == r->issued) {
                c->next = s->free;
                s->free = c;
            } else {
                c->next = s->redo;
                s->redo = c;
            }
        }
        if (rc == -EAGAIN) {
            pml_pending_get(r);
            break;
        }
        if (rc) {
            if (!fail_over(r, k))
                r->error = rc;
            continue;
        }
        rl->bytes += n;
        if (off == r->issued)
            r->issued += n;
    }
    r->in_issue = 0;
    if (stripe_complete(r))
        stripe_finish(r);
}
