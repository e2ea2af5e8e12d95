/* Partitioned point-to-point: a ring where each rank sends in 8
 * partitions and receives in 4 (the standard lets the counts differ),
 * three rounds per request marking partitions by MPI_Pready (in reverse),
 * MPI_Pready_range and MPI_Pready_list, the receiver polling
 * MPI_Parrived; small and rendezvous-sized messages; a plain message on the
 * same tag that must not match; MPI_PROC_NULL; bad input with
 * MPI_ERRORS_RETURN; pairing by init order, zero partitions, MPI_Parrived
 * on null and inactive requests, MPI_Cancel and MPI_Request_free of an
 * active one refused. */
#include "mpitest.h"

static void ring(int n)
{
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int *s = calloc((size_t)n, sizeof(int)), *r = calloc((size_t)n, sizeof(int));
    int list[8] = {3, 1, 7, 5, 0, 2, 6, 4}, plain = -1, other = 1000 + mt_rank;
    MPI_Request ps, pr, q;
    MPI_Status st;

    MPI_Psend_init(s, 8, n / 8, MPI_INT, next, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &ps);
    MPI_Precv_init(r, 4, n / 4, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &pr);
    for (int round = 0; round < 3; round++) {
        int arrived = 0, bad = 0;

        for (int i = 0; i < n; i++)
            s[i] = mt_rank * 1000000 + round * 100000 + i;
        memset(r, 0xff, (size_t)n * sizeof(int));
        MPI_Start(&pr);
        /* A plain message on the same tag goes to the plain receive. */
        MPI_Irecv(&plain, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &q);
        MPI_Send(&other, 1, MPI_INT, next, 5, MPI_COMM_WORLD);
        MPI_Start(&ps);
        if (round == 0) {
            for (int p = 7; p >= 0; p--)
                MPI_Pready(p, ps);
        } else if (round == 1) {
            MPI_Pready_range(0, 3, ps);
            MPI_Pready_range(4, 7, ps);
        } else {
            MPI_Pready_list(8, list, ps);
        }
        while (arrived < 4) {
            int flag = 0;
            MPI_Parrived(pr, arrived, &flag);
            arrived += flag;
        }
        MPI_Wait(&pr, &st);
        MPI_Wait(&ps, MPI_STATUS_IGNORE);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            bad += r[i] != prev * 1000000 + round * 100000 + i;
        CHECK_TRUE(!bad, "%d ints, round %d: %d wrong", n, round, bad);
        CHECK_ALL ("round %d: status source %d tag %d", round, st.MPI_SOURCE, st.MPI_TAG) {
            CHECK_EQ_INT(st.MPI_SOURCE, prev);
            CHECK_EQ_INT(st.MPI_TAG, 5);
        }
        CHECK_EQ_INT(plain, 1000 + prev, "round %d: the plain receive got %d", round, plain);
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    free(s);
    free(r);
}

static int class_of(int rc)
{
    int cls;

    MPI_Error_class(rc, &cls);
    return cls;
}

static void errors(void)
{
    int buf[8], flag;
    MPI_Request q, n;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(
        class_of(MPI_Psend_init(buf, -1, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &q)),
        MPI_ERR_ARG, "-1 partitions");
    CHECK_EQ_INT(class_of(MPI_Precv_init(buf, 2, 4, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                                         MPI_INFO_NULL, &q)),
                 MPI_ERR_RANK, "MPI_ANY_SOURCE");
    CHECK_EQ_INT(class_of(MPI_Precv_init(buf, 2, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD,
                                         MPI_INFO_NULL, &q)),
                 MPI_ERR_TAG, "MPI_ANY_TAG");
    /* To nobody: completes at Start; partitions still range-checked. */
    MPI_Psend_init(buf, 2, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &q);
    CHECK_EQ_INT(class_of(MPI_Pready(0, q)), MPI_ERR_REQUEST, "Pready before MPI_Start");
    MPI_Start(&q);
    CHECK_EQ_INT(class_of(MPI_Pready(2, q)), MPI_ERR_ARG, "partition out of range");
    CHECK_EQ_INT(class_of(MPI_Parrived(q, 0, &flag)), MPI_ERR_REQUEST, "Parrived on a send");
    MPI_Pready_range(0, 1, q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Request_free(&q);
    MPI_Send_init(buf, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &n);
    MPI_Start(&n);
    CHECK_EQ_INT(class_of(MPI_Pready(0, n)), MPI_ERR_REQUEST, "Pready on a plain send");
    MPI_Wait(&n, MPI_STATUS_IGNORE);
    MPI_Request_free(&n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void twice(void)
{
    /* A partition marked twice in one round is refused; the round still
     * completes once every partition is ready. */
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int s[4] = {1, 2, 3, 4}, r[4] = {0};
    MPI_Request ps, pr;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Psend_init(s, 2, 2, MPI_INT, next, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &ps);
    MPI_Precv_init(r, 1, 4, MPI_INT, prev, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &pr);
    MPI_Start(&pr);
    MPI_Start(&ps);
    MPI_Pready(1, ps);
    CHECK_EQ_INT(class_of(MPI_Pready(1, ps)), MPI_ERR_ARG, "a partition marked twice");
    MPI_Pready(0, ps);
    MPI_Wait(&ps, MPI_STATUS_IGNORE);
    MPI_Wait(&pr, MPI_STATUS_IGNORE);
    CHECK_ALL ("two-partition message: %d %d", r[0], r[3]) {
        CHECK_EQ_INT(r[0], 1);
        CHECK_EQ_INT(r[3], 4);
    }
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void order(void)
{
    /* MPI-4.1 pairs partitioned operations by the order of their init
     * calls: the receiver starts its second init first and the sender
     * readies its second first; each still meets its own partner. */
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int a[4], b[4], ra[4] = {0}, rb[4] = {0}, flag = 0, bad = 0;
    MPI_Request q[4], z[2];

    for (int i = 0; i < 4; i++) {
        a[i] = mt_rank * 100 + 10 + i;
        b[i] = mt_rank * 100 + 20 + i;
    }
    MPI_Psend_init(a, 2, 2, MPI_INT, next, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &q[0]);
    MPI_Psend_init(b, 2, 2, MPI_INT, next, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &q[1]);
    MPI_Precv_init(ra, 1, 4, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &q[2]);
    MPI_Precv_init(rb, 1, 4, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &q[3]);
    MPI_Parrived(q[2], 0, &flag);
    CHECK_EQ_INT(flag, 1, "MPI_Parrived on an inactive request: flag %d", flag);
    flag = 0;
    MPI_Parrived(MPI_REQUEST_NULL, 0, &flag);
    CHECK_EQ_INT(flag, 1, "MPI_Parrived on MPI_REQUEST_NULL: flag %d", flag);
    MPI_Start(&q[3]);
    MPI_Start(&q[2]);
    MPI_Start(&q[0]);
    MPI_Start(&q[1]);
    MPI_Pready_range(0, 1, q[1]);
    MPI_Pready_range(0, 1, q[0]);
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 4; i++)
        bad += ra[i] != prev * 100 + 10 + i || rb[i] != prev * 100 + 20 + i;
    CHECK_TRUE(!bad, "init order pairing: got %d %d, want %d %d", ra[0], rb[0], prev * 100 + 10,
               prev * 100 + 20);
    for (int i = 0; i < 4; i++)
        MPI_Request_free(&q[i]);

    /* No partitions: the send goes at MPI_Start, nothing to ready. */
    MPI_Psend_init(a, 0, 4, MPI_INT, next, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &z[0]);
    MPI_Precv_init(ra, 0, 4, MPI_INT, prev, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &z[1]);
    MPI_Startall(2, z);
    MPI_Waitall(2, z, MPI_STATUSES_IGNORE);
    CHECK_TRUE(1, "zero partitions complete");
    MPI_Request_free(&z[0]);
    MPI_Request_free(&z[1]);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Recv_init(ra, 1, MPI_INT, prev, 9, MPI_COMM_WORLD, &z[0]);
    CHECK_EQ_INT(class_of(MPI_Parrived(z[0], 0, &flag)), MPI_ERR_REQUEST,
                 "MPI_Parrived on an inactive plain receive");
    MPI_Request_free(&z[0]);
    MPI_Psend_init(a, 2, 2, MPI_INT, next, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &z[0]);
    MPI_Precv_init(ra, 2, 2, MPI_INT, prev, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &z[1]);
    MPI_Startall(2, z);
    CHECK_EQ_INT(class_of(MPI_Cancel(&z[0])), MPI_ERR_REQUEST, "MPI_Cancel of an active one");
    CHECK_ALL ("MPI_Request_free of an active one") {
        CHECK_EQ_INT(class_of(MPI_Request_free(&z[0])), MPI_ERR_REQUEST);
        CHECK_NE_PTR(z[0], MPI_REQUEST_NULL);
    }
    MPI_Pready_range(0, 1, z[0]);
    MPI_Waitall(2, z, MPI_STATUSES_IGNORE);
    MPI_Request_free(&z[0]);
    MPI_Request_free(&z[1]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    ring(64);
    ring(1 << 18);
    errors();
    twice();
    order();
    return mt_finish("t_part");
}
