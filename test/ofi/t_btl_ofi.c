/* btl/ofi driven directly, without the pml, between all ranks (itself
 * included when RDMPI_BTL leaves self out):
 *   - every one of N messages of random sizes up to the eager limit per
 *     ordered pair exactly once, every byte right, by sendi (split
 *     header/data) and alloc/send, in any order: the BTL does not promise
 *     send order (the pml restores MPI's), and rxm completes messages
 *     above its eager size after smaller ones behind them;
 *   - back-pressure: a receiver stops polling; its left neighbour streams
 *     on up to the window, meets -EAGAIN or a NULL alloc, queues, and all
 *     arrives once the receiver polls again;
 *   - RDMA read of 1 B .. 64 MiB at odd offsets, in chunks with at most 8
 *     in flight, every byte checked; -EAGAIN from get handled by retrying;
 *   - RDMA write of the same sizes in put_limit chunks, every byte and
 *     its neighbours checked once the writer's next message came;
 *   - registration: read a buffer and sendi from it, unmap it, map a new
 *     one at the same address with other contents, register again: the
 *     peer sees the new contents;
 *   - the transport line and counters, and no /dev/shm file of this job
 *     left after finalize (libfabric shm makes one per rank, named by us).
 * Usage: t_btl_ofi [N] under mpirun with RDMPI_BTL=ofi (t_btl_ofi.sh);
 * t_btl_ofi --crash: every rank exits after connect without finalize (the
 * launcher must sweep the shm files); t_btl_ofi --die: rank 1 exits while
 * rank 0 streams at it (the job must end, naming the rank); --bad-read and
 * --bad-write: an RDMA read or write outside the peer's registration.
 * Output is "# rank R ok|FAIL:" lines; the exit status is 0 only if every
 * check on this rank passed. */
#include "btl_harness.h"
#include "btl_ofi.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

#define RND    (64u << 10)
#define MAXMSG (64u << 10)
#define GBUF   ((64u << 20) + 64)
#define REGBUF (1u << 20)
#define DEPTH  8

enum kind { K_DATA = 'D', K_BARRIER = 'B', K_KEY = 'K', K_ACK = 'A', K_COUNT = 'C', K_REMAP = 'R' };
#define REMAP_SEND 1000 /* bytes sent straight from the remapped buffer */

/* A registered region, announced to one peer. */
struct key_msg {
    uint8_t tag, kind, pad[6];
    uint64_t raddr;
    uint64_t len;
    uint8_t rkey[32];
};

static struct harness h;
static struct btl_module *ofi;
static struct btl_ofi_module *om; /* its state, for the watchdog */
static const char *phase = "setup";
static uint64_t nmsg = 2000;
static uint8_t rnd[RND + MAXMSG];

struct stream {
    uint64_t tx, rx;  /* data messages sent to / received from this rank */
    uint64_t ksum;    /* the numbers of those received: each once is n(n-1)/2 */
    uint64_t refused; /* sendi -EAGAIN or alloc NULL */
    int errors;
    uint64_t barriers;  /* barrier messages from this rank */
    struct key_msg key; /* the last key it sent */
    /* keys and acks count up over the run */
    int keys, acks;
    uint64_t count; /* data messages it says it sent */
    int counts;     /* such messages received */
    int remap_ok;   /* messages from its remapped buffer with the right contents */
};
static struct stream *st;

/* Data message k from src to dst: 10..limit bytes; byte 0 the header
 * type, byte 1 the kind, bytes 2..9 k (it may arrive anywhere in the
 * stream), then rnd[off..]. */
static void msg_shape(int src, int dst, uint64_t k, size_t limit, size_t *len, size_t *off)
{
    uint64_t x = harness_mix((uint64_t)src << 48 ^ (uint64_t)dst << 32 ^ k);

    *len = 10 + (size_t)(x % (limit - 9));
    *off = (size_t)(x >> 40) % RND;
}

static void msg_fill(uint8_t *buf, size_t len, size_t off, uint64_t k)
{
    buf[0] = BTL_TAG_TEST;
    buf[1] = K_DATA;
    memcpy(buf + 2, rnd + off, len - 2);
    memcpy(buf + 2, &k, 8);
}

