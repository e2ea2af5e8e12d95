/* spawn: how long MPI_Comm_spawn of N children takes until both sides
 * have returned (issue 24): the parents' MPI_Comm_spawn and the
 * children's MPI_Init. Every parent rank calls MPI_Comm_spawn (root 0)
 * after a barrier; each child sends rank 0 of the parents the time its
 * MPI_Init returned, on the host's monotonic clock (the processes share
 * one host, so their clocks agree); the round's figure is the latest
 * return of either side less the earliest start. Then both sides
 * disconnect and the next round spawns again. Prints one line per
 * round, "spawn N  ms", and a last line with the median. A plain MPI
 * program: the same source builds with any mpicc.
 *   mpirun -n 2 rdmpi-bench-spawn [children] [rounds] */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static int child(MPI_Comm parent)
{
    double t = now_ms();
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Send(&t, 1, MPI_DOUBLE, 0, 1, parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    double t0, back, start, last, *ms;
    int n = argc > 1 ? atoi(argv[1]) : 4, rounds = argc > 2 ? atoi(argv[2]) : 5, rank;
    MPI_Comm parent, inter;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        return child(parent);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (n < 1 || rounds < 1 || !(ms = malloc(sizeof(*ms) * (size_t)rounds))) {
        if (!rank)
            fprintf(stderr, "spawn: children >= 1 and rounds >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int r = 0; r < rounds; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now_ms();
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        back = now_ms();
        MPI_Reduce(&t0, &start, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&back, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (!rank) {
            for (int c = 0; c < n; c++) {
                double t;

                MPI_Recv(&t, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 1, inter, MPI_STATUS_IGNORE);
                if (t > last)
                    last = t;
            }
            ms[r] = last - start;
            printf("spawn %d\t%.2f ms\n", n, ms[r]);
            fflush(stdout);
        }
        MPI_Comm_disconnect(&inter);
    }
    if (!rank) {
        qsort(ms, (size_t)rounds, sizeof(*ms), cmp);
        printf("median %d\t%.2f ms\n", n, ms[rounds / 2]);
    }
    free(ms);
    MPI_Finalize();
    return 0;
}
