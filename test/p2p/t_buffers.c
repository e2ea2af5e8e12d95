/* Buffered-send buffers (MPI-4.1 3.6): MPI_BUFFER_AUTOMATIC, a
 * communicator's own buffer taking precedence over the process's, a
 * session's buffer for the communicators made from its groups, flush and
 * iflush of each, detach giving back what was attached, the errors when
 * no buffer is there, and a detach while messages to self of rendezvous
 * size are still unreceived (MPICH's bsendpending on a one-rank
 * communicator). Every rank sends to the next in a ring. */
#include "mpitest.h"

static int next, prev;

/* n messages of `len` bytes buffered on comm, then received. */
static void traffic(MPI_Comm comm, int n, int len, int tag)
{
    char *s = malloc((size_t)len), *r = malloc((size_t)len);
    int bad = 0;

    for (int i = 0; i < n; i++) {
        mt_fill(s, (size_t)len, (unsigned)(i + tag));
        MPI_Bsend(s, len, MPI_BYTE, next, tag, comm);
    }
    for (int i = 0; i < n; i++) {
        MPI_Recv(r, len, MPI_BYTE, prev, tag, comm, MPI_STATUS_IGNORE);
        bad += mt_verify(r, (size_t)len, (unsigned)(i + tag)) != 0;
    }
    CHECK_TRUE(!bad, "%d of %d buffered %d-byte messages corrupt (tag %d)", bad, n, len, tag);
    free(s);
    free(r);
}

static int class_of(int rc)
{
    int cls;

    MPI_Error_class(rc, &cls);
    return cls;
}

static void automatic(void)
{
    void *addr = NULL;
    int size = -1;
    MPI_Request q;

    MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0);
    traffic(MPI_COMM_WORLD, 50, 20000, 1); /* 1 MB in flight: no fixed size needed */
    MPI_Buffer_iflush(&q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Buffer_flush();
    MPI_Buffer_detach(&addr, &size);
    CHECK_ALL ("detach of MPI_BUFFER_AUTOMATIC: %p %d", addr, size) {
        CHECK_EQ_PTR(addr, MPI_BUFFER_AUTOMATIC);
        CHECK_EQ_INT(size, 0);
    }
}

static void per_comm(void)
{
    int size = 4 * (1000 + MPI_BSEND_OVERHEAD), got_size = -1, v = 1;
    char *buf = malloc((size_t)size);
    void *addr = NULL;
    MPI_Comm dup;
    MPI_Request q;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(class_of(MPI_Comm_flush_buffer(dup)), MPI_ERR_BUFFER,
                 "flush with no buffer attached");
    MPI_Comm_attach_buffer(dup, buf, size);
    CHECK_EQ_INT(class_of(MPI_Comm_attach_buffer(dup, buf, size)), MPI_ERR_BUFFER,
                 "a second attach to one communicator");
    /* No process buffer: WORLD has nowhere to buffer, dup has its own. */
    CHECK_EQ_INT(class_of(MPI_Bsend(&v, 1, MPI_INT, next, 2, MPI_COMM_WORLD)), MPI_ERR_BUFFER,
                 "Bsend with no buffer anywhere");
    for (int round = 0; round < 3; round++)
        traffic(dup, 4, 1000, 3 + round);
    MPI_Comm_iflush_buffer(dup, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Comm_detach_buffer(dup, &addr, &got_size);
    CHECK_ALL ("comm detach: %p %d, attached %p %d", addr, got_size, (void *)buf, size) {
        CHECK_EQ_PTR(addr, buf);
        CHECK_EQ_INT(got_size, size);
    }
    /* Detached, the communicator falls back to the process's buffer. */
    MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0);
    traffic(dup, 2, 1000, 6);
    MPI_Buffer_detach(&addr, &got_size);
    CHECK_EQ_PTR(addr, MPI_BUFFER_AUTOMATIC, "process detach after a comm detach: %p", addr);
    /* Freed with a buffer attached: it goes with the communicator. */
    MPI_Comm_attach_buffer(dup, MPI_BUFFER_AUTOMATIC, 0);
    traffic(dup, 3, 100000, 7);
    MPI_Comm_free(&dup);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(buf);
}

static void per_session(void)
{
    MPI_Session s;
    MPI_Group g, half;
    MPI_Comm c, d;
    MPI_Request q;
    void *addr = NULL;
    MPI_Count size = -1;
    int v = 0, zero = 0;
    int *all = malloc((size_t)mt_size * sizeof(int));

    for (int i = 0; i < mt_size; i++)
        all[i] = i;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    /* A group made from the session's still derives from the session. */
    MPI_Group_incl(g, mt_size, all, &half);
    MPI_Comm_create_from_group(half, "t_buffers", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Group_free(&half);
    free(all);
    MPI_Comm_dup(c, &d); /* derived communicators share the session's buffer */
    CHECK_EQ_INT(class_of(MPI_Session_flush_buffer(s)), MPI_ERR_BUFFER,
                 "session flush with no buffer");
    CHECK_EQ_INT(class_of(MPI_Bsend(&v, 1, MPI_INT, next, 9, d)), MPI_ERR_BUFFER,
                 "Bsend on a session communicator with no buffer");
    MPI_Session_attach_buffer_c(s, MPI_BUFFER_AUTOMATIC, 0);
    traffic(d, 10, 5000, 10);
    traffic(c, 10, 5000, 11);
    MPI_Session_iflush_buffer(s, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Session_detach_buffer_c(s, &addr, &size);
    CHECK_ALL ("session detach: %p %lld", addr, (long long)size) {
        CHECK_EQ_PTR(addr, MPI_BUFFER_AUTOMATIC);
        CHECK_EQ_LONG(size, 0);
    }
    MPI_Allreduce(MPI_IN_PLACE, &zero, 1, MPI_INT, MPI_SUM, c);
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    MPI_Session_finalize(&s);
}

/* Detach returns although the messages to self are received only after it. */
static void to_self(void)
{
    enum { LEN = 128 * 1024, N = 3 };
    int size = N * (LEN + MPI_BSEND_OVERHEAD), got_size = -1, bad = 0;
    char *buf = malloc((size_t)size), *s = malloc(LEN), *r = malloc(LEN);
    void *addr = NULL;

    MPI_Buffer_attach(buf, size);
    for (int i = 0; i < N; i++) {
        mt_fill(s, LEN, (unsigned)(100 + i));
        MPI_Bsend(s, LEN, MPI_BYTE, 0, 20 + i, MPI_COMM_SELF);
    }
    MPI_Buffer_detach(&addr, &got_size);
    CHECK_ALL ("detach after Bsends to self: %p %d", addr, got_size) {
        CHECK_EQ_PTR(addr, buf);
        CHECK_EQ_INT(got_size, size);
    }
    for (int i = N - 1; i >= 0; i--) {
        MPI_Recv(r, LEN, MPI_BYTE, 0, 20 + i, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        bad += mt_verify(r, LEN, (unsigned)(100 + i)) != 0;
    }
    CHECK_TRUE(!bad, "%d of %d buffered messages to self corrupt", bad, N);
    free(buf);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    next = (mt_rank + 1) % mt_size;
    prev = (mt_rank + mt_size - 1) % mt_size;
    automatic();
    per_comm();
    per_session();
    to_self();
    return mt_finish("t_buffers");
}