static int send_data(int p, uint64_t k)
{
    size_t len, off, hlen;
    uint8_t hdr[24];

    msg_shape(rt.rank, p, k, h.btl_of[p]->eager_limit, &len, &off);
    if (k % 3 == 0) {
        struct btl_desc *d = h.btl_of[p]->alloc(h.ep[p], len);

        if (!d)
            return -EAGAIN;
        msg_fill(d->buf, len, off, k);
        d->len = len;
        h.btl_of[p]->send(h.ep[p], d);
        return 0;
    }
    hlen = len < sizeof(hdr) ? len : sizeof(hdr);
    msg_fill(hdr, hlen, off, k);
    return h.btl_of[p]->sendi(h.ep[p], hdr, hlen, rnd + off + hlen - 2, len - hlen);
}

static void on_data(int peer, const uint8_t *b, size_t len)
{
    struct stream *s = &st[peer];
    uint64_t k = UINT64_MAX;
    size_t want = 0, off;

    if (len >= 10) {
        memcpy(&k, b + 2, 8);
        msg_shape(peer, rt.rank, k, h.btl_of[peer]->eager_limit, &want, &off);
    }
    s->rx++;
    s->ksum += k;
    if ((len != want || memcmp(b + 10, rnd + off + 8, len - 10)) && s->errors++ < 3)
        CHECK_TRUE(0, "message %llu (arrival %llu) from rank %d: %zu bytes (want %zu)",
                   (unsigned long long)k, (unsigned long long)s->rx, peer, len, want);
}

static long pattern_diff(const uint8_t *buf, size_t len, int rank, int gen, size_t from);

static void on_recv(int peer, const void *data, size_t len)
{
    const uint8_t *b = data;

    if (((uintptr_t)data & 7) && st[peer].errors++ < 3)
        CHECK_TRUE(0, "a message from rank %d delivered at a misaligned address %p", peer, data);
    switch (len >= 2 ? b[1] : 0) {
    case K_DATA: on_data(peer, b, len); break;
    case K_BARRIER: st[peer].barriers++; break;
    case K_KEY:
        memcpy(&st[peer].key, b, sizeof(st[peer].key));
        st[peer].keys++;
        break;
    case K_ACK: st[peer].acks++; break;
    case K_COUNT:
        memcpy(&st[peer].count, b + 2, 8);
        st[peer].counts++;
        break;
    case K_REMAP:
        st[peer].remap_ok +=
            len == 3 + REMAP_SEND && pattern_diff(b + 3, REMAP_SEND, peer, b[2], 0) < 0;
        break;
    default: CHECK_TRUE(0, "a message of %zu bytes and unknown kind from rank %d", len, peer);
    }
}

/* The watchdog judges progress, not time (a loaded host takes minutes for
 * 70000 messages): btl/ofi's sends, deliveries and reads must move within
 * each WATCH_SECS. A rank waiting in a barrier or fence for slower peers
 * moves nothing itself (they read its memory); it may wait WAIT_PERIODS,
 * while each peer's own watchdog judges that peer. */
#define WATCH_SECS   60
#define WAIT_PERIODS 5
static volatile sig_atomic_t waiting;

static void watchdog(int sig)
{
    static uint64_t last = UINT64_MAX;
    static int waited;
    static const struct btl_ofi_module none;
    const struct btl_ofi_module *s = om ? om : &none;
    uint64_t now = s->count.eager_msgs + s->count.recv_msgs + s->count.reads + s->count.writes;

    (void)sig;
    if (now != last || (waiting && ++waited < WAIT_PERIODS)) {
        waited = now != last ? 0 : waited;
        last = now;
        alarm(WATCH_SECS);
        return;
    }
    printf("# rank %d FAIL: stuck in %s (nothing moved for %d s); btl/ofi owes %d completions, %s "
           "queued sends, "
           "%llu reads issued, %llu -EAGAIN\n",
           rt.rank, phase, WATCH_SECS, s->outstanding, s->busy ? "has" : "no",
           (unsigned long long)s->count.reads, (unsigned long long)s->count.eagain);
    for (int p = 0; st && p < rt.size; p++)
        printf("#   to %d: sent %llu; from %d: received %llu, %llu barriers, %d keys, %d acks\n", p,
               (unsigned long long)st[p].tx, p, (unsigned long long)st[p].rx,
               (unsigned long long)st[p].barriers, st[p].keys, st[p].acks);
    for (int p = 0; s->peers && p < rt.size; p++)
        printf("#   btl/ofi rank %d: %u messages sent, %u delivered\n", p, s->peers[p].tx_msgs,
               s->peers[p].rx_msgs);
    fflush(stdout);
    _exit(1);
}

