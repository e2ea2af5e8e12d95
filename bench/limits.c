/* rdmpi-bench-limits: what this machine allows at best for one-host
 * transfers, printed beside the MPI results so that they can be judged:
 *   memcpy    single-thread copy bandwidth at each size (a copy-in/copy-out
 *             transport pays it twice, a single-copy one once);
 *   cma       process_vm_readv bandwidth, a reader pinned to the first
 *             allowed CPU and the owner to the second (the single-copy
 *             rendezvous of btl/sm is bounded by it);
 *   pingpong  one-way hand-off of a cache line between processes pinned to
 *             those two CPUs (the floor of shared-memory latency);
 *   probe     the same, short, printing only the nanoseconds: it tells
 *             which vCPU placement a run had (see peer-measurements.md);
 *   exchange  two processes, one per CPU, each copying its own block into
 *             its receive buffer and reading the other's block into it by
 *             process_vm_readv, then meeting at a cache-line barrier: the
 *             floor of a 2-rank allgather or alltoall by single copy, and
 *             of the one-way read alone (a bcast's receiver), in us;
 *   alltoall  -p N processes, not pinned (as ranks outnumbering cores
 *             run), each copying its own block and reading its block of
 *             every other's send buffer by process_vm_readv, then meeting
 *             at a barrier that yields: the floor of an N-rank alltoall
 *             by single copy, and (the same bytes) of an allgather.
 * Linux only, no MPI. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRIALS   7
#define MAX_SIZE ((size_t)1 << 30)

static int cpu_a = 0, cpu_b = 1; /* the first two allowed CPUs */
static cpu_set_t allowed;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set))
        perror("rdmpi-bench-limits: sched_setaffinity");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Repetitions per trial: enough bytes for a few milliseconds, bounded for
 * tiny sizes where each call costs more than its bytes. */
static long reps_for(size_t size, size_t budget, long cap)
{
    long r = (long)(budget / (size ? size : 1));

    return r < 4 ? 4 : r > cap ? cap : r;
}

/* Through a volatile pointer, so the compiler cannot drop copies whose
 * result nobody reads. */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;

static double memcpy_mbps(char *dst, const char *src, size_t size)
{
    long reps = reps_for(size, (size_t)256 << 20, 2000000);
    double t[TRIALS];

    copy_fn(dst, src, size);
    for (int k = 0; k < TRIALS; k++) {
        t[k] = now();
        for (long i = 0; i < reps; i++)
            copy_fn(dst, src, size);
        t[k] = (double)size * (double)reps / (now() - t[k]) / 1e6;
    }
    return median(t, TRIALS);
}

/* Reads `size` bytes at `remote` in process pid, looping on short reads as
 * a transport must. */
