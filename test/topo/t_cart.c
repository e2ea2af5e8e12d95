/* Cartesian topologies on the grids MPI_Dims_create gives for the world
 * size in 1..3 dimensions (periodic, not, mixed) and on grids that leave
 * ranks out: Cart_get, coords and rank against row-major order computed
 * here, Cart_shift for displacements -3..3 against coordinate arithmetic,
 * Cart_sub for every subset of dimensions, MPI_Comm_dup keeping the
 * topology, a zero-dimensional grid, and a hand-computed 2x3 table. */
#include "../p2p/mpitest.h"

#define MAXD 4

static void ref_coords(int ndims, const int *dims, int r, int *c)
{
    for (int i = ndims - 1; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}

static int ref_rank(int ndims, const int *dims, const int *c)
{
    int r = 0;

    for (int i = 0; i < ndims; i++)
        r = r * dims[i] + c[i];
    return r;
}

static int ref_shift(int ndims, const int *dims, const int *periods, const int *me, int d, int disp)
{
    int c[MAXD];

    for (int i = 0; i < ndims; i++)
        c[i] = me[i];
    c[d] += disp;
    if (periods[d])
        c[d] = ((c[d] % dims[d]) + dims[d]) % dims[d];
    else if (c[d] < 0 || c[d] >= dims[d])
        return MPI_PROC_NULL;
    return ref_rank(ndims, dims, c);
}

static void check_sub(MPI_Comm cart, int ndims, const int *dims, const int *periods, const int *me,
                      int mask)
{
    int remain[MAXD], sdims[MAXD], speriods[MAXD], scoords[MAXD], mine[MAXD];
    int sn = 0, ssize = 1, size, rank, k, t, *world;
    MPI_Comm sub;

    for (int i = 0; i < ndims; i++) {
        remain[i] = (mask >> i) & 1;
        if (remain[i]) {
            sdims[sn] = dims[i];
            speriods[sn] = periods[i];
            mine[sn++] = me[i];
            ssize *= dims[i];
        }
    }
    if (MPI_Cart_sub(cart, remain, &sub) != MPI_SUCCESS) {
        CHECK_TRUE(0, "Cart_sub mask %x failed", mask);
        return;
    }
    MPI_Comm_size(sub, &size);
    MPI_Comm_rank(sub, &rank);
    MPI_Topo_test(sub, &t);
    MPI_Cartdim_get(sub, &k);
    CHECK_ALL ("Cart_sub mask %x: topo %d, %d dims (want %d), size %d (want %d)", mask, t, k, sn,
               size, ssize) {
        CHECK_EQ_INT(t, MPI_CART);
        CHECK_EQ_INT(k, sn);
        CHECK_EQ_INT(size, ssize);
    }
    if (k == sn && sn <= MAXD) {
        int gd[MAXD], gp[MAXD], gc[MAXD];
        MPI_Cart_get(sub, MAXD, gd, gp, gc);
        for (int i = 0; i < sn; i++)
            CHECK_ALL ("Cart_sub mask %x dim %d: (%d,%d,%d) want (%d,%d,%d)", mask, i, gd[i], gp[i],
                       gc[i], sdims[i], speriods[i], mine[i]) {
                CHECK_EQ_INT(gd[i], sdims[i]);
                CHECK_EQ_INT(gp[i], speriods[i]);
                CHECK_EQ_INT(gc[i], mine[i]);
            }
    }
    CHECK_EQ_INT(rank, ref_rank(sn, sdims, mine), "Cart_sub mask %x: rank %d, want %d", mask, rank,
                 ref_rank(sn, sdims, mine));
    /* Every member agrees with us on the dropped coordinates and sits at
     * its own rank's place in the subgrid. */
    world = malloc((size_t)size * sizeof(int));
    MPI_Allgather(&mt_rank, 1, MPI_INT, world, 1, MPI_INT, sub);
    for (int q = 0; q < size; q++) {
        int wc[MAXD], j = 0;
        ref_coords(ndims, dims, world[q], wc);
        ref_coords(sn, sdims, q, scoords);
        for (int i = 0; i < ndims; i++)
            CHECK_TRUE(remain[i] ? wc[i] == scoords[j++] : wc[i] == me[i],
                       "Cart_sub mask %x: member %d (world %d) misplaced in dim %d", mask, q,
                       world[q], i);
    }
    free(world);
    MPI_Comm_free(&sub);
}

static void check_grid(int ndims, const int *dims, const int *periods)
{
    int nnodes = 1, size, rank, t, k, me[MAXD], c[MAXD], gd[MAXD], gp[MAXD];
    MPI_Comm cart, dup;

    for (int i = 0; i < ndims; i++)
        nnodes *= dims[i];
    if (MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &cart) != MPI_SUCCESS) {
        CHECK_TRUE(0, "Cart_create of %d dims failed", ndims);
        return;
    }
    if (mt_rank >= nnodes) {
        CHECK_EQ_PTR(cart, MPI_COMM_NULL, "rank outside a grid of %d got a communicator", nnodes);
        return;
    }
    MPI_Comm_size(cart, &size);
    MPI_Comm_rank(cart, &rank);
    MPI_Topo_test(cart, &t);
    MPI_Cartdim_get(cart, &k);
    CHECK_ALL ("grid of %d: size %d rank %d topo %d ndims %d", nnodes, size, rank, t, k) {
        CHECK_EQ_INT(size, nnodes);
        CHECK_EQ_INT(rank, mt_rank);
        CHECK_EQ_INT(t, MPI_CART);
        CHECK_EQ_INT(k, ndims);
    }
    MPI_Cart_get(cart, MAXD, gd, gp, me);
    ref_coords(ndims, dims, rank, c);
    for (int i = 0; i < ndims; i++)
        CHECK_ALL ("Cart_get dim %d: (%d,%d,%d) want (%d,%d,%d)", i, gd[i], gp[i], me[i], dims[i],
                   !!periods[i], c[i]) {
            CHECK_EQ_INT(gd[i], dims[i]);
            CHECK_EQ_INT(gp[i], !!periods[i]);
            CHECK_EQ_INT(me[i], c[i]);
        }
    for (int r = 0; r < nnodes; r++) {
        int got[MAXD], back = -1;
        MPI_Cart_coords(cart, r, MAXD, got);
        ref_coords(ndims, dims, r, c);
        for (int i = 0; i < ndims; i++)
            CHECK_EQ_INT(got[i], c[i], "Cart_coords(%d)[%d] = %d, want %d", r, i, got[i], c[i]);
        MPI_Cart_rank(cart, c, &back);
        CHECK_EQ_INT(back, r, "Cart_rank(coords of %d) = %d", r, back);
        /* Periodic coordinates wrap, in both directions. */
        for (int i = 0; i < ndims; i++)
            if (periods[i])
                c[i] += (r % 2 ? 3 : -2) * dims[i];
        MPI_Cart_rank(cart, c, &back);
        CHECK_EQ_INT(back, r, "Cart_rank(wrapped coords of %d) = %d", r, back);
    }
    for (int d = 0; d < ndims; d++)
        for (int disp = -3; disp <= 3; disp++) {
            int src, dst, ws = ref_shift(ndims, dims, periods, me, d, -disp),
                          wd = ref_shift(ndims, dims, periods, me, d, disp);
            MPI_Cart_shift(cart, d, disp, &src, &dst);
            CHECK_ALL ("Cart_shift(dim %d, disp %d) = (%d, %d), want (%d, %d)", d, disp, src, dst,
                       ws, wd) {
                CHECK_EQ_INT(src, ws);
                CHECK_EQ_INT(dst, wd);
            }
        }
    for (int mask = 0; mask < (1 << ndims); mask++)
        check_sub(cart, ndims, dims, periods, me, mask);
    MPI_Comm_dup(cart, &dup);
    MPI_Topo_test(dup, &t);
    MPI_Cart_get(dup, MAXD, gd, gp, c);
    CHECK_EQ_INT(t, MPI_CART, "dup of a cart: topo %d", t);
    for (int i = 0; i < ndims; i++)
        CHECK_ALL ("dup of a cart: dim %d differs", i) {
            CHECK_EQ_INT(gd[i], dims[i]);
            CHECK_EQ_INT(c[i], me[i]);
        }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&cart);
}

