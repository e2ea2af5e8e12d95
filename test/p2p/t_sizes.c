/* Sizes on both sides of every threshold, blocking and immediate, between
 * rank 0 and every other rank (and itself), every byte checked. */
#include "mpitest.h"

static void exchange(int peer, size_t n, unsigned seed, int use_isend)
{
    char *out = malloc(n + 1), *in = malloc(n + 1);
    MPI_Status st;
    int count;

    mt_fill(out, n, seed);
    memset(in, 0xee, n + 1);
    if (use_isend) {
        MPI_Request rq[2];
        MPI_Irecv(in, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(out, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        st.MPI_SOURCE = peer;
        st.MPI_TAG = 5;
        st.rdmpi_count = (long long)n;
    } else if (mt_rank < peer || peer == mt_rank) {
        if (peer == mt_rank) {
            MPI_Request rq;
            MPI_Isend(out, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &rq);
            MPI_Recv(in, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &st);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(out, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
            MPI_Recv(in, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &st);
        }
    } else {
        MPI_Recv(in, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &st);
        MPI_Send(out, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
    }
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_EQ_INT(count, (int)n, "size %zu from %d: count %d", n, peer, count);
    CHECK_ALL ("size %zu: status source %d tag %d", n, st.MPI_SOURCE, st.MPI_TAG) {
        CHECK_EQ_INT(st.MPI_SOURCE, peer);
        CHECK_EQ_INT(st.MPI_TAG, 5);
    }
    size_t bad = mt_verify(in, n, seed);
    CHECK_TRUE(!bad, "size %zu from %d (%s): byte %zu wrong", n, peer, use_isend ? "isend" : "send",
               bad - 1);
    CHECK_EQ_INT((unsigned char)in[n], 0xee, "size %zu: wrote past the end", n);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    static const size_t base[] = {0,    1,    7,     8,     64,     1000,    1024,   2048,
                                  4096, 8192, 16384, 65536, 262144, 1048576, 4194304};
    size_t sizes[64];
    int n = 0;
    const char *big = getenv("MT_BIG");

    mt_init(&argc, &argv);
    /* Each threshold and its neighbours: fast box (1 KiB), eager (4 KiB),
     * chunk sizes, then 64 MiB when asked. */
    for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
        sizes[n++] = base[i];
        if (base[i] >= 1024) {
            sizes[n++] = base[i] - 1;
            sizes[n++] = base[i] + 1;
        }
    }
    if (big && *big == '1')
        sizes[n++] = 64u << 20;
    for (int i = 0; i < n; i++) {
        for (int peer = 0; peer < mt_size; peer++) {
            unsigned seed = (unsigned)(i * 31 + peer);
            if (mt_rank == 0 && peer != 0) {
                exchange(peer, sizes[i], seed, i & 1);
            } else if (mt_rank == peer && peer != 0) {
                exchange(0, sizes[i], seed, i & 1);
            } else if (mt_rank == 0 && peer == 0) {
                exchange(0, sizes[i], seed, 0);
            }
        }
    }
    return mt_finish("t_sizes");
}