static int cma_read(pid_t pid, char *local, char *remote, size_t size)
{
    size_t done = 0;

    while (done < size) {
        struct iovec l = {local + done, size - done}, r = {remote + done, size - done};
        ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);

        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

static double cma_mbps(pid_t pid, char *dst, char *remote, size_t size)
{
    long reps = reps_for(size, (size_t)64 << 20, 20000);
    double t[TRIALS];

    if (cma_read(pid, dst, remote, size))
        return -1;
    for (int k = 0; k < TRIALS; k++) {
        t[k] = now();
        for (long i = 0; i < reps; i++)
            cma_read(pid, dst, remote, size);
        t[k] = (double)size * (double)reps / (now() - t[k]) / 1e6;
    }
    return median(t, TRIALS);
}

/* The child of the CMA test owns the buffer (its own pages, written after
 * the fork) until the parent closes the pipe. */
static pid_t cma_owner(char *buf, size_t size, int *keep)
{
    int ready[2], hold[2];
    char c;
    pid_t pid;

    if (pipe(ready) || pipe(hold))
        return -1;
    pid = fork();
    if (pid == 0) {
        pin(cpu_b);
        memset(buf, 0x5a, size);
        close(ready[0]);
        close(hold[1]);
        if (write(ready[1], "r", 1) != 1)
            _exit(1);
        while (read(hold[0], &c, 1) > 0)
            ;
        _exit(0);
    }
    close(ready[1]);
    close(hold[0]);
    if (pid < 0 || read(ready[0], &c, 1) != 1) {
        close(hold[1]);
        pid = -1;
    }
    close(ready[0]);
    *keep = hold[1];
    return pid;
}

/* Median one-way hand-off time in ns over `trials` runs of `rounds` round
 * trips; ping and pong live in different cache lines (and not adjacent
 * ones, which the prefetcher pairs). */
static double pingpong_ns(long rounds, int trials, double *lo, double *hi)
{
    atomic_long *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    atomic_long *ping = line, *pong = line + 256 / sizeof(*line);
    double t[TRIALS];
    pid_t pid;

    if (line == MAP_FAILED)
        return -1;
    atomic_store(ping, 0);
    atomic_store(pong, 0);
    pid = fork();
    if (pid == 0) {
        pin(cpu_b);
        for (long i = 1; i <= rounds * trials; i++) {
            while (atomic_load_explicit(ping, memory_order_acquire) != i)
                ;
            atomic_store_explicit(pong, i, memory_order_release);
        }
        _exit(0);
    }
    if (pid < 0)
        return -1;
    pin(cpu_a);
    for (int k = 0; k < trials; k++) {
        long base = (long)k * rounds;

        t[k] = now();
        for (long i = base + 1; i <= base + rounds; i++) {
            atomic_store_explicit(ping, i, memory_order_release);
            while (atomic_load_explicit(pong, memory_order_acquire) != i)
                ;
        }
        t[k] = (now() - t[k]) * 1e9 / (2.0 * (double)rounds);
    }
    waitpid(pid, NULL, 0);
    munmap(line, 4096);
    sched_setaffinity(0, sizeof(allowed), &allowed);
    qsort(t, (size_t)trials, sizeof(*t), cmp_double);
    *lo = t[0];
    *hi = t[trials - 1];
    return median(t, trials);
}

/* Both processes arrive, then wait for the other's arrival: round `i`
 * of a barrier on two lines of `word`. A wait far longer than a copy
 * means the other is off its CPU (a loaded host): then the waiter yields
 * between polls rather than burn the slice of whoever shares its CPU. */
static void barrier2(atomic_long *word, int me, long i)
{
    unsigned spins = 0;

    atomic_store_explicit(&word[me * 32], i, memory_order_release);
    while (atomic_load_explicit(&word[!me * 32], memory_order_acquire) < i)
        if (++spins > (1u << 16))
            sched_yield();
}

/* How the exchange moves the other's block. */
enum xchg { XCHG_CMA, XCHG_SHM, XCHG_ONE_WAY, XCHG_N };

/* One side of the exchange, `reps` rounds each ended by a barrier: copy
 * our block into our receive buffer and read the other's into it by
 * process_vm_readv (CMA); or copy our block into our half of `shm`, and
 * after a barrier the other's half into the receive buffer (SHM, the
 * copy-in/copy-out of slots); or only the first process reads the
 * second's block (ONE_WAY, a bcast's receiver). Returns us per round. */
static double exchange_side(int me, pid_t peer, atomic_long *word, long *round, char *send,
                            char *recv, char *shm, size_t size, long reps, enum xchg how)
{
    double t = now();

    for (long i = 0; i < reps; i++) {
        if (how == XCHG_SHM) {
            copy_fn(shm + (size_t)me * size, send, size);
            copy_fn(recv + (size_t)me * size, send, size);
            barrier2(word, me, ++*round);
            copy_fn(recv + (size_t)!me * size, shm + (size_t)!me * size, size);
        } else if (how == XCHG_CMA) {
            copy_fn(recv + (size_t)me * size, send, size);
            cma_read(peer, recv + (size_t)!me * size, send, size);
        } else if (me == 0) {
            cma_read(peer, recv + size, send, size);
        }
        barrier2(word, me, ++*round);
    }
    return (now() - t) * 1e6 / (double)reps;
}

/* Rounds per trial of one exchange: as many as take about 20 ms by a
 * timed warm-up, at most `cap`. Both sides spin on each other at every
 * barrier, so on a loaded host a round costs a scheduling delay or more
 * (the two rarely run at once); a fixed 20000 rounds then took hours.
 * The first process decides and publishes the count in word[64]; the
 * barrier after it orders the read. */
static long exchange_reps(int me, pid_t peer, atomic_long *word, long *round, char *send,
                          char *recv, char *shm, size_t size, enum xchg how, long cap)
{
    double us = exchange_side(me, peer, word, round, send, recv, shm, size, 16, how);
    long reps = us > 0 ? (long)(20000.0 / us) : cap;

    if (me == 0)
        atomic_store_explicit(&word[64],
                              reps < 4     ? 4
                              : reps > cap ? cap
                                           : reps,
                              memory_order_relaxed);
    barrier2(word, me, ++*round);
    return atomic_load_explicit(&word[64], memory_order_relaxed);
}

/* Prints, per size, the median us per round of each exchange. Buffers
 * are allocated before the fork and written after it, so each process
 * has its own pages at the same addresses. */
static void exchange(size_t min, size_t max)
{
    atomic_long *word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *shm = mmap(NULL, 2 * max + 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *send = malloc(max ? max : 1), *recv = malloc(2 * max + 1);
    pid_t me_pid = getpid(), pid;
    long round = 0;

    if (word == MAP_FAILED || shm == MAP_FAILED || !send || !recv) {
        fprintf(stderr, "rdmpi-bench-limits: cannot set the exchange up\n");
        return;
    }
    atomic_store(&word[0], 0);
    atomic_store(&word[32], 0);
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "rdmpi-bench-limits: cannot start the exchange peer\n");
        return;
    }
    pin(pid ? cpu_a : cpu_b);
    memset(send, pid ? 1 : 2, max ? max : 1);
    memset(recv, 0, 2 * max + 1);
    if (pid)
        printf("# exchange: 2 processes on CPUs %d and %d, each per round: copy its block into\n"
               "# its receive buffer, take the other's block by process_vm_readv (cma) or from\n"
               "# where the other copied it in shared memory (shm), then a cache-line barrier.\n"
               "# one-way: only the first reads the second's block by CMA. Median us per round\n"
               "# of %d trials.\n"
               "# Size            cma (us)            shm (us)        one-way (us)\n",
               cpu_a, cpu_b, TRIALS);
    for (size_t s = min; s <= max; s = s ? 2 * s : 1) {
        long cap = reps_for(s, (size_t)32 << 20, 20000);
        double t[XCHG_N][TRIALS];

        for (int w = 0; w < XCHG_N; w++) {
            long reps =
                exchange_reps(!pid, pid ? pid : me_pid, word, &round, send, recv, shm, s, w, cap);

            for (int k = 0; k < TRIALS; k++)
                t[w][k] = exchange_side(!pid, pid ? pid : me_pid, word, &round, send, recv, shm, s,
                                        reps, w);
        }
        if (pid) {
            printf("%-10zu%20.2f%20.2f%20.2f\n", s, median(t[XCHG_CMA], TRIALS),
                   median(t[XCHG_SHM], TRIALS), median(t[XCHG_ONE_WAY], TRIALS));
            fflush(stdout);
        }
    }
    if (!pid)
        _exit(0);
    waitpid(pid, NULL, 0);
    sched_setaffinity(0, sizeof(allowed), &allowed);
    free(send);
    free(recv);
    munmap(shm, 2 * max + 1);
    munmap(word, 4096);
}

