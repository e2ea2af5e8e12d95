/* bcast: average time of MPI_Bcast from rank 0 over all ranks. */
#include "bench.h"

static long op(char *sbuf, char *rbuf, size_t n, unsigned seed)
{
    (void)rbuf;
    if (bench_opt->check && bench_rank == 0)
        bench_fill(sbuf, n, seed);
    else if (bench_opt->check)
        bench_poison(sbuf, n, seed);
    MPI_Bcast(sbuf, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
    return bench_opt->check && bench_rank ? bench_check(sbuf, n, seed) : 0;
}

static int probe(void)
{
    char c = 0;

    return MPI_Bcast(&c, 1, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static int run(void)
{
    return bench_coll(op);
}

const struct bench bench_bcast = {
    .name = "bcast",
    .desc = "average time of MPI_Bcast (root 0, MPI_CHAR) across ranks",
    .flags = 0,
    .min = 1,
    .max = 1 << 20,
    .iters = 10000,
    .warmup = 1000,
    .large_div = 10,
    .size_col = "Size",
    .cols = {{"Avg Latency (us)", 3, AGG_AVG}},
    .probe = probe,
    .run = run,
};
