/* startup: the time each rank spent in MPI_Init (the slowest is shown) and
 * the time rank 0 then needs for a first round trip with every other rank,
 * which includes any connection set up lazily on first use.  The driver
 * communicates nothing before this runs. */
#include "bench.h"

#include <math.h>

static int run(void)
{
    double v[2] = {bench_init_seconds * 1e3, NAN};
    char c = 0;

    if (bench_rank == 0) {
        double t = MPI_Wtime();

        for (int r = 1; r < bench_nranks; r++) {
            MPI_Send(&c, 0, MPI_CHAR, r, 0, MPI_COMM_WORLD);
            MPI_Recv(&c, 0, MPI_CHAR, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        v[1] = (MPI_Wtime() - t) * 1e6;
    } else {
        MPI_Recv(&c, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&c, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
    bench_row((size_t)bench_nranks, v, 0);
    return 0;
}

const struct bench bench_startup = {
    .name = "startup",
    .desc = "time in MPI_Init (slowest rank) and of a first round trip from rank 0 to all",
    .flags = NO_SIZES,
    .iters = 1,
    .size_col = "Ranks",
    .cols = {{"Init (ms)", 2, AGG_MAX}, {"First msgs (us)", 1, AGG_MAX}},
    .run = run,
};
