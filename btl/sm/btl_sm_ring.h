/* The per-(sender, receiver) ring: one producer, one consumer, in the
 * receiver's segment.
 *
 * The ring is an array of 64-byte slots. An entry is one 8-byte header word
 * followed by the message, rounded up to whole slots, and never wraps: a
 * padding entry covers the tail of the ring instead. The writer copies the
 * message, then publishes the header word with one release store; the
 * reader polls the header word of its next entry with one load, and never
 * writes the ring.
 *
 * Header word: bits 0-31 message length (0: padding), 32-47 entry length in
 * slots. Zero means "nothing yet".
 *
 * Entries vary in size, so the slot where the reader looks next may hold
 * the middle of an old message; a lap bit in the header would not help. So
 * the writer zeroes the header word of the slot after each entry before it
 * publishes the entry (the slot is free: the writer keeps one slot spare).
 *
 * Where that zeroing happens matters for latency. Done just before the
 * publish, its store to a second line sits between the writer's stores to
 * the entry's line, and the reader, spinning on that line, takes it back in
 * between: the hand-off then costs about twice the cache-line floor. So
 * after each publish the writer zeroes, off the critical path, the slot
 * where the next entry would end if it had the same size as this one, and
 * the next claim skips its zeroing when that guess was right (ping-pong and
 * streams of one size). Zeroing every slot ahead would also have done, but
 * a partial-line store before each full-line copy halved the bandwidth.
 *
 * Indices are free-running 32-bit slot counts, compared by signed
 * difference; nslots is a power of two. */
#ifndef BTL_SM_RING_H
#define BTL_SM_RING_H

#include "request.h"
#include "btl_sm.h"
#include "rt.h"

#include <stddef.h>
#include <stdint.h>

#define BTL_SM_SLOT 64 /* entries start on a cache line */
#define BTL_SM_HDR  8  /* the header word before each message */

static inline uint64_t *btl_sm_slot(uint8_t *ring, uint32_t idx, uint32_t nslots)
{
    return (uint64_t *)(ring + (size_t)(idx & (nslots - 1)) * BTL_SM_SLOT);
}

static inline uint32_t btl_sm_slots(size_t len)
{
    return (uint32_t)((len + BTL_SM_HDR + BTL_SM_SLOT - 1) / BTL_SM_SLOT);
}

static inline uint64_t btl_sm_word(uint32_t len, uint32_t n)
{
    return (uint64_t)len | (uint64_t)n << 32;
}

/* a is after b, in free-running indices. */
static inline int btl_sm_after(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) > 0;
}

int btl_sm_reserve_slow(struct btl_sm_out *o, uint32_t n, uint32_t *at);

/* Claims n slots and sees that the slot after them is zeroed; *at is the
 * first. -EAGAIN when the ring is full, or the error of a first message's
 * ring that could not be made. n is at most half a ring. */
static inline int btl_sm_reserve(struct btl_sm_out *o, uint32_t n, uint32_t *at)
{
    uint32_t w = o->w;

    if (RT_UNLIKELY(btl_sm_after(w + n + 1, o->rcache + o->nslots) ||
                    (w & (o->nslots - 1)) + n > o->nslots))
        return btl_sm_reserve_slow(o, n, at);
    if (o->zeroed != w + n)
        __atomic_store_n(btl_sm_slot(o->ring, w + n, o->nslots), 0, __ATOMIC_RELAXED);
    o->w = w + n;
    *at = w;
    return 0;
}

/* Makes the entry at `at` visible (everything written before it is seen by
 * a reader that sees the header word), then zeroes where a next entry of
 * the same size would end, if that slot is free. */
static inline void btl_sm_publish(struct btl_sm_out *o, uint32_t at, uint32_t n, size_t len)
{
    uint32_t next = o->w + n;

    __atomic_store_n(btl_sm_slot(o->ring, at, o->nslots), btl_sm_word((uint32_t)len, n),
                     __ATOMIC_RELEASE);
    if (btl_sm_after(o->rcache + o->nslots, next) && (o->w & (o->nslots - 1)) + n < o->nslots) {
        __atomic_store_n(btl_sm_slot(o->ring, next, o->nslots), 0, __ATOMIC_RELAXED);
        o->zeroed = next;
    } else {
        o->zeroed = o->w; /* no claim ends there; never stale by a full index wrap */
    }
}

/* The writer learns of freed space only from `*rpub`; writing it is a
 * store to a line the writer reads, so do it once per quarter ring, and
 * when the ring runs dry so a writer waiting on a full ring sees all of it. */
static inline void btl_sm_give_back(struct btl_sm_in *in, uint32_t r)
{
    __atomic_store_n(in->rpub, r, __ATOMIC_RELEASE);
    in->rlast = r;
}

/* Delivers up to burst entries of in's ring; *k says how many it took. 1
 * when a request completed: the caller returns, so that its waiter sees it
 * before more arrivals are matched (or queued as unexpected). The entry
 * stays ours until `r` is published past it, so the callback reads it in
 * place. */
static inline int btl_sm_take(struct btl_sm_in *in, int burst, int *delivered, unsigned done,
                              int *k)
{
    uint32_t r = in->r;

    for (*k = 0; *k < burst; (*k)++) {
        uint64_t *e = btl_sm_slot(in->ring, r, in->nslots);
        uint64_t h = __atomic_load_n(e, __ATOMIC_ACQUIRE);

        if (!h)
            break;
        if ((uint32_t)h) {
            btl_deliver(in->world, e + 1, (uint32_t)h);
            (*delivered)++;
        }
        r += (uint32_t)(h >> 32) & 0xffff;
        in->r = r;
        if (r - in->rlast >= in->nslots / 4)
            btl_sm_give_back(in, r);
        if (__atomic_load_n(&rt_req_done_count, __ATOMIC_RELAXED) != done)
            return 1;
    }
    return 0;
}

#endif
