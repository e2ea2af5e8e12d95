/* The BTL conformance suite: every module btl_open_all returns, driven
 * through btl/btl.h alone (no pml), checked against what it claims:
 *   - the module: its size and interface version, the error callback
 *     installed, the operations its flags need, sane limits (eager_limit
 *     >= sendi_limit, room for the pml's largest header, alignment a power
 *     of two, get/put_limit > 0 with CAP_GET/CAP_PUT, a key the pml can
 *     carry), an endpoint for every rank connect says it reaches, and
 *     add_peers (version 3) reaching no process it has no card of;
 *   - messages, to every rank the module reaches (itself included when it
 *     does): sendi with the header split at varying points, and alloc/send
 *     asking more than it sends, of every length from 1 byte up to the
 *     limits (each edge and each power of two around them), then a stream
 *     of random lengths; each arrives exactly once, byte-exact, from the
 *     right rank with the test's tag, at an 8-byte aligned address, and in
 *     send order when the module says CAP_ORDERED. -EAGAIN from sendi and
 *     NULL from alloc are retried after progress, and counted;
 *   - with CAP_GET/CAP_PUT: register_mem of the source, target and local
 *     buffers, keys sent to the peer as the pml sends them, then get and
 *     put at offsets that are not multiples of 8 but of `alignment`, of
 *     lengths up to and above get_limit/put_limit (cut into chunks of the
 *     limit by the test), all in flight at once, -EAGAIN retried; every
 *     completion callback runs exactly once with status 0, every byte and
 *     the bytes around each transfer are checked (a put by the target,
 *     once the writer's next message came, as the pml's FIN does); then
 *     deregister_mem;
 *   - report(), where present: a transport text, reads/writes and their
 *     bytes equal to what this test started, the extra names NULL-ended;
 *   - wait(), with CAP_WAIT: a message already there returns at once (1);
 *     when ranks sleep (RDMPI_SLEEP=1), a sleeper is woken by a peer's
 *     send before its timeout, and the message is then delivered;
 *   - flush, finalize and close: no /dev/shm object of this job, no
 *     segment still mapped and no file descriptor left open that opening
 *     the BTLs made (RDMPI_CONFORM_FDS=0 skips the last, for providers that
 *     keep descriptors for the process's life).
 * Usage: t_btl_conform under mpirun (t_btl_conform.sh sets RDMPI_BTL and
 * the provider), or t_btl_conform --fake: the scripted BTL of test/pml
 * stand-alone (a singleton). Output is "# rank R ok|FAIL:" lines; the exit
 * status is 0 only if every check on this rank passed. */
#include "btl_harness.h"
#include "pml/fake_btl.h"

#include "btl_test.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#define RND        (128u << 10) /* random bytes message bodies are cut from */
#define MAXMSG     (64u << 10)  /* the largest eager limit the test covers */
#define NRAND      300          /* random messages after the sweep, per peer */
#define REGION     (10u << 20)  /* RDMA buffer per rank: every length of one pass */
#define WATCH_SECS 60

static struct harness h;
static const char *phase = "setup";
static struct btl_module *cur; /* the module under test */
static int cur_i;
static uint8_t rnd[RND + MAXMSG];
static uint8_t msgbuf[MAXMSG];
static volatile sig_atomic_t moved, fencing;
static int errors_reported;

/* ---- the messages of one module's stream, the same on every rank ---- */

enum method { BY_SENDI, BY_ALLOC };
struct planned {
    size_t len, hlen, ask; /* hlen: sendi's header part; ask: alloc's size */
    enum method how;
};
static struct planned *plan;
static uint32_t nplan;

/* Per peer, for the module under test. */
struct peer {
    uint32_t tx, rx;   /* stream messages sent to it, received from it */
    uint8_t *seen;     /* per planned message: arrivals */
    int bad, overtook; /* wrong messages; arrivals out of send order */
    uint64_t eagain;   /* refusals by sendi (-EAGAIN) or alloc (NULL) */
    int barriers;      /* barrier messages from it */
    int key, putdone, woke;
    uint64_t raddr_src, raddr_dst;
    uint8_t rkey_src[32], rkey_dst[32];
};
static struct peer *pe;

static void plan_add(size_t len, enum method how)
{
    struct planned *p = &plan[nplan];

    p->len = len;
    p->how = how;
    p->hlen = 1 + nplan % 24 < len ? 1 + nplan % 24 : len;
    p->ask = len + (nplan % 5) * 8 <= cur->eager_limit ? len + (nplan % 5) * 8 : len;
    nplan++;
}

