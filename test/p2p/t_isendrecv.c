/* MPI_Isendrecv and MPI_Isendrecv_replace: ring exchanges at sizes across
 * every protocol (eager, rendezvous, split), completed by Wait, Test loops
 * and Waitall next to plain requests; the status is the receive's
 * (ANY_SOURCE, ANY_TAG, count); MPI_PROC_NULL on either side; replace (and
 * the blocking MPI_Sendrecv_replace, built on it) with a strided datatype;
 * truncation and bad arguments with MPI_ERRORS_RETURN;
 * cancel of an Isendrecv whose receive never matches. */
#include "mpitest.h"

static const size_t sizes[] = {0, 1, 100, 4097, 40000, 300000, 2u << 20};

static void ring(size_t n, int round)
{
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    char *s = malloc(n + 1), *r = malloc(n + 1);
    MPI_Request q[2];
    MPI_Status st;
    int flag = 0, count;

    mt_fill(s, n, (unsigned)(mt_rank + round));
    memset(r, 0, n + 1);
    MPI_Isendrecv(s, (int)n, MPI_BYTE, next, 5, r, (int)n, MPI_BYTE,
                  round & 1 ? MPI_ANY_SOURCE : prev, round & 2 ? MPI_ANY_TAG : 5, MPI_COMM_WORLD,
                  &q[0]);
    /* A plain exchange on the same pair alongside, on another tag. */
    MPI_Isend(&round, 1, MPI_INT, next, 6, MPI_COMM_WORLD, &q[1]);
    if (round % 3 == 0) {
        MPI_Wait(&q[0], &st);
        MPI_Wait(&q[1], MPI_STATUS_IGNORE);
    } else if (round % 3 == 1) {
        while (!flag)
            MPI_Test(&q[0], &flag, &st);
        MPI_Wait(&q[1], MPI_STATUS_IGNORE);
    } else {
        MPI_Status sts[2];
        MPI_Waitall(2, q, sts);
        st = sts[0];
    }
    {
        int got;
        MPI_Recv(&got, 1, MPI_INT, prev, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ_INT(got, round, "round %d: the plain message says %d", round, got);
    }
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_ALL ("%zu bytes, round %d: status source %d tag %d count %d, want %d 5 %zu", n, round,
               st.MPI_SOURCE, st.MPI_TAG, count, prev, n) {
        CHECK_EQ_INT(st.MPI_SOURCE, prev);
        CHECK_EQ_INT(st.MPI_TAG, 5);
        CHECK_EQ_LONG((size_t)count, n);
    }
    CHECK_TRUE(!mt_verify(r, n, (unsigned)(prev + round)), "%zu bytes, round %d: data corrupt", n,
               round);
    free(s);
    free(r);
}

static void replace(int round)
{
    /* Every other int of 2 n, sent and received in place. */
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int n = round == 1 ? 100000 : round ? 5000 : 7, bad = 0;
    int *buf = malloc(2 * (size_t)n * sizeof(int));
    MPI_Datatype vec;
    MPI_Request q;
    MPI_Status st;

    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 2 * n; i++)
        buf[i] = i & 1 ? -1 : mt_rank * 1000000 + i;
    if (round > 1) {
        MPI_Sendrecv_replace(buf, 1, vec, next, 3, prev, 3, MPI_COMM_WORLD, &st);
        MPI_Type_free(&vec);
    } else {
        MPI_Isendrecv_replace(buf, 1, vec, next, 3, prev, 3, MPI_COMM_WORLD, &q);
        MPI_Type_free(&vec); /* the request keeps what it needs */
        MPI_Wait(&q, &st);
    }
    for (int i = 0; i < 2 * n; i++)
        bad += buf[i] != (i & 1 ? -1 : prev * 1000000 + i);
    CHECK_ALL ("replace of %d strided ints: %d wrong, source %d", n, bad, st.MPI_SOURCE) {
        CHECK_TRUE(!bad);
        CHECK_EQ_INT(st.MPI_SOURCE, prev);
    }
    free(buf);
}