/* A barrier of n processes that yields while it waits, as oversubscribed
 * ranks must: process 0 gathers the arrivals, each in its own line, and
 * releases the others through its own (one line read by all, not n). */
struct nbar {
    struct {
        atomic_long gen;
        char pad[64 - sizeof(atomic_long)];
    } line[64];
    pid_t pid[];
};

static void nbarrier(struct nbar *b, int me, int n, long *gen)
{
    long want = ++*gen;

    if (me) {
        atomic_store_explicit(&b->line[me].gen, want, memory_order_release);
        while (atomic_load_explicit(&b->line[0].gen, memory_order_acquire) < want)
            sched_yield();
        return;
    }
    for (int r = 1; r < n; r++)
        while (atomic_load_explicit(&b->line[r].gen, memory_order_acquire) < want)
            sched_yield();
    atomic_store_explicit(&b->line[0].gen, want, memory_order_release);
}

/* Process me of n: `reps` alltoalls of `size`-byte blocks, each ended by
 * the barrier; returns us per alltoall. */
static double alltoall_side(struct nbar *b, int me, int n, long *gen, char *send, char *recv,
                            size_t size, long reps)
{
    double t;

    nbarrier(b, me, n, gen);
    t = now();
    for (long i = 0; i < reps; i++) {
        copy_fn(recv + (size_t)me * size, send + (size_t)me * size, size);
        for (int k = 1; k < n; k++) {
            int r = (me + k) % n;

            if (cma_read(b->pid[r], recv + (size_t)r * size, send + (size_t)me * size, size))
                return -1;
        }
        nbarrier(b, me, n, gen);
    }
    return (now() - t) * 1e6 / (double)reps;
}