/* Lengths 1, 2 and 3 are messages 0, 1 and 2 (too short to carry their
 * number); every other length carries it. Then the edges of sendi_limit
 * and eager_limit and the powers of two with their neighbours, each by
 * sendi (when it fits) and by alloc/send, then NRAND random ones. */
static void make_plan(void)
{
    size_t eager = cur->eager_limit < MAXMSG ? cur->eager_limit : MAXMSG;
    size_t sendi = cur->flags & BTL_CAP_SENDI ? cur->sendi_limit : 0;
    size_t lens[128];
    int n = 0;

    free(plan);
    nplan = 0;
    if (!(plan = calloc(4 * 128 + NRAND + 3, sizeof(*plan))))
        harness_die("out of memory");
    plan_add(1, sendi ? BY_SENDI : BY_ALLOC);
    plan_add(2, BY_ALLOC);
    plan_add(3, sendi >= 3 ? BY_SENDI : BY_ALLOC);
    for (size_t l = 4; l <= 17; l++)
        lens[n++] = l;
    for (size_t p = 32; p <= eager && n < 110; p *= 2)
        lens[n++] = p - 1, lens[n++] = p, lens[n++] = p + 1;
    lens[n++] = sendi - 1, lens[n++] = sendi, lens[n++] = sendi + 1;
    lens[n++] = eager - 1, lens[n++] = eager;
    for (int i = 0; i < n; i++) {
        if (lens[i] < 4 || lens[i] > eager)
            continue;
        if (lens[i] <= sendi)
            plan_add(lens[i], BY_SENDI);
        plan_add(lens[i], BY_ALLOC);
    }
    for (int i = 0; i < NRAND; i++) {
        uint64_t x = harness_mix((uint64_t)i << 8 | (uint64_t)cur_i);
        size_t len = 4 + (size_t)(x % (eager - 3));

        plan_add(len, len <= sendi && (x >> 40) % 3 ? BY_SENDI : BY_ALLOC);
    }
}

/* Message k from src: byte 0 the test's tag, byte 1 'D', bytes 2-3 k
 * (from length 4), then random bytes chosen by (src, k). */
static const uint8_t *body_of(int src, uint32_t k)
{
    return rnd + harness_mix((uint64_t)src << 32 | k) % RND;
}

static size_t body_at(size_t len)
{
    return len >= 4 ? 4 : 2;
}

static void msg_fill(uint8_t *b, size_t len, uint32_t k)
{
    b[0] = BTL_TAG_TEST;
    if (len < 2)
        return;
    b[1] = 'D';
    if (len >= 4) {
        b[2] = (uint8_t)k;
        b[3] = (uint8_t)(k >> 8);
    }
    memcpy(b + body_at(len), body_of(rt.rank, k), len - body_at(len));
}

static void on_data(int src, const uint8_t *b, size_t len)
{
    struct peer *p = &pe[src];
    uint32_t k = len < 4 ? (uint32_t)len - 1 : (uint32_t)(b[2] | b[3] << 8);
    int ok = k < nplan && plan[k].len == len && (len < 2 || b[1] == 'D') &&
             !memcmp(b + body_at(len), body_of(src, k), len < 2 ? 0 : len - body_at(len));

    if (ok && p->seen[k]++)
        ok = 0;
    if (!ok && p->bad++ < 3)
        CHECK_TRUE(0, "%s: message %u from rank %d (arrival %u): %zu bytes, want %zu, %s",
                   cur->name, k, src, p->rx, len, k < nplan ? plan[k].len : 0,
                   k < nplan && p->seen[k] > 1 ? "a second time" : "wrong contents");
    if (ok && k != p->rx)
        p->overtook++;
    p->rx++;
}

/* Control messages: 'B' barrier, 'K' keys, 'P' puts done, 'W' wake-up. */
struct key_msg {
    uint8_t tag, kind, pad[6];
    uint64_t raddr_src, raddr_dst;
    uint8_t rkeys[64];
};

