/*
 * ln_mpi.c: an MPI program that plays a rank for the launcher tests.
 *
 *   ln_mpi ACTION [ARG [RANK]]
 *
 * ACTION happens on RANK (every rank when RANK is omitted or -1); the
 * other ranks sleep 30 s and finalize, so the test sees mpirun end them
 * (except for "exit": MPI_Finalize is collective, so all finalize).
 *   hello        "hello from rank R of N"
 *   abort S      MPI_Abort(MPI_COMM_WORLD, S)
 *   segv         raise SIGSEGV after MPI_Init
 *   nofinalize   exit 0 after MPI_Init without MPI_Finalize
 *   exit S       MPI_Finalize, then exit S (the others exit 0)
 *   hang         (every rank) three dups of MPI_COMM_WORLD, the second
 *                freed; rank 0 then waits for a message on the third that
 *                rank 1 never sends, for mpirun --timeout's hang report
 */
#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sanitizer builds: libpmix's allocations at exit are not ours to report,
 * and "segv" must die of SIGSEGV, not through ASan's handler. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "handle_segv=0";
}

int main(int argc, char **argv)
{
    const char *act = argc > 1 ? argv[1] : "hello";
    int arg = argc > 2 ? atoi(argv[2]) : 0;
    int only = argc > 3 ? atoi(argv[3]) : -1;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* MPI_Finalize is collective: for "exit" every rank finalizes. */
    if (!strcmp(act, "exit")) {
        MPI_Finalize();
        return only < 0 || only == rank ? arg : 0;
    }
    if (!strcmp(act, "hang")) {
        /* The freed one leaves a gap in the context ids before the one
         * that waits. */
        MPI_Comm a, b, c;
        int x;

        MPI_Comm_dup(MPI_COMM_WORLD, &a);
        MPI_Comm_dup(MPI_COMM_WORLD, &b);
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_free(&b);
        if (rank == 0)
            MPI_Recv(&x, 1, MPI_INT, 1 % size, 7, c, MPI_STATUS_IGNORE);
        sleep(30);
        MPI_Finalize();
        return 0;
    }
    if (only >= 0 && only != rank) {
        sleep(30);
        MPI_Finalize();
        return 0;
    }
    if (!strcmp(act, "hello")) {
        printf("hello from rank %d of %d\n", rank, size);
    } else if (!strcmp(act, "abort")) {
        MPI_Abort(MPI_COMM_WORLD, arg);
    } else if (!strcmp(act, "segv")) {
        fflush(stdout);
        raise(SIGSEGV);
    } else if (!strcmp(act, "appnum")) {
        /* MPMD: the program's number, and a collective over all of them. */
        int *app, flag, sum = -1;

        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
        MPI_Allreduce(flag ? app : &sum, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        printf("rank %d of %d appnum %d sum %d\n", rank, size, flag ? *app : -1, sum);
    } else if (!strcmp(act, "nofinalize")) {
        fflush(stdout);
        _exit(0);
    }
    MPI_Finalize();
    return 0;
}
