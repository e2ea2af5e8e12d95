/* btl/sm receiving: poll each peer's ring in our segment and deliver its
 * entries in order. An idle peer costs one load of a line we already hold. */
#include "config.h"

#include "btl_sm.h"
#include "btl_sm_ring.h"
#include "request.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

void btl_sm_wake_slow(struct btl_sm_seg *peer)
{
    __atomic_fetch_add(&peer->wake, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &peer->wake, FUTEX_WAKE, 1, NULL, NULL, 0);
    btl_sm.wakes++;
}

/* Sleeps until a writer publishes to one of our rings (it sees `sleeping`
 * and bumps `wake`) or timeout_us pass. The flag is set before the last
 * look at the rings, with a fence, so an entry published meanwhile is
 * either seen here or its writer sees the flag; `wake` read before the
 * flag makes a wake-up between that look and the futex call return at
 * once. */
int btl_sm_wait(struct btl_module *btl, unsigned timeout_us)
{
    struct btl_sm_seg *s = btl_sm.seg;
    struct timespec ts = {timeout_us / 1000000, (long)(timeout_us % 1000000) * 1000};
    uint32_t v;

    (void)btl;
    if (!s || !btl_sm.npeers)
        return 1;
    v = __atomic_load_n(&s->wake, __ATOMIC_ACQUIRE);
    __atomic_store_n(&s->sleeping, 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < btl_sm.npeers; i++) {
        struct btl_sm_in *in = &btl_sm.in[i];
        if (__atomic_load_n(btl_sm_slot(in->ring, in->r, btl_sm.nslots), __ATOMIC_ACQUIRE)) {
            __atomic_store_n(&s->sleeping, 0, __ATOMIC_RELAXED);
            return 1;
        }
    }
    /* Our own segment: other processes wait on the same word, so no
     * FUTEX_PRIVATE_FLAG. EINTR (the hang report's signal) just returns. */
    syscall(SYS_futex, &s->wake, FUTEX_WAIT, v, &ts, NULL, 0);
    __atomic_store_n(&s->sleeping, 0, __ATOMIC_RELAXED);
    btl_sm.sleeps++;
    return 0;
}