static void on_recv(int src, const void *data, size_t len)
{
    const uint8_t *b = data;

    moved++;
    if (src < 0 || src >= rt.size || !h.reach[cur_i][src]) {
        CHECK_TRUE(0, "%s: a message of %zu bytes from rank %d, which it does not reach", cur->name,
                   len, src);
        return;
    }
    if ((uintptr_t)data & 7 && pe[src].bad++ < 3)
        CHECK_TRUE(0, "%s: a message from rank %d delivered at %p, not 8-byte aligned", cur->name,
                   src, data);
    if (len < 4 || b[1] == 'D') {
        on_data(src, b, len);
        return;
    }
    switch (b[1]) {
    case 'B': pe[src].barriers++; break;
    case 'P': pe[src].putdone++; break;
    case 'W': pe[src].woke++; break;
    case 'K': {
        struct key_msg km;

        memcpy(&km, b, len < sizeof(km) ? len : sizeof(km));
        pe[src].raddr_src = km.raddr_src;
        pe[src].raddr_dst = km.raddr_dst;
        memcpy(pe[src].rkey_src, km.rkeys, cur->rkey_size);
        memcpy(pe[src].rkey_dst, km.rkeys + cur->rkey_size, cur->rkey_size);
        pe[src].key++;
        break;
    }
    default: CHECK_TRUE(0, "%s: %zu bytes of unknown kind from rank %d", cur->name, len, src);
    }
}

static void on_error(struct btl_module *btl, int peer, int err, const char *what)
{
    errors_reported++;
    CHECK_TRUE(0, "%s reported an error (peer %d, %d): %s", btl->name, peer, err, what);
}

/* ---- driving ---- */

static void watchdog(int sig)
{
    static sig_atomic_t last = -1;

    (void)sig;
    if (fencing || moved != last) {
        last = moved;
        alarm(WATCH_SECS);
        return;
    }
    printf("# rank %d FAIL: stuck in %s over %s (nothing moved for %d s)\n", rt.rank, phase,
           cur ? cur->name : "-", WATCH_SECS);
    for (int r = 0; pe && r < rt.size; r++)
        printf("#   rank %d: sent %u, received %u, %llu refusals, %d barriers, key %d\n", r,
               pe[r].tx, pe[r].rx, (unsigned long long)pe[r].eagain, pe[r].barriers, pe[r].key);
    fflush(stdout);
    _exit(1);
}

static void fence(void)
{
    fencing = 1;
    rt_modex_fence();
    fencing = 0;
    moved++;
}

static int progress(void)
{
    static unsigned spins;
    int n = harness_progress(&h);

    if (n)
        moved++;
    else
        harness_idle(&spins);
    return n;
}

static int reaches(int r)
{
    return h.reach[cur_i][r];
}

static struct btl_endpoint *ep_of(int r)
{
    return cur->endpoint(cur, r);
}

/* A control message by sendi, or alloc/send where there is no sendi; on
 * refusal progress, then again. */
static void send_ctl(int r, const void *msg, size_t len)
{
    struct btl_endpoint *ep = ep_of(r);

    for (;;) {
        if (cur->flags & BTL_CAP_SENDI && len <= cur->sendi_limit) {
            int rc = cur->sendi(ep, msg, len, NULL, 0);
            if (!rc)
                return;
            if (rc != -EAGAIN)
                harness_die("%s: sendi of %zu bytes to rank %d: %d", cur->name, len, r, rc);
        } else {
            struct btl_desc *d = cur->alloc(ep, len);
            if (d) {
                memcpy(d->buf, msg, len);
                d->len = len;
                cur->send(ep, d);
                return;
            }
        }
        pe[r].eagain++;
        progress();
    }
}

/* Every rank the module reaches has sent us n messages of kind 'B', 'K',
 * 'P' or 'W'. */
static int all_have(char kind, int n)
{
    for (int r = 0; r < rt.size; r++) {
        const struct peer *p = &pe[r];
        int got = kind == 'B'   ? p->barriers
                  : kind == 'K' ? p->key
                  : kind == 'P' ? p->putdone
                                : p->woke;

        if (reaches(r) && got < n)
            return 0;
    }
    return 1;
}

/* A barrier through the module itself, so every rank keeps polling (an
 * RDMA target's provider may need its progress) while it waits. */
static int barrier_gen; /* barriers over the module under test */

static void btl_barrier(void)
{
    int gen = ++barrier_gen;
    uint8_t msg[4] = {BTL_TAG_TEST, 'B', 0, 0};

    for (int r = 0; r < rt.size; r++)
        if (reaches(r))
            send_ctl(r, msg, sizeof(msg));
    while (!all_have('B', gen))
        progress();
}

