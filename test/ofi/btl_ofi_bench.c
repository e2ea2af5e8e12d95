/* btl/ofi before the pml adds its cost: sendi ping-pong one-way latency
 * (8 B, and 24 B as an 8-byte MPI message with its match header), and RDMA
 * read bandwidth for 1-16 MiB the way the pml reads (chunks of at most
 * 4 MiB, 8 in flight). The VM's CPU placement moves latency 2-4x every
 * 10-30 s: run it several times, interleaved with the floors
 * (fi_pingpong, ofi_read_floor), and compare medians.
 * MAX_MIB (default 16) bounds the reads; 0 leaves them out, for a latency
 * run under emulation, where 256 MiB per size take minutes.
 * Run: RDMPI_BTL=ofi RDMPI_OFI_PROVIDER=tcp mpirun -n 2 btl_ofi_bench [iters [MAX_MIB]] */
#include "btl_harness.h"

#include <errno.h>

#define MAXREAD (16u << 20)
#define DEPTH   8

static volatile uint64_t got;

static void on_recv(int peer, const void *data, size_t len)
{
    (void)peer;
    (void)data;
    (void)len;
    got++;
}

static struct harness h;
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

static double pingpong(int me, size_t len, int iters)
{
    static uint8_t msg[64] = {BTL_TAG_TEST};
    double t = 0;

    for (int i = -iters / 10; i < iters; i++) {
        if (i == 0)
            t = rt_wtime();
        if (me == 0) {
            send_msg(msg, len);
            expect(1);
        } else {
            expect(1);
            send_msg(msg, len);
        }
    }
    return (rt_wtime() - t) / iters / 2 * 1e6;
}

struct reads {
    int inflight, status;
};

static void read_done(void *ctx, int status)
{
    struct reads *r = ctx;

    r->inflight--;
    r->status = status ? status : r->status;
}

/* MB/s reading len bytes `iters` times from the peer's registration. */
static double read_bw(uint8_t *dst, uint64_t raddr, const void *rkey, size_t len, int iters)
{
    size_t chunk = m->get_limit < (4u << 20) ? m->get_limit : (4u << 20);
    struct reads r = {0, 0};
    double t = rt_wtime();

    for (int i = 0; i < iters; i++) {
        size_t done = 0;

        while (done < len || r.inflight) {
            size_t n = len - done < chunk ? len - done : chunk;

            if (done < len && r.inflight < DEPTH &&
                m->get(ep, dst + done, NULL, raddr + done, rkey, n, read_done, &r) == 0) {
                r.inflight++;
                done += n;
                continue;
            }
            m->progress(m);
        }
    }
    if (r.status)
        harness_die("a read failed: %d", r.status);
    return (double)len * iters / (rt_wtime() - t) / 1e6;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 10000, me;
    size_t max_read = argc > 2 ? (size_t)atoi(argv[2]) << 20 : MAXREAD;
    uint8_t *buf = malloc(MAXREAD), rkey[32], *key;
    uint8_t done[2] = {BTL_TAG_TEST, 1};
    struct btl_reg *reg;
    uint64_t raddr, *a;
    size_t len;

    if (!buf)
        harness_die("out of memory");
    memset(buf, 7, MAXREAD);
    harness_init(&h, on_recv);
    if (!(m = harness_find(&h, "ofi")))
        harness_die("run with RDMPI_BTL=ofi");
    if (m->register_mem(m, buf, MAXREAD, &reg, rkey, &raddr))
        harness_die("register_mem failed");
    rt_modex_put("bench.rkey", rkey, m->rkey_size);
    rt_modex_put("bench.raddr", &raddr, sizeof(raddr));
    harness_connect(&h);
    if (rt.size != 2)
        harness_die("run with 2 ranks");
    me = rt.rank;
    ep = h.ep[1 - me];
    if (h.btl_of[1 - me] != m)
        harness_die("the peer is not reached by ofi");
    if (rt_modex_get(1 - me, "bench.rkey", (void **)&key, &len) ||
        rt_modex_get(1 - me, "bench.raddr", (void **)&a, &len))
        harness_die("no key from the peer");

    for (size_t l = 8; l <= 24; l += 16) {
        double us = pingpong(me, l, iters);
        if (me == 0)
            printf("pingpong %zu B: %.2f us one-way\n", l, us);
    }
    if (me == 0) {
        for (size_t l = 1u << 20; l <= max_read && l <= MAXREAD; l <<= 1) {
            int n = (int)((256u << 20) / l);
            read_bw(buf, *a, key, l, 2); /* warm-up */
            printf("read %zu MiB: %.0f MB/s\n", l >> 20, read_bw(buf, *a, key, l, n));
        }
        send_msg(done, sizeof(done));
    } else {
        expect(1); /* the reads need our progress until then */
    }
    fflush(stdout);
    m->deregister_mem(m, reg);
    harness_finalize(&h);
    rt_modex_fence();
    rt_modex_finalize();
    free(key);
    free(a);
    free(buf);
    return 0;
}
