/* MPI's non-overtaking rule: messages from one sender on one communicator
 * match in the order sent, for the same tag, across tags received out of
 * order, with ANY_TAG and ANY_SOURCE, and across eager and rendezvous. */
#include "mpitest.h"

#define N 2000

int main(int argc, char **argv)
{
    int big = 16384; /* above every eager limit: rendezvous */

    mt_init(&argc, &argv);
    if (mt_size < 2) {
        printf("t_order: needs 2 ranks, skipped\n");
        MPI_Finalize();
        return 0;
    }
    /* 1. Same tag, many messages, mixed sizes: arrive in order. */
    if (mt_rank == 1) {
        char *buf = malloc((size_t)big);
        for (int i = 0; i < N; i++) {
            int n = (i % 10 == 0) ? big : 4;
            memset(buf, 0, (size_t)n);
            memcpy(buf, &i, sizeof(i));
            MPI_Send(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
        free(buf);
    } else if (mt_rank == 0) {
        char *buf = malloc((size_t)big);
        for (int i = 0; i < N; i++) {
            int v;
            MPI_Recv(buf, big, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            memcpy(&v, buf, sizeof(v));
            CHECK_EQ_INT(v, i, "same tag: got %d, expected %d", v, i);
        }
        free(buf);
    }

    /* 2. Two tags received in the opposite order: tag 2 first, then tag 1;
     * each stream stays ordered. */
    if (mt_rank == 1) {
        for (int i = 0; i < 100; i++) {
            MPI_Send(&i, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
            MPI_Send(&i, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
    } else if (mt_rank == 0) {
        for (int i = 0; i < 100; i++) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_EQ_INT(v, i, "tag 2 stream: got %d, expected %d", v, i);
        }
        for (int i = 0; i < 100; i++) {
            int v;
            MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_EQ_INT(v, i, "tag 1 stream: got %d, expected %d", v, i);
        }
    }

    /* 3. ANY_TAG takes them in send order; the status names the tag. */
    if (mt_rank == 1) {
        for (int i = 0; i < 100; i++)
            MPI_Send(&i, 1, MPI_INT, 0, 10 + i % 7, MPI_COMM_WORLD);
    } else if (mt_rank == 0) {
        for (int i = 0; i < 100; i++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK_ALL ("ANY_TAG: got %d tag %d", v, st.MPI_TAG) {
                CHECK_EQ_INT(v, i);
                CHECK_EQ_INT(st.MPI_TAG, 10 + i % 7);
            }
        }
    }

    /* 4. ANY_SOURCE from everyone: per-sender order holds, all arrive. */
    if (mt_rank != 0) {
        for (int i = 0; i < 200; i++)
            MPI_Send(&i, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    } else {
        int *next = calloc((size_t)mt_size, sizeof(int));
        for (int k = 0; k < 200 * (mt_size - 1); k++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
            CHECK_ALL ("ANY_SOURCE: source %d", st.MPI_SOURCE) {
                CHECK_GT_LONG(st.MPI_SOURCE, 0);
                CHECK_LT_LONG(st.MPI_SOURCE, mt_size);
            }
            if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < mt_size) {
                CHECK_EQ_INT(v, next[st.MPI_SOURCE], "ANY_SOURCE from %d: got %d, expected %d",
                             st.MPI_SOURCE, v, next[st.MPI_SOURCE]);
                next[st.MPI_SOURCE] = v + 1;
            }
        }
        free(next);
    }

    /* 5. A posted ANY_SOURCE receive and a specific one: the earlier posted
     * wins. Post ANY first, then specific; one message matches ANY. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0) {
        MPI_Request ra, rs;
        int a = -1, s = -1;
        MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &ra);
        MPI_Irecv(&s, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &rs);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&ra, MPI_STATUS_IGNORE);
        MPI_Wait(&rs, MPI_STATUS_IGNORE);
        CHECK_ALL ("posting order: any got %d, specific got %d", a, s) {
            CHECK_EQ_INT(a, 100);
            CHECK_EQ_INT(s, 101);
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (mt_rank == 1) {
            int v = 100;
            MPI_Send(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
            v = 101;
            MPI_Send(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
        }
    }
    return mt_finish("t_order");
}
