/* latency: one-way latency by blocking ping-pong between ranks 0 and 1. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>

static int run(void)
{
    char *sbuf = bench_alloc(bench_opt->max), *rbuf = bench_alloc(bench_opt->max);

    for (int k = 0; k < bench_opt->nsizes; k++) {
        size_t n = bench_opt->sizes[k];
        int iters = bench_iters(n);
        double v = NAN;
        long bad = 0;

        MPI_Barrier(MPI_COMM_WORLD);
        if (bench_rank < 2) {
            int peer = 1 - bench_rank, first = bench_rank == 0;
            double t;

            bad += bench_pingpong(sbuf, rbuf, n, bench_warmup(n), peer, first);
            t = MPI_Wtime();
            bad += bench_pingpong(sbuf, rbuf, n, iters, peer, first);
            v = (MPI_Wtime() - t) * 1e6 / (2.0 * iters);
        }
        bench_row(n, &v, bad);
    }
    free(sbuf);
    free(rbuf);
    return 0;
}

const struct bench bench_latency = {
    .name = "latency",
    .desc = "one-way latency, blocking ping-pong between ranks 0 and 1 (RTT/2)",
    .flags = NEED_2,
    .min = 0,
    .max = 4 << 20,
    .iters = 10000,
    .warmup = 1000,
    .large_div = 10,
    .size_col = "Size",
    .cols = {{"Latency (us)", 3, AGG_AVG}},
    .run = run,
};