/* Sends planned message k to r; 0, or -EAGAIN after a refusal. */
static int send_planned(int r, uint32_t k)
{
    const struct planned *p = &plan[k];
    struct btl_endpoint *ep = ep_of(r);

    if (p->how == BY_SENDI) {
        int rc;

        msg_fill(msgbuf, p->len, k);
        rc = cur->sendi(ep, msgbuf, p->hlen, p->len > p->hlen ? msgbuf + p->hlen : NULL,
                        p->len - p->hlen);
        /* sendi took the bytes: what we write now must not reach the peer. */
        memset(msgbuf, 0xa5, p->len);
        if (rc && rc != -EAGAIN)
            harness_die("%s: sendi of %zu bytes to rank %d: %d", cur->name, p->len, r, rc);
        return rc;
    }
    struct btl_desc *d = cur->alloc(ep, p->ask);
    if (!d)
        return -EAGAIN;
    if (((uintptr_t)d->buf & 7) && pe[r].bad++ < 3)
        CHECK_TRUE(0, "%s: alloc gave %p, not 8-byte aligned", cur->name, d->buf);
    msg_fill(d->buf, p->len, k);
    d->len = p->len;
    cur->send(ep, d);
    return 0;
}

static void test_messages(void)
{
    uint64_t refused = 0;
    int overtook = 0, done;

    phase = "messages";
    do {
        done = 1;
        for (int r = 0; r < rt.size; r++) {
            if (!reaches(r))
                continue;
            for (int b = 0; b < 8 && pe[r].tx < nplan; b++) {
                if (send_planned(r, pe[r].tx)) {
                    pe[r].eagain++;
                    break;
                }
                pe[r].tx++;
                moved++;
            }
            done &= pe[r].tx == nplan && pe[r].rx >= nplan;
        }
        progress();
    } while (!done);
    btl_barrier();
    for (int r = 0; r < rt.size; r++) {
        uint32_t once = 0;

        if (!reaches(r))
            continue;
        for (uint32_t k = 0; k < nplan; k++)
            once += pe[r].seen[k] == 1;
        CHECK_ALL ("%s: %u messages from rank %d of 1..%zu bytes, each once and byte-exact%s",
                   cur->name, nplan, r, cur->eager_limit,
                   cur->flags & BTL_CAP_ORDERED ? ", in send order (CAP_ORDERED)" : "") {
            CHECK_EQ_INT(pe[r].rx, nplan);
            CHECK_EQ_INT(once, nplan);
            CHECK_EQ_INT(pe[r].bad, 0);
            CHECK_TRUE(!(cur->flags & BTL_CAP_ORDERED) || !pe[r].overtook,
                       "%d arrivals out of order", pe[r].overtook);
        }
        refused += pe[r].eagain;
        overtook += pe[r].overtook;
    }
    if (rt.rank == 0)
        printf("# %s: %llu refusals retried, %d messages overtaken\n", cur->name,
               (unsigned long long)refused, overtook);
}

/* ---- RDMA ---- */

struct op {
    int calls, status;
};

static void op_done(void *ctx, int status)
{
    struct op *o = ctx;

    o->calls++;
    o->status = status ? status : o->status;
    moved++;
}

/* Where b[0..len) first differs from rank's pattern at `from`, or -1. */
static long pattern_diff(const uint8_t *b, size_t len, int rank, size_t from)
{
    for (size_t i = 0; i < len; i++)
        if (b[i] != harness_pattern(rank, from + i))
            return (long)i;
    return -1;
}

/* The transfers of one pass: lengths up to and above the limit, each at
 * its own offsets (multiples of the alignment, not of 8 where it is
 * smaller), laid out one after the other in REGION. */
#define NLEN 5
struct xfer {
    size_t len, src, dst; /* length, offset in the source and in the target */
};

/* Without overflow: limits may be SIZE_MAX. */
static int chunks(size_t len, size_t limit)
{
    return (int)(len / limit + (len % limit != 0));
}

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

static int layout(size_t limit, struct xfer *x)
{
    size_t a = cur->alignment, big, at = 0;
    size_t lens[NLEN] = {1, 4097, 1u << 20, 0, 0};
    int n = 3;

    if (limit <= (2u << 20))
        big = 2 * limit + 3; /* three chunks, the last short */
    else if (limit <= (4u << 20))
        big = limit + 4099; /* two chunks */
    else
        big = (4u << 20) + 4099; /* one: the limit is past what we move */
    if (limit <= (4u << 20))
        lens[n++] = limit;
    lens[n++] = big;
    for (int i = 0; i < n; i++) {
        x[i].len = round_up(lens[i], a);
        x[i].src = round_up(at + 3 * a, a);
        x[i].dst = round_up(at + 5 * a, a);
        at = x[i].dst + x[i].len + 2 * a + 64;
        if (at + 8 * a > REGION)
            harness_die("%s: REGION too small for a %zu-byte transfer", cur->name, x[i].len);
    }
    return n;
}

