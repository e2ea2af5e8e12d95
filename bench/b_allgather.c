/* allgather: average time of MPI_Allgather over all ranks; the size is each
 * rank's contribution. */
#include "bench.h"

#include <stdlib.h>

static long op(char *sbuf, char *rbuf, size_t n, unsigned seed)
{
    long bad = 0;

    if (bench_opt->check) {
        bench_fill(sbuf, n, bench_key(seed, bench_rank, 0));
        for (int r = 0; r < bench_nranks; r++)
            bench_poison(rbuf + r * n, n, bench_key(seed, r, 0));
    }
    MPI_Allgather(sbuf, (int)n, MPI_CHAR, rbuf, (int)n, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; bench_opt->check && r < bench_nranks; r++)
        bad += bench_check(rbuf + r * n, n, bench_key(seed, r, 0));
    return bad;
}

static int probe(void)
{
    char in = 0, *out = bench_alloc((size_t)bench_nranks);
    int rc = MPI_Allgather(&in, 1, MPI_CHAR, out, 1, MPI_CHAR, MPI_COMM_WORLD);

    free(out);
    return rc;
}

static int run(void)
{
    return bench_coll(op);
}

const struct bench bench_allgather = {
    .name = "allgather",
    .desc = "average time of MPI_Allgather across ranks (size per rank)",
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
