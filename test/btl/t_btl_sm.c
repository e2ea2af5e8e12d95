/* btl/self and btl/sm driven directly, without the pml, between all ranks of
 * one host (self included):
 *   - FIFO order and every byte of N messages of random sizes 1..eager
 *     limit per ordered pair, by sendi (split header/data) and alloc/send;
 *   - back-pressure: every ring filled without polling until sendi says
 *     -EAGAIN and alloc NULL, then the same streams resumed, nothing lost;
 *   - CMA get of 1 B, 4 KiB, 1 MiB + 1 and 64 MiB at odd offsets, and put
 *     of 4097 B and of 9 MiB + 5 (over get_limit: sm queues it and writes
 *     it chunk by chunk from progress, so the call returns first);
 *     with RDMPI_SM_CMA=0, or with T_BTL_SM_DENY_CMA=1 (every rank makes
 *     itself unreadable, so the probe meets EPERM), no GET/PUT capability;
 *   - no segment of this job left in /dev/shm after connect, none after
 *     finalize (rings included: made on first use, unlinked by their
 *     readers), and nothing of it mapped.
 * Usage: t_btl_sm [N] (default 100000), under mpirun; or t_btl_sm --list,
 * which prints the BTLs btl_open_all chose. Output is "# rank R ok|FAIL:"
 * lines; the exit status is 0 only if every check on this rank passed.
 * t_btl_sm.sh runs it at several sizes and settings and speaks TAP. */
#include "btl_harness.h"

#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define RND     (64u << 10) /* random bytes message payloads are cut from */
#define MAXMSG  (64u << 10) /* above any eager limit a BTL may report */
#define GBUF    (64u << 20) /* CMA source size */
#define PUTSIZE 4097u
#define BIGPUT  ((9u << 20) + 5)
#define BIGAT   (2 * PUTSIZE + 1) /* where in putbuf the large put lands */

static struct harness h;
static const char *phase = "setup";
/* The watchdog judges progress, not time: 8 ranks of the sanitizer build
 * on a loaded 2-core host take minutes, a stuck rank moves nothing for a
 * whole period. `moved` counts messages, RDMA chunks and checked MiB;
 * a rank waiting in a fence for slower peers is not stuck itself. */
#define WATCH_SECS 60
static volatile sig_atomic_t moved, fencing;
static uint64_t nmsg = 100000;
static uint8_t rnd[RND + MAXMSG];

struct stream {
    uint64_t tx, rx; /* messages sent to / received from this rank */
    uint64_t eagain; /* sends the BTL refused */
    uint64_t fit;    /* messages that fit before the first refusal */
    int errors;      /* bad messages from this rank */
};
static struct stream *st;

/* Message k from src to dst: its length (1..limit) and where in rnd its
 * payload starts. Byte 0 is the header type; bytes 1..8 hold k when the
 * message is long enough; the rest is rnd[off + i - 1] for byte i. */
static void msg_shape(int src, int dst, uint64_t k, size_t limit, size_t *len, size_t *off)
{
    uint64_t x = harness_mix((uint64_t)src << 48 ^ (uint64_t)dst << 32 ^ k);

    *len = 1 + (size_t)(x % limit);
    *off = (size_t)(x >> 40) % RND;
}

static void msg_fill(uint8_t *buf, size_t len, size_t off, uint64_t k)
{
    buf[0] = BTL_TAG_TEST;
    memcpy(buf + 1, rnd + off, len - 1);
    if (len >= 9)
        memcpy(buf + 1, &k, 8);
}

/* Sends message k to p: by alloc/send one time in three (asking for more
 * than it sends, to prove the unused tail is skipped), else by sendi with
 * the first bytes as header. Returns 0 or the BTL's error. */
