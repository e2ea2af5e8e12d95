/* The btl/sm ring protocol at full speed, writer and reader on two threads
 * of one process, no launcher: FIFO order and every byte of millions of
 * random-size messages by sendi and alloc/send, on the smallest ring
 * (8 KiB: a padding entry or a full ring every few messages) and the
 * largest (64 KiB), with sizes up to the largest entry a ring takes. */
#include "config.h"

#include "btl.h"
#include "sm/btl_sm.h"
#include "sm/btl_sm_ring.h"
#include "tap.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NMSG   500000u
#define MAXLEN (32u << 10)

static uint8_t rnd[2 * MAXLEN];
static uint64_t rx, bad, eagain;
static size_t limit;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Mostly small messages, one in eight up to the limit. */
static void shape(uint64_t k, size_t *len, size_t *off)
{
    uint64_t x = mix(k);

    *len = 1 + (size_t)(x % ((x >> 60) & 1 ? limit : 64));
    *off = (size_t)(x >> 32) % MAXLEN;
}

static void on_recv(int peer, const void *data, size_t len)
{
    const uint8_t *b = data;
    size_t want, off;
    uint64_t k = rx++, got = k;

    shape(k, &want, &off);
    if (len >= 9)
        memcpy(&got, b + 1, 8);
    if (peer != 7 || len != want || b[0] != BTL_TAG_TEST || got != k ||
        memcmp(b + (len >= 9 ? 9 : 1), rnd + off + (len >= 9 ? 8 : 0), len - (len >= 9 ? 9 : 1)))
        bad++;
}

static void *writer(void *arg)
{
    struct btl_sm_out *o = arg;
    unsigned spins = 0;

    for (uint64_t k = 0; k < NMSG;) {
        size_t len, off, hlen;
        uint8_t hdr[16];
        int rc;

        shape(k, &len, &off);
        if (k % 4 == 0) {
            size_t ask = len + k % 100 <= limit ? len + k % 100 : len;
            struct btl_desc *d = btl_sm_alloc((struct btl_endpoint *)o, ask);
            rc = -EAGAIN;
            if (d) {
                uint8_t *b = d->buf;
                b[0] = BTL_TAG_TEST;
                memcpy(b + 1, rnd + off, len - 1);
                if (len >= 9)
                    memcpy(b + 1, &k, 8);
                d->len = len;
                btl_sm_send((struct btl_endpoint *)o, d);
                rc = 0;
            }
        } else {
            hlen = len < 16 ? len : 16;
            hdr[0] = BTL_TAG_TEST;
            memcpy(hdr + 1, rnd + off, hlen - 1);
            if (len >= 9)
                memcpy(hdr + 1, &k, 8);
            rc =
                btl_sm_sendi((struct btl_endpoint *)o, hdr, hlen, rnd + off + hlen - 1, len - hlen);
        }
        if (rc == 0) {
            k++;
        } else {
            eagain++;
            if (++spins % 64 == 0)
                sched_yield();
        }
    }
    return NULL;
}

static void run(uint32_t ring_bytes)
{
    uint32_t nslots = ring_bytes / BTL_SM_SLOT;
    uint8_t *ring = aligned_alloc(4096, ring_bytes);
    struct btl_sm_ctl *ctl = aligned_alloc(64, sizeof(*ctl));
    uint64_t *bell = aligned_alloc(64, 64);
    struct btl_sm_out o = {.nslots = nslots, .world = 3, .bell = bell, .bell_bit = 1};
    struct btl_sm_in in = {.world = 7, .nslots = nslots};
    int active = 0;
    unsigned spins = 0;
    pthread_t t;

    memset(ring, 0, ring_bytes);
    memset(ctl, 0, sizeof(*ctl));
    memset(bell, 0, 64);
    o.ring = in.ring = ring;
    o.rpub = in.rpub = &ctl->read;
    o.max_len = ring_bytes / 2 - BTL_SM_HDR;
    limit = o.max_len;
    btl_sm.in = &in;
    btl_sm.bell = bell;
    btl_sm.nbell = 1;
    btl_sm.nbusy = 1;
    btl_sm.npeers = 1;
    btl_sm.nslots = nslots;
    btl_sm.active = &active; /* mapped: the sweep looks at it */
    btl_sm.nactive = 1;
    rx = bad = eagain = 0;

    CHECK_ALL ("%u-byte ring: a message over %zu bytes is refused", ring_bytes, limit) {
        CHECK_EQ_INT(btl_sm_sendi((struct btl_endpoint *)&o, rnd, 1, rnd, limit), -EMSGSIZE);
        CHECK_TRUE(!btl_sm_alloc((struct btl_endpoint *)&o, limit + 1));
    }
    pthread_create(&t, NULL, writer, &o);
    while (rx < NMSG)
        if (!btl_sm_progress(NULL) && ++spins % 64 == 0)
            sched_yield();
    pthread_join(t, NULL);
    CHECK_ALL ("%u-byte ring: %u messages of 1..%zu bytes in order, %llu bad", ring_bytes, NMSG,
               limit, (unsigned long long)bad) {
        CHECK_EQ_LONG(rx, NMSG);
        CHECK_TRUE(!bad);
    }
    CHECK_GT_LONG(eagain, 0, "%u-byte ring: the writer met a full ring %llu times and carried on",
                  ring_bytes, (unsigned long long)eagain);
    CHECK_ALL ("%u-byte ring: drained, and the reader's index published (%u slots)", ring_bytes,
               in.r) {
        CHECK_EQ_INT(btl_sm_progress(NULL), 0);
        CHECK_EQ_INT(*in.rpub, in.r);
        CHECK_EQ_INT(in.r, o.w);
    }
    for (int i = 0; i < BTL_SM_LINGER; i++)
        btl_sm_progress(NULL);
    CHECK_EQ_U64(*bell, 0, "%u-byte ring: the doorbell bit is down after %d empty polls",
                 ring_bytes, BTL_SM_LINGER);
    free(ring);
    free(ctl);
    free(bell);
}

/* A watchdog that judges progress, not time: a loaded machine may take
 * minutes, a stuck ring delivers nothing for a whole period. */
#define WATCH_SECS 60

static void watch(int sig)
{
    static uint64_t last = UINT64_MAX;
    uint64_t now = __atomic_load_n(&rx, __ATOMIC_RELAXED);
    static const char msg[] = "t_btl_sm_ring: no message delivered for 60 s: stuck\n";

    (void)sig;
    if (now == last) {
        if (write(2, msg, sizeof(msg) - 1) < 0)
            _exit(2);
        _exit(1);
    }
    last = now;
    alarm(WATCH_SECS);
}

int main(void)
{
    plan(10);
    signal(SIGALRM, watch);
    alarm(WATCH_SECS);
    for (size_t i = 0; i < sizeof(rnd); i++)
        rnd[i] = (uint8_t)mix(i ^ 0x5555);
    btl_recv_table[BTL_TAG_TEST] = on_recv;
    run(8u << 10);
    run(64u << 10);
    return tap_failed != 0;
}
