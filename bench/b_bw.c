/* bw: unidirectional bandwidth, rank 0 streams windows of -W messages to
 * rank 1, which acknowledges each window. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>

static int run(void)
{
    size_t bytes = bench_window_bytes(bench_opt->max);
    char *sbuf = bench_alloc(bytes), *rbuf = bench_alloc(bytes);
    int send = bench_rank == 0, recv = bench_rank == 1;

    for (int k = 0; k < bench_opt->nsizes; k++) {
        size_t n = bench_opt->sizes[k];
        int iters = bench_iters(n);
        double v = NAN, t;
        long bad = 0;

        MPI_Barrier(MPI_COMM_WORLD);
        if (send || recv)
            bad = bench_stream(sbuf, rbuf, n, bench_warmup(n), 1 - bench_rank, send, recv);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        if (send || recv)
            bad += bench_stream(sbuf, rbuf, n, iters, 1 - bench_rank, send, recv);
        t = MPI_Wtime() - t;
        if (send)
            v = (double)n * bench_opt->window * iters / t / 1e6;
        bench_row(n, &v, bad);
    }
    free(sbuf);
    free(rbuf);
    return 0;
}

const struct bench bench_bw = {
    .name = "bw",
    .desc = "unidirectional bandwidth, windows of -W messages from rank 0 to rank 1",
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
