/* reduce_scatter: average time of MPI_Reduce_scatter (MPI_INT, MPI_SUM) over
 * all ranks.  As in OSU the size is the whole vector; each rank receives an
 * equal share of it (size / ranks, rounded down to whole elements). */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

static int *counts;

static long op(char *sbuf, char *rbuf, size_t n, unsigned seed)
{
    size_t share = n / sizeof(int) / (size_t)bench_nranks;

    for (int r = 0; r < bench_nranks; r++)
        counts[r] = (int)share;
    if (bench_opt->check) {
        bench_fill_elems((int *)sbuf, share * (size_t)bench_nranks, 0, seed);
        memset(rbuf, 0xff, share * sizeof(int));
    }
    MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!bench_opt->check)
        return 0;
    return bench_check_sums((int *)rbuf, share, share * (size_t)bench_rank, seed);
}

static int probe(void)
{
    int *in = bench_alloc((size_t)bench_nranks * sizeof(int)), out;
    int *ones = bench_alloc((size_t)bench_nranks * sizeof(int));
    int rc;

    for (int r = 0; r < bench_nranks; r++)
        ones[r] = 1;
    rc = MPI_Reduce_scatter(in, &out, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(in);
    free(ones);
    return rc;
}

static int run(void)
{
    int rc;

    counts = bench_alloc((size_t)bench_nranks * sizeof(int));
    rc = bench_coll(op);
    free(counts);
    return rc;
}

const struct bench bench_reduce_scatter = {
    .name = "reduce_scatter",
    .desc = "average time of MPI_Reduce_scatter (MPI_INT, MPI_SUM; size is the whole vector)",
    .flags = INT_ELEMENTS,
    .min = 16,
    .max = 1 << 20,
    .iters = 10000,
    .warmup = 1000,
    .large_div = 10,
    .size_col = "Size",
    .cols = {{"Avg Latency (us)", 3, AGG_AVG}},
    .probe = probe,
    .run = run,
};
