/* idle_poll: what one poll of the progress engine costs when nothing
 * arrives, against the number of local peers that are attached but silent.
 * Rank 0 calls MPI_Test on a receive from rank 1 that only completes at the
 * end; every other rank sits in a blocking MPI_Recv (with more ranks than
 * cores they sleep, so they neither send nor take rank 0's core for long).
 * Prints "peers  ns_per_poll (median of rounds)  min". Run under mpirun,
 * e.g. mpirun -n 129 rdmpi-bench-idle [polls per round] [rounds]. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long polls = argc > 1 ? atol(argv[1]) : 200000;
    int rounds = argc > 2 ? atoi(argv[2]) : 15, rank, size, flag = 0, token = 0;
    MPI_Request req;
    double *ns;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || polls < 1 || rounds < 1) {
        if (!rank)
            fprintf(stderr, "idle_poll: needs at least 2 ranks, polls >= 1, rounds >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank) {
        /* Silent until rank 0 is done; then the token ends rank 0's receive. */
        MPI_Recv(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 1)
            MPI_Send(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    if (!(ns = malloc(sizeof(*ns) * (size_t)rounds)))
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Irecv(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &req);
    for (long i = 0; i < polls; i++) /* warm-up: caches, and any lingering state */
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    for (int r = 0; r < rounds; r++) {
        double t = now_ns();
        for (long i = 0; i < polls; i++)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        ns[r] = (now_ns() - t) / (double)polls;
    }
    qsort(ns, (size_t)rounds, sizeof(*ns), cmp);
    printf("%d\t%.1f\t%.1f\n", size - 1, ns[rounds / 2], ns[0]);
    for (int p = 1; p < size; p++)
        MPI_Send(&token, 1, MPI_INT, p, 1, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(ns);
    MPI_Finalize();
    return 0;
}
