/* Non-overtaking order where the transport does overtake: each round rank
 * 0 sends one large eager message and small ones behind it, to posted
 * receives (even rounds) and to receives posted after a barrier (odd
 * rounds, unexpected). ofi_rxm completes a message above its own eager
 * size (~16 KiB) after the small ones behind it, and btl/ofi delivers as
 * the provider completes: the pml's sequence numbers must restore the
 * order. Rank 1 reports the pml's rdmpi_pml_ooo_msgs counter; with
 * MT_EXPECT_OOO=1 (tcp;ofi_rxm) it must have counted arrivals ahead of
 * their turn, which shows the out-of-order path is the one in use. */
#include "mpitest.h"

#define BIG    (32 << 10) /* above rxm's eager size, below btl/ofi's over tcp */
#define SMALL  8
#define K      8 /* small messages behind the large one */
#define ROUNDS 40

static unsigned long long ooo_msgs(void)
{
    static MPI_T_pvar_session s;
    static MPI_T_pvar_handle h;
    static int ready;
    unsigned long long v = 0;
    int idx, count, provided;

    if (!ready) {
        if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS ||
            MPI_T_pvar_get_index("rdmpi_pml_ooo_msgs", MPI_T_PVAR_CLASS_COUNTER, &idx) !=
                MPI_SUCCESS ||
            MPI_T_pvar_session_create(&s) != MPI_SUCCESS ||
            MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count) != MPI_SUCCESS) {
            CHECK_TRUE(0, "MPI_T counter rdmpi_pml_ooo_msgs");
            return 0;
        }
        ready = 1;
    }
    MPI_T_pvar_read(s, h, &v);
    return v;
}

static void send_round(int round, char *buf)
{
    MPI_Request rq[K + 1];

    for (int j = 0; j <= K; j++) {
        size_t n = j ? SMALL : BIG;

        mt_fill(buf + (size_t)j * BIG, n, (unsigned)(round * 100 + j));
        MPI_Isend(buf + (size_t)j * BIG, (int)n, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &rq[j]);
    }
    if (round & 1)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Waitall(K + 1, rq, MPI_STATUSES_IGNORE);
}

static void recv_round(int round, char *buf)
{
    MPI_Request rq[K + 1];
    MPI_Status st[K + 1];

    if (round & 1)
        MPI_Barrier(MPI_COMM_WORLD);
    for (int j = 0; j <= K; j++)
        MPI_Irecv(buf + (size_t)j * BIG, BIG, MPI_BYTE, j & 1 ? MPI_ANY_SOURCE : 0, 5,
                  MPI_COMM_WORLD, &rq[j]);
    MPI_Waitall(K + 1, rq, st);
    for (int j = 0; j <= K; j++) {
        int n = -1;

        MPI_Get_count(&st[j], MPI_BYTE, &n);
        CHECK_EQ_INT(n, j ? SMALL : BIG, "round %d, receive %d: size", round, j);
        CHECK_EQ_SIZE(mt_verify(buf + (size_t)j * BIG, (size_t)n, (unsigned)(round * 100 + j)), 0,
                      "round %d, receive %d: the message sent %d-th", round, j, j);
    }
}

int main(int argc, char **argv)
{
    char *buf = malloc((size_t)(K + 1) * BIG);
    unsigned long long before = 0;

    mt_init(&argc, &argv);
    if (mt_size != 2) {
        printf("t_overtake: needs 2 ranks, skipped\n");
        MPI_Finalize();
        return 0;
    }
    if (mt_rank == 1)
        before = ooo_msgs();
    for (int round = 0; round < ROUNDS; round++) {
        if (mt_rank == 0)
            send_round(round, buf);
        else
            recv_round(round, buf);
    }
    if (mt_rank == 1) {
        unsigned long long ooo = ooo_msgs() - before;
        const char *want = getenv("MT_EXPECT_OOO");

        printf("t_overtake: %d rounds, %llu arrivals ahead of their turn\n", ROUNDS, ooo);
        if (want && atoi(want))
            CHECK_GT_LONG((long)ooo, 0, "the pml's out-of-order path ran");
        MPI_T_finalize();
    }
    free(buf);
    return mt_finish("t_overtake");
}
