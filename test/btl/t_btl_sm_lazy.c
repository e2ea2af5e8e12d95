/* btl/sm's rings made on first use, and its sleeping readers, driven
 * directly without the pml between all ranks of one host (run under mpirun
 * by t_btl_sm_lazy.sh).
 *
 * t_btl_sm_lazy rings: the ring memory a rank maps (the report's "ring
 * bytes mapped") is 0 with every local peer silent, and prints it against
 * what protocol 3 mapped (every pair's ring, from MPI_Init on); one message
 * 0 -> 1 maps that one ring at both ends and leaves nothing in /dev/shm;
 * after every rank sent to every other, each maps its 2 x (local ranks - 1)
 * rings, and every message arrived in order.
 *
 * t_btl_sm_lazy wake [HOPS] [MSGS]: with RDMPI_SLEEP=1 every rank sleeps
 * in the BTL's wait whenever a poll finds nothing, for up to 30 s. A token
 * goes round the ranks HOPS times, each hop after a random pause, so its
 * reader is asleep and it is the only writer; then every rank but 0 sends
 * MSGS messages to rank 0 in random bursts with random pauses while rank 0
 * sleeps between polls. A lost notification leaves a reader asleep with an
 * entry waiting until its timeout: the check is that no sleep ran out its
 * time (the report's "sleeps timed out"), with every message in order.
 * Run with RDMPI_NOISE, whose pause in btl_sm_wait (between the last poll
 * and the flag) makes entries land where a missing last look loses them. */
#include "btl_harness.h"
#include "sm/btl_sm.h"
#include "sm/btl_sm_ring.h"

#include <errno.h>
#include <inttypes.h>
#include <time.h>

#define SLEEP_US 30000000u /* far longer than any hop: only a lost wake-up runs it out */

static struct harness h;
static struct btl_module *sm;
static uint64_t *rx;  /* messages received, per world rank */
static int badorder;  /* messages out of order */
static uint64_t seed; /* for the pauses */

static void on_recv(int peer, const void *data, size_t len)
{
    uint64_t k;

    if (len < 1 + sizeof(k)) {
        badorder++;
        return;
    }
    memcpy(&k, (const uint8_t *)data + 1, sizeof(k));
    badorder += k != rx[peer];
    rx[peer]++;
}

static uint64_t report(const char *name)
{
    struct btl_report r;

    memset(&r, 0, sizeof(r));
    sm->report(sm, &r);
    for (int k = 0; k < BTL_REPORT_EXTRA && r.extra_name[k]; k++)
        if (!strcmp(r.extra_name[k], name))
            return r.extra[k];
    harness_die("btl/sm's report has no \"%s\"", name);
}

/* Sends message k to peer, polling (never sleeping) while its ring is full. */
static void send_k(int peer, uint64_t k)
{
    uint8_t m[1 + sizeof(k)] = {BTL_TAG_TEST};
    unsigned spins = 0;

    memcpy(m + 1, &k, sizeof(k));
    while (h.btl_of[peer]->sendi(h.ep[peer], m, sizeof(m), NULL, 0))
        if (!harness_progress(&h))
            harness_idle(&spins);
}

/* Polls until rx[peer] reaches n; sleeps in sm's wait (if asked) whenever
 * a poll finds nothing. */
static void recv_until(int peer, uint64_t n, int sleep)
{
    unsigned spins = 0;

    while (rx[peer] < n)
        if (!harness_progress(&h)) {
            if (sleep)
                sm->wait(sm, SLEEP_US);
            else
                harness_idle(&spins);
        }
}

/* None, a spin of up to 4096 loads, up to 63 yields, or a sleep of up to
 * 100 us: the reader falls asleep, or is just about to, or is polling,
 * when the entry comes, and the writers' timing against it varies. */
static void pause_some(void)
{
    static volatile unsigned sink;
    unsigned r;

    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    r = (unsigned)(seed >> 33);
    switch (r & 3) {
    case 0: break;
    case 1:
        for (unsigned i = (r >> 2) % 4096; i; i--)
            sink = sink + 1;
        break;
    case 2:
        for (unsigned i = (r >> 2) % 64; i; i--)
            sched_yield();
        break;
    default: {
        struct timespec ts = {0, (long)((r >> 2) % 100000)};
        nanosleep(&ts, NULL);
    }
    }
}

