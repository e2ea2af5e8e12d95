/* Every pair of ranks exchanges a message, in both directions.
 * Prints one line from rank 0 when all pairs got through. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, bad = 0, total;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < size; i++) {
        for (int j = i + 1; j < size; j++) {
            int out, in = -1;
            if (rank == i) {
                out = i * size + j;
                MPI_Send(&out, 1, MPI_INT, j, 7, MPI_COMM_WORLD);
                MPI_Recv(&in, 1, MPI_INT, j, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad += in != j * size + i;
            } else if (rank == j) {
                MPI_Recv(&in, 1, MPI_INT, i, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad += in != i * size + j;
                out = j * size + i;
                MPI_Send(&out, 1, MPI_INT, i, 7, MPI_COMM_WORLD);
            }
        }
    }
    /* Rank 0 collects the failure counts. */
    total = bad;
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            int b;
            MPI_Recv(&b, 1, MPI_INT, r, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += b;
        }
    } else {
        MPI_Send(&bad, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("connectivity: %d ranks, %d pairs, %s\n", size, size * (size - 1) / 2,
               total ? "FAILED" : "all connected");
    MPI_Finalize();
    return rank == 0 && total != 0;
}
