/* Bad arguments to collectives return the right class under
 * MPI_ERRORS_RETURN with a message naming the function and the problem;
 * counts that differ across ranks are caught where a message arrives
 * longer or shorter than expected; the communicator works afterwards. */
#include "../p2p/mpitest.h"

static void expect(int rc, int cls, const char *what, const char *needle)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, c = -1;

    MPI_Error_class(rc, &c);
    CHECK_EQ_INT(c, cls, "%s: class %d, expected %d", what, c, cls);
    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, msg, &len);
    CHECK_NE_PTR(strstr(msg, needle), NULL, "%s: message '%s' lacks '%s'", what, msg, needle);
}

/* The v and w forms check each send block against each receive block: an
 * overlap is MPI_ERR_BUFFER before any message moves; blocks interleaved
 * in one array without touching are legal and deliver. counts[i] = 1 and
 * displs[i] = i on entry. */
static void alias_v(int *counts, int *displs)
{
    int n = mt_size, b[128], sd[64], rd[64], bd[64];
    MPI_Datatype t[64];

    for (int i = 0; i < n; i++)
        t[i] = MPI_INT, bd[i] = i * (int)sizeof(int), b[2 * i] = mt_rank * 100 + i;
    if (mt_rank == 0) {
        expect(MPI_Gatherv(b, 1, MPI_INT, b, counts, displs, MPI_INT, 0, MPI_COMM_WORLD),
               MPI_ERR_BUFFER, "aliased gatherv", "overlaps receive block 0");
        expect(MPI_Scatterv(b, counts, displs, MPI_INT, b + n - 1, 1, MPI_INT, 0, MPI_COMM_WORLD),
               MPI_ERR_BUFFER, "aliased scatterv", "MPI_Scatterv: send block");
    }
    expect(MPI_Allgatherv(b + n - 1, 1, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "aliased allgatherv", "MPI_Allgatherv: send block 0 overlaps");
    expect(MPI_Alltoallv(b, counts, displs, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "aliased alltoallv", "may not overlap");
    expect(MPI_Alltoallw(b, counts, bd, t, b, counts, bd, t, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "aliased alltoallw", "MPI_Alltoallw: send block");
    /* Even slots out, odd slots in: the hulls overlap, no block does. */
    for (int i = 0; i < n; i++)
        sd[i] = 2 * i, rd[i] = 2 * i + 1;
    expect(MPI_Alltoallv(b, counts, sd, MPI_INT, b, counts, rd, MPI_INT, MPI_COMM_WORLD),
           MPI_SUCCESS, "interleaved alltoallv", "");
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(b[2 * i + 1], i * 100 + mt_rank, "interleaved alltoallv: slot %d holds %d", i,
                     b[2 * i + 1]);
}

static void local_checks(void)
{
    int n = mt_size, v[8] = {0}, w[8] = {0}, counts[64], displs[64];
    float f = 1;
    MPI_Request rq;

    expect(MPI_Bcast(v, 1, MPI_INT, n, MPI_COMM_WORLD), MPI_ERR_ROOT, "bcast root n",
           "MPI_Bcast: root is");
    expect(MPI_Ibcast(v, 1, MPI_INT, -1, MPI_COMM_WORLD, &rq), MPI_ERR_ROOT, "ibcast root -1",
           "MPI_Ibcast: root is -1");
    expect(MPI_Reduce(v, w, 1, MPI_INT, MPI_SUM, n + 2, MPI_COMM_WORLD), MPI_ERR_ROOT,
           "reduce root", "root");
    expect(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "bcast in place",
           "MPI_IN_PLACE");
    expect(MPI_Allreduce(v, w, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP, "op null",
           "MPI_OP_NULL");
    expect(MPI_Allreduce(&f, w, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP,
           "band on float", "MPI_BAND on datatype MPI_FLOAT");
    expect(MPI_Allreduce(v, w, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP, "maxloc on int",
           "MPI_MAXLOC");
    expect(MPI_Reduce_local(v, w, 1, MPI_DOUBLE_INT, MPI_SUM), MPI_ERR_OP, "sum on pair",
           "MPI_Reduce_local: MPI_SUM");
    expect(MPI_Allreduce(v, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "aliased allreduce", "pass MPI_IN_PLACE");
    expect(MPI_Allgather(v, 1, MPI_INT, v, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "aliased allgather", "overlap");
    expect(MPI_Allreduce(v, w, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "negative count", "count is -1");
    expect(MPI_Allreduce(v, w, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "null type", "MPI_DATATYPE_NULL");
    expect(MPI_Allreduce(NULL, w, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "null buffer", "NULL");
    expect(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "null comm", "MPI_COMM_NULL");
    expect(MPI_Ibarrier(MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST, "null request", "request");
    if (mt_rank != 0)
        expect(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, v, 1, MPI_INT, 0, MPI_COMM_WORLD),
               MPI_ERR_BUFFER, "gather in place off root", "only the root");
    for (int i = 0; i < n && i < 64; i++)
        counts[i] = 1, displs[i] = i;
    counts[n - 1] = -3;
    if (mt_rank == 0 && n <= 64)
        expect(MPI_Gatherv(v, 1, MPI_INT, w, counts, displs, MPI_INT, 0, MPI_COMM_WORLD),
               MPI_ERR_COUNT, "gatherv negative count", "recvcounts[");
    counts[n - 1] = 1;
    expect(MPI_Alltoallv(v, NULL, displs, MPI_INT, w, counts, displs, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_ARG, "alltoallv null counts", "NULL");
    if (n <= 64)
        alias_v(counts, displs);
}

/* Ranks that disagree on counts: the receiver of a longer message sees
 * MPI_ERR_TRUNCATE, of a shorter one MPI_ERR_NOT_SAME. */
static void mismatch(void)
{
    int n = mt_size, v[64] = {0}, *g = calloc((size_t)n * 64, sizeof(int)), rc, cls;
    int *sc = malloc((size_t)n * 4 * sizeof(int)), *sd = sc + n, *rn = sd + n, *rd = rn + n;
    MPI_Comm c;

    if (n < 2)
        goto out;
    /* Rank 1 sends 4 ints where the root (0) expects 2. */
    rc = MPI_Gather(v, mt_rank == 1 ? 4 : 2, MPI_INT, g, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (mt_rank == 0)
        expect(rc, MPI_ERR_TRUNCATE, "gather longer", "counts or datatypes differ");
    /* Rank 1 sends 1 int where the root expects 2. */
    rc = MPI_Gather(v, mt_rank == 1 ? 1 : 2, MPI_INT, g, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (mt_rank == 0)
        expect(rc, MPI_ERR_NOT_SAME, "gather shorter", "where this rank expected");
    /* The root broadcasts 8 ints, rank 1 expects 16. */
    rc = MPI_Bcast(v, mt_rank == 1 ? 16 : 8, MPI_INT, 0, MPI_COMM_WORLD);
    if (mt_rank == 1)
        expect(rc, MPI_ERR_NOT_SAME, "bcast shorter", "sent 32 bytes");
    /* The root broadcasts 16 ints, the others expect 4: every other rank
     * fails, also those below a rank that failed first in a tree (the
     * matrix runs this with the binomial tree forced too). */
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    rc = MPI_Bcast(v, mt_rank == 0 ? 16 : 4, MPI_INT, 0, c);
    MPI_Error_class(rc, &cls);
    CHECK_TRUE(mt_rank == 0 || cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_NOT_SAME,
               "bcast longer at the root: rank %d got class %d", mt_rank, cls);
    MPI_Comm_free(&c);
    /* Alltoallv through the shared segment (a communicator's first 16
     * blocking collectives go by messages): rank 1's block for rank 0 is 4
     * ints, then 1, where rank 0 expects 2. */
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    for (int i = 0; i < 16; i++)
        MPI_Barrier(c);
    for (int i = 0; i < n; i++)
        sc[i] = rn[i] = 2, sd[i] = 0, rd[i] = 4 * i;
    for (int len = 4; len > 0; len -= 3) {
        sc[0] = mt_rank == 1 ? len : 2;
        rc = MPI_Alltoallv(v, sc, sd, MPI_INT, g, rn, rd, MPI_INT, c);
        if (mt_rank == 0)
            expect(rc, len > 2 ? MPI_ERR_TRUNCATE : MPI_ERR_NOT_SAME,
                   len > 2 ? "alltoallv longer" : "alltoallv shorter", "rank 1 sent");
    }
    MPI_Comm_free(&c);
out:
    /* Still usable. */
    rc = MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_MPI(rc, "allreduce after the errors failed");
    free(g);
    free(sc);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    local_checks();
    mismatch();
    return mt_finish("t_badinput");
}
