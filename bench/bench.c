/* rdmpi-bench: the driver and everything the benchmarks share.
 *
 * Timing follows one rule everywhere: MPI_Wtime around a whole block of
 * iterations, never around each one, so that the timer's own cost and
 * resolution stay out of sub-microsecond results. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define LARGE     8192 /* sizes above this run fewer iterations by default */
#define MAX_BYTES ((size_t)1 << 30)
#define TAG_PP    1
#define TAG_BW    2
#define TAG_ACK   3
#define TAG_STATS 4
#define EXIT_SKIP 77 /* Automake's code for a skipped test */

static const struct bench *const benches[] = {
    &bench_latency,     &bench_bw,
    &bench_bibw,        &bench_mbw_mr,
    &bench_multi_lat,   &bench_barrier,
    &bench_bcast,       &bench_reduce,
    &bench_allreduce,   &bench_gather,
    &bench_scatter,     &bench_allgather,
    &bench_alltoall,    &bench_reduce_scatter,
    &bench_iallreduce,  &bench_startup,
    &bench_pack,        &bench_bw_vector,
    &bench_put_latency, &bench_get_latency,
    &bench_acc_latency, &bench_io_write,
    &bench_io_read,     &bench_io_vwrite,
    &bench_io_vread,    &bench_latency_mt,
};

static struct bench_opts opts;
const struct bench_opts *bench_opt = &opts;
int bench_rank, bench_nranks;
double bench_init_seconds;

static const struct bench *cur;
static long total_errors;

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ncols(void)
{
    int n = 0;

    while (n < BENCH_MAX_COLS && cur->cols[n].name)
        n++;
    return n;
}

/* Iteration counts: what -i/-x said for every size, else the benchmark's
 * defaults, divided for large messages as OSU does. */
static int scaled(int base, int set, size_t size, int least)
{
    int div = cur->large_div > 1 ? cur->large_div : 1;

    if (set || size <= LARGE)
        return base;
    return base / div > least ? base / div : least;
}

int bench_iters(size_t size)
{
    return scaled(opts.iters, opts.iters_set, size, 1);
}

int bench_warmup(size_t size)
{
    return scaled(opts.warmup, opts.warmup_set, size, 0);
}

void *bench_alloc(size_t n)
{
    void *p;

    if (n == 0)
        n = 1;
    if (posix_memalign(&p, 4096, n) != 0) {
        fprintf(stderr, "rdmpi-bench %s: cannot allocate %zu bytes\n", cur->name, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Touch every page now so that page faults stay out of the timings. */
    memset(p, 0, n);
    return p;
}

static unsigned char pattern(size_t i, unsigned seed)
{
    unsigned x = (unsigned)i * 2654435761u + seed * 40503u + 1u;

    return (unsigned char)((x >> 24) ^ x);
}

void bench_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;

    for (size_t i = 0; i < n; i++)
        p[i] = pattern(i, seed);
}

/* The inverse of the pattern, so a receive that writes nothing fails at
 * every byte. */
void bench_poison(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;

    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)~pattern(i, seed);
}

long bench_check(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    long bad = 0;

    for (size_t i = 0; i < n; i++)
        bad += p[i] != pattern(i, seed);
    return bad;
}

unsigned bench_key(unsigned seed, int from, int to)
{
    return seed * 65599u + (unsigned)from * 257u + (unsigned)to;
}

static int elem(int rank, size_t i, unsigned seed)
{
    return (int)(((unsigned)rank * 7u + (unsigned)i * 3u + seed) % 1000u);
}

void bench_fill_elems(int *buf, size_t count, size_t first, unsigned seed)
{
    for (size_t i = 0; i < count; i++)
        buf[i] = elem(bench_rank, first + i, seed);
}

long bench_check_sums(const int *buf, size_t count, size_t first, unsigned seed)
{
    long bad = 0;

    for (size_t i = 0; i < count; i++) {
        int sum = 0;

        for (int r = 0; r < bench_nranks; r++)
            sum += elem(r, first + i, seed);
        bad += buf[i] != sum;
    }
    return bad;
}

double bench_compute(double seconds)
{
    double t0 = now(), t;

    do
        t = now() - t0;
    while (t < seconds);
    return t;
}

