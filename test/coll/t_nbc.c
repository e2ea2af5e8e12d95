/* Non-blocking and persistent collectives in company: several outstanding
 * at once and completed out of order; overlapped with point-to-point
 * traffic on the same communicator (wildcard receives must never see
 * collective messages); progressed by MPI_Test while the caller computes;
 * persistent requests started many times, alone and with MPI_Startall,
 * and in a different order on each rank; MPI_Request_free on an active
 * one. */
#include "../p2p/mpitest.h"

#include <stdbool.h>

#define NB 4096

static int val(int rank, int i, int seed)
{
    return rank * 100003 + i * 3 + seed;
}

static void outstanding(int seed)
{
    int n = mt_size, *a = malloc(NB * sizeof(int)), *b = malloc(NB * sizeof(int));
    int *g = malloc((size_t)n * 8 * sizeof(int)), *t = malloc((size_t)n * 8 * sizeof(int));
    int x = mt_rank + 1, y = 0;
    MPI_Request rq[5];

    for (int i = 0; i < NB; i++)
        a[i] = mt_rank == n - 1 ? val(n - 1, i, seed) : -1;
    for (int i = 0; i < n * 8; i++)
        t[i] = val(mt_rank, i, seed);
    MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]);
    MPI_Ibcast(a, NB, MPI_INT, n - 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]);
    MPI_Ialltoall(t, 8, MPI_INT, g, 8, MPI_INT, MPI_COMM_WORLD, &rq[3]);
    MPI_Iallreduce(MPI_IN_PLACE, b, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[4]);
    for (int i = 4; i >= 0; i--)
        MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
    for (int i = 0; i < NB; i++)
        if (a[i] != val(n - 1, i, seed)) {
            CHECK_TRUE(0, "ibcast element %d wrong", i);
            break;
        }
    CHECK_EQ_INT(y, n * (n + 1) / 2, "iallreduce gave %d", y);
    for (int q = 0; q < n; q++)
        for (int i = 0; i < 8; i++)
            CHECK_EQ_INT(g[q * 8 + i], val(q, mt_rank * 8 + i, seed), "ialltoall block %d wrong",
                         q);
    free(a);
    free(b);
    free(g);
    free(t);
}

/* Point-to-point with wildcards racing collectives on MPI_COMM_WORLD. */
static void with_p2p(void)
{
    int n = mt_size, right = (mt_rank + 1) % n, left = (mt_rank - 1 + n) % n;
    int got = -1, msg = mt_rank * 10, sum = 0, one = 1, flag = 0;
    MPI_Request rr, cr, sr;
    MPI_Status st;

    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rr);
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &cr);
    MPI_Isend(&msg, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &sr);
    /* "Compute" while testing: the collective must progress through Test. */
    while (!flag)
        MPI_Test(&cr, &flag, MPI_STATUS_IGNORE);
    MPI_Wait(&rr, &st);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(sum, n, "iallreduce with p2p gave %d", sum);
    CHECK_ALL ("wildcard receive got %d tag %d from %d", got, st.MPI_TAG, st.MPI_SOURCE) {
        CHECK_EQ_INT(got, left * 10);
        CHECK_EQ_INT(st.MPI_TAG, 7);
        CHECK_EQ_INT(st.MPI_SOURCE, left);
    }
    /* A blocking collective between a p2p send and its receive. */
    MPI_Isend(&msg, 1, MPI_INT, right, 8, MPI_COMM_WORLD, &sr);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&got, 1, MPI_INT, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(got, left * 10, "p2p across a barrier got %d", got);
}

static void persistent(void)
{
    int n = mt_size, in = 0, out = 0, root = 0, data[64];
    MPI_Request rq[3];

    MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]);
    MPI_Bcast_init(data, 64, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[2]);
    for (int it = 0; it < 200; it++) {
        in = mt_rank + it;
        MPI_Start(&rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        if (out != n * (n - 1) / 2 + n * it) {
            CHECK_TRUE(0, "persistent allreduce round %d gave %d", it, out);
            break;
        }
    }
    for (int it = 0; it < 50; it++) {
        in = it;
        for (int i = 0; i < 64; i++)
            data[i] = mt_rank == root ? it * 64 + i : -1;
        MPI_Startall(3, rq);
        MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
        CHECK_EQ_INT(out, n * it, "startall allreduce round %d gave %d", it, out);
        for (int i = 0; i < 64; i++)
            if (data[i] != it * 64 + i) {
                CHECK_TRUE(0, "startall bcast round %d element %d wrong", it, i);
                break;
            }
    }
    for (int i = 0; i < 3; i++)
        MPI_Request_free(&rq[i]);
    CHECK_EQ_PTR(rq[0], MPI_REQUEST_NULL, "MPI_Request_free left the handle");
}

/* Persistent collectives are initialised in one order but each rank may
 * start them in its own (MPI 4.1 sec. 6.13): even ranks start the bcast
 * first, odd ranks the allreduce, and a blocking collective started
 * between the inits keeps its place. */
static void persistent_start_order(void)
{
    int n = mt_size, a = -1, in = 0, out = 0, x = 1, y = 0;
    MPI_Request rq[2];

    MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]);
    for (int it = 0; it < 20; it++) {
        int first = (mt_rank + it) % 2;
        a = mt_rank == 0 ? 42 + it : -1;
        in = mt_rank + it;
        MPI_Start(&rq[first]);
        MPI_Start(&rq[1 - first]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        CHECK_EQ_INT(a, 42 + it, "out-of-order start round %d: bcast gave %d", it, a);
        CHECK_EQ_INT(out, n * (n - 1) / 2 + n * it,
                     "out-of-order start round %d: allreduce gave %d", it, out);
    }
    CHECK_EQ_INT(y, n, "allreduce between the inits gave %d", y);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
}

/* A request freed while the collective runs: the operation still
 * completes, which the next collective's result shows. Its buffers are
 * static: nothing tells the caller when the freed one is done with them
 * (MPI 4.1 section 3.7.3), and a blocking collective through the shared
 * segment can return before the freed one's last message arrives. */
static void freed_active(void)
{
    static int x = 1, y = 0;
    int z = 0;
    MPI_Request rq;

    MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    MPI_Request_free(&rq);
    MPI_Allreduce(&x, &z, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_EQ_INT(z, mt_size, "allreduce after a freed iallreduce gave %d", z);
}

/* Progress while blocked in point-to-point: rank 1 sits in MPI_Recv while
 * its Ibarrier must still advance for rank 0 to leave MPI_Wait and send.
 * Needs every blocking loop of the pml to drive rt_progress(). */
static void blocking_progress(void)
{
    int v = 0;
    MPI_Request rq;

    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    if (mt_rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        if (mt_rank == 0)
            MPI_Send(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    }
}

/* MPI_COMM_SELF has its own sequence of collectives. */
static void self_comm(void)
{
    int x = mt_rank, me = mt_rank, y = -1;
    MPI_Request rq;

    MPI_Ibcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD, &rq);
    MPI_Allreduce(&me, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    CHECK_EQ_INT(y, mt_rank, "allreduce on MPI_COMM_SELF gave %d", y);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(x, 0, "ibcast beside a self collective gave %d", x);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (getenv("MT_BLOCKING_PROGRESS") && mt_size > 1)
        for (int i = 0; i < 10; i++)
            blocking_progress();
    self_comm();
    for (int seed = 0; seed < 20; seed++)
        outstanding(seed);
    for (int i = 0; i < 20; i++)
        with_p2p();
    persistent();
    persistent_start_order();
    freed_active();
    return mt_finish("t_nbc");
}
