/* multi_lat: every rank r < n/2 ping-pongs with r + n/2 at the same time;
 * the average one-way latency over all ranks. */
#include "bench.h"

#include <stdlib.h>

static int run(void)
{
    char *sbuf = bench_alloc(bench_opt->max), *rbuf = bench_alloc(bench_opt->max);
    int half = bench_nranks / 2, first = bench_rank < half;
    int peer = first ? bench_rank + half : bench_rank - half;

    for (int k = 0; k < bench_opt->nsizes; k++) {
        size_t n = bench_opt->sizes[k];
        int iters = bench_iters(n);
        long bad;
        double t;

        MPI_Barrier(MPI_COMM_WORLD);
        bad = bench_pingpong(sbuf, rbuf, n, bench_warmup(n), peer, first);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        bad += bench_pingpong(sbuf, rbuf, n, iters, peer, first);
        t = (MPI_Wtime() - t) * 1e6 / (2.0 * iters);
        bench_row(n, &t, bad);
    }
    free(sbuf);
    free(rbuf);
    return 0;
}

const struct bench bench_multi_lat = {
    .name = "multi_lat",
    .desc = "one-way latency of n/2 pairs ping-ponging at once, averaged over ranks",
    .flags = NEED_PAIRS,
    .min = 0,
    .max = 4 << 20,
    .iters = 10000,
    .warmup = 1000,
    .large_div = 10,
    .size_col = "Size",
    .cols = {{"Latency (us)", 3, AGG_AVG}},
    .run = run,
};
