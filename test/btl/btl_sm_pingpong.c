/* The btl/sm floor, before the pml adds its cost: sendi ping-pong one-way
 * latency, streaming bandwidth (the receiver copies each payload out, as the
 * pml would), and CMA get bandwidth. Each round is bracketed by a raw
 * cache-line ping-pong probe, because this VM's vCPU placement moves between
 * "near" (~46 ns a hand-off) and "far" (~200 ns) every 10-30 s; the summary
 * gives median [min-max] per placement class.
 * Run: mpirun -n 2 test/btl/btl_sm_pingpong [rounds] */
#include "btl_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>

#define MAXROUNDS  64
#define PROBE_NEAR 80.0 /* ns; as in shared/reference/peer-measurements.md */
#define PROBE_FAR  150.0

static volatile uint64_t got;
static char sink[1 << 16];

static void on_recv(int peer, const void *data, size_t len)
{
    (void)peer;
    memcpy(sink, data, len);
    got++;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Timing is kept per window of WINDOW round trips: on a shared machine the
 * 10th percentile of the windows shows the uncontended cost, the mean
 * everything. */
#define WINDOW  1000
#define WINDOWS 400
static double win[WINDOWS];

static double p10(int n)
{
    qsort(win, (size_t)n, sizeof(win[0]), cmp);
    return win[n / 10];
}

/* Two lines, one written by each side: the bare hand-off cost. */
struct probe {
    volatile uint64_t ping __attribute__((aligned(64)));
    volatile uint64_t pong __attribute__((aligned(64)));
};

static struct probe *probe_map(int create)
{
    char name[400];
    int fd;
    void *p;

    snprintf(name, sizeof(name), "/rdmpi-%u-%s-probe", (unsigned)getuid(), rt.nspace);
    fd = create ? shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600) : shm_open(name, O_RDWR, 0);
    if (fd < 0 || (create && ftruncate(fd, sizeof(struct probe))))
        harness_die("probe segment %s: %s", name, strerror(errno));
    p = mmap(NULL, sizeof(struct probe), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        harness_die("mmap of the probe segment: %s", strerror(errno));
    if (!create)
        shm_unlink(name);
    return p;
}

static double probe_ns(struct probe *p, int me, int iters, double *best)
{
    static uint64_t seq;
    double t = rt_wtime(), w = t;

    for (int i = 0; i < iters; i++) {
        if (i % WINDOW == 0 && i) {
            double now = rt_wtime();
            win[i / WINDOW - 1] = (now - w) / WINDOW / 2 * 1e9;
            w = now;
        }
        seq++;
        if (me == 0) {
            p->ping = seq;
            while (p->pong != seq)
                ;
        } else {
            while (p->ping != seq)
                ;
            p->pong = seq;
        }
    }
    *best = p10(iters / WINDOW - 1);
    return (rt_wtime() - t) / iters / 2 * 1e9;
}

static struct btl_module *m;
static struct btl_endpoint *ep;

static void send_msg(const void *buf, size_t len)
{
    while (m->sendi(ep, buf, len, NULL, 0) == -EAGAIN)
        m->progress(m);
}

/* Waits for n more messages than all earlier calls waited for. */
static void expect(uint64_t n)
{
    static uint64_t want;

    want += n;
    while (got < want)
        m->progress(m);
}

/* One-way latency in ns: half the round trip; *best the p10 window. */
static double pingpong(int me, size_t len, int iters, double *best)
{
    static uint8_t msg[1 << 16] = {BTL_TAG_TEST};
    double t = 0, w = 0;

    for (int i = -iters / 10; i < iters; i++) {
        if (i == 0)
            t = w = rt_wtime();
        if (i > 0 && i % WINDOW == 0) {
            double now = rt_wtime();
            win[i / WINDOW - 1] = (now - w) / WINDOW / 2 * 1e9;
            w = now;
        }
        if (me == 0) {
            send_msg(msg, len);
            expect(1);
        } else {
            expect(1);
            send_msg(msg, len);
        }
    }
    if (best)
        *best = p10(iters / WINDOW - 1);
    return (rt_wtime() - t) / iters / 2 * 1e9;
}

/* Streaming: count messages one way, one back when all arrived; MB/s. */
static double stream(int me, size_t len, int count)
{
    static uint8_t msg[1 << 16] = {BTL_TAG_TEST};
    double t = rt_wtime();

    if (me == 0) {
        for (int i = 0; i < count; i++)
            send_msg(msg, len);
        expect(1);
    } else {
        expect((uint64_t)count);
        send_msg(msg, 1);
    }
    return (double)len * count / (rt_wtime() - t) / 1e6;
}

static void noop(void *ctx, int status)
{
    (void)ctx;
    (void)status;
}

/* Rank 0 reads len bytes of rank 1's buffer `reps` times; MB/s. */
static double cma_get(uint64_t raddr, uint8_t *dst, size_t len, int reps)
{
    double t = rt_wtime();

    for (int i = 0; i < reps; i++)
        for (size_t off = 0; off < len; off += m->get_limit) {
            size_t n = len - off < m->get_limit ? len - off : m->get_limit;
            if (m->get(ep, dst + off, NULL, raddr + off, NULL, n, noop, NULL))
                harness_die("get failed");
        }
    return (double)len * reps / (rt_wtime() - t) / 1e6;
}

enum { P_BEFORE, P_AFTER, PBEST, L8, L8BEST, L64, L1K, L4K, B64, B1K, B4K, G1M, G16M, NCOL };
static const char *const col[NCOL] = {"probe0 ns",     "probe1 ns",  "probe p10 ns", "lat 8B ns",
                                      "lat 8B p10 ns", "lat 64B ns", "lat 1K ns",    "lat 4K ns",
                                      "bw 64B MB/s",   "bw 1K MB/s", "bw 4K MB/s",   "get 1M MB/s",
                                      "get 16M MB/s"};

static void summary(double r[][NCOL], int rounds, const char *cls, int want)
{
    double v[MAXROUNDS];
    int n;

    for (int c = PBEST; c < NCOL; c++) {
        n = 0;
        for (int i = 0; i < rounds; i++) {
            double pr = r[i][P_BEFORE] > r[i][P_AFTER] ? r[i][P_BEFORE] : r[i][P_AFTER];
            double pl = r[i][P_BEFORE] < r[i][P_AFTER] ? r[i][P_BEFORE] : r[i][P_AFTER];
            if ((want == 0 && pr < PROBE_NEAR) || (want == 1 && pl > PROBE_FAR) || want == 2)
                v[n++] = r[i][c];
        }
        if (!n)
            continue;
        qsort(v, (size_t)n, sizeof(v[0]), cmp);
        printf("%-5s %-13s median %9.1f  [%9.1f - %9.1f]  n=%d\n", cls, col[c], v[n / 2], v[0],
               v[n - 1], n);
    }
}

int main(int argc, char **argv)
{
    static double res[MAXROUNDS][NCOL];
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    struct harness h;
    struct probe *pr = NULL;
    uint8_t *buf = malloc(16u << 20);
    uint64_t raddr, *ra;
    size_t len;
    int me, get_ok;

    if (rounds < 1 || rounds > MAXROUNDS || !buf)
        harness_die("usage: btl_sm_pingpong [rounds 1..%d]", MAXROUNDS);
    memset(buf, 1, 16u << 20);
    harness_init(&h, on_recv);
    if (rt.size != 2 || rt.local_size != 2)
        harness_die("run with 2 ranks on one host");
    me = rt.rank;
    if (me == 0)
        pr = probe_map(1);
    raddr = (uint64_t)(uintptr_t)buf;
    rt_modex_put("bench.buf", &raddr, 8);
    harness_connect(&h);
    if (me == 1)
        pr = probe_map(0);
    rt_modex_fence();
    m = h.btl_of[1 - me];
    ep = h.ep[1 - me];
    if (!m || strcmp(m->name, "sm"))
        harness_die("the peer is not reached by sm");
    if (rt_modex_get(1 - me, "bench.buf", (void **)&ra, &len))
        harness_die("no buffer address from the peer");
    raddr = *ra;
    free(ra);
    get_ok = (m->flags & BTL_CAP_GET) != 0;
    if (me == 0) {
        cpu_set_t set;
        sched_getaffinity(0, sizeof(set), &set);
        printf("# btl/sm floor: eager limit %zu, get %s, %d CPUs, rank 0 on %d CPU(s)\n",
               m->eager_limit, get_ok ? "by CMA" : "off", rt.ncpus, CPU_COUNT(&set));
        printf("round");
        for (int c = 0; c < NCOL; c++)
            printf(" | %s", col[c]);
        printf("\n");
    }
    for (int i = 0; i < rounds; i++) {
        double *r = res[i];

        r[P_BEFORE] = probe_ns(pr, me, 200000, &r[PBEST]);
        r[L8] = pingpong(me, 8, 200000, &r[L8BEST]);
        r[L64] = pingpong(me, 64, 100000, NULL);
        r[L1K] = pingpong(me, 1024, 50000, NULL);
        r[L4K] = pingpong(me, 4096 < m->eager_limit ? 4096 : m->eager_limit, 20000, NULL);
        r[B64] = stream(me, 64, 400000);
        r[B1K] = stream(me, 1024, 200000);
        r[B4K] = stream(me, 4096 < m->eager_limit ? 4096 : m->eager_limit, 100000);
        if (me == 0 && get_ok) {
            r[G1M] = cma_get(raddr, buf, 1u << 20, 200);
            r[G16M] = cma_get(raddr, buf, 16u << 20, 10);
        }
        /* The peer waits here while rank 0 reads its memory. */
        send_msg((uint8_t[]){BTL_TAG_TEST}, 1);
        expect(1);
        r[P_AFTER] = probe_ns(pr, me, 200000, &(double){0});
        if (me == 0) {
            printf("%5d", i);
            for (int c = 0; c < NCOL; c++)
                printf(" | %.1f", r[c]);
            printf("\n");
            fflush(stdout);
        }
    }
    if (me == 0) {
        summary(res, rounds, "near", 0);
        summary(res, rounds, "far", 1);
        summary(res, rounds, "all", 2);
    }
    rt_modex_fence();
    munmap(pr, sizeof(*pr));
    harness_finalize(&h);
    rt_modex_finalize();
    free(buf);
    return 0;
}
