/* btl/sm receiving: the doorbell says which peers' rings to poll (and,
 * the first time, to map); deliver their entries in order. An idle poll
 * reads the doorbell words (one per 64 peers, OR-ed in one pass) and the
 * rings of peers that sent lately, and every BTL_SM_SWEEP polls those of
 * peers that ever sent, whatever the number of silent peers. */
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

/* The peer polled first: after a burst cut short, the next call starts
 * with the peer after it, so no peer waits behind a busy one. */
static int first;

/* The ring stayed empty for BTL_SM_LINGER polls: clear its bit, then look
 * once more. An entry that slipped in keeps the bit: we set it again
 * ourselves. One the writer published as we cleared, still invisible,
 * the sweep finds (btl_sm_notify). */
static void cool(struct btl_sm_in *in, int i)
{
    uint64_t *w = &btl_sm.bell[i / BTL_SM_BELL_BITS];
    uint64_t bit = 1ull << (i % BTL_SM_BELL_BITS);

    in->idle = 0;
    __atomic_fetch_and(w, ~bit, __ATOMIC_ACQ_REL);
    if (__atomic_load_n(btl_sm_slot(in->ring, in->r, in->nslots), __ATOMIC_ACQUIRE))
        __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
}

/* Delivers up to BURST entries of ring i; 1 when a request completed and
 * the caller should return. */
static int poll_ring(int i, int *delivered, unsigned done)
{
    struct btl_sm_in *in = &btl_sm.in[i];
    int k;

    if (RT_UNLIKELY(!in->ring)) {
        btl_sm_pair_attach(i);
        if (!in->ring)
            return 0;
    }
    if (btl_sm_take(in, BURST, delivered, done, &k)) {
        in->idle = 0;
        first = i + 1 < btl_sm.npeers ? i + 1 : 0;
        return 1;
    }
    if (k) {
        in->idle = 0;
    } else {
        if (in->r != in->rlast)
            btl_sm_give_back(in, in->r);
        if (++in->idle >= BTL_SM_LINGER)
            cool(in, i);
    }
    return 0;
}

/* Polls the rings in [lo, hi) whose bits are up; 1 to stop (see poll_ring). */
static int poll_span(int lo, int hi, int *delivered, unsigned done)
{
    for (int wi = lo / BTL_SM_BELL_BITS; lo < hi; wi++) {
        int base = wi * BTL_SM_BELL_BITS,
            end = base + BTL_SM_BELL_BITS < hi ? base + BTL_SM_BELL_BITS : hi;
        uint64_t b = __atomic_load_n(&btl_sm.bell[wi], __ATOMIC_ACQUIRE);

        b &= ~0ull << (lo - base);
        if (end - base < BTL_SM_BELL_BITS)
            b &= (1ull << (end - base)) - 1;
        for (; b; b &= b - 1)
            if (poll_ring(base + __builtin_ctzll(b), delivered, done))
                return 1;
        lo = end;
    }
    return 0;
}

/* Whether any doorbell bit is up: the idle poll's only look at the
 * bitmap, a load and an OR per word. */
static inline int bell_rung(void)
{
    uint64_t any = 0;

    for (uint32_t wi = 0; wi < btl_sm.nbusy; wi++)
        any |= __atomic_load_n(&btl_sm.bell[wi], __ATOMIC_RELAXED);
    return any != 0;
}

int btl_sm_progress(struct btl_module *btl)
{
    const unsigned done = rt_req_done_count;
    int delivered = 0, start = first;

    (void)btl;
    if (RT_UNLIKELY(btl_sm.puts))
        delivered += btl_sm_put_progress();
    if (RT_UNLIKELY(++btl_sm.sweep >= BTL_SM_SWEEP))
        btl_sm_pair_sweep();
    if (RT_UNLIKELY(btl_sm.nlate))
        delivered += btl_sm_late_poll();
    if (!bell_rung())
        return delivered;
    if (!poll_span(start, btl_sm.npeers, &delivered, done))
        poll_span(0, start, &delivered, done);
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
 * look, with a fence, so an entry published meanwhile is either seen here
 * or its writer sees the flag (btl_sm_notify). The last look reads every
 * mapped ring, not only those whose bit is up (the doorbell may lag), and
 * the bits of unmapped ones (a first message). `wake` read before the flag
 * makes a wake-up between that look and the futex call return at once. */
int btl_sm_wait(struct btl_module *btl, unsigned timeout_us)
{
    struct btl_sm_seg *s = btl_sm.seg;
    struct timespec ts = {timeout_us / 1000000, (long)(timeout_us % 1000000) * 1000};
    uint32_t v;
    long rc;

    (void)btl;
    /* Late peers' writers do not know this segment: no sleep with any. */
    if (!s || !btl_sm.npeers || btl_sm.puts || btl_sm.nlate)
        return 1;
    rt_noise(); /* between the caller's last poll and the flag: entries land here */
    v = __atomic_load_n(&s->wake, __ATOMIC_ACQUIRE);
    __atomic_store_n(&s->sleeping, 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (uint32_t wi = 0; wi < btl_sm.nbell; wi++)
        for (uint64_t b = __atomic_load_n(&btl_sm.bell[wi], __ATOMIC_ACQUIRE); b; b &= b - 1)
            if (!btl_sm.in[wi * BTL_SM_BELL_BITS + __builtin_ctzll(b)].ring)
                goto awake;
    for (int k = 0; k < btl_sm.nactive; k++) {
        struct btl_sm_in *in = &btl_sm.in[btl_sm.active[k]];
        if (__atomic_load_n(btl_sm_slot(in->ring, in->r, in->nslots), __ATOMIC_ACQUIRE)) {
            btl_sm_pair_sweep(); /* its bit may be down: progress must poll it */
            goto awake;
        }
    }
    /* Our own segment: other processes wait on the same word, so no
     * FUTEX_PRIVATE_FLAG. EINTR (the hang report's signal) just returns. */
    rc = syscall(SYS_futex, &s->wake, FUTEX_WAIT, v, &ts, NULL, 0);
    __atomic_store_n(&s->sleeping, 0, __ATOMIC_RELAXED);
    btl_sm.sleeps++;
    if (rc && errno == ETIMEDOUT)
        btl_sm.timeouts++;
    return 0;
awake:
    __atomic_store_n(&s->sleeping, 0, __ATOMIC_RELAXED);
    return 1;
}