struct rdma_bufs {
    uint8_t *src, *dst, *loc; /* ours: read by peers; written by peers (a region per
                                 writer); where our gets land (a region per peer) */
    struct btl_reg *rsrc, *rdst, *rloc;
};

/* Starts len bytes in chunks of limit; every chunk's op gets one entry of
 * ops. -EAGAIN is retried after progress. Returns the chunks started. */
static int start_chunks(int write, int r, uint8_t *local, struct btl_reg *lreg, uint64_t raddr,
                        const void *rkey, size_t len, size_t limit, struct op *ops)
{
    size_t done = 0;
    int n = 0;

    while (done < len) {
        size_t c = len - done < limit ? len - done : limit;
        int rc;

        ops[n] = (struct op){0, 0};
        rc = write
                 ? cur->put(ep_of(r), local + done, lreg, raddr + done, rkey, c, op_done, &ops[n])
                 : cur->get(ep_of(r), local + done, lreg, raddr + done, rkey, c, op_done, &ops[n]);
        if (rc == -EAGAIN) {
            pe[r].eagain++;
            progress();
            continue;
        }
        if (rc)
            harness_die("%s: %s of %zu bytes with rank %d: %d", cur->name, write ? "put" : "get", c,
                        r, rc);
        done += c;
        n++;
        moved++;
    }
    return n;
}

/* Waits for every callback, then polls on to catch a second one. */
static void wait_ops(struct op *ops, int n, const char *what, int r)
{
    int calls1 = 1, status0 = 1;

    for (int i = 0; i < n; i++)
        while (!ops[i].calls)
            progress();
    for (int i = 0; i < 1000; i++)
        progress();
    for (int i = 0; i < n; i++) {
        calls1 &= ops[i].calls == 1;
        status0 &= ops[i].status == 0;
    }
    CHECK_ALL ("%s: %d %s chunks with rank %d: each callback once, status 0", cur->name, n, what,
               r) {
        CHECK_TRUE(calls1);
        CHECK_TRUE(status0);
    }
}

static uint64_t nreads, nread_bytes, nwrites, nwrite_bytes; /* what we started */

static void rdma_exchange_keys(struct rdma_bufs *b)
{
    struct key_msg km = {BTL_TAG_TEST, 'K', {0}, 0, 0, {0}};
    uint8_t ks[32] = {0}, kd[32] = {0}, kl[32];
    uint64_t ls;
    int rc;

    rc = cur->register_mem(cur, b->src, REGION, &b->rsrc, ks, &km.raddr_src);
    rc = rc ? rc
            : cur->register_mem(cur, b->dst, (size_t)rt.size * REGION, &b->rdst, kd, &km.raddr_dst);
    rc = rc ? rc : cur->register_mem(cur, b->loc, (size_t)rt.size * REGION, &b->rloc, kl, &ls);
    CHECK_EQ_INT(rc, 0, "%s: register_mem of the source, target and local buffers", cur->name);
    if (rc)
        harness_die("%s: cannot register", cur->name);
    memcpy(km.rkeys, ks, cur->rkey_size);
    memcpy(km.rkeys + cur->rkey_size, kd, cur->rkey_size);
    for (int r = 0; r < rt.size; r++)
        if (reaches(r))
            send_ctl(r, &km, offsetof(struct key_msg, rkeys) + 2 * cur->rkey_size);
    while (!all_have('K', 1))
        progress();
}

static void test_gets(struct rdma_bufs *b)
{
    struct xfer x[NLEN];
    int n = layout(cur->get_limit, x);

    for (int r = 0; r < rt.size; r++) {
        uint8_t *loc = b->loc + (size_t)r * REGION;
        struct op *ops;
        int nops = 0, maxops = 0;

        if (!reaches(r))
            continue;
        for (int i = 0; i < n; i++)
            maxops += chunks(x[i].len, cur->get_limit);
        if (!(ops = calloc((size_t)maxops, sizeof(*ops))))
            harness_die("out of memory");
        for (int i = 0; i < n; i++) {
            nops += start_chunks(0, r, loc + x[i].dst, b->rloc, pe[r].raddr_src + x[i].src,
                                 pe[r].rkey_src, x[i].len, cur->get_limit, ops + nops);
            nread_bytes += x[i].len;
        }
        nreads += (uint64_t)nops;
        wait_ops(ops, nops, "get", r);
        for (int i = 0; i < n; i++)
            CHECK_ALL ("%s: get of %zu bytes from rank %d, source offset %zu, local %zu", cur->name,
                       x[i].len, r, x[i].src, x[i].dst) {
                CHECK_LT_LONG(pattern_diff(loc + x[i].dst, x[i].len, r, x[i].src), 0);
                CHECK_EQ_INT(loc[x[i].dst - 1], 0);
                CHECK_EQ_INT(loc[x[i].dst + x[i].len], 0);
            }
        free(ops);
    }
}

