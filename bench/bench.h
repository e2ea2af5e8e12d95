/* rdmpi-bench: OSU-style microbenchmarks in plain MPI C.
 *
 * bench.c holds everything the benchmarks share (options, sizes, buffers,
 * validation, statistics across ranks, output); each b_*.c file holds one
 * benchmark as a `struct bench` and nothing else.  The sources use only the
 * MPI standard and POSIX, so the same files build with any mpicc. */
#ifndef RDMPI_BENCH_H
#define RDMPI_BENCH_H

#include <mpi.h>
#include <stddef.h>

#define BENCH_MAX_SIZES 64
#define BENCH_MAX_COLS  6

/* How a column's per-rank values become the one printed value. */
enum bench_agg { AGG_AVG, AGG_SUM, AGG_MAX };

struct bench_col {
    const char *name; /* column title, e.g. "Latency (us)" */
    int prec;         /* digits after the point */
    enum bench_agg agg;
};

/* What a benchmark needs from the job. */
enum {
    NEED_2 = 1,       /* at least 2 ranks; ranks 0 and 1 do the work */
    NEED_PAIRS = 2,   /* an even number of ranks: rank r pairs with r + n/2 */
    NO_SIZES = 4,     /* one row, no message sizes (barrier, startup) */
    INT_ELEMENTS = 8, /* sizes are in bytes of MPI_INT: rounded down to 4 */
    WINDOWED = 16,    /* uses -W */
    THREADED = 32,    /* -T threads per rank: needs MPI_THREAD_MULTIPLE */
};

struct bench {
    const char *name;
    const char *desc;
    unsigned flags;
    size_t min, max;   /* default sizes */
    int iters, warmup; /* defaults for small messages */
    int large_div;     /* above 8 KiB the defaults are divided by this */
    const char *size_col;
    struct bench_col cols[BENCH_MAX_COLS];
    /* Calls the operation once with MPI_ERRORS_RETURN set, so that a library
     * that lacks it is reported (SKIP) rather than aborting; may be NULL. */
    int (*probe)(void);
    /* Measures every size, printing rows with bench_row(); returns 0. */
    int (*run)(void);
};

struct bench_opts {
    size_t sizes[BENCH_MAX_SIZES];
    int nsizes;
    size_t max; /* largest size, for buffer allocation */
    int iters, warmup, window, threads;
    int iters_set, warmup_set; /* given on the command line: used for all sizes */
    int full, check;
};

extern const struct bench_opts *bench_opt;
extern int bench_rank, bench_nranks;
extern double bench_init_seconds; /* time spent in MPI_Init by this rank */

/* Iterations and warm-up rounds for a message size. */
int bench_iters(size_t size);
int bench_warmup(size_t size);

/* Page-aligned, touched buffer of n bytes (at least one page); exits on failure. */
void *bench_alloc(size_t n);

/* Validation: a byte pattern that depends on seed, its bitwise inverse as
 * poison, and a check that counts the bytes that differ from the pattern. */
void bench_fill(void *buf, size_t n, unsigned seed);
void bench_poison(void *buf, size_t n, unsigned seed);
long bench_check(const void *buf, size_t n, unsigned seed);

/* The seed of the block that rank `from` sends to rank `to`. */
unsigned bench_key(unsigned seed, int from, int to);

/* Reductions (MPI_INT, MPI_SUM): this rank's elements first .. first+count-1
 * of the vector, and a check of the sums over all ranks; small values so
 * that sums never overflow. */
void bench_fill_elems(int *buf, size_t count, size_t first, unsigned seed);
long bench_check_sums(const int *buf, size_t count, size_t first, unsigned seed);

/* Busy-waits for the given time without calling MPI (the "compute" of the
 * overlap benchmarks); returns the time actually spent. */
double bench_compute(double seconds);

/* Prints one result row on rank 0.  Every rank calls it with its own values
 * (NaN where the rank has no value for a column) and its count of bad
 * bytes; the statistics travel by point-to-point so that pt2pt benchmarks
 * need no collective. */
void bench_row(size_t size, const double *vals, long errors);

/* Patterns shared by several benchmarks.  Both return the bad bytes seen.
 * bench_pingpong: count blocking round trips with peer; the initiator
 * sends first.  bench_stream: count windows of -W messages to and/or from
 * peer; a one-way receiver acknowledges each window, as OSU's bw does.
 * With -c every message has its own pattern and window slot. */
long bench_pingpong(char *sbuf, char *rbuf, size_t n, int count, int peer, int initiator);
long bench_stream(char *sbuf, char *rbuf, size_t n, int count, int peer, int send, int recv);
/* Bytes a bench_stream buffer needs for messages of up to n bytes. */
size_t bench_window_bytes(size_t n);

/* The loop of the blocking collectives: for every size, warm-up calls, then
 * -i calls timed as one block; prints the average time per call.  op does
 * one call on buffers of nranks * max bytes, validating it under -c. */
int bench_coll(long (*op)(char *sbuf, char *rbuf, size_t n, unsigned seed));

extern const struct bench bench_latency, bench_bw, bench_bibw, bench_mbw_mr, bench_multi_lat,
    bench_barrier, bench_bcast, bench_reduce, bench_allreduce, bench_gather, bench_scatter,
    bench_allgather, bench_alltoall, bench_reduce_scatter, bench_iallreduce, bench_startup,
    bench_pack, bench_bw_vector, bench_put_latency, bench_get_latency, bench_acc_latency,
    bench_io_write, bench_io_read, bench_io_vwrite, bench_io_vread, bench_latency_mt;

#endif
