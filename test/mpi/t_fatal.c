/* Helper for t_fatal.sh: commits the error named by argv[1] (rank 0 alone
 * for bad-rank*, the others wait in a barrier). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int x = 0, me;
    MPI_Comm d, dd;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc > 1 && !strcmp(argv[1], "null-comm"))
        MPI_Comm_size(MPI_COMM_NULL, &x);
    else if (argc > 1 && !strcmp(argv[1], "spawn-null"))
        MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, NULL,
                       MPI_ERRCODES_IGNORE);
    else if (argc > 1 && !strcmp(argv[1], "abort"))
        MPI_Abort(MPI_COMM_WORLD, 7);
    else if (argc > 1 && !strcmp(argv[1], "abort-dup")) {
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        MPI_Abort(d, 3);
    } else if (argc > 1 && !strcmp(argv[1], "abort-split")) {
        MPI_Comm_split(MPI_COMM_WORLD, 0, me, &d);
        MPI_Comm_dup(d, &dd);
        MPI_Abort(dd, 3);
    } else if (argc > 1 && !strcmp(argv[1], "bad-rank")) {
        if (me == 0)
            MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (argc > 1 && !strcmp(argv[1], "bad-rank-named")) {
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        MPI_Comm_set_name(d, "solver");
        if (me == 0)
            MPI_Send(&x, 1, MPI_INT, 99, 0, d);
        MPI_Barrier(d);
    } else if (argc > 1 && !strcmp(argv[1], "call-errhandler")) {
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    } else if (argc > 1 && !strcmp(argv[1], "after-finalize")) {
        MPI_Finalize();
        MPI_Comm_size(MPI_COMM_WORLD, &x);
    }
    printf("not reached\n");
    MPI_Finalize();
    return 0;
}