static void test_puts(struct rdma_bufs *b)
{
    uint8_t done[4] = {BTL_TAG_TEST, 'P', 0, 0};
    struct xfer x[NLEN];
    int n = layout(cur->put_limit, x);

    for (int r = 0; r < rt.size; r++) {
        struct op *ops;
        int nops = 0, maxops = 0;

        if (!reaches(r))
            continue;
        for (int i = 0; i < n; i++)
            maxops += chunks(x[i].len, cur->put_limit);
        if (!(ops = calloc((size_t)maxops, sizeof(*ops))))
            harness_die("out of memory");
        /* Into the target's region for us. */
        for (int i = 0; i < n; i++) {
            nops += start_chunks(1, r, b->src + x[i].src, b->rsrc,
                                 pe[r].raddr_dst + (uint64_t)rt.rank * REGION + x[i].dst,
                                 pe[r].rkey_dst, x[i].len, cur->put_limit, ops + nops);
            nwrite_bytes += x[i].len;
        }
        nwrites += (uint64_t)nops;
        wait_ops(ops, nops, "put", r);
        send_ctl(r, done, sizeof(done));
        free(ops);
    }
    while (!all_have('P', 1))
        progress();
    for (int r = 0; r < rt.size; r++) {
        uint8_t *dst = b->dst + (size_t)r * REGION;

        if (!reaches(r))
            continue;
        for (int i = 0; i < n; i++)
            CHECK_ALL ("%s: rank %d's put of %zu bytes arrived intact at offset %zu", cur->name, r,
                       x[i].len, x[i].dst) {
                CHECK_LT_LONG(pattern_diff(dst + x[i].dst, x[i].len, r, x[i].src), 0);
                CHECK_EQ_INT(dst[x[i].dst - 1], 0);
                CHECK_EQ_INT(dst[x[i].dst + x[i].len], 0);
            }
    }
}

static void test_rdma(void)
{
    struct rdma_bufs b;

    if (!(cur->flags & (BTL_CAP_GET | BTL_CAP_PUT)))
        return;
    phase = "rdma";
    b.src = malloc(REGION);
    b.dst = calloc((size_t)rt.size, REGION);
    b.loc = calloc((size_t)rt.size, REGION);
    if (!b.src || !b.dst || !b.loc)
        harness_die("out of memory");
    harness_pattern_fill(b.src, REGION, rt.rank);
    rdma_exchange_keys(&b);
    if (cur->flags & BTL_CAP_GET)
        test_gets(&b);
    if (cur->flags & BTL_CAP_PUT)
        test_puts(&b);
    /* Nobody deregisters what a peer may still read. */
    btl_barrier();
    cur->deregister_mem(cur, b.rsrc);
    cur->deregister_mem(cur, b.rdst);
    cur->deregister_mem(cur, b.rloc);
    free(b.src);
    free(b.dst);
    free(b.loc);
}

/* ---- report, wait ---- */

static void test_report(void)
{
    struct btl_report r;
    int names = 1, i;

    if (!BTL_HAS(cur, report))
        return;
    memset(&r, 0, sizeof(r));
    CHECK_EQ_INT(cur->report(cur, &r), 0, "%s: report() succeeds", cur->name);
    for (i = 0; i < BTL_REPORT_EXTRA && r.extra_name[i]; i++)
        names &= r.extra_name[i][0] != 0;
    CHECK_ALL ("%s: report \"%.60s\": %llu reads of %llu bytes, %llu writes of %llu bytes, %d "
               "extra counts",
               cur->name, r.transport, (unsigned long long)r.reads,
               (unsigned long long)r.read_bytes, (unsigned long long)r.writes,
               (unsigned long long)r.write_bytes, i) {
        CHECK_TRUE(r.transport[0] && memchr(r.transport, 0, sizeof(r.transport)));
        CHECK_EQ_U64(r.reads, nreads);
        CHECK_EQ_U64(r.read_bytes, nread_bytes);
        CHECK_EQ_U64(r.writes, nwrites);
        CHECK_EQ_U64(r.write_bytes, nwrite_bytes);
        CHECK_TRUE(names, "every extra count is named");
    }
}

