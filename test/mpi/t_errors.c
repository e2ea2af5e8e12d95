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
    CHECK_ALL ("error string names class and function: %s", msg) {
        CHECK_TRUE(strstr(msg, "MPI_ERR_COMM"));
        CHECK_TRUE(strstr(msg, "MPI_Comm_size"));
        CHECK_EQ_INT(len, (int)strlen(msg));
    }
    rc = MPI_Comm_rank(MPI_COMM_WORLD, NULL);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "NULL rank pointer is MPI_ERR_ARG");
    MPI_Error_class(MPI_ERR_TRUNCATE, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TRUNCATE, "MPI_Error_class of a class is itself");
    rc = MPI_Error_class(123456, &cls);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "MPI_Error_class of garbage is MPI_ERR_ARG");
    MPI_Error_string(MPI_SUCCESS, msg, &len);
    CHECK_NE_PTR(strstr(msg, "MPI_SUCCESS"), NULL, "MPI_SUCCESS has a string: %s", msg);

    /* A bad argument of a dynamic-process call, found before any spawn. */
    rc = MPI_Comm_spawn("x", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, NULL,
                        MPI_ERRCODES_IGNORE);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "MPI_Comm_spawn with intercomm NULL: MPI_ERR_ARG (%d)", rc);
    MPI_Error_string(rc, msg, &len);
    CHECK_NE_PTR(strstr(msg, "MPI_Comm_spawn"), NULL, "and names itself: %s", msg);

    MPI_Comm_create_errhandler(my_handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Errhandler_free(&eh); /* the communicator keeps its reference */
    rc = MPI_Comm_rank(MPI_COMM_WORLD, NULL);
    CHECK_ALL ("user handler ran with MPI_ERR_ARG") {
        CHECK_EQ_INT(handler_calls, 1);
        CHECK_EQ_INT(handler_code, MPI_ERR_ARG);
    }
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "and the call returned the code");
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    CHECK_ALL ("MPI_Comm_call_errhandler runs it") {
        CHECK_EQ_INT(handler_calls, 2);
        CHECK_EQ_INT(handler_code, MPI_ERR_OTHER);
    }
    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)0);
    CHECK_ALL ("null errhandler is MPI_ERR_ERRHANDLER, through the handler") {
        CHECK_EQ_INT(rc, MPI_ERR_ERRHANDLER);
        CHECK_EQ_INT(handler_calls, 3);
    }
    MPI_Finalize();
    return tap_failed != 0;
}
