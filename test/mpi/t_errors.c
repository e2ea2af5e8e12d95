/* Error handlers and error strings: RETURN gives the class back, user
 * handlers run, unimplemented functions say so, strings name the class. */
#include "../tap.h"

#include <mpi.h>
#include <string.h>

static int handler_calls, handler_code;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

int main(int argc, char **argv)
{
    MPI_Errhandler eh, got;
    char msg[MPI_MAX_ERROR_STRING];
    int rc, len, cls, rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank)
        fclose(stdout);
    plan(14);

    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    CHECK_EQ_PTR(got, MPI_ERRORS_ARE_FATAL, "default handler of WORLD is ERRORS_ARE_FATAL");
    MPI_Errhandler_free(&got);
    CHECK_EQ_PTR(got, MPI_ERRHANDLER_NULL, "MPI_Errhandler_free sets the handle to null");

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Comm_size(MPI_COMM_NULL, &size);
    CHECK_EQ_INT(rc, MPI_ERR_COMM, "MPI_Comm_size(MPI_COMM_NULL) returns MPI_ERR_COMM (%d)", rc);
    MPI_Error_string(rc, msg, &len);
    CHECK_TRUE(strstr(msg, "MPI_ERR_COMM") && strstr(msg, "MPI_Comm_size") &&
                   len == (int)strlen(msg),
               "error string names class and function: %s", msg);
    rc = MPI_Comm_rank(MPI_COMM_WORLD, NULL);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "NULL rank pointer is MPI_ERR_ARG");
    MPI_Error_class(MPI_ERR_TRUNCATE, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TRUNCATE, "MPI_Error_class of a class is itself");
    rc = MPI_Error_class(123456, &cls);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "MPI_Error_class of garbage is MPI_ERR_ARG");
    MPI_Error_string(MPI_SUCCESS, msg, &len);
    CHECK_NE_PTR(strstr(msg, "MPI_SUCCESS"), NULL, "MPI_SUCCESS has a string: %s", msg);

    /* An unimplemented function must not pretend success. */
    rc = MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, NULL,
                        MPI_ERRCODES_IGNORE);
    CHECK_EQ_INT(rc, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Comm_spawn says unsupported (%d)", rc);
    MPI_Error_string(rc, msg, &len);
    CHECK_NE_PTR(strstr(msg, "MPI_Comm_spawn"), NULL, "and names itself: %s", msg);

    MPI_Comm_create_errhandler(my_handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Errhandler_free(&eh); /* the communicator keeps its reference */
    rc = MPI_Comm_rank(MPI_COMM_WORLD, NULL);
    CHECK_TRUE(handler_calls == 1 && handler_code == MPI_ERR_ARG,
               "user handler ran with MPI_ERR_ARG");
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "and the call returned the code");
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    CHECK_TRUE(handler_calls == 2 && handler_code == MPI_ERR_OTHER,
               "MPI_Comm_call_errhandler runs it");
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)0);
    CHECK_TRUE(rc == MPI_ERR_ERRHANDLER && handler_calls == 3,
               "null errhandler is MPI_ERR_ERRHANDLER, through the handler");
    MPI_Finalize();
    return tap_failed != 0;
}