static void test_wait(void)
{
    uint8_t w[4] = {BTL_TAG_TEST, 'W', 0, 0};
    int other = -1, rc;
    double t;

    if (!(cur->flags & BTL_CAP_WAIT))
        return;
    phase = "wait";
    /* Something there already: every rank the module reaches has sent us
     * a message and the fence says so; wait must not sleep. */
    for (int r = 0; r < rt.size; r++)
        if (reaches(r))
            send_ctl(r, w, sizeof(w));
    fence();
    if (all_have('W', 1)) {
        /* The fence's own polls took every such message: nothing is left
         * for wait to find, so there is nothing to check this time. */
        CHECK_TRUE(1, "%s: wait() not tried: the fence's polls delivered the messages", cur->name);
    } else {
        rc = cur->wait(cur, 30000000);
        CHECK_EQ_INT(rc, 1, "%s: wait() with a message already there returns at once", cur->name);
    }
    while (!all_have('W', 1))
        progress();
    btl_barrier();

    /* A sleeper woken by a send: rank 0 sleeps, rank 1 sends after a
     * pause. Senders wake sleepers only when ranks sleep (RDMPI_SLEEP). */
    for (int r = 0; r < rt.size && other < 0; r++)
        if (r != rt.rank && reaches(r))
            other = r;
    if (!rt_progress_sleeps() || other < 0 || rt.rank > 1 || (other != 0 && other != 1))
        return;
    if (rt.rank == 0) {
        t = rt_wtime();
        rc = cur->wait(cur, 30000000);
        t = rt_wtime() - t;
        while (pe[other].woke < 2)
            progress();
        CHECK_ALL ("%s: a sleeping wait() returned %d after %.3f s, woken by rank %d's send",
                   cur->name, rc, t, other) {
            CHECK_TRUE(rc == 0 || rc == 1);
            CHECK_TRUE(t < 30.0, "before its 30 s timeout");
        }
    } else {
        nanosleep(&(struct timespec){0, 200000000}, NULL);
        send_ctl(other, w, sizeof(w));
    }
    btl_barrier();
}

/* ---- the module itself ---- */

static int pow2(size_t a)
{
    return a && !(a & (a - 1));
}

/* Returns the number of ranks the module reaches. */
static int test_module(void)
{
    const uint32_t f = cur->flags;
    int reached = 0, eps = 1;

    for (int r = 0; r < rt.size; r++)
        if (reaches(r)) {
            reached++;
            eps &= ep_of(r) != NULL;
        }
    CHECK_ALL ("%s: version %u, %zu bytes, error callback installed", cur->name, cur->version,
               cur->size) {
        CHECK_EQ_SIZE(cur->size, sizeof(struct btl_module));
        CHECK_EQ_INT(cur->version, BTL_IFACE_VERSION);
        CHECK_TRUE(cur->error == on_error);
    }
    CHECK_ALL ("%s: the operations every module has, and those its flags %#x need", cur->name, f) {
        CHECK_TRUE(cur->init && cur->connect && cur->finalize && cur->endpoint);
        CHECK_TRUE(cur->add_peers && cur->del_peer, "add_peers and del_peer (version 3)");
        CHECK_TRUE(cur->sendi && cur->alloc && cur->send && cur->progress && cur->flush);
        CHECK_TRUE(!(f & (BTL_CAP_GET | BTL_CAP_PUT)) ||
                   (cur->register_mem && cur->deregister_mem));
        CHECK_TRUE(!(f & BTL_CAP_GET) || cur->get);
        CHECK_TRUE(!(f & BTL_CAP_PUT) || cur->put);
        CHECK_TRUE(!(f & BTL_CAP_WAIT) || BTL_HAS(cur, wait));
    }
    CHECK_ALL ("%s: limits: eager %zu, sendi %zu, get %zu, put %zu, alignment %zu, key %zu bytes",
               cur->name, cur->eager_limit, cur->sendi_limit, cur->get_limit, cur->put_limit,
               cur->alignment, cur->rkey_size) {
        CHECK_GE_LONG((long)cur->eager_limit, 64);
        CHECK_TRUE(cur->eager_limit >= cur->sendi_limit);
        CHECK_TRUE(!(f & BTL_CAP_SENDI) || cur->sendi_limit >= 64);
        CHECK_TRUE(pow2(cur->alignment));
        CHECK_TRUE(!(f & BTL_CAP_GET) || cur->get_limit > 0);
        CHECK_TRUE(!(f & BTL_CAP_PUT) || cur->put_limit > 0);
        CHECK_TRUE(cur->rkey_size <= 32, "the key fits the pml's 32 bytes");
        CHECK_TRUE(!(f & BTL_CAP_DIRECT) || ((f & BTL_CAP_GET) && (f & BTL_CAP_PUT) &&
                                             !(f & BTL_CAP_NEED_REG) && !cur->rkey_size));
        CHECK_TRUE(!(f & BTL_CAP_ATOMIC), "no BTL offers atomics yet");
    }
    CHECK_ALL ("%s reaches %d of %d ranks, an endpoint for each", cur->name, reached, rt.size) {
        CHECK_GT_LONG(reached, 0);
        CHECK_TRUE(eps);
    }
    /* Version 3: a process index past the world's with no card (none was
     * added) is reached by no module, and gets no endpoint. */
    CHECK_ALL ("%s: add_peers of process %d, which has no card, reaches nothing", cur->name,
               rt.size) {
        uint8_t r = 0;

        CHECK_EQ_INT(cur->add_peers(cur, rt.size, 1, &r), 0);
        CHECK_EQ_INT(r, 0);
        CHECK_TRUE(cur->endpoint(cur, rt.size) == NULL);
    }
    if (cur->eager_limit > MAXMSG && rt.rank == 0)
        printf("# %s: eager limit %zu, messages tested up to %u bytes\n", cur->name,
               cur->eager_limit, MAXMSG);
    return reached;
}

