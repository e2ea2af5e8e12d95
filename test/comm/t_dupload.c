/* Repeated MPI_Comm_dup and MPI_Comm_free, the loop that stalled under CPU
 * contention: every dup is a context-id agreement of two rounds over
 * MPI_COMM_WORLD, a chain of messages each of which waits for its
 * receiver to be scheduled. Every T_DUP_CHECK-th duplicate also carries a
 * message round its ring that the next rank may get before it has made
 * the duplicate itself (the early-message park and replay). Run by the
 * matrix with RDMPI_NOISE (random pauses at sends, arrivals and polls) and
 * by t_dupload.sh beside CPU hogs. */
#include "../p2p/mpitest.h"

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

int main(int argc, char **argv)
{
    int iters, every, result, last_cmp = MPI_CONGRUENT, bad_cmp = 0, bad_data = 0;
    double t0;

    mt_init(&argc, &argv);
    iters = env_int("T_DUP_ITERS", 3000);
    every = env_int("T_DUP_CHECK", 50);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        MPI_Comm c;
        int err = MPI_Comm_dup(MPI_COMM_WORLD, &c);

        if (err != MPI_SUCCESS) {
            CHECK_MPI(err, "MPI_Comm_dup's return");
            break;
        }
        if (i % every == 0) {
            int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
            int out[2] = {i, mt_rank}, in[2] = {-1, -1};

            MPI_Comm_compare(MPI_COMM_WORLD, c, &result);
            if (result != MPI_CONGRUENT && !bad_cmp++)
                last_cmp = result;
            MPI_Sendrecv(out, 2, MPI_INT, next, i, in, 2, MPI_INT, prev, i, c, MPI_STATUS_IGNORE);
            if ((in[0] != i || in[1] != prev) && !bad_data++) {
                CHECK_EQ_INT(in[0], i, "iteration carried by the ring message");
                CHECK_EQ_INT(in[1], prev, "sender carried by the ring message");
            }
        }
        MPI_Comm_free(&c);
        if (c != MPI_COMM_NULL && !bad_cmp++)
            CHECK_TRUE(0, "MPI_Comm_free left the handle set");
    }
    CHECK_EQ_INT(last_cmp, MPI_CONGRUENT, "MPI_Comm_compare(world, dup)");
    CHECK_EQ_INT(bad_cmp, 0, "duplicates not congruent with MPI_COMM_WORLD");
    CHECK_EQ_INT(bad_data, 0, "ring messages with wrong contents");
    if (mt_rank == 0)
        printf("t_dupload: %d duplicates in %.2f s\n", iters, MPI_Wtime() - t0);
    return mt_finish("t_dupload");
}
