/* Bad arguments to point-to-point calls return the right class under
 * MPI_ERRORS_RETURN, and the message names the function and argument. */
#include "mpitest.h"

static void expect(int rc, int cls, const char *what, const char *needle)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, c = -1;

    MPI_Error_class(rc, &c);
    CHECK_EQ_INT(c, cls, "%s: class %d, expected %d", what, c, cls);
    MPI_Error_string(rc, msg, &len);
    CHECK_NE_PTR(strstr(msg, needle), NULL, "%s: message '%s' lacks '%s'", what, msg, needle);
}

static int in_status_calls;

static void count_in_status(MPI_Comm *comm, int *code, ...)
{
    int cls;

    (void)comm;
    MPI_Error_class(*code, &cls);
    in_status_calls += cls == MPI_ERR_IN_STATUS;
}

/* A truncated receive completed by MPI_Waitall: MPI_ERR_IN_STATUS goes to
 * the handler of the failed request's communicator (retired by then), not
 * to MPI_COMM_SELF's. */
static void in_status(void)
{
    MPI_Comm c;
    MPI_Errhandler eh;
    MPI_Request r[2];
    MPI_Status st[2];
    int two[2] = {1, 2}, one = 0, cls = -1;

    MPI_Comm_dup(MPI_COMM_SELF, &c);
    MPI_Comm_create_errhandler(count_in_status, &eh);
    MPI_Comm_set_errhandler(c, eh);
    MPI_Errhandler_free(&eh);
    MPI_Irecv(&one, 1, MPI_INT, 0, 5, c, &r[0]);
    MPI_Isend(two, 2, MPI_INT, 0, 5, c, &r[1]);
    expect(MPI_Waitall(2, r, st), MPI_ERR_IN_STATUS, "waitall truncated", "MPI_Waitall");
    CHECK_EQ_INT(in_status_calls, 1, "the communicator's handler ran %d times", in_status_calls);
    MPI_Error_class(st[0].MPI_ERROR, &cls);
    CHECK_ALL ("statuses %d %d", st[0].MPI_ERROR, st[1].MPI_ERROR) {
        CHECK_EQ_INT(cls, MPI_ERR_TRUNCATE);
        CHECK_MPI(st[1].MPI_ERROR);
    }
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    int v = 0, size;
    MPI_Request rq;

    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    size = mt_size;
    expect(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "dest = size",
           "MPI_Send: dest is");
    expect(MPI_Send(&v, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "dest -5", "dest");
    expect(MPI_Send(&v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG, "send tag -1",
           "MPI_Send: tag is -1");
    expect(MPI_Recv(&v, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TAG,
           "recv tag -7", "MPI_Recv: tag");
    expect(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "count -1",
           "count is -1");
    expect(MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "NULL buffer",
           "buf is NULL");
    expect(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "null datatype",
           "MPI_DATATYPE_NULL");
    expect(MPI_Send(&v, 1, (MPI_Datatype)0x2ff, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "bad datatype",
           "datatype");
    expect(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "null comm",
           "MPI_COMM_NULL");
    expect(MPI_Isend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST, "NULL request",
           "request is NULL");
    expect(MPI_Irecv(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &rq), MPI_ERR_RANK,
           "irecv source", "source is");
    rq = (MPI_Request)&v; /* not a request */
    v = 0;
    expect(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "garbage request", "MPI_Wait");
    /* A freed request handle is caught too. */
    MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &rq);
    MPI_Request stale = rq;
    MPI_Cancel(&rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    expect(MPI_Wait(&stale, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "stale request", "not valid");
    in_status();
    return mt_finish("t_badinput");
}