void bench_row(size_t size, const double *vals, long errors)
{
    int nc = ncols();
    double mine[BENCH_MAX_COLS + 1], sum[BENCH_MAX_COLS] = {0}, max[BENCH_MAX_COLS];
    double min0 = INFINITY;
    int cnt[BENCH_MAX_COLS] = {0};
    long bad = 0;

    memcpy(mine, vals, (size_t)nc * sizeof(*vals));
    mine[nc] = (double)errors;
    if (bench_rank != 0) {
        MPI_Send(mine, nc + 1, MPI_DOUBLE, 0, TAG_STATS, MPI_COMM_WORLD);
        return;
    }
    for (int c = 0; c < nc; c++)
        max[c] = -INFINITY;
    for (int r = 0; r < bench_nranks; r++) {
        double v[BENCH_MAX_COLS + 1];

        if (r == 0)
            memcpy(v, mine, sizeof(v));
        else
            MPI_Recv(v, nc + 1, MPI_DOUBLE, r, TAG_STATS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int c = 0; c < nc; c++) {
            if (isnan(v[c]))
                continue;
            sum[c] += v[c];
            cnt[c]++;
            max[c] = v[c] > max[c] ? v[c] : max[c];
            if (c == 0 && v[c] < min0)
                min0 = v[c];
        }
        bad += (long)v[nc];
    }
    if (cur->size_col)
        printf("%-10zu", size);
    for (int c = 0; c < nc; c++) {
        const struct bench_col *col = &cur->cols[c];
        double out = NAN;

        if (cnt[c] && col->agg == AGG_AVG)
            out = sum[c] / cnt[c];
        else if (cnt[c] && col->agg == AGG_SUM)
            out = sum[c];
        else if (cnt[c])
            out = max[c];
        printf("%20.*f", col->prec, out);
    }
    if (opts.full)
        printf("%20.*f%20.*f%12d", cur->cols[0].prec, min0, cur->cols[0].prec, max[0],
               bench_iters(size));
    if (opts.check)
        printf("%10s", bad ? "FAIL" : "Pass");
    printf("\n");
    if (bad)
        printf("# %ld bytes or elements wrong at size %zu\n", bad, size);
    fflush(stdout);
    total_errors += bad;
}