/* Prints, per size, the median us per alltoall on n processes. */
static void alltoall(size_t min, size_t max, int n)
{
    size_t bar = sizeof(struct nbar) + (size_t)n * sizeof(pid_t);
    struct nbar *b = mmap(NULL, bar, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *send = malloc((size_t)n * max + 1), *recv = malloc((size_t)n * max + 1);
    long gen = 0;
    int me = 0;

    if (b == MAP_FAILED || !send || !recv) {
        fprintf(stderr, "rdmpi-bench-limits: cannot set the alltoall up\n");
        return;
    }
    sched_setaffinity(0, sizeof(allowed), &allowed);
    b->pid[0] = getpid();
    for (int r = 1; r < n; r++) {
        pid_t pid = fork();

        if (pid < 0) {
            fprintf(stderr, "rdmpi-bench-limits: cannot start alltoall process %d\n", r);
            while (--r > 0)
                kill(b->pid[r], SIGKILL);
            while (wait(NULL) > 0)
                ;
            return;
        }
        if (!pid) {
            me = r;
            break;
        }
        b->pid[r] = pid;
    }
    memset(send, me + 1, (size_t)n * max + 1);
    memset(recv, 0, (size_t)n * max + 1);
    if (!me)
        printf("# alltoall: %d processes, not pinned, each per round: copy its own block,\n"
               "# read its block of every other's send buffer by process_vm_readv, then a\n"
               "# barrier that yields. Median us per round of %d trials.\n"
               "# Size      alltoall (us)\n",
               n, TRIALS);
    /* Process 0 has stored every pid before it enters the first barrier. */
    for (size_t s = min; s <= max; s = s ? 2 * s : 1) {
        long reps = reps_for(s * (size_t)n, (size_t)32 << 20, 2000);
        double t[TRIALS];

        alltoall_side(b, me, n, &gen, send, recv, s, 2);
        for (int k = 0; k < TRIALS; k++)
            t[k] = alltoall_side(b, me, n, &gen, send, recv, s, reps);
        if (!me) {
            printf("%-10zu%15.2f\n", s, median(t, TRIALS));
            fflush(stdout);
        }
        nbarrier(b, me, n, &gen);
    }
    if (me)
        _exit(0);
    while (wait(NULL) > 0)
        ;
    free(send);
    free(recv);
    munmap(b, bar);
}

static int parse_sizes(const char *arg, size_t *min, size_t *max)
{
    char *end;
    unsigned long long a = strtoull(arg, &end, 10), b = a;

    if (*end == ':')
        b = strtoull(end + 1, &end, 10);
    if (*end || a > b || b > MAX_SIZE)
        return -1;
    *min = (size_t)a;
    *max = (size_t)b;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "Usage: rdmpi-bench-limits [-m MIN:MAX] [-p N] [memcpy] [cma] [pingpong] [probe]"
               " [exchange] [alltoall]\n"
               "Physical limits for one-host transfers (default: memcpy cma pingpong,\n"
               "sizes 1:4194304 doubling).  probe prints only the one-way cache-line\n"
               "hand-off in ns, to tell the vCPU placement of a run.  exchange times\n"
               "the copies of a 2-rank allgather, alltoall those of an alltoall by single\n"
               "copy on N processes (default 4), not pinned (neither by default).\n");
}

