/* Registered staging for non-contiguous rendezvous over a BTL that needs
 * registration: a few chunk-sized slots in one registration, so a sender
 * packs the next chunk while earlier ones are being written, and a
 * receiver unpacks each chunk as its read completes, in memory bounded by
 * RDMPI_PML_PACK_CHUNK times RDMPI_PML_GET_DEPTH instead of a copy of the
 * whole message. */
#include "pml.h"

#include <stdlib.h>

bool pml_bounce_open(struct pml_req *r, size_t limit)
{
    struct pml_peer *p = &pml_peers[r->wpeer];
    size_t chunk = pml_pack_chunk < limit ? pml_pack_chunk : limit, len = r->get_end;
    uint8_t rkey[sizeof(r->rkey)];
    struct pml_bounce *b;
    uint64_t raddr;
    int n;

    if (!(p->btl->flags & BTL_CAP_NEED_REG) || !len || p->btl->rkey_size > sizeof(rkey))
        return false;
    if (chunk > len)
        chunk = len;
    n = (len + chunk - 1) / chunk < (size_t)pml_get_depth ? (int)((len + chunk - 1) / chunk)
                                                          : pml_get_depth;
    if (!(b = malloc(sizeof(*b) + (size_t)n * sizeof(b->slot[0]))))
        return false;
    /* Out of memory or registration: the caller stages the whole message. */
    if (!(b->base = malloc((size_t)n * chunk)) ||
        p->btl->register_mem(p->btl, b->base, (size_t)n * chunk, &b->reg, rkey, &raddr)) {
        free(b->base);
        free(b);
        return false;
    }
    b->btl = p->btl;
    b->chunk = chunk;
    b->free = NULL;
    for (int k = n - 1; k >= 0; k--) {
        b->slot[k].r = r;
        b->slot[k].buf = b->base + (size_t)k * chunk;
        b->slot[k].next = b->free;
        b->free = &b->slot[k];
    }
    r->bounce = b;
    return true;
}

struct pml_bounce_slot *pml_bounce_take(struct pml_req *r)
{
    struct pml_bounce_slot *s = r->bounce->free;

    if (s)
        r->bounce->free = s->next;
    return s;
}

void pml_bounce_give(struct pml_bounce_slot *s)
{
    struct pml_bounce *b = s->r->bounce;

    s->next = b->free;
    b->free = s;
}

void pml_bounce_close(struct pml_req *r)
{
    struct pml_bounce *b = r->bounce;

    if (!b)
        return;
    b->btl->deregister_mem(b->btl, b->reg);
    free(b->base);
    free(b);
    r->bounce = NULL;
}
