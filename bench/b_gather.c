/* gather: average time of MPI_Gather to rank 0 over all ranks; the size is
 * each rank's contribution. */
#include "bench.h"

#include <stdlib.h>

static long op(char *sbuf, char *rbuf, size_t n, unsigned seed)
{
    long bad = 0;

    if (bench_opt->check) {
        bench_fill(sbuf, n, bench_key(seed, bench_rank, 0));
        if (bench_rank == 0)
            for (int r = 0; r < bench_nranks; r++)
                bench_poison(rbuf + r * n, n, bench_key(seed, r, 0));
    }
    MPI_Gather(sbuf, (int)n, MPI_CHAR, rbuf, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (bench_opt->check && bench_rank == 0)
        for (int r = 0; r < bench_nranks; r++)
            bad += bench_check(rbuf + r * n, n, bench_key(seed, r, 0));
    return bad;
}

static int probe(void)
{
    char in = 0, *out = bench_alloc((size_t)bench_nranks);
    int rc = MPI_Gather(&in, 1, MPI_CHAR, out, 1, MPI_CHAR, 0, MPI_COMM_WORLD);

    free(out);
    return rc;
}

static int run(void)
{
    return bench_coll(op);
}

const struct bench bench_gather = {
    .name = "gather",
    .desc = "average time of MPI_Gather to rank 0 across ranks (size per rank)",
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