static int send_one(int p, uint64_t k, int allow_alloc)
{
    struct btl_module *m = h.btl_of[p];
    size_t len, off, hlen;
    uint8_t hdr[16];

    msg_shape(rt.rank, p, k, m->eager_limit, &len, &off);
    if (allow_alloc && k % 3 == 0) {
        size_t ask = len + (k % 7) * 13 < m->eager_limit ? len + (k % 7) * 13 : len;
        struct btl_desc *d = m->alloc(h.ep[p], ask);

        if (!d)
            return -EAGAIN;
        msg_fill(d->buf, len, off, k);
        d->len = len;
        m->send(h.ep[p], d);
        return 0;
    }
    hlen = len < sizeof(hdr) ? len : sizeof(hdr);
    msg_fill(hdr, hlen, off, k);
    return m->sendi(h.ep[p], hdr, hlen, rnd + off + hlen - 1, len - hlen);
}

static void on_recv(int peer, const void *data, size_t len)
{
    struct stream *s = &st[peer];
    const uint8_t *b = data;
    size_t want, off;
    uint64_t k = s->rx++, got = k;
    int bad;

    moved++;

    msg_shape(peer, rt.rank, k, h.btl_of[peer]->eager_limit, &want, &off);
    if (len >= 9)
        memcpy(&got, b + 1, 8);
    bad = len != want || b[0] != BTL_TAG_TEST || got != k ||
          (len >= 9 ? memcmp(b + 9, rnd + off + 8, len - 9) : memcmp(b + 1, rnd + off, len - 1));
    if (bad && s->errors++ < 3)
        CHECK_TRUE(0, "message %llu from rank %d: %zu bytes (want %zu), sequence %llu",
                   (unsigned long long)k, peer, len, want, (unsigned long long)got);
}

/* A fence waits for the slowest rank: that rank's own watchdog judges it. */
static void fence(void)
{
    fencing = 1;
    rt_modex_fence();
    fencing = 0;
    moved++;
}

static void watchdog(int sig)
{
    static sig_atomic_t last = -1;

    (void)sig;
    if (fencing || moved != last) {
        last = moved;
        alarm(WATCH_SECS);
        return;
    }
    printf("# rank %d FAIL: stuck in %s (nothing moved for %d s)\n", rt.rank, phase, WATCH_SECS);
    for (int p = 0; st && p < rt.size; p++)
        printf("#   to %d: sent %llu, refused %llu; from %d: received %llu\n", p,
               (unsigned long long)st[p].tx, (unsigned long long)st[p].eagain, p,
               (unsigned long long)st[p].rx);
    fflush(stdout);
    _exit(1);
}

/* Without polling, so that nobody drains: push into every sm ring until
 * the BTL refuses; then alloc must refuse too. */
static void fill_rings(void)
{
    phase = "filling rings";
    for (int p = 0; p < rt.size; p++) {
        struct btl_module *m = h.btl_of[p];
        size_t len, off;
        int rc = 0;

        if (p == rt.rank)
            continue;
        while (st[p].tx < nmsg && (rc = send_one(p, st[p].tx, 0)) == 0)
            st[p].tx++;
        st[p].fit = st[p].tx;
        if (st[p].tx == nmsg) {
            CHECK_TRUE(0, "the ring to rank %d took all %llu messages", p,
                       (unsigned long long)nmsg);
            continue;
        }
        CHECK_EQ_INT(rc, -EAGAIN, "sendi to rank %d: -EAGAIN after %llu messages (got %d)", p,
                     (unsigned long long)st[p].tx, rc);
        st[p].eagain++;
        msg_shape(rt.rank, p, st[p].tx, m->eager_limit, &len, &off);
        struct btl_desc *d = m->alloc(h.ep[p], len);
        CHECK_TRUE(!d, "alloc of %zu bytes to rank %d refused as well", len, p);
        if (d) { /* keep the stream whole so the receiver's checks hold */
            msg_fill(d->buf, len, off, st[p].tx++);
            m->send(h.ep[p], d);
        }
    }
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
                int rc = send_one(p, s->tx, 1);

                if (rc == -EAGAIN) {
                    s->eagain++;
                    break;
                }
                if (rc)
                    harness_die("send of message %llu to rank %d failed: %d",
                                (unsigned long long)s->tx, p, rc);
                s->tx++;
                moved++;
            }
            done &= s->tx == nmsg && s->rx >= nmsg;
        }
        busy += harness_progress(&h);
        if (done)
            break;
        if (!busy)
            harness_idle(&spins);
    }
    for (int p = 0; p < rt.size; p++) {
        CHECK_ALL ("%llu messages from rank %d (%s) in order, every byte right",
                   (unsigned long long)st[p].rx, p, h.btl_of[p]->name) {
            CHECK_EQ_LONG(st[p].rx, nmsg);
            CHECK_TRUE(!st[p].errors);
        }
        if (p != rt.rank)
            CHECK_ALL ("the ring to rank %d filled at %llu messages, then took the rest "
                       "(%llu refusals in all)",
                       p, (unsigned long long)st[p].fit, (unsigned long long)st[p].eagain) {
                CHECK_GT_LONG(st[p].eagain, 0);
                CHECK_EQ_LONG(st[p].tx, nmsg);
            }
    }
}

