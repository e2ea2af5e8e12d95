/* Helper for t_fatal.sh: commits the error named by argv[1]. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int x;

    MPI_Init(&argc, &argv);
    if (argc > 1 && !strcmp(argv[1], "null-comm"))
        MPI_Comm_size(MPI_COMM_NULL, &x);
    else if (argc > 1 && !strcmp(argv[1], "unsupported"))
        MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, NULL,
                       MPI_ERRCODES_IGNORE);
    else if (argc > 1 && !strcmp(argv[1], "abort"))
        MPI_Abort(MPI_COMM_WORLD, 7);
    else if (argc > 1 && !strcmp(argv[1], "after-finalize")) {
        MPI_Finalize();
        MPI_Comm_size(MPI_COMM_WORLD, &x);
    }
    printf("not reached\n");
    MPI_Finalize();
    return 0;
}