/* ---- what is left behind ---- */

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own */
}

/* What the descriptors from `from` on are, for a failure's message. */
static void show_fds(int from)
{
    char path[64], to[256];

    for (int fd = from; fd < 1024; fd++) {
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        if ((n = readlink(path, to, sizeof(to) - 1)) > 0)
            printf("#   rank %d fd %d: %.*s\n", rt.rank, fd, (int)n, to);
    }
}

static int mapped_segments(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        n += strstr(line, "/dev/shm/rdmpi-") != NULL || strstr(line, "/dev/shm/fi_") != NULL;
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    const char *fdenv = getenv("RDMPI_CONFORM_FDS");
    int fake = argc > 1 && !strcmp(argv[1], "--fake"), fds0;

    signal(SIGALRM, watchdog);
    alarm(WATCH_SECS);
    for (size_t i = 0; i < sizeof(rnd); i++)
        rnd[i] = (uint8_t)harness_mix(i);
    if (fake)
        btl_test_install(&fake_btl_component);
    harness_runtime();
    fds0 = open_fds();
    h.error = on_error;
    harness_open(&h, on_recv);
    rt_progress_setup(); /* RDMPI_SLEEP: sm's writers wake sleepers (read at connect) */
    if (!(pe = calloc((size_t)rt.size, sizeof(*pe))))
        harness_die("out of memory");
    harness_connect(&h);
    fence();
    if (rt.rank == 0) {
        printf("# %d ranks, nspace %s, modules:", rt.size, rt.nspace);
        for (int i = 0; i < h.nmods; i++)
            printf(" %s", h.mods[i]->name);
        printf("\n");
    }
    CHECK_GT_LONG(h.nmods, 0, "btl_open_all opened %d modules", h.nmods);

    for (cur_i = 0; cur_i < h.nmods; cur_i++) {
        cur = h.mods[cur_i];
        for (int r = 0; r < rt.size; r++) {
            free(pe[r].seen);
            pe[r] = (struct peer){0};
        }
        nreads = nread_bytes = nwrites = nwrite_bytes = 0;
        barrier_gen = 0;
        phase = "module";
        if (!test_module())
            continue;
        /* Before the barrier: a peer may send as soon as it is through. */
        make_plan();
        for (int r = 0; r < rt.size; r++)
            if (!(pe[r].seen = calloc(nplan, 1)))
                harness_die("out of memory");
        btl_barrier();
        test_messages();
        test_rdma();
        test_report();
        test_wait();
        btl_barrier();
        fence();
    }
    cur = NULL;

    phase = "finalize";
    harness_finalize(&h);
    fence();
    CHECK_EQ_INT(harness_shm_files(), 0, "flush, finalize, close: nothing of this job in /dev/shm");
    CHECK_EQ_INT(mapped_segments(), 0, "no shared segment still mapped");
    CHECK_EQ_INT(errors_reported, 0, "no module reported an error");
    if (!fdenv || strcmp(fdenv, "0")) {
        int fds = open_fds();

        CHECK_EQ_INT(fds, fds0, "no file descriptor the BTLs opened is left open");
        if (fds != fds0)
            show_fds(3);
    }
    rt_modex_finalize();
    for (int r = 0; r < rt.size; r++)
        free(pe[r].seen);
    free(pe);
    free(plan);
    return failures != 0;
}
