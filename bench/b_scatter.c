/* scatter: average time of MPI_Scatter from rank 0 over all ranks; the size
 * is what each rank receives. */
#include "bench.h"

#include <stdlib.h>

static long op(char *sbuf, char *rbuf, size_t n, unsigned seed)
{
    if (bench_opt->check) {
        if (bench_rank == 0)
            for (int r = 0; r < bench_nranks; r++)
                bench_fill(sbuf + r * n, n, bench_key(seed, 0, r));
        bench_poison(rbuf, n, bench_key(seed, 0, bench_rank));
    }
    MPI_Scatter(sbuf, (int)n, MPI_CHAR, rbuf, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
    return bench_opt->check ? bench_check(rbuf, n, bench_key(seed, 0, bench_rank)) : 0;
}

static int probe(void)
{
    char *in = bench_alloc((size_t)bench_nranks), out;
    int rc = MPI_Scatter(in, 1, MPI_CHAR, &out, 1, MPI_CHAR, 0, MPI_COMM_WORLD);

    free(in);
    return rc;
}

static int run(void)
{
    return bench_coll(op);
}

const struct bench bench_scatter = {
    .name = "scatter",
    .desc = "average time of MPI_Scatter from rank 0 across ranks (size per rank)",
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