/* A 2x3 grid, periodic in dimension 0 only, worked out by hand:
 *   0 1 2
 *   3 4 5 */
static void check_2x3(void)
{
    static const int dims[2] = {2, 3}, periods[2] = {1, 0};
    /* per rank: dim 0 (src, dst) and dim 1 (src, dst) for disp 1 */
    static const int want[6][4] = {
        {3, 3, MPI_PROC_NULL, 1}, {4, 4, 0, 2}, {5, 5, 1, MPI_PROC_NULL},
        {0, 0, MPI_PROC_NULL, 4}, {1, 1, 3, 5}, {2, 2, 4, MPI_PROC_NULL},
    };
    MPI_Comm cart;
    int s[4], c[2];

    if (mt_size < 6)
        return;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    if (cart == MPI_COMM_NULL)
        return;
    MPI_Cart_shift(cart, 0, 1, &s[0], &s[1]);
    MPI_Cart_shift(cart, 1, 1, &s[2], &s[3]);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(s[i], want[mt_rank][i], "2x3: shift %d is %d, want %d", i, s[i],
                     want[mt_rank][i]);
    MPI_Cart_shift(cart, 1, -2, &s[0], &s[1]);
    CHECK_ALL ("2x3: shift by -2 is (%d, %d)", s[0], s[1]) {
        CHECK_EQ_INT(s[0], (mt_rank % 3 == 0 ? mt_rank + 2 : MPI_PROC_NULL));
        CHECK_EQ_INT(s[1], (mt_rank % 3 == 2 ? mt_rank - 2 : MPI_PROC_NULL));
    }
    MPI_Cart_coords(cart, 5, 2, c);
    CHECK_ALL ("2x3: coords of 5 are (%d, %d)", c[0], c[1]) {
        CHECK_EQ_INT(c[0], 1);
        CHECK_EQ_INT(c[1], 2);
    }
    MPI_Comm_free(&cart);
}

