/* barrier: average time of MPI_Barrier over all ranks. */
#include "bench.h"

static long op(char *sbuf, char *rbuf, size_t n, unsigned seed)
{
    (void)sbuf, (void)rbuf, (void)n, (void)seed;
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

static int probe(void)
{
    return MPI_Barrier(MPI_COMM_WORLD);
}

static int run(void)
{
    return bench_coll(op);
}

const struct bench bench_barrier = {
    .name = "barrier",
    .desc = "average time of MPI_Barrier across ranks",
    .flags = NO_SIZES,
    .min = 0,
    .max = 0,
    .iters = 10000,
    .warmup = 1000,
    .large_div = 10,
    .size_col = NULL,
    .cols = {{"Avg Latency (us)", 3, AGG_AVG}},
    .probe = probe,
    .run = run,
};