/* Where the first wrong byte is, or -1. One mix per word, not per byte
 * (64 MiB per get, byte by byte, was most of the sanitizer build's time). */
static long pattern_diff(const uint8_t *buf, size_t len, int rank, size_t from)
{
    uint64_t w = 0, wi = UINT64_MAX;

    for (size_t i = 0; i < len; i++) {
        size_t at = from + i;

        if (at >> 3 != wi) {
            wi = at >> 3;
            w = harness_mix((uint64_t)rank << 40 | wi);
            if (!(i & ((1u << 20) - 1)))
                moved++;
        }
        if (buf[i] != (uint8_t)(w >> (8 * (at & 7))))
            return (long)i;
    }
    return -1;
}

struct rdma_ctx {
    int calls, status;
};

static void rdma_done(void *ctx, int status)
{
    struct rdma_ctx *c = ctx;

    c->calls++;
    c->status = status ? status : c->status;
}

static uint64_t peer_addr(int p, const char *key)
{
    uint64_t *a, v;
    size_t len;

    if (rt_modex_get(p, key, (void **)&a, &len) || len != 8)
        harness_die("no %s from rank %d", key, p);
    v = *a;
    free(a);
    return v;
}

static void test_get(int p, uint8_t *dst)
{
    static const size_t sizes[] = {1, 4096, (1u << 20) + 1, GBUF};
    struct btl_module *m = h.btl_of[p];
    uint64_t raddr = peer_addr(p, "test.gbuf");

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        struct rdma_ctx c = {0, 0};
        size_t len = sizes[s], done = 0;
        int chunks = 0, rc = 0;
        double t = rt_wtime();
        long bad;

        memset(dst, 0, len + 16);
        while (done < len && !rc) {
            size_t n = len - done < m->get_limit ? len - done : m->get_limit;
            rc = m->get(h.ep[p], dst + 5 + done, NULL, raddr + 3 + done, NULL, n, rdma_done, &c);
            done += n;
            moved++;
            chunks++;
        }
        t = rt_wtime() - t;
        bad = rc ? 0 : pattern_diff(dst + 5, len, p, 3);
        CHECK_ALL ("%s get of %zu bytes from rank %d in %d chunks (%.0f MB/s)%s", m->name, len, p,
                   chunks, len / t / 1e6, bad >= 0 ? ", wrong data" : "") {
            CHECK_TRUE(!rc);
            CHECK_EQ_INT(c.calls, chunks);
            CHECK_TRUE(!c.status);
            CHECK_LT_LONG(bad, 0);
            CHECK_EQ_INT(dst[4], 0);
            CHECK_EQ_INT(dst[5 + len], 0);
        }
        if (rc || bad >= 0)
            printf("#   rc %d, %d callbacks, status %d, first wrong byte %ld\n", rc, c.calls,
                   c.status, bad);
    }
}