/* Zero dimensions: one process, no neighbours. */
static void check_zero_dims(void)
{
    MPI_Comm cart;
    int size, k;

    MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart);
    if (mt_rank > 0) {
        CHECK_EQ_PTR(cart, MPI_COMM_NULL, "0-d grid: rank %d got a communicator", mt_rank);
        return;
    }
    MPI_Comm_size(cart, &size);
    MPI_Cartdim_get(cart, &k);
    CHECK_ALL ("0-d grid: size %d, %d dims", size, k) {
        CHECK_EQ_INT(size, 1);
        CHECK_EQ_INT(k, 0);
    }
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv)
{
    static const int patterns[3][MAXD] = {{0, 0, 0}, {1, 1, 1}, {1, 0, 1}};
    int n, dims[MAXD], periods[MAXD];

    mt_init(&argc, &argv);
    n = mt_size;
    for (int k = 1; k <= 3; k++)
        for (int p = 0; p < 3; p++) {
            for (int i = 0; i < k; i++) {
                dims[i] = 0;
                periods[i] = patterns[p][i];
            }
            MPI_Dims_create(n, k, dims);
            check_grid(k, dims, periods);
        }
    /* Extents of 1, and grids that leave ranks out. */
    dims[0] = 1, dims[1] = n, periods[0] = 1, periods[1] = 1;
    check_grid(2, dims, periods);
    dims[0] = n, dims[1] = 1, periods[0] = 0, periods[1] = 1;
    check_grid(2, dims, periods);
    dims[0] = (n + 1) / 2, periods[0] = 1;
    check_grid(1, dims, periods);
    dims[0] = 1, dims[1] = n > 1 ? n - 1 : 1, dims[2] = 1, periods[1] = 0, periods[2] = 1;
    check_grid(3, dims, periods);
    check_2x3();
    check_zero_dims();
    return mt_finish("t_cart");
}