long bench_pingpong(char *sbuf, char *rbuf, size_t n, int count, int peer, int initiator)
{
    const int chk = opts.check, len = (int)n;
    long bad = 0;

    for (int i = 0; i < count; i++) {
        unsigned ping = 2u * (unsigned)i, pong = ping + 1u;

        if (initiator) {
            if (chk) {
                bench_fill(sbuf, n, ping);
                bench_poison(rbuf, n, pong);
            }
            MPI_Send(sbuf, len, MPI_CHAR, peer, TAG_PP, MPI_COMM_WORLD);
            MPI_Recv(rbuf, len, MPI_CHAR, peer, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (chk)
                bad += bench_check(rbuf, n, pong);
        } else {
            if (chk)
                bench_poison(rbuf, n, ping);
            MPI_Recv(rbuf, len, MPI_CHAR, peer, TAG_PP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (chk) {
                bad += bench_check(rbuf, n, ping);
                bench_fill(sbuf, n, pong);
            }
            MPI_Send(sbuf, len, MPI_CHAR, peer, TAG_PP, MPI_COMM_WORLD);
        }
    }
    return bad;
}

size_t bench_window_bytes(size_t n)
{
    return opts.check ? n * (size_t)opts.window : n;
}

long bench_stream(char *sbuf, char *rbuf, size_t n, int count, int peer, int send, int recv)
{
    /* Real statuses, not MPI_STATUSES_IGNORE: gcc 12 flags the latter when a
     * header declares the parameter as an array (MPICH 4.0 does). */
    static MPI_Request *req;
    static MPI_Status *stat;
    const int chk = opts.check, len = (int)n, w = opts.window;
    /* Without -c every message of a window uses the same buffer, as in
     * OSU, so that large windows stay in cache the same way for every MPI. */
    const size_t stride = chk ? n : 0;
    char ack[4] = {0};
    long bad = 0;

    if (!req && (!(req = malloc(2 * (size_t)w * sizeof(*req))) ||
                 !(stat = malloc(2 * (size_t)w * sizeof(*stat))))) {
        fprintf(stderr, "rdmpi-bench %s: out of memory\n", cur->name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < count; i++) {
        int k = 0;

        for (int j = 0; recv && j < w; j++) {
            if (chk)
                bench_poison(rbuf + j * stride, n, (unsigned)(i * w + j));
            MPI_Irecv(rbuf + j * stride, len, MPI_CHAR, peer, TAG_BW, MPI_COMM_WORLD, &req[k++]);
        }
        for (int j = 0; send && j < w; j++) {
            if (chk)
                bench_fill(sbuf + j * stride, n, (unsigned)(i * w + j));
            MPI_Isend(sbuf + j * stride, len, MPI_CHAR, peer, TAG_BW, MPI_COMM_WORLD, &req[k++]);
        }
        MPI_Waitall(k, req, stat);
        for (int j = 0; chk && recv && j < w; j++)
            bad += bench_check(rbuf + j * stride, n, (unsigned)(i * w + j));
        if (send && !recv)
            MPI_Recv(ack, 4, MPI_CHAR, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (recv && !send)
            MPI_Send(ack, 4, MPI_CHAR, peer, TAG_ACK, MPI_COMM_WORLD);
    }
    return bad;
}

int bench_coll(long (*op)(char *sbuf, char *rbuf, size_t n, unsigned seed))
{
    size_t bytes = opts.max * (size_t)bench_nranks;
    char *sbuf = bench_alloc(bytes), *rbuf = bench_alloc(bytes);

    for (int k = 0; k < opts.nsizes; k++) {
        size_t n = opts.sizes[k];
        int iters = bench_iters(n), warm = bench_warmup(n);
        long bad = 0;
        double t;

        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warm; i++)
            bad += op(sbuf, rbuf, n, (unsigned)i);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            bad += op(sbuf, rbuf, n, (unsigned)(warm + i));
        t = MPI_Wtime() - t;
        t = t * 1e6 / iters;
        bench_row(n, &t, bad);
    }
    free(sbuf);
    free(rbuf);
    return 0;
}

/* ---- command line ---- */

static void usage(FILE *f)
{
    fprintf(f, "Usage: mpirun -n 2 rdmpi-bench BENCHMARK [options]\n\n"
               "Benchmarks:\n");
    for (size_t i = 0; i < sizeof(benches) / sizeof(*benches); i++)
        fprintf(f, "  %-16s%s\n", benches[i]->name, benches[i]->desc);
    fprintf(f, "\n'rdmpi-bench BENCHMARK -h' lists the options and their defaults.\n");
}

static void help(void)
{
    const struct bench *b = cur;

    printf("Usage: mpirun -n 2 rdmpi-bench %s [options]\n%s.\n\n", b->name, b->desc);
    if (!(b->flags & NO_SIZES))
        printf("  -m [MIN:]MAX  message sizes in bytes, doubling from MIN (default %zu:%zu);\n"
               "                k and M suffixes accepted; 0 is measured too\n",
               b->min, b->max);
    printf("  -i N          timed iterations per size (default %d", b->iters);
    if (b->large_div > 1)
        printf(", divided by %d above %d B", b->large_div, LARGE);
    printf(")\n  -x N          untimed warm-up iterations per size (default %d)\n", b->warmup);
    if (b->flags & WINDOWED)
        printf("  -W N          messages in flight per window (default 64)\n");
    if (b->flags & THREADED)
        printf("  -T N          threads per rank (default 2)\n");
    printf("  -f            full statistics: min and max across ranks, iterations\n"
           "  -c            validate every received byte (the timings then include the checks)\n"
           "  -h            this help\n");
}

/* Parses a byte count with an optional k or M suffix. */
static int parse_bytes(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;

    if (*s < '0' || *s > '9')
        return -1;
    v = strtoull(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end || v > MAX_BYTES)
        return -1;
    *out = (size_t)v;
    return 0;
}

static int parse_count(const char *s, int min, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (end == s || *end || v < min || v > 100000000)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_sizes(const char *arg, size_t *min, size_t *max)
{
    const char *colon = strchr(arg, ':');
    char lo[32];

    if (!colon)
        return parse_bytes(arg, max);
    if ((size_t)(colon - arg) >= sizeof(lo))
        return -1;
    memcpy(lo, arg, (size_t)(colon - arg));
    lo[colon - arg] = '\0';
    if (*lo && parse_bytes(lo, min))
        return -1;
    return colon[1] ? parse_bytes(colon + 1, max) : 0;
}

/* Doubling sizes from min to max; 0 comes first when asked for. */
static void make_sizes(size_t min, size_t max)
{
    opts.nsizes = 0;
    opts.max = 0;
    if (cur->flags & NO_SIZES) {
        opts.sizes[opts.nsizes++] = 0;
        return;
    }
    for (size_t s = min; s <= max && opts.nsizes < BENCH_MAX_SIZES; s = s ? 2 * s : 1) {
        size_t n = cur->flags & INT_ELEMENTS ? s / sizeof(int) * sizeof(int) : s;

        if ((cur->flags & INT_ELEMENTS) && n == 0)
            continue;
        if (opts.nsizes && opts.sizes[opts.nsizes - 1] == n)
            continue;
        opts.sizes[opts.nsizes++] = n;
        opts.max = n;
    }
}

/* Returns 0, or -1 when help was printed, or 2 for a bad command line. */
static int parse(int argc, char **argv)
{
    size_t min = cur->min, max = cur->max;
    int c;

    opts.iters = cur->iters;
    opts.warmup = cur->warmup;
    opts.window = 64;
    opts.threads = 2;
    opterr = 0;
    optind = 1;
    while ((c = getopt(argc, argv, ":m:i:x:W:T:fch")) != -1) {
        int bad = 0;

        switch (c) {
        case 'm': bad = parse_sizes(optarg, &min, &max); break;
        case 'i': bad = parse_count(optarg, 1, &opts.iters), opts.iters_set = 1; break;
        case 'x': bad = parse_count(optarg, 0, &opts.warmup), opts.warmup_set = 1; break;
        case 'W': bad = parse_count(optarg, 1, &opts.window); break;
        case 'T': bad = parse_count(optarg, 1, &opts.threads); break;
        case 'f': opts.full = 1; break;
        case 'c': opts.check = 1; break;
        case 'h':
            if (bench_rank == 0)
                help();
            return -1;
        case ':':
            if (bench_rank == 0)
                fprintf(stderr, "rdmpi-bench %s: option -%c needs a value\n", cur->name, optopt);
            return 2;
        default:
            if (bench_rank == 0)
                fprintf(stderr, "rdmpi-bench %s: unknown option -%c (try -h)\n", cur->name, optopt);
            return 2;
        }
        if (bad) {
            if (bench_rank == 0)
                fprintf(stderr, "rdmpi-bench %s: bad value '%s' for -%c (try -h)\n", cur->name,
                        optarg, c);
            return 2;
        }
    }
    if (optind < argc || min > max) {
        if (bench_rank == 0)
            fprintf(stderr, "rdmpi-bench %s: %s (try -h)\n", cur->name,
                    optind < argc ? "unexpected argument" : "-m: MIN is above MAX");
        return 2;
    }
    make_sizes(min, max);
    if (opts.nsizes == 0) {
        if (bench_rank == 0)
            fprintf(stderr, "rdmpi-bench %s: -m selects no size\n", cur->name);
        return 2;
    }
    return 0;
}

static int check_ranks(void)
{
    const char *need = NULL;

    if ((cur->flags & NEED_2) && bench_nranks < 2)
        need = "at least 2 ranks";
    if ((cur->flags & NEED_PAIRS) && (bench_nranks < 2 || bench_nranks % 2))
        need = "an even number of ranks";
    if (!need)
        return 0;
    if (bench_rank == 0)
        fprintf(stderr, "rdmpi-bench %s: needs %s, got %d\n", cur->name, need, bench_nranks);
    return 1;
}

/* ---- header ---- */

/* Variables that choose a transport, printed as given: the benchmark cannot
 * ask a library which one it really took. */
static const char *const transport_vars[] = {
    "RDMPI_BTL",       "RDMPI_OFI_",    "RDMPI_SM_",    "FI_",
    "OMPI_MCA_pml",    "OMPI_MCA_btl",  "OMPI_MCA_mtl", "UCX_TLS",
    "UCX_NET_DEVICES", "MPIR_CVAR_CH4",
};

static void print_transport(void)
{
    int any = 0;

    printf("# Transport:");
    for (char **e = environ; *e; e++)
        for (size_t i = 0; i < sizeof(transport_vars) / sizeof(*transport_vars); i++)
            if (!strncmp(*e, transport_vars[i], strlen(transport_vars[i]))) {
                printf(" %s", *e);
                any = 1;
                break;
            }
    printf("%s\n", any ? "" : " library default (no transport variable set)");
}

static void print_options(void)
{
    printf("# Options:");
    if (!(cur->flags & NO_SIZES))
        printf(" -m %zu:%zu", opts.sizes[0], opts.max);
    printf(" -i %d -x %d", opts.iters, opts.warmup);
    if (cur->flags & WINDOWED)
        printf(" -W %d", opts.window);
    if (cur->flags & THREADED)
        printf(" -T %d", opts.threads);
    if (opts.full)
        printf(" -f");
    if (opts.check)
        printf(" -c");
    if (opts.max > LARGE && bench_iters(opts.max) != opts.iters)
        printf(" (above %d B: -i %d -x %d)", LARGE, bench_iters(opts.max), bench_warmup(opts.max));
    printf("\n");
}

static void header(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME], date[32];
    int len, nc = ncols();
    time_t t = time(NULL);
    struct tm tm;

    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    for (char *p = lib; *p; p++)
        if (*p == '\t')
            *p = ' ';
    MPI_Get_processor_name(host, &len);
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
    printf("# rdmpi-bench %s: %s\n", cur->name, cur->desc);
    printf("# MPI: %s\n", lib);
    printf("# Host: %s, %ld cores online, %d ranks, %s\n", host, sysconf(_SC_NPROCESSORS_ONLN),
           bench_nranks, date);
    print_transport();
    print_options();
    if (cur->size_col)
        printf("# %-8s", cur->size_col);
    else
        printf("#");
    for (int c = 0; c < nc; c++)
        printf("%*s", cur->size_col || c ? 20 : 19, cur->cols[c].name);
    if (opts.full) {
        char mn[64], mx[64];

        snprintf(mn, sizeof(mn), "Min %s", cur->cols[0].name);
        snprintf(mx, sizeof(mx), "Max %s", cur->cols[0].name);
        printf("%20s%20s%12s", mn, mx, "Iterations");
    }
    if (opts.check)
        printf("%10s", "Valid");
    printf("\n");
    fflush(stdout);
}

/* Calls the benchmark's probe with errors returned: a library that lacks
 * the operation is a SKIP, any other failure an error. */
static int probe(void)
{
    char msg[MPI_MAX_ERROR_STRING];
    int err, cls, len;

    if (!cur->probe)
        return 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = cur->probe();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (err == MPI_SUCCESS)
        return 0;
    MPI_Error_class(err, &cls);
    MPI_Error_string(err, msg, &len);
#ifdef MPI_ERR_UNSUPPORTED_OPERATION
    if (cls == MPI_ERR_UNSUPPORTED_OPERATION) {
        if (bench_rank == 0)
            printf("# SKIP %s: not supported by this MPI (%s)\n", cur->name, msg);
        return EXIT_SKIP;
    }
#endif
    if (bench_rank == 0)
        fprintf(stderr, "rdmpi-bench %s: the operation failed: %s\n", cur->name, msg);
    return 1;
}

int main(int argc, char **argv)
{
    double t0;
    int rc, provided = MPI_THREAD_MULTIPLE;

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof(benches) / sizeof(*benches); i++)
        if (!strcmp(argv[1], benches[i]->name))
            cur = benches[i];
    if (!cur) {
        fprintf(stderr, "rdmpi-bench: unknown benchmark '%s' ('rdmpi-bench help' lists them)\n",
                argv[1]);
        return 2;
    }

    /* The startup benchmark reports this; nothing communicates before
     * cur->run(), so its first message really is the first. */
    t0 = now();
    if (cur->flags & THREADED)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    bench_init_seconds = now() - t0;
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bench_nranks);

    rc = parse(argc - 1, argv + 1);
    if (rc == 0)
        rc = check_ranks();
    if (rc == 0 && bench_rank == 0)
        header();
    if (rc == 0 && (cur->flags & THREADED) && provided < MPI_THREAD_MULTIPLE) {
        if (bench_rank == 0)
            printf("# SKIP %s: this MPI provides thread level %d, not MPI_THREAD_MULTIPLE\n",
                   cur->name, provided);
        rc = EXIT_SKIP;
    }
    if (rc == 0)
        rc = probe();
    if (rc == 0)
        rc = cur->run();
    if (rc == 0 && total_errors) {
        printf("# VALIDATION FAILED: %ld bytes or elements wrong\n", total_errors);
        rc = 1;
    }
    MPI_Finalize();
    return rc < 0 ? 0 : rc;
}
