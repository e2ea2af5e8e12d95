/* iallreduce: how much of MPI_Iallreduce (MPI_INT, MPI_SUM) overlaps with
 * computation, as OSU's osu_iallreduce reports it.  Per size: the pure
 * time of Iallreduce + Wait; then Iallreduce, a busy loop as long as that
 * pure time (no MPI calls in it), Wait.  Overlap is the share of the pure
 * communication time hidden behind the computation. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

/* One operation with `compute` seconds of computation inside; adds the
 * computation time actually spent to *spent. */
static long once(int *s, int *r, size_t count, unsigned seed, double compute, double *spent)
{
    MPI_Request req;

    if (bench_opt->check) {
        bench_fill_elems(s, count, 0, seed);
        memset(r, 0xff, count * sizeof(int));
    }
    MPI_Iallreduce(s, r, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    if (compute > 0)
        *spent += bench_compute(compute);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return bench_opt->check ? bench_check_sums(r, count, 0, seed) : 0;
}

static int run(void)
{
    int *s = bench_alloc(bench_opt->max), *r = bench_alloc(bench_opt->max);

    for (int k = 0; k < bench_opt->nsizes; k++) {
        size_t n = bench_opt->sizes[k], count = n / sizeof(int);
        int iters = bench_iters(n), warm = bench_warmup(n);
        double pure, overall, compute = 0, v[4];
        long bad = 0;

        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warm; i++)
            bad += once(s, r, count, (unsigned)i, 0, &compute);
        MPI_Barrier(MPI_COMM_WORLD);
        pure = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            bad += once(s, r, count, (unsigned)i, 0, &compute);
        pure = (MPI_Wtime() - pure) / iters;

        MPI_Barrier(MPI_COMM_WORLD);
        overall = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            bad += once(s, r, count, (unsigned)(iters + i), pure, &compute);
        overall = (MPI_Wtime() - overall) / iters;
        compute /= iters;

        v[0] = overall * 1e6;
        v[1] = compute * 1e6;
        v[2] = pure * 1e6;
        v[3] = pure > 0 ? 100.0 * (1.0 - (overall - compute) / pure) : 0;
        v[3] = v[3] < 0 ? 0 : v[3] > 100 ? 100 : v[3];
        bench_row(n, v, bad);
    }
    free(s);
    free(r);
    return 0;
}

static int probe(void)
{
    int in = 1, out = 0, rc;
    MPI_Request req;

    rc = MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

const struct bench bench_iallreduce = {
    .name = "iallreduce",
    .desc = "overlap of MPI_Iallreduce (MPI_INT, MPI_SUM) with computation",
    .flags = INT_ELEMENTS,
    .min = 4,
    .max = 1 << 20,
    .iters = 1000,
    .warmup = 100,
    .large_div = 10,
    .size_col = "Size",
    .cols = {{"Overall (us)", 3, AGG_AVG},
             {"Compute (us)", 3, AGG_AVG},
             {"Pure Comm. (us)", 3, AGG_AVG},
             {"Overlap (%)", 2, AGG_AVG}},
    .probe = probe,
    .run = run,
};
