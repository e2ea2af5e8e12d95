/* MPI_Dims_create against a hand-computed table and, for every nnodes up
 * to 400 and 1..4 dimensions, against a brute-force search for the most
 * balanced split; MPI_Cart_map and MPI_Graph_map, which need no new
 * communicator. */
#include "../p2p/mpitest.h"

struct row {
    int nnodes, ndims, in[4], out[4], err;
};

static const struct row table[] = {
    {6, 2, {0, 0}, {3, 2}, MPI_SUCCESS},
    {7, 2, {0, 0}, {7, 1}, MPI_SUCCESS},
    {6, 3, {0, 3, 0}, {2, 3, 1}, MPI_SUCCESS},
    {7, 3, {0, 3, 0}, {0}, MPI_ERR_DIMS},
    {1, 3, {0, 0, 0}, {1, 1, 1}, MPI_SUCCESS},
    {2, 3, {0, 0, 0}, {2, 1, 1}, MPI_SUCCESS},
    {8, 3, {0, 0, 0}, {2, 2, 2}, MPI_SUCCESS},
    {12, 2, {0, 0}, {4, 3}, MPI_SUCCESS},
    {16, 3, {0, 0, 0}, {4, 2, 2}, MPI_SUCCESS},
    {24, 3, {0, 0, 0}, {4, 3, 2}, MPI_SUCCESS},
    {30, 2, {0, 0}, {6, 5}, MPI_SUCCESS},
    {36, 2, {0, 0}, {6, 6}, MPI_SUCCESS},
    {60, 3, {0, 0, 0}, {5, 4, 3}, MPI_SUCCESS},
    {64, 4, {0, 0, 0, 0}, {4, 4, 2, 2}, MPI_SUCCESS},
    {100, 3, {0, 0, 0}, {5, 5, 4}, MPI_SUCCESS},
    {9, 2, {0, 3}, {3, 3}, MPI_SUCCESS},
    {12, 3, {2, 0, 0}, {2, 3, 2}, MPI_SUCCESS},
    {12, 3, {0, 2, 0}, {3, 2, 2}, MPI_SUCCESS},
    {12, 2, {3, 4}, {3, 4}, MPI_SUCCESS},
    {12, 2, {3, 5}, {0}, MPI_ERR_DIMS},
    {12, 2, {5, 0}, {0}, MPI_ERR_DIMS},
    {12, 2, {24, 0}, {0}, MPI_ERR_DIMS},
    {10, 1, {0}, {10}, MPI_SUCCESS},
    {1, 0, {0}, {0}, MPI_SUCCESS},
    {5, 0, {0}, {0}, MPI_ERR_DIMS},
    {0, 2, {0, 0}, {0}, MPI_ERR_ARG},
    {-3, 2, {0, 0}, {0}, MPI_ERR_ARG},
    {4, -1, {0}, {0}, MPI_ERR_DIMS},
    {4, 2, {-1, 0}, {0}, MPI_ERR_DIMS},
    {2147483647, 2, {0, 0}, {2147483647, 1}, MPI_SUCCESS},
    {1 << 30, 2, {0, 0}, {1 << 15, 1 << 15}, MPI_SUCCESS},
};

static void check_table(void)
{
    for (size_t r = 0; r < sizeof(table) / sizeof(table[0]); r++) {
        const struct row *t = &table[r];
        int d[4] = {0}, rc, cls;

        for (int i = 0; i < t->ndims; i++)
            d[i] = t->in[i];
        rc = MPI_Dims_create(t->nnodes, t->ndims, d);
        MPI_Error_class(rc, &cls);
        CHECK_EQ_INT(cls, t->err, "Dims_create(%d, %d): class %d, expected %d", t->nnodes, t->ndims,
                     cls, t->err);
        if (rc != MPI_SUCCESS || t->err != MPI_SUCCESS)
            continue;
        for (int i = 0; i < t->ndims; i++)
            CHECK_EQ_INT(d[i], t->out[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d",
                         t->nnodes, t->ndims, i, d[i], t->out[i]);
    }
    CHECK_NE_INT(MPI_Dims_create(4, 2, NULL), MPI_SUCCESS, "Dims_create with NULL dims");
}

/* The smallest max - min over all non-increasing factorizations of n
 * into k factors each <= maxf. */
static int brute(int n, int k, int maxf, int first)
{
    int best = 1 << 30;

    if (k == 1)
        return n <= maxf ? (first ? first : n) - n : best;
    for (int d = maxf < n ? maxf : n; d >= 1; d--) {
        int s;
        if (n % d)
            continue;
        s = brute(n / d, k - 1, d, first ? first : d);
        if (s < best)
            best = s;
    }
    return best;
}

static void check_balanced(void)
{
    for (int n = 1; n <= 400; n++)
        for (int k = 1; k <= 4; k++) {
            int d[4] = {0}, p = 1;

            if (MPI_Dims_create(n, k, d) != MPI_SUCCESS) {
                CHECK_TRUE(0, "Dims_create(%d, %d) failed", n, k);
                continue;
            }
            for (int i = 0; i < k; i++) {
                p *= d[i];
                CHECK_TRUE(i == 0 || d[i] <= d[i - 1], "Dims_create(%d, %d): increasing", n, k);
            }
            CHECK_EQ_INT(p, n, "Dims_create(%d, %d): product %d", n, k, p);
            CHECK_EQ_INT(d[0] - d[k - 1], brute(n, k, n, 0),
                         "Dims_create(%d, %d): spread %d, best is %d", n, k, d[0] - d[k - 1],
                         brute(n, k, n, 0));
        }
}

static void check_maps(void)
{
    int n = mt_size, r, dims[3], periods[3] = {1, 0, 1}, index[8], edges[16];

    dims[0] = n;
    MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &r);
    CHECK_EQ_INT(r, mt_rank, "Cart_map over all ranks: %d", r);
    dims[0] = 1;
    dims[1] = (n + 1) / 2;
    dims[2] = 1;
    MPI_Cart_map(MPI_COMM_WORLD, 3, dims, periods, &r);
    CHECK_EQ_INT(r, (mt_rank < dims[1] ? mt_rank : MPI_UNDEFINED), "Cart_map on %d: %d", dims[1],
                 r);
    MPI_Cart_map(MPI_COMM_WORLD, 0, NULL, NULL, &r);
    CHECK_EQ_INT(r, (mt_rank == 0 ? 0 : MPI_UNDEFINED), "Cart_map of 0 dims: %d", r);
    for (int i = 0; i < n - 1 && i < 8; i++) {
        index[i] = i + 1;
        edges[i] = i;
    }
    MPI_Graph_map(MPI_COMM_WORLD, n - 1, index, edges, &r);
    CHECK_EQ_INT(r, (mt_rank < n - 1 ? mt_rank : MPI_UNDEFINED), "Graph_map on %d: %d", n - 1, r);
    MPI_Topo_test(MPI_COMM_WORLD, &r);
    CHECK_EQ_INT(r, MPI_UNDEFINED, "Topo_test(MPI_COMM_WORLD) is %d", r);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_table();
    if (mt_rank == 0)
        check_balanced();
    check_maps();
    return mt_finish("t_dims");
}
