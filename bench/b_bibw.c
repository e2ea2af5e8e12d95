/* bibw: ranks 0 and 1 stream windows of -W messages to each other at once;
 * the bandwidth is the sum of both directions. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>

static int run(void)
{
    size_t bytes = bench_window_bytes(bench_opt->max);
    char *sbuf = bench_alloc(bytes), *rbuf = bench_alloc(bytes);
    int active = bench_rank < 2;

    for (int k = 0; k < bench_opt->nsizes; k++) {
        size_t n = bench_opt->sizes[k];
        int iters = bench_iters(n);
        double v = NAN, t;
        long bad = 0;

        MPI_Barrier(MPI_COMM_WORLD);
        if (active)
            bad = bench_stream(sbuf, rbuf, n, bench_warmup(n), 1 - bench_rank, 1, 1);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        if (active)
            bad += bench_stream(sbuf, rbuf, n, iters, 1 - bench_rank, 1, 1);
        t = MPI_Wtime() - t;
        if (active)
            v = 2.0 * (double)n * bench_opt->window * iters / t / 1e6;
        bench_row(n, &v, bad);
    }
    free(sbuf);
    free(rbuf);
    return 0;
}

const struct bench bench_bibw = {
    .name = "bibw",
    .desc = "bidirectional bandwidth, ranks 0 and 1 stream -W messages to each other",
    .flags = NEED_2 | WINDOWED,
    .min = 1,
    .max = 4 << 20,
    .iters = 100,
    .warmup = 10,
    .large_div = 5,
    .size_col = "Size",
    .cols = {{"Bandwidth (MB/s)", 2, AGG_AVG}},
    .run = run,
};