static void test_put(int p, const uint8_t *src)
{
    struct btl_module *m = h.btl_of[p];
    struct rdma_ctx c = {0, 0};
    int rc =
        m->put(h.ep[p], src, NULL, peer_addr(p, "test.putbuf") + 1, NULL, PUTSIZE, rdma_done, &c);

    CHECK_ALL ("%s put of %u bytes to rank %d", m->name, PUTSIZE, p) {
        CHECK_TRUE(!rc);
        CHECK_EQ_INT(c.calls, 1);
        CHECK_TRUE(!c.status);
    }

    c = (struct rdma_ctx){0, 0};
    rc = m->put(h.ep[p], src + 7, NULL, peer_addr(p, "test.putbuf") + BIGAT, NULL, BIGPUT,
                rdma_done, &c);
    int queued = !rc && c.calls == 0;
    while (!rc && !c.calls) {
        m->progress(m);
        moved++;
    }
    CHECK_ALL ("%s put of %u bytes to rank %d, over get_limit %zu: %s", m->name, BIGPUT, p,
               m->get_limit, queued ? "queued, then written by progress" : "written in the call") {
        CHECK_TRUE(!rc);
        CHECK_EQ_INT(c.calls, 1);
        CHECK_TRUE(!c.status);
        CHECK_TRUE(queued || strcmp(m->name, "sm"), "an sm put over get_limit is queued");
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
        n += strstr(line, "/dev/shm/rdmpi-") != NULL;
    fclose(f);
    return n;
}

/* Not dumpable, and without CAP_SYS_PTRACE (with which root reads anyone):
 * now a peer of the same uid may not read our memory. */
static void deny_cma(void)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct cap[2];

    if (prctl(PR_SET_DUMPABLE, 0) || syscall(SYS_capget, &hdr, cap))
        harness_die("cannot make this process unreadable: %s", strerror(errno));
    cap[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
    if (syscall(SYS_capset, &hdr, cap))
        harness_die("cannot drop CAP_SYS_PTRACE: %s", strerror(errno));
}

static int list_btls(void)
{
    rt_log_init();
    btl_open_all(&h.mods, &h.nmods, NULL);
    for (int i = 0; i < h.nmods; i++)
        printf("%s%s", i ? " " : "", h.mods[i]->name);
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *cma_env = getenv("RDMPI_SM_CMA"), *deny = getenv("T_BTL_SM_DENY_CMA");
    int cma_off = (cma_env && !strcmp(cma_env, "0")) || (deny && !strcmp(deny, "1"));
    uint8_t *gsrc, *gdst, *putbuf;
    struct btl_module *sm;
    uint64_t a;
    int right;

    if (argc > 1 && !strcmp(argv[1], "--list"))
        return list_btls();
    if (argc > 1)
        nmsg = strtoull(argv[1], NULL, 0);
    signal(SIGALRM, watchdog);
    alarm(WATCH_SECS);
    for (size_t i = 0; i < sizeof(rnd); i++)
        rnd[i] = (uint8_t)harness_mix(i);
    gsrc = malloc(GBUF + 64);
    gdst = malloc(GBUF + 16);
    putbuf = calloc(1, BIGAT + BIGPUT + 1);
    if (!gsrc || !gdst || !putbuf)
        harness_die("out of memory");
    if (deny && !strcmp(deny, "1"))
        deny_cma();

    harness_init(&h, on_recv);
    harness_pattern_fill(gsrc, GBUF + 64, rt.rank);
    st = calloc((size_t)rt.size, sizeof(*st));
    if (!st)
        harness_die("out of memory");
    /* The peers read gsrc and write putbuf at these addresses; sm and self
     * register statelessly, so any module's register_mem gives them. */
    {
        struct btl_reg *reg;
        h.mods[0]->register_mem(h.mods[0], gsrc, GBUF + 64, &reg, NULL, &a);
        rt_modex_put("test.gbuf", &a, 8);
        h.mods[0]->register_mem(h.mods[0], putbuf, BIGAT + BIGPUT + 1, &reg, NULL, &a);
        rt_modex_put("test.putbuf", &a, 8);
    }
    harness_connect(&h);
    fence();
    if (rt.rank == 0)
        printf("# %d ranks, %llu messages per pair, nspace %s\n", rt.size, (unsigned long long)nmsg,
               rt.nspace);

    phase = "checking connect";
    sm = harness_find(&h, "sm");
    for (int p = 0; p < rt.size; p++)
        CHECK_ALL ("rank %d reached by %s", p, h.btl_of[p] ? h.btl_of[p]->name : "nothing") {
            CHECK_TRUE(h.ep[p]);
            CHECK_EQ_PTR(h.btl_of[p], (p == rt.rank ? harness_find(&h, "self") : sm));
        }
    CHECK_EQ_INT(harness_shm_files(), 0, "no segment of this job left in /dev/shm after connect");
    if (sm && rt.size > 1) {
        CHECK_EQ_INT((!(sm->flags & (BTL_CAP_GET | BTL_CAP_PUT))), cma_off,
                     "sm %s GET/PUT with RDMPI_SM_CMA=%s%s", cma_off ? "lacks" : "offers",
                     cma_env ? cma_env : "(unset)", deny ? " and CMA denied" : "");
        CHECK_ALL ("sm eager limit %zu", sm->eager_limit) {
            CHECK_EQ_LONG(sm->eager_limit, sm->sendi_limit);
            CHECK_GE_LONG(sm->eager_limit, 64);
        }
    }

    /* Everyone has looked at /dev/shm before the first message makes a
     * ring (its name lives until its reader maps it). */
    fence();
    fill_rings();
    fence();
    run_streams();

    phase = "rdma";
    right = (rt.rank + 1) % rt.size;
    for (int p = rt.rank;; p = right) {
        if (h.btl_of[p]->flags & BTL_CAP_GET) {
            test_get(p, gdst);
            if (p == right)
                test_put(p, gsrc);
        } else {
            struct rdma_ctx c = {0, 0};
            CHECK_ALL ("%s get without the capability says -ENOTSUP", h.btl_of[p]->name) {
                CHECK_EQ_INT(h.btl_of[p]->get(h.ep[p], gdst, NULL, 0, NULL, 1, rdma_done, &c),
                             -ENOTSUP);
                CHECK_TRUE(!c.calls);
            }
        }
        if (p == right)
            break;
    }
    fence();
    /* Our left neighbour and we ourselves put our patterns at offset 1. */
    {
        int left = (rt.rank + rt.size - 1) % rt.size;
        if (h.btl_of[left]->flags & BTL_CAP_PUT)
            CHECK_ALL ("rank %d's put arrived intact", left) {
                CHECK_LT_LONG(pattern_diff(putbuf + 1, PUTSIZE, left, 0), 0);
                CHECK_EQ_INT(putbuf[0], 0);
                CHECK_EQ_INT(putbuf[PUTSIZE + 1], 0);
            }
        if (h.btl_of[left]->flags & BTL_CAP_PUT)
            CHECK_ALL ("rank %d's %u-byte put arrived intact", left, BIGPUT) {
                CHECK_LT_LONG(pattern_diff(putbuf + BIGAT, BIGPUT, left, 7), 0);
                CHECK_EQ_INT(putbuf[BIGAT - 1], 0);
                CHECK_EQ_INT(putbuf[BIGAT + BIGPUT], 0);
            }
    }

    phase = "finalize";
    harness_finalize(&h);
    fence();
    CHECK_EQ_INT(harness_shm_files(), 0, "nothing of this job in /dev/shm after finalize");
    CHECK_EQ_INT(mapped_segments(), 0, "no segment mapped after finalize");
    rt_modex_finalize();
    free(gsrc);
    free(gdst);
    free(putbuf);
    free(st);
    return failures != 0;
}
