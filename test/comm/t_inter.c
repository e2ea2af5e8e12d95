/* Intercommunicators: create from two halves of the world, traffic across
 * (including ANY_SOURCE), dup, merge with and without a high side. */
#include "../p2p/mpitest.h"

static void check_merged(MPI_Comm m, int expect_first_low)
{
    int r, n, half = mt_size / 2, low = mt_rank < half;

    MPI_Comm_size(m, &n);
    MPI_Comm_rank(m, &r);
    int expect = expect_first_low ? mt_rank : (low ? mt_rank + (mt_size - half) : mt_rank - half);
    CHECK_ALL ("merged rank %d expected %d", r, expect) {
        CHECK_EQ_INT(n, mt_size);
        CHECK_EQ_INT(r, expect);
    }
}

int main(int argc, char **argv)
{
    MPI_Comm local, inter, dup, merged;
    int half, low, lr, ls, rs, flag, cmp;

    mt_init(&argc, &argv);
    if (mt_size < 2)
        return mt_finish("t_inter");
    half = mt_size / 2;
    low = mt_rank < half;
    MPI_Comm_split(MPI_COMM_WORLD, low, mt_rank, &local);
    MPI_Comm_rank(local, &lr);
    MPI_Comm_size(local, &ls);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 7, &inter);
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_remote_size(inter, &rs);
    CHECK_ALL ("remote size %d", rs) {
        CHECK_TRUE(flag);
        CHECK_EQ_INT(rs, (low ? mt_size - half : half));
    }
    {
        int n, r;
        MPI_Comm_size(inter, &n);
        MPI_Comm_rank(inter, &r);
        CHECK_ALL ("intercomm local size/rank %d %d", n, r) {
            CHECK_EQ_INT(n, ls);
            CHECK_EQ_INT(r, lr);
        }
    }

    /* Every rank sends its world rank to remote rank 0; remote rank 0
     * receives them all with MPI_ANY_SOURCE and checks the sum and source. */
    {
        MPI_Request q;
        MPI_Isend(&mt_rank, 1, MPI_INT, 0, 11, inter, &q);
        if (lr == 0) {
            int sum = 0, expect = 0;
            for (int i = 0; i < rs; i++) {
                int v;
                MPI_Status st;
                MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 11, inter, &st);
                CHECK_EQ_INT(v, (low ? half : 0) + st.MPI_SOURCE, "source %d sent %d",
                             st.MPI_SOURCE, v);
                sum += v;
                expect += (low ? half : 0) + i;
            }
            CHECK_EQ_INT(sum, expect, "sum over the remote group %d, expected %d", sum, expect);
        }
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    {
        MPI_Group rg, lg;
        MPI_Comm_remote_group(inter, &rg);
        MPI_Comm_group(inter, &lg);
        int in = 0, out;
        MPI_Group_translate_ranks(rg, 1, &in, lg, &out);
        CHECK_EQ_INT(out, MPI_UNDEFINED, "remote and local groups are disjoint");
        MPI_Group_free(&rg);
        MPI_Group_free(&lg);
    }

    /* split: parity of the local rank, reversed by key */
    {
        MPI_Comm sp;
        int col = lr % 2, nl = 0, nr = 0, r, n, m;
        for (int i = 0; i < ls; i++)
            nl += i % 2 == col;
        for (int i = 0; i < rs; i++)
            nr += i % 2 == col;
        MPI_Comm_split(inter, col, -lr, &sp);
        if (!nr) {
            CHECK_EQ_PTR(sp, MPI_COMM_NULL, "split with an empty remote side");
        } else {
            MPI_Comm_size(sp, &n);
            MPI_Comm_rank(sp, &r);
            MPI_Comm_remote_size(sp, &m);
            CHECK_ALL ("inter split: size %d/%d rank %d remote %d/%d", n, nl, r, m, nr) {
                CHECK_EQ_INT(n, nl);
                CHECK_EQ_INT(m, nr);
                CHECK_EQ_INT(r, nl - 1 - lr / 2);
            }
            /* local rank 0 of each side swaps world ranks */
            if (r == 0) {
                int v = -1;
                MPI_Sendrecv(&mt_rank, 1, MPI_INT, 0, 4, &v, 1, MPI_INT, 0, 4, sp,
                             MPI_STATUS_IGNORE);
                CHECK_ALL ("inter split exchange got %d", v) {
                    CHECK_GE_LONG(v, 0);
                    CHECK_NE_INT((v < half), low);
                }
            }
            MPI_Comm_free(&sp);
        }
    }
    /* create: only each side's leader */
    {
        MPI_Group lg, lead;
        MPI_Comm cr;
        int zero = 0, m = -1;
        MPI_Comm_group(inter, &lg);
        MPI_Group_incl(lg, 1, &zero, &lead);
        MPI_Comm_create(inter, lead, &cr);
        if (lr == 0) {
            MPI_Comm_remote_size(cr, &m);
            CHECK_EQ_INT(m, 1, "inter create: remote size %d", m);
            MPI_Comm_free(&cr);
        } else {
            CHECK_EQ_PTR(cr, MPI_COMM_NULL, "inter create: non-member got a communicator");
        }
        MPI_Group_free(&lead);
        MPI_Group_free(&lg);
    }

    MPI_Comm_dup(inter, &dup);
    MPI_Comm_compare(inter, dup, &cmp);
    CHECK_EQ_INT(cmp, MPI_CONGRUENT, "compare(inter, dup) %d", cmp);
    {
        int v = -1, peer = lr < rs ? lr : 0;
        if (lr < rs) {
            /* pairwise exchange with the same rank on the other side */
            MPI_Sendrecv(&mt_rank, 1, MPI_INT, peer, 2, &v, 1, MPI_INT, peer, 2, dup,
                         MPI_STATUS_IGNORE);
            CHECK_EQ_INT(v, (low ? half : 0) + peer, "exchange over the dup got %d", v);
        }
    }

    MPI_Intercomm_merge(inter, !low, &merged);
    check_merged(merged, 1);
    MPI_Comm_free(&merged);
    MPI_Intercomm_merge(dup, low, &merged);
    check_merged(merged, 0);
    MPI_Comm_free(&merged);
    /* equal high: the side whose leader has the lower world rank first */
    MPI_Intercomm_merge(inter, 0, &merged);
    check_merged(merged, 1);
    {
        int s = -1;
        MPI_Allreduce(&mt_rank, &s, 1, MPI_INT, MPI_SUM, merged);
        CHECK_EQ_INT(s, mt_size * (mt_size - 1) / 2, "allreduce on merged %d", s);
    }
    MPI_Comm_free(&merged);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return mt_finish("t_inter");
}