/* A control message the test cannot do without: retried while polling,
 * as the pml retries its control messages. */
static void send_ctl(int p, const void *buf, size_t len)
{
    int rc;

    while ((rc = h.btl_of[p]->sendi(h.ep[p], buf, len, NULL, 0)) == -EAGAIN)
        harness_progress(&h);
    if (rc)
        harness_die("sendi of a %zu-byte control message to rank %d: %d", len, p, rc);
}

/* A barrier over the BTL itself: the peers must keep polling (manual
 * progress) while others read their memory, so no PMIx fence here. */
static void barrier(void)
{
    static uint64_t epoch;
    const uint8_t msg[2] = {BTL_TAG_TEST, K_BARRIER};
    unsigned spins = 0;

    epoch++;
    for (int p = 0; p < rt.size; p++)
        send_ctl(p, msg, sizeof(msg));
    waiting = 1;
    for (int p = 0; p < rt.size; p++)
        while (st[p].barriers < epoch)
            if (!harness_progress(&h))
                harness_idle(&spins);
    waiting = 0;
}

static void fence(void)
{
    waiting = 1;
    rt_modex_fence();
    waiting = 0;
}

static void run_streams(void)
{
    unsigned spins = 0;

    phase = "streaming";
    for (;;) {
        int busy = 0, done = 1;

        for (int p = 0; p < rt.size; p++) {
            struct stream *s = &st[p];

            for (int b = 0; b < 16 && s->tx < nmsg; b++, busy++) {
                int rc = send_data(p, s->tx);

                if (rc == -EAGAIN) {
                    s->refused++;
                    break;
                }
                if (rc)
                    harness_die("send of message %llu to rank %d failed: %d",
                                (unsigned long long)s->tx, p, rc);
                s->tx++;
            }
            done &= s->tx == nmsg && s->rx >= nmsg;
        }
        busy += harness_progress(&h);
        if (done)
            break;
        if (!busy)
            harness_idle(&spins);
    }
    for (int p = 0; p < rt.size; p++)
        CHECK_ALL ("%llu messages from rank %d, each once, every byte right",
                   (unsigned long long)st[p].rx, p) {
            CHECK_EQ_LONG(st[p].rx, nmsg);
            CHECK_EQ_LONG(st[p].ksum, nmsg * (nmsg - 1) / 2);
            CHECK_TRUE(!st[p].errors);
        }
}

/* Each rank stops polling for a while, and its left neighbour streams at
 * it meanwhile, up to the BTL's window (peer_msgs) as the pml would: the
 * window fills or the provider says -FI_EAGAIN, so the BTL refuses (sendi
 * -EAGAIN, alloc NULL) or queues, and loses nothing.
 * Ranks sleep by parity; with an odd count the last rank's neighbour
 * sleeps when it does, and it skips. */
