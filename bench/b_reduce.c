/* reduce: average time of MPI_Reduce (MPI_INT, MPI_SUM, root 0) over all
 * ranks. */
#include "bench.h"

#include <string.h>

static long op(char *sbuf, char *rbuf, size_t n, unsigned seed)
{
    size_t count = n / sizeof(int);

    if (bench_opt->check) {
        bench_fill_elems((int *)sbuf, count, 0, seed);
        memset(rbuf, 0xff, n);
    }
    MPI_Reduce(sbuf, rbuf, (int)count, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    return bench_opt->check && bench_rank == 0 ? bench_check_sums((int *)rbuf, count, 0, seed) : 0;
}

static int probe(void)
{
    int in = 1, out = 0;

    return MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
}

static int run(void)
{
    return bench_coll(op);
}

const struct bench bench_reduce = {
    .name = "reduce",
    .desc = "average time of MPI_Reduce (MPI_INT, MPI_SUM, root 0) across ranks",
    .flags = INT_ELEMENTS,
    .min = 4,
    .max = 1 << 20,
    .iters = 10000,
    .warmup = 1000,
    .large_div = 10,
    .size_col = "Size",
    .cols = {{"Avg Latency (us)", 3, AGG_AVG}},
    .probe = probe,
    .run = run,
};
