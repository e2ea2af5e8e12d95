/* btl/sm receiving: poll each peer's ring in our segment and deliver its
 * entries in order. An idle peer costs one load of a line we already hold. */
#include "config.h"

#include "btl_sm.h"
#include "btl_sm_ring.h"
#include "request.h"

/* Entries taken from one peer per call, so a fast writer cannot starve the
 * others. */
#define BURST 32

/* The writer learns of freed space only from `*rpub`; writing it is a
 * store to a line the writer reads, so do it once per quarter ring, and
 * when the ring runs dry so a writer waiting on a full ring sees all of it. */
static inline void publish(struct btl_sm_in *in, uint32_t r)
{
    __atomic_store_n(in->rpub, r, __ATOMIC_RELEASE);
    in->rlast = r;
}

/* The peer polled first: after a burst cut short, the next call starts
 * with the peer after it, so no peer waits behind a busy one. */
static int first;

int btl_sm_progress(struct btl_module *btl)
{
    const uint32_t nslots = btl_sm.nslots;
    const unsigned done = rt_req_done_count;
    int delivered = 0;

    (void)btl;
    for (int j = 0, i = first; j < btl_sm.npeers; j++, i = i + 1 < btl_sm.npeers ? i + 1 : 0) {
        struct btl_sm_in *in = &btl_sm.in[i];
        uint32_t r = in->r;
        int k;

        for (k = 0; k < BURST; k++) {
            uint64_t *e = btl_sm_slot(in->ring, r, nslots);
            uint64_t h = __atomic_load_n(e, __ATOMIC_ACQUIRE);

            if (!h)
                break;
            /* The entry stays ours until `r` is published past it, so the
             * callback reads it in place. */
            if ((uint32_t)h) {
                btl_deliver(in->world, e + 1, (uint32_t)h);
                delivered++;
            }
            r += (uint32_t)(h >> 32) & 0xffff;
            in->r = r;
            if (r - in->rlast >= nslots / 4)
                publish(in, r);
            /* A request completed: let its waiter see it before more
             * arrivals are matched (or queued as unexpected). */
            if (__atomic_load_n(&rt_req_done_count, __ATOMIC_RELAXED) != done) {
                first = i + 1 < btl_sm.npeers ? i + 1 : 0;
                return delivered;
            }
        }
        if (!k && r != in->rlast)
            publish(in, r);
    }
    return delivered;
}