static void back_pressure(void)
{
    int right = (rt.rank + 1) % rt.size, left = (rt.rank + rt.size - 1) % rt.size;
    int streams = rt.size > 1 && (right & 1) != (rt.rank & 1);
    uint64_t base = st[right].tx, refused = st[right].refused;
    struct timespec nap = {0, 300 * 1000 * 1000};
    struct btl_ofi_counters c0, c1;
    uint8_t count[10] = {BTL_TAG_TEST, K_COUNT};
    uint64_t window = h.btl_of[right]->peer_msgs ? h.btl_of[right]->peer_msgs : UINT64_MAX;
    unsigned spins = 0;

    phase = "back-pressure";
    if (rt.size < 2)
        return;
    btl_ofi_report(ofi, &c0);
    for (int round = 0; round < 2; round++) {
        barrier();
        if ((rt.rank & 1) == round) {
            nanosleep(&nap, NULL);
        } else if (streams && (right & 1) == round) {
            double end = rt_wtime() + 0.25;

            /* No more than the pml would send: the window is the BTL's
             * statement of what its peer's receive buffers absorb. */
            while (rt_wtime() < end) {
                if (st[right].tx - base >= window) {
                    harness_progress(&h);
                } else if (send_data(right, st[right].tx) == -EAGAIN) {
                    st[right].refused++;
                    harness_progress(&h);
                } else {
                    st[right].tx++;
                }
            }
        }
    }
    memcpy(count + 2, &st[right].tx, 8);
    send_ctl(right, count, sizeof(count));
    barrier();
    btl_ofi_report(ofi, &c1);
    if (streams)
        CHECK_TRUE(st[right].refused > refused || c1.eagain > c0.eagain ||
                       st[right].tx - base == window,
                   "streaming at rank %d while it slept: %llu messages (window %llu), %llu "
                   "refusals by the BTL, %llu provider -EAGAIN",
                   right, (unsigned long long)(st[right].tx - base), (unsigned long long)window,
                   (unsigned long long)(st[right].refused - refused),
                   (unsigned long long)(c1.eagain - c0.eagain));
    /* The count and the barrier may overtake the last data messages. */
    waiting = 1;
    while (!st[left].counts || st[left].rx < st[left].count)
        if (!harness_progress(&h))
            harness_idle(&spins);
    waiting = 0;
    CHECK_ALL ("all %llu messages from rank %d arrived after the pause, each once",
               (unsigned long long)st[left].count, left) {
        CHECK_EQ_LONG(st[left].rx, st[left].count);
        CHECK_EQ_LONG(st[left].ksum, st[left].count * (st[left].count - 1) / 2);
        CHECK_TRUE(!st[left].errors);
    }
}

static uint8_t pattern(int rank, int gen, size_t i)
{
    uint64_t w = harness_mix((uint64_t)rank << 40 ^ (uint64_t)gen << 56 ^ (i >> 3));

    return (uint8_t)(w >> (8 * (i & 7)));
}

static void pattern_fill(uint8_t *buf, size_t len, int rank, int gen)
{
    for (size_t j = 0; j < len / 8; j++) {
        uint64_t w = harness_mix((uint64_t)rank << 40 ^ (uint64_t)gen << 56 ^ j);
        memcpy(buf + 8 * j, &w, 8);
    }
    for (size_t i = len & ~(size_t)7; i < len; i++)
        buf[i] = pattern(rank, gen, i);
}

static long pattern_diff(const uint8_t *buf, size_t len, int rank, int gen, size_t from)
{
    for (size_t i = 0; i < len; i++)
        if (buf[i] != pattern(rank, gen, from + i))
            return (long)i;
    return -1;
}

struct rdma_ctx {
    int calls, inflight, status;
};

static void rdma_done(void *ctx, int status)
{
    struct rdma_ctx *c = ctx;

    c->calls++;
    c->inflight--;
    c->status = status ? status : c->status;
}

/* Reads len bytes at raddr from p into buf (or writes them from buf),
 * as the pml does: chunks of `chunk`, DEPTH in flight, -EAGAIN retried
 * after polling. */
static int rdma_all(int p, int write, uint8_t *buf, uint64_t raddr, const void *rkey, size_t len,
                    size_t chunk, int *chunks, int *eagain)
{
    struct rdma_ctx c = {0, 0, 0};
    size_t done = 0;
    unsigned spins = 0;

    *chunks = *eagain = 0;
    while (done < len || c.inflight) {
        if (done < len && c.inflight < DEPTH) {
            size_t n = len - done < chunk ? len - done : chunk;
            int rc =
                write ? ofi->put(h.ep[p], buf + done, NULL, raddr + done, rkey, n, rdma_done, &c)
                      : ofi->get(h.ep[p], buf + done, NULL, raddr + done, rkey, n, rdma_done, &c);

            if (rc == 0) {
                c.inflight++;
                done += n;
                (*chunks)++;
                continue;
            }
            if (rc != -EAGAIN)
                return rc;
            (*eagain)++;
        }
        if (!harness_progress(&h))
            harness_idle(&spins);
    }
    return c.calls == *chunks ? c.status : -EPROTO;
}

static int read_all(int p, uint8_t *dst, uint64_t raddr, const void *rkey, size_t len, size_t chunk,
                    int *chunks, int *eagain)
{
    return rdma_all(p, 0, dst, raddr, rkey, len, chunk, chunks, eagain);
}