int main(int argc, char **argv)
{
    size_t min = 1, max = (size_t)4 << 20;
    int do_copy = 0, do_cma = 0, do_pp = 0, do_probe = 0, do_xchg = 0, do_a2a = 0, c, found = 0;
    int nproc = 4;
    char host[256] = "?";
    double lo, hi;

    while ((c = getopt(argc, argv, "m:p:h")) != -1) {
        if (c == 'm' && parse_sizes(optarg, &min, &max) == 0)
            continue;
        if (c == 'p' && (nproc = atoi(optarg)) >= 2 && nproc <= 64)
            continue;
        usage(c == 'h' ? stdout : stderr);
        return c == 'h' ? 0 : 2;
    }
    for (int i = optind; i < argc; i++) {
        int *flag = !strcmp(argv[i], "memcpy")     ? &do_copy
                    : !strcmp(argv[i], "cma")      ? &do_cma
                    : !strcmp(argv[i], "pingpong") ? &do_pp
                    : !strcmp(argv[i], "probe")    ? &do_probe
                    : !strcmp(argv[i], "exchange") ? &do_xchg
                    : !strcmp(argv[i], "alltoall") ? &do_a2a
                                                   : NULL;
        if (!flag) {
            fprintf(stderr, "rdmpi-bench-limits: unknown measurement '%s'\n", argv[i]);
            return 2;
        }
        *flag = 1;
    }
    if (optind == argc)
        do_copy = do_cma = do_pp = 1;

    sched_getaffinity(0, sizeof(allowed), &allowed);
    for (int cpu = 0, n = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
        if (CPU_ISSET(cpu, &allowed))
            *(n++ ? &cpu_b : &cpu_a) = cpu, found = n;
    if (found < 2)
        cpu_b = cpu_a; /* one CPU: the ping-pong then measures context switches */

    if (do_probe) {
        printf("%.1f\n", pingpong_ns(100000, 1, &lo, &hi));
        return 0;
    }

    gethostname(host, sizeof(host) - 1);
    printf("# rdmpi-bench-limits: physical limits for one-host transfers\n"
           "# Host: %s, %ld cores online; CPUs %d and %d\n",
           host, sysconf(_SC_NPROCESSORS_ONLN), cpu_a, cpu_b);
    if (do_copy || do_cma) {
        char *src = malloc(max + 1), *dst = malloc(max + 1), *remote = malloc(max + 1);
        int keep = -1;
        pid_t owner = -1;

        if (!src || !dst || !remote) {
            fprintf(stderr, "rdmpi-bench-limits: cannot allocate 3 x %zu bytes\n", max);
            return 1;
        }
        memset(src, 1, max + 1);
        memset(dst, 2, max + 1);
        memset(remote, 3, max + 1);
        if (do_cma && (owner = cma_owner(remote, max + 1, &keep)) < 0)
            fprintf(stderr, "rdmpi-bench-limits: cannot start the CMA owner process\n");
        pin(cpu_a);
        printf("# memcpy: one thread on CPU %d; CMA: process_vm_readv on CPU %d from CPU %d\n"
               "# Size        memcpy (MB/s)          CMA (MB/s)\n",
               cpu_a, cpu_a, cpu_b);
        for (size_t s = min; s <= max; s = s ? 2 * s : 1) {
            double m = do_copy ? memcpy_mbps(dst, src, s) : -1;
            double r = owner > 0 ? cma_mbps(owner, dst, remote, s) : -1;

            printf("%-10zu%20.2f%20.2f\n", s, m, r);
            fflush(stdout);
        }
        if (owner > 0) {
            close(keep);
            waitpid(owner, NULL, 0);
        }
        sched_setaffinity(0, sizeof(allowed), &allowed);
        printf("# (-1.00: not measured or refused by the kernel)\n");
        free(src);
        free(dst);
        free(remote);
    }
    if (do_pp) {
        double ns = pingpong_ns(200000, TRIALS, &lo, &hi);

        printf("# Cache-line ping-pong one-way (ns): %.1f (median of %d x 200000 round trips"
               ", CPU %d <-> CPU %d; min %.1f, max %.1f)\n",
               ns, TRIALS, cpu_a, cpu_b, lo, hi);
    }
    /* On one CPU its spinning barrier would wait out whole time slices. */
    if (do_xchg && found < 2)
        printf("# exchange: needs two CPUs, this process may use one\n");
    else if (do_xchg)
        exchange(min, max);
    if (do_a2a)
        alltoall(min, max, nproc);
    return 0;
}
