/* Ping-pong through the C API, the twin of bench/pingpong_f08.f90: the same
 * loop, sizes and output, so that comparing the two measures only the
 * Fortran bindings (issue 23).  Usage: mpirun -n 2 rdmpi-pingpong [iterations] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    static const int sizes[] = {8, 1048576};
    const int nsizes = 2, warmup = 100;
    int rank, nprocs, iters = 1000;
    double t0 = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs != 2) {
        if (rank == 0)
            fprintf(stderr, "rdmpi-pingpong: run with exactly 2 ranks (mpirun -n 2)\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (argc > 1)
        iters = atoi(argv[1]);
    if (iters <= 0) {
        if (rank == 0)
            fprintf(stderr, "rdmpi-pingpong: iterations must be a positive number, not '%s'\n",
                    argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int peer = 1 - rank;
    char *buf = malloc((size_t)sizes[nsizes - 1]);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 'x', (size_t)sizes[nsizes - 1]);
    if (rank == 0)
        printf("# bytes  latency_us (C)\n");
    for (int s = 0; s < nsizes; s++) {
        int n = sizes[s];
        for (int i = 1; i <= warmup + iters; i++) {
            if (i == warmup + 1) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            if (rank == 0) {
                MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            }
        }
        double t = (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
        if (rank == 0)
            printf("%8d%12.3f\n", n, t);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