static const size_t rdma_sizes[] = {1, 7, 4096, 65537, (1u << 20) + 3, 16u << 20, 64u << 20};
#define NSIZES (sizeof(rdma_sizes) / sizeof(rdma_sizes[0]))

static void test_reads(uint8_t *gsrc, uint8_t *gdst)
{
    const size_t *sizes = rdma_sizes;
    int right = (rt.rank + 1) % rt.size;
    struct key_msg k = {BTL_TAG_TEST, K_KEY, {0}, 0, GBUF, {0}};
    struct btl_reg *reg;
    size_t chunk = ofi->get_limit < (4u << 20) ? ofi->get_limit : (4u << 20);

    phase = "rdma read";
    if (ofi->register_mem(ofi, gsrc, GBUF, &reg, k.rkey, &k.raddr))
        harness_die("register_mem of %u bytes failed", GBUF);
    /* Our left neighbour reads from us. */
    send_ctl((rt.rank + rt.size - 1) % rt.size, &k, sizeof(k));
    while (st[right].keys < 1)
        harness_progress(&h);
    for (size_t s = 0; s < NSIZES; s++) {
        size_t len = sizes[s];
        int chunks, eagain, rc;
        double t;
        long bad;

        memset(gdst, 0, len + 16);
        t = rt_wtime();
        rc = read_all(right, gdst + 5, st[right].key.raddr + 3, st[right].key.rkey, len, chunk,
                      &chunks, &eagain);
        t = rt_wtime() - t;
        bad = rc ? 0 : pattern_diff(gdst + 5, len, right, 0, 3);
        CHECK_ALL ("read of %zu bytes from rank %d in %d chunks, %d -EAGAIN (%.0f MB/s)%s", len,
                   right, chunks, eagain, len / t / 1e6, bad >= 0 ? ", wrong data" : "") {
            CHECK_TRUE(!rc);
            CHECK_LT_LONG(bad, 0);
            CHECK_EQ_INT(gdst[4], 0);
            CHECK_EQ_INT(gdst[5 + len], 0);
        }
        if (rc || bad >= 0)
            printf("#   rc %d, first wrong byte %ld\n", rc, bad);
    }
    barrier();
    ofi->deregister_mem(ofi, reg);
}

/* A read outside the peer's registration: the provider's error comes back
 * through the completion queue as a failed get, counted, and the first is a
 * warning with fi_strerror and the provider's name (t_btl_ofi.sh checks
 * its text). rxm closes the connection then: the next send fails and ends
 * the job naming the peer, before the barrier could hang; shm goes on. */
static void test_bad_read(uint8_t *gsrc, uint8_t *gdst)
{
    int right = (rt.rank + 1) % rt.size, chunks, eagain, rc;
    struct key_msg k = {BTL_TAG_TEST, K_KEY, {0}, 0, GBUF, {0}};
    struct btl_ofi_counters c;
    struct btl_reg *reg;

    phase = "bad read";
    if (ofi->register_mem(ofi, gsrc, GBUF, &reg, k.rkey, &k.raddr))
        harness_die("register_mem of %u bytes failed", GBUF);
    send_ctl((rt.rank + rt.size - 1) % rt.size, &k, sizeof(k));
    while (st[right].keys < 1)
        harness_progress(&h);
    /* Page 1 is never mapped: out of the region, and unreadable. */
    rc = read_all(right, gdst, 4096, st[right].key.rkey, 4096, 4096, &chunks, &eagain);
    btl_ofi_report(ofi, &c);
    CHECK_ALL ("a read outside the registration fails (%d: %s), %llu "
               "read errors",
               rc, strerror(-rc), (unsigned long long)c.read_errors) {
        CHECK_LT_LONG(rc, 0);
        CHECK_EQ_LONG(c.read_errors, 1);
    }
    barrier();
    CHECK_TRUE(1, "messages flow after the failed read");
    ofi->deregister_mem(ofi, reg);
}

/* The same for a write: page 1 of the peer, outside its registration.
 * Whether the provider notices decides what the writer sees; t_btl_ofi.sh
 * records it (docs/btl-ofi.md, "Errors and faults"). The writer waits for
 * the completion by its progress alone, so a write that never completes
 * shows as this rank's watchdog. */
