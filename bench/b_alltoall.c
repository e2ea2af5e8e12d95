/* alltoall: average time of MPI_Alltoall over all ranks; the size is what
 * each rank sends to each other rank. */
#include "bench.h"

#include <stdlib.h>

static long op(char *sbuf, char *rbuf, size_t n, unsigned seed)
{
    long bad = 0;

    for (int r = 0; bench_opt->check && r < bench_nranks; r++) {
        bench_fill(sbuf + r * n, n, bench_key(seed, bench_rank, r));
        bench_poison(rbuf + r * n, n, bench_key(seed, r, bench_rank));
    }
    MPI_Alltoall(sbuf, (int)n, MPI_CHAR, rbuf, (int)n, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; bench_opt->check && r < bench_nranks; r++)
        bad += bench_check(rbuf + r * n, n, bench_key(seed, r, bench_rank));
    return bad;
}

static int probe(void)
{
    char *in = bench_alloc((size_t)bench_nranks), *out = bench_alloc((size_t)bench_nranks);
    int rc = MPI_Alltoall(in, 1, MPI_CHAR, out, 1, MPI_CHAR, MPI_COMM_WORLD);

    free(in);
    free(out);
    return rc;
}

static int run(void)
{
    return bench_coll(op);
}

const struct bench bench_alltoall = {
    .name = "alltoall",
    .desc = "average time of MPI_Alltoall across ranks (size per pair of ranks)",
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
