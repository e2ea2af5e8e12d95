/* A token goes around the ring: rank 0 decrements it on each lap, and
 * everyone stops once it reaches zero. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, token = 10 - 1, passes = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    if (rank == 0)
        MPI_Send(&token, 1, MPI_INT, next, 201, MPI_COMM_WORLD);
    for (;;) {
        MPI_Recv(&token, 1, MPI_INT, prev, 201, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        passes++;
        if (rank == 0)
            token--;
        MPI_Send(&token, 1, MPI_INT, next, 201, MPI_COMM_WORLD);
        if (token == 0)
            break;
    }
    /* Rank 0 absorbs the last token sent around. */
    if (rank == 0)
        MPI_Recv(&token, 1, MPI_INT, prev, 201, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d: token seen %d times\n", rank, passes);
    MPI_Finalize();
    return 0;
}