static void test_bad_write(uint8_t *gsrc)
{
    int right = (rt.rank + 1) % rt.size, chunks, eagain, rc;
    struct key_msg k = {BTL_TAG_TEST, K_KEY, {0}, 0, GBUF, {0}};
    struct btl_ofi_counters c;
    struct btl_reg *reg;

    phase = "bad write";
    if (ofi->register_mem(ofi, gsrc, GBUF, &reg, k.rkey, &k.raddr))
        harness_die("register_mem of %u bytes failed", GBUF);
    send_ctl((rt.rank + rt.size - 1) % rt.size, &k, sizeof(k));
    while (st[right].keys < 1)
        harness_progress(&h);
    rc = rdma_all(right, 1, gsrc, 4096, st[right].key.rkey, 4096, 4096, &chunks, &eagain);
    btl_ofi_report(ofi, &c);
    CHECK_ALL ("a write outside the registration fails (%d: %s), %llu write errors", rc,
               strerror(-rc), (unsigned long long)c.write_errors) {
        CHECK_LT_LONG(rc, 0);
        CHECK_EQ_LONG(c.write_errors, 1);
    }
    barrier();
    ofi->deregister_mem(ofi, reg);
}

/* Unmapped and mapped again at the same address: a stale registration
 * would show the first contents. */