static void proc_null(void)
{
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int v = mt_rank, got = -1, count = -1;
    MPI_Request q;
    MPI_Status st;

    /* Receive from nobody: complete once the send is, status of PROC_NULL. */
    MPI_Isendrecv(&v, 1, MPI_INT, next, 4, &got, 1, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_ALL ("receive from MPI_PROC_NULL: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG,
               count) {
        CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
        CHECK_EQ_INT(st.MPI_TAG, MPI_ANY_TAG);
        CHECK_EQ_INT(count, 0);
        CHECK_EQ_INT(got, -1);
    }
    /* Send to nobody: the receive of the message above. */
    MPI_Isendrecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 4, &got, 1, MPI_INT, prev, 4, MPI_COMM_WORLD,
                  &q);
    MPI_Wait(&q, &st);
    CHECK_ALL ("send to MPI_PROC_NULL: got %d from %d", got, st.MPI_SOURCE) {
        CHECK_EQ_INT(got, prev);
        CHECK_EQ_INT(st.MPI_SOURCE, prev);
    }
    MPI_Isendrecv_replace(&v, 1, MPI_INT, MPI_PROC_NULL, 4, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, &st);
    CHECK_ALL ("replace with both MPI_PROC_NULL") {
        CHECK_EQ_INT(v, mt_rank);
        CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    }
}

static void errors(void)
{
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    char big[64] = {0}, small[8];
    MPI_Request q;
    MPI_Status st;
    int rc, cls, flag;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* A 64-byte message into 8 bytes: the request completes truncated. */
    MPI_Isendrecv(big, 64, MPI_BYTE, next, 8, small, 8, MPI_BYTE, prev, 8, MPI_COMM_WORLD, &q);
    rc = MPI_Wait(&q, &st);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TRUNCATE, "truncated Isendrecv: class %d", cls);
    rc = MPI_Isendrecv(big, 1, MPI_BYTE, mt_size, 8, small, 1, MPI_BYTE, prev, 8, MPI_COMM_WORLD,
                       &q);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_RANK, "dest out of range: class %d", cls);
    rc = MPI_Isendrecv(big, 1, MPI_BYTE, next, 8, small, 1, MPI_BYTE, prev, -5, MPI_COMM_WORLD, &q);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TAG, "negative receive tag: class %d", cls);
    rc = MPI_Isendrecv_replace(small, 1, MPI_BYTE, next, 8, prev, 8, MPI_COMM_WORLD, NULL);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_REQUEST, "NULL request: class %d", cls);
    rc = MPI_Isendrecv(big, -1, MPI_BYTE, next, 8, small, 1, MPI_BYTE, prev, 8, MPI_COMM_WORLD, &q);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_COUNT, "negative send count: class %d", cls);
    /* A receive nobody sends to: cancel takes it back. */
    MPI_Isendrecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, small, 8, MPI_BYTE, prev, 999,
                  MPI_COMM_WORLD, &q);
    MPI_Cancel(&q);
    MPI_Wait(&q, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK_TRUE(flag, "an unmatched Isendrecv is cancelled");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (int round = 0; round < 6; round++)
            ring(sizes[i], round);
    replace(0);
    replace(1);
    replace(2); /* the blocking MPI_Sendrecv_replace */
    proc_null();
    errors();
    {
        /* Freed before completion: the halves still finish (Barrier waits). */
        int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
        int v = mt_rank, got = -1;
        MPI_Request q;
        MPI_Isendrecv(&v, 1, MPI_INT, next, 9, &got, 1, MPI_INT, prev, 9, MPI_COMM_WORLD, &q);
        MPI_Request_free(&q);
        while (got == -1) {
            int f;
            MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
        }
        CHECK_EQ_INT(got, prev, "freed Isendrecv: got %d", got);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return mt_finish("t_isendrecv");
}