static void rings(void)
{
    uint64_t ring = (uint64_t)btl_sm.nslots * BTL_SM_SLOT, npeers = (uint64_t)rt.size - 1;
    uint64_t mapped = report("ring bytes mapped");
    const int k = 100;

    if (rt.rank == 0)
        printf("# ring memory mapped per rank with %" PRIu64 " silent local peers: %" PRIu64
               " bytes; protocol 3 mapped all pairs' rings: %" PRIu64 " bytes\n",
               npeers, mapped, npeers * (npeers + 1) * ring);
    CHECK_EQ_U64(mapped, 0, "no ring mapped while every peer is silent");
    rt_modex_fence();

    if (rt.rank == 0)
        send_k(1, 0);
    if (rt.rank == 1)
        recv_until(0, 1, 0);
    rt_modex_fence();
    CHECK_EQ_U64(report("ring bytes mapped"), rt.rank < 2 ? ring : 0,
                 "one message 0 -> 1 maps one ring at ranks 0 and 1, none elsewhere");
    CHECK_EQ_INT(harness_shm_files(), 0, "its name is gone from /dev/shm once rank 1 mapped it");
    rt_modex_fence();

    for (int i = 0; i < k; i++)
        for (int p = 0; p < rt.size; p++)
            if (p != rt.rank)
                send_k(p, rt.rank == 0 && p == 1 ? (uint64_t)i + 1 : (uint64_t)i);
    for (int p = 0; p < rt.size; p++)
        if (p != rt.rank)
            recv_until(p, (uint64_t)k + (rt.rank == 1 && p == 0), 0);
    rt_modex_fence();
    CHECK_EQ_INT(badorder, 0, "every pair's messages arrived in order");
    CHECK_EQ_U64(report("ring bytes mapped"), 2 * npeers * ring,
                 "all pairs talked: %" PRIu64 " rings mapped, ours and our peers'", 2 * npeers);
    CHECK_EQ_INT(harness_shm_files(), 0, "no ring name left in /dev/shm");
}

static void wake(uint64_t hops, uint64_t msgs)
{
    int left = (rt.rank + rt.size - 1) % rt.size, right = (rt.rank + 1) % rt.size;
    uint64_t sent = 0, got = 0, total = 0;

    CHECK_TRUE(btl_sm.wake, "RDMPI_SLEEP=1: sm's writers look for sleeping readers");
    /* Hop j goes from rank j % size to its right; rank 0 starts. */
    for (uint64_t j = 0; j < hops; j++)
        if ((int)(j % (uint64_t)rt.size) == rt.rank) {
            if (j)
                recv_until(left, ++got, 1);
            pause_some();
            send_k(right, sent++);
        }
    if ((int)(hops % (uint64_t)rt.size) == rt.rank)
        recv_until(left, ++got, 1);
    rt_modex_fence();
    CHECK_EQ_U64(report("sleeps timed out"), 0,
                 "token ring, %" PRIu64 " hops to sleeping readers: no wake-up lost", hops);

    if (rt.rank == 0) {
        for (int p = 1; p < rt.size; p++) {
            uint64_t from = p == left ? got : 0; /* its tokens came first */
            recv_until(p, from + msgs, 1);
            total += rx[p] - from;
        }
    } else {
        /* Rank size - 1 sent rank 0 the tokens: its numbering goes on. */
        for (uint64_t k = right == 0 ? sent : 0, end = k + msgs; k < end;) {
            for (uint64_t b = 1 + (seed >> 33) % 16; b && k < end; b--)
                send_k(0, k++);
            pause_some();
        }
    }
    rt_modex_fence();
    CHECK_EQ_INT(badorder, 0, "every message arrived in order");
    CHECK_EQ_U64(report("sleeps timed out"), 0,
                 "%d writers in bursts to a sleeping rank 0: no wake-up lost", rt.size - 1);
    if (rt.rank == 0)
        CHECK_ALL ("rank 0 got %" PRIu64 " messages, sleeping %" PRIu64 " times", total,
                   report("sleeps")) {
            CHECK_EQ_U64(total, msgs * (uint64_t)(rt.size - 1));
            CHECK_GT_LONG((long)report("sleeps"), 0);
        }
}

int main(int argc, char **argv)
{
    int waking = argc > 1 && !strcmp(argv[1], "wake");

    if (argc < 2 || (!waking && strcmp(argv[1], "rings")))
        harness_die("usage: t_btl_sm_lazy rings | wake [HOPS] [MSGS]");
    harness_init(&h, on_recv);
    rt_progress_setup();
    rx = calloc((size_t)rt.size, sizeof(*rx));
    if (!rx)
        harness_die("out of memory");
    seed = (uint64_t)rt.rank * 0x9e3779b97f4a7c15ull + 1;
    harness_connect(&h);
    sm = harness_find(&h, "sm");
    if (!sm || rt.size < 2 || h.btl_of[(rt.rank + 1) % rt.size] != sm)
        harness_die("needs at least 2 ranks on one host, reached by sm");
    if (waking)
        wake(argc > 2 ? strtoull(argv[2], NULL, 0) : 4000,
             argc > 3 ? strtoull(argv[3], NULL, 0) : 20000);
    else
        rings();
    harness_finalize(&h);
    rt_modex_fence();
    CHECK_EQ_INT(harness_shm_files(), 0, "nothing of this job in /dev/shm after finalize");
    rt_modex_finalize();
    free(rx);
    return failures != 0;
}
