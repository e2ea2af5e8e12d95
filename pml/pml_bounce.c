/* Registered staging for non-contiguous rendezvous over a BTL that needs
 * registration: a few chunk-sized slots in one registration, so a sender
 * packs the next chunk while earlier ones are being written, and a
 * receiver unpacks each chunk as its read completes, in memory bounded by
 * RDMPI_PML_PACK_CHUNK times RDMPI_PML_GET_DEPTH per rail instead of a copy
 * of the whole message. The slots are registered on every rail of the
 * peer, so any chunk may go on any of them. */
#include "pml.h"

#include <stdlib.h>

bool pml_bounce_open(struct pml_req *r, size_t limit)
{
    struct pml_peer *p = &pml_peers[r->wpeer];
    size_t chunk = pml_pack_chunk < limit ? pml_pack_chunk : limit, len = r->get_end;
    uint8_t keys[PML_KEYS_MAX];
    size_t depth = (size_t)pml_get_depth, rails = 0;
    struct pml_bounce *b;
    uint64_t raddr;
    int n;

    if (!(p->btl->flags & BTL_CAP_NEED_REG) || !len)
        return false;
    if (chunk > len)
        chunk = len;
    for (int i = 0; i < p->nroutes; i++)
        rails += pml_rail_like(p->btl, p->routes[i].btl);
    depth *= rails ? rails : 1;
    n = (len + chunk - 1) / chunk < depth ? (int)((len + chunk - 1) / chunk) : (int)depth;
    if (!(b = malloc(sizeof(*b) + (size_t)n * sizeof(b->slot[0]))))
        return false;
    /* Out of memory or registration: the caller stages the whole message. */
    if (!(b->base = malloc((size_t)n * chunk)) ||
        !pml_regs_make(r->wpeer, 0, b->base, (size_t)n * chunk, &b->regs, keys, &raddr)) {
        free(b->base);
        free(b);
        return false;
    }
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
    pml_regs_drop(&b->regs);
    free(b->base);
    free(b);
    r->bounce = NULL;
}
