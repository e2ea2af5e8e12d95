/* put_latency, get_latency, acc_latency: one-sided latency between ranks
 * 0 and 1 as osu_put_latency measures it with passive synchronization:
 * rank 0 locks rank 1's window once, then times an operation followed by
 * MPI_Win_flush (remote completion); rank 1 waits in MPI_Barrier. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>

enum { PUT, GET, ACC };

static int run_rma(int kind)
{
    size_t max = bench_opt->max;
    char *buf = bench_alloc(max), *mem = bench_alloc(max);
    MPI_Win win;

    MPI_Win_create(mem, (MPI_Aint)max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (int k = 0; k < bench_opt->nsizes; k++) {
        size_t n = bench_opt->sizes[k];
        int iters = bench_iters(n), warm = bench_warmup(n);
        double v = NAN;

        MPI_Barrier(MPI_COMM_WORLD);
        if (bench_rank == 0) {
            double t = 0;

            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            for (int i = 0; i < warm + iters; i++) {
                if (i == warm)
                    t = MPI_Wtime();
                if (kind == PUT)
                    MPI_Put(buf, (int)n, MPI_CHAR, 1, 0, (int)n, MPI_CHAR, win);
                else if (kind == GET)
                    MPI_Get(buf, (int)n, MPI_CHAR, 1, 0, (int)n, MPI_CHAR, win);
                else
                    MPI_Accumulate(buf, (int)n, MPI_CHAR, 1, 0, (int)n, MPI_CHAR, MPI_SUM, win);
                MPI_Win_flush(1, win);
            }
            v = (MPI_Wtime() - t) * 1e6 / iters;
            MPI_Win_unlock(1, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        bench_row(n, &v, 0);
    }
    MPI_Win_free(&win);
    free(buf);
    free(mem);
    return 0;
}

static int run_put(void)
{
    return run_rma(PUT);
}

static int run_get(void)
{
    return run_rma(GET);
}

static int run_acc(void)
{
    return run_rma(ACC);
}

#define RMA_BENCH(VAR, NAME, WHAT, RUN)                                                            \
    const struct bench VAR = {                                                                     \
        .name = NAME,                                                                              \
        .desc = WHAT " latency: lock once, then op + MPI_Win_flush, ranks 0 and 1",                \
        .flags = NEED_2,                                                                           \
        .min = 1,                                                                                  \
        .max = 4 << 20,                                                                            \
        .iters = 10000,                                                                            \
        .warmup = 1000,                                                                            \
        .large_div = 10,                                                                           \
        .size_col = "Size",                                                                        \
        .cols = {{"Latency (us)", 3, AGG_AVG}},                                                    \
        .run = RUN,                                                                                \
    };

RMA_BENCH(bench_put_latency, "put_latency", "MPI_Put", run_put)
RMA_BENCH(bench_get_latency, "get_latency", "MPI_Get", run_get)
RMA_BENCH(bench_acc_latency, "acc_latency", "MPI_Accumulate (MPI_CHAR, MPI_SUM)", run_acc)
