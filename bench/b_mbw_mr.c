/* mbw_mr: n/2 pairs stream at once, rank r < n/2 sending to r + n/2; the
 * aggregate bandwidth and message rate of all senders. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>

static int run(void)
{
    size_t bytes = bench_window_bytes(bench_opt->max);
    char *sbuf = bench_alloc(bytes), *rbuf = bench_alloc(bytes);
    int half = bench_nranks / 2, send = bench_rank < half;
    int peer = send ? bench_rank + half : bench_rank - half;

    for (int k = 0; k < bench_opt->nsizes; k++) {
        size_t n = bench_opt->sizes[k];
        int iters = bench_iters(n);
        double v[2] = {NAN, NAN}, t;
        long bad;

        MPI_Barrier(MPI_COMM_WORLD);
        bad = bench_stream(sbuf, rbuf, n, bench_warmup(n), peer, send, !send);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        bad += bench_stream(sbuf, rbuf, n, iters, peer, send, !send);
        t = MPI_Wtime() - t;
        if (send) {
            v[1] = (double)bench_opt->window * iters / t;
            v[0] = v[1] * (double)n / 1e6;
        }
        bench_row(n, v, bad);
    }
    free(sbuf);
    free(rbuf);
    return 0;
}

const struct bench bench_mbw_mr = {
    .name = "mbw_mr",
    .desc = "multi-pair bandwidth and message rate, n/2 pairs streaming -W messages",
    .flags = NEED_PAIRS | WINDOWED,
    .min = 1,
    .max = 4 << 20,
    .iters = 100,
    .warmup = 10,
    .large_div = 5,
    .size_col = "Size",
    .cols = {{"MB/s", 2, AGG_SUM}, {"Messages/s", 0, AGG_SUM}},
    .run = run,
};