static void test_remap(void)
{
    int right = (rt.rank + 1) % rt.size, left = (rt.rank + rt.size - 1) % rt.size;
    uint8_t *dst = malloc(REGBUF), *buf;
    const uint8_t ack[2] = {BTL_TAG_TEST, K_ACK};
    uint8_t hdr[3] = {BTL_TAG_TEST, K_REMAP, 0};

    phase = "registration";
    buf = mmap(NULL, REGBUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!dst || buf == MAP_FAILED)
        harness_die("out of memory");
    for (int gen = 1; gen <= 2; gen++) {
        struct key_msg k = {BTL_TAG_TEST, K_KEY, {0}, 0, REGBUF, {0}};
        struct btl_reg *reg;
        int chunks, eagain, rc;
        long bad;

        pattern_fill(buf, REGBUF, rt.rank, gen);
        if (ofi->register_mem(ofi, buf, REGBUF, &reg, k.rkey, &k.raddr))
            harness_die("register_mem failed");
        send_ctl(left, &k, sizeof(k));
        /* And a message straight from the buffer. */
        hdr[2] = (uint8_t)gen;
        while ((rc = ofi->sendi(h.ep[left], hdr, sizeof(hdr), buf, REMAP_SEND)) == -EAGAIN)
            harness_progress(&h);
        if (rc)
            harness_die("sendi from the registered buffer: %d", rc);
        /* Keys count up: a later one may come while we wait for others. */
        while (st[right].keys < 1 + gen)
            harness_progress(&h);
        rc = read_all(right, dst, st[right].key.raddr, st[right].key.rkey, REGBUF, REGBUF, &chunks,
                      &eagain);
        bad = rc ? 0 : pattern_diff(dst, REGBUF, right, gen, 0);
        CHECK_ALL ("%s mapping of rank %d's buffer read back %s",
                   gen == 1 ? "first" : "second, same address,", right,
                   bad >= 0 ? "WRONG (a stale registration?)" : "right") {
            CHECK_TRUE(!rc);
            CHECK_LT_LONG(bad, 0);
        }
        send_ctl(right, ack, sizeof(ack));
        while (st[left].acks < gen)
            harness_progress(&h);
        ofi->deregister_mem(ofi, reg);
        if (gen == 1) {
            uint8_t *again;

            munmap(buf, REGBUF);
            again = mmap(buf, REGBUF, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
            if (again != buf)
                harness_die("could not map again at %p", (void *)buf);
        }
    }
    barrier();
    CHECK_EQ_INT(st[right].remap_ok, 2,
                 "both messages sent from rank %d's remapped buffer carried "
                 "its contents of the moment (%d of 2)",
                 right, st[right].remap_ok);
    munmap(buf, REGBUF);
    free(dst);
}

/* RDMA write: each rank registers its destination buffer and hands the
 * key to its left neighbour, which writes sizes 1 B .. 64 MiB at odd
 * offsets in put_limit chunks (RDMPI_OFI_RMA_LIMIT makes that small),
 * then says so by a message; the owner checks every byte, and the bytes
 * on either side, once that message came (the order the pml's write
 * rendezvous counts on: a send after the last write's completion is not
 * seen before the data). */
static void test_writes(uint8_t *gsrc, uint8_t *gdst)
{
    int right = (rt.rank + 1) % rt.size, left = (rt.rank + rt.size - 1) % rt.size;
    struct key_msg k = {BTL_TAG_TEST, K_KEY, {0}, 0, GBUF + 16, {0}};
    size_t chunk = ofi->put_limit < (4u << 20) ? ofi->put_limit : (4u << 20);
    uint8_t ack[2] = {BTL_TAG_TEST, K_ACK};
    struct btl_reg *reg;

    phase = "rdma write";
    memset(gdst, 0, GBUF + 16);
    if (ofi->register_mem(ofi, gdst, GBUF + 16, &reg, k.rkey, &k.raddr))
        harness_die("register_mem of %u bytes failed", GBUF + 16);
    send_ctl(left, &k, sizeof(k));
    /* One key came for the reads and two for the remapped buffer. */
    while (st[right].keys < 4)
        harness_progress(&h);
    for (size_t s = 0; s < NSIZES; s++) {
        size_t len = rdma_sizes[s];
        int chunks, eagain, rc;
        long bad;

        /* Ours to the right, then the left one's into ours. */
        rc = rdma_all(right, 1, gsrc + 3, st[right].key.raddr + 5, st[right].key.rkey, len, chunk,
                      &chunks, &eagain);
        CHECK_ALL ("write of %zu bytes to rank %d in %d chunks of at most %zu, %d -EAGAIN", len,
                   right, chunks, chunk, eagain) {
            CHECK_EQ_INT(rc, 0);
            CHECK_EQ_INT(chunks, (int)((len + chunk - 1) / chunk));
        }
        send_ctl(right, ack, sizeof(ack));
        /* Acks count up too: two came in test_remap. */
        while (st[left].acks < 3 + (int)s)
            harness_progress(&h);
        bad = pattern_diff(gdst + 5, len, left, 0, 3);
        CHECK_ALL ("%zu bytes written by rank %d are here once its message came%s", len, left,
                   bad >= 0 ? ", WRONG" : "") {
            CHECK_LT_LONG(bad, 0);
            CHECK_EQ_INT(gdst[4], 0);
            CHECK_EQ_INT(gdst[5 + len], 0);
        }
        if (bad >= 0)
            printf("#   first wrong byte %ld\n", bad);
        memset(gdst, 0, len + 16);
        /* The left one writes again only once we have looked. */
        barrier();
    }
    ofi->deregister_mem(ofi, reg);
}

int main(int argc, char **argv)
{
    const char *want = getenv("RDMPI_OFI_PROVIDER");
    const char *mode = argc > 1 && argv[1][0] == '-' ? argv[1] : "", *line;
    struct btl_ofi_counters c;
    uint8_t *gsrc, *gdst;

    if (argc > 1 && !*mode)
        nmsg = strtoull(argv[1], NULL, 0);
    signal(SIGALRM, watchdog);
    alarm(WATCH_SECS);
    for (size_t i = 0; i < sizeof(rnd); i++)
        rnd[i] = (uint8_t)harness_mix(i);
    gsrc = malloc(GBUF);
    gdst = malloc(GBUF + 16);
    if (!gsrc || !gdst)
        harness_die("out of memory");

    harness_init(&h, on_recv);
    pattern_fill(gsrc, GBUF, rt.rank, 0);
    st = calloc((size_t)rt.size, sizeof(*st));
    if (!st)
        harness_die("out of memory");
    harness_connect(&h);
    ofi = harness_find(&h, "ofi");
    om = ofi ? btl_ofi_of(ofi) : NULL;
    if (!ofi || !(line = btl_ofi_report(ofi, &c)))
        harness_die("btl/ofi is not running (RDMPI_BTL=%s)", getenv("RDMPI_BTL"));
    if (rt.rank == 0)
        printf("# %d ranks, %llu messages per pair, nspace %s\n# %s, eager limit %zu\n", rt.size,
               (unsigned long long)nmsg, rt.nspace, line, ofi->eager_limit);
    fflush(stdout);

    if (!strcmp(mode, "--crash")) {
        fence();
        _exit(3);
    }
    if (!strcmp(mode, "--bad-read")) {
        barrier();
        test_bad_read(gsrc, gdst);
        harness_finalize(&h);
        fence();
        rt_modex_finalize();
        return failures != 0;
    }
    if (!strcmp(mode, "--bad-write")) {
        barrier();
        test_bad_write(gsrc);
        harness_finalize(&h);
        fence();
        rt_modex_finalize();
        return failures != 0;
    }
    if (!strcmp(mode, "--die")) {
        barrier();
        if (rt.rank == 1)
            _exit(3);
        nmsg = UINT64_MAX;
        run_streams();
    }

    phase = "checking connect";
    for (int p = 0; p < rt.size; p++)
        CHECK_ALL ("rank %d reached by %s", p, h.btl_of[p] ? h.btl_of[p]->name : "nothing") {
            CHECK_TRUE(h.ep[p]);
            CHECK_EQ_PTR(
                h.btl_of[p],
                (p == rt.rank && harness_find(&h, "self") ? harness_find(&h, "self") : ofi));
        }
    for (int p = 0; p < rt.size; p++)
        if (h.btl_of[p] != ofi && p != rt.rank)
            harness_die("this test needs every peer on ofi: run it with RDMPI_BTL=ofi(,self)");
    if (rt.size < 2)
        harness_die("this test needs two ranks at least");
    CHECK_TRUE(!want || strstr(line, want) == line, "provider %s as RDMPI_OFI_PROVIDER=%s asked",
               line, want ? want : "(unset)");
    CHECK_ALL ("limits: eager %zu, sendi %zu, rkey %zu bytes, GET %s, PUT %s", ofi->eager_limit,
               ofi->sendi_limit, ofi->rkey_size, ofi->flags & BTL_CAP_GET ? "yes" : "no",
               ofi->flags & BTL_CAP_PUT ? "yes" : "no") {
        CHECK_TRUE(ofi->flags & BTL_CAP_GET);
        CHECK_TRUE(ofi->flags & BTL_CAP_PUT);
        CHECK_GE_LONG(ofi->eager_limit, 64);
        CHECK_EQ_LONG(ofi->sendi_limit, ofi->eager_limit);
        CHECK_LE_LONG(ofi->rkey_size, 32);
    }

    barrier();
    run_streams();
    back_pressure();
    test_reads(gsrc, gdst);
    test_remap();
    test_writes(gsrc, gdst);

    phase = "finalize";
    btl_ofi_report(ofi, &c);
    CHECK_ALL ("counters: %llu eager messages (%llu injected), %llu reads of %llu bytes, "
               "%llu writes of %llu bytes, %llu -EAGAIN, %llu read, %llu write and %llu "
               "registration errors",
               (unsigned long long)c.eager_msgs, (unsigned long long)c.inject_msgs,
               (unsigned long long)c.reads, (unsigned long long)c.read_bytes,
               (unsigned long long)c.writes, (unsigned long long)c.write_bytes,
               (unsigned long long)c.eagain, (unsigned long long)c.read_errors,
               (unsigned long long)c.write_errors, (unsigned long long)c.reg_errors) {
        CHECK_GT_LONG(c.reads, 0);
        CHECK_GT_LONG(c.read_bytes, (64u << 20));
        CHECK_GT_LONG(c.eager_msgs, 0);
        CHECK_GT_LONG(c.recv_msgs, 0);
        CHECK_GT_LONG(c.writes, 0);
        CHECK_GT_LONG(c.write_bytes, (64u << 20));
        CHECK_TRUE(!c.read_errors);
        CHECK_TRUE(!c.write_errors);
        CHECK_TRUE(!c.reg_errors);
    }
    harness_finalize(&h);
    CHECK_TRUE(!btl_ofi_report(ofi, &c), "finalize stops btl/ofi");
    fence();
    CHECK_EQ_INT(harness_shm_files(), 0, "no /dev/shm file of this job after finalize");
    rt_modex_finalize();
    free(gsrc);
    free(gdst);
    free(st);
    return failures != 0;
}
