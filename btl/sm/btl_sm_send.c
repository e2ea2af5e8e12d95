/* btl/sm sending: sendi copies into the peer's ring; alloc claims ring
 * space the pml fills in place, and send publishes it. Neither blocks: a
 * full ring is -EAGAIN or NULL, and the pml retries from its pending list. */
#include "config.h"

#include "btl_sm.h"
#include "btl_sm_ring.h"
#include "log.h"

#include <errno.h>
#include <string.h>

/* The rare cases of btl_sm_reserve: our cached read index says the ring is
 * full (or there is no ring yet: the first message to this peer), or the
 * entry would cross the ring's end. -EAGAIN when full; the error of a
 * ring that cannot be made, reported already. */
int btl_sm_reserve_slow(struct btl_sm_out *o, uint32_t n, uint32_t *at)
{
    uint32_t w = o->w, off = w & (o->nslots - 1);
    uint32_t pad = off + n > o->nslots ? o->nslots - off : 0;
    int rc;

    if (RT_UNLIKELY(!o->ring) && (rc = o->late ? btl_sm_late_attach(o) : btl_sm_pair_create(o)))
        return rc;
    o->rcache = __atomic_load_n(o->rpub, __ATOMIC_ACQUIRE);
    if (btl_sm_after(w + pad + n + 1, o->rcache + o->nslots)) {
        btl_sm.ring_full++;
        return -EAGAIN;
    }
    if (pad) {
        /* The reader skips the tail and finds slot 0 zeroed until our entry
         * there is published. */
        __atomic_store_n(btl_sm_slot(o->ring, w + pad, o->nslots), 0, __ATOMIC_RELAXED);
        __atomic_store_n(btl_sm_slot(o->ring, w, o->nslots), btl_sm_word(0, pad), __ATOMIC_RELEASE);
        w += pad;
    }
    __atomic_store_n(btl_sm_slot(o->ring, w + n, o->nslots), 0, __ATOMIC_RELAXED);
    o->w = w + n;
    *at = w;
    return 0;
}

int btl_sm_sendi(struct btl_endpoint *ep, const void *hdr, size_t hlen, const void *data,
                 size_t dlen)
{
    struct btl_sm_out *o = (struct btl_sm_out *)ep;
    size_t len = hlen + dlen;
    uint32_t n, at;
    uint8_t *p;
    int rc;

    if (RT_UNLIKELY(len > o->max_len))
        return -EMSGSIZE;
    n = btl_sm_slots(len);
    if ((rc = btl_sm_reserve(o, n, &at)))
        return rc;
    p = (uint8_t *)btl_sm_slot(o->ring, at, o->nslots) + BTL_SM_HDR;
    memcpy(p, hdr, hlen);
    if (dlen)
        memcpy(p + hlen, data, dlen);
    btl_sm_publish(o, at, n, len);
    btl_sm_notify(o);
    return 0;
}

/* One alloc() per endpoint may be outstanding: the pml fills and sends each
 * buffer before it asks for the next. The message takes its place in the
 * ring's order here, at alloc time. */
struct btl_desc *btl_sm_alloc(struct btl_endpoint *ep, size_t len)
{
    struct btl_sm_out *o = (struct btl_sm_out *)ep;
    uint32_t n, at;

    if (RT_UNLIKELY(o->alloc_n))
        rt_fatal("btl/sm: alloc() to rank %d while an earlier buffer is unsent; "
                 "send each buffer before allocating the next",
                 o->world);
    if (len > o->max_len)
        return NULL;
    n = btl_sm_slots(len);
    if (btl_sm_reserve(o, n, &at))
        return NULL;
    o->alloc_at = at;
    o->alloc_n = n;
    o->desc.buf = (uint8_t *)btl_sm_slot(o->ring, at, o->nslots) + BTL_SM_HDR;
    o->desc.len = len;
    return &o->desc;
}

void btl_sm_send(struct btl_endpoint *ep, struct btl_desc *d)
{
    struct btl_sm_out *o = (struct btl_sm_out *)ep;

    btl_sm_publish(o, o->alloc_at, o->alloc_n, d->len);
    o->alloc_n = 0;
    btl_sm_notify(o);
}
