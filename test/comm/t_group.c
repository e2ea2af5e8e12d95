/* Group operations against hand-computed member lists (from the world
 * group of the job; run at several sizes). */
#include "../p2p/mpitest.h"

/* The world ranks of g, via translate_ranks. */
static void members(MPI_Group g, MPI_Group wg, int *out, int *n)
{
    int in[64];

    MPI_Group_size(g, n);
    for (int i = 0; i < *n; i++)
        in[i] = i;
    MPI_Group_translate_ranks(g, *n, in, wg, out);
}

static int same(const int *a, int na, const int *b, int nb)
{
    return na == nb && !memcmp(a, b, (size_t)na * sizeof(int));
}

int main(int argc, char **argv)
{
    MPI_Group wg, a, b, g;
    int m[64], n, r, cmp, cls, err;
    int evens[32], ne = 0, odds[32], no = 0, rev[64];

    mt_init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < mt_size; i++) {
        if (i % 2)
            odds[no++] = i;
        else
            evens[ne++] = i;
        rev[i] = mt_size - 1 - i;
    }
    MPI_Group_size(wg, &n);
    MPI_Group_rank(wg, &r);
    CHECK_ALL ("world group %d %d", n, r) {
        CHECK_EQ_INT(n, mt_size);
        CHECK_EQ_INT(r, mt_rank);
    }

    MPI_Group_incl(wg, ne, evens, &a);
    MPI_Group_excl(wg, ne, evens, &b);
    members(a, wg, m, &n);
    CHECK_TRUE(same(m, n, evens, ne), "incl evens");
    members(b, wg, m, &n);
    CHECK_TRUE(same(m, n, odds, no), "excl evens = odds");
    MPI_Group_rank(a, &r);
    CHECK_EQ_INT(r, (mt_rank % 2 ? MPI_UNDEFINED : mt_rank / 2), "rank in evens %d", r);

    MPI_Group_union(b, a, &g); /* odds then evens */
    members(g, wg, m, &n);
    CHECK_ALL ("union order") {
        CHECK_EQ_INT(n, mt_size);
        CHECK_TRUE(same(m, no, odds, no));
        CHECK_TRUE(same(m + no, ne, evens, ne));
    }
    MPI_Group_compare(g, wg, &cmp);
    CHECK_EQ_INT(cmp, (mt_size > 1 ? MPI_SIMILAR : MPI_IDENT), "compare(union, world) %d", cmp);
    MPI_Group_free(&g);

    MPI_Group_intersection(wg, a, &g);
    members(g, wg, m, &n);
    CHECK_TRUE(same(m, n, evens, ne), "intersection");
    MPI_Group_compare(g, a, &cmp);
    CHECK_EQ_INT(cmp, MPI_IDENT, "compare(intersection, evens) %d", cmp);
    MPI_Group_free(&g);

    MPI_Group_difference(a, wg, &g);
    CHECK_EQ_PTR(g, MPI_GROUP_EMPTY, "difference with a superset is MPI_GROUP_EMPTY");
    MPI_Group_size(g, &n);
    CHECK_EQ_INT(n, 0, "empty size %d", n);
    MPI_Group_free(&g);

    MPI_Group_incl(wg, mt_size, rev, &g);
    members(g, wg, m, &n);
    CHECK_TRUE(same(m, n, rev, mt_size), "incl reversed");
    MPI_Group_free(&g);
    {
        int ranges[1][3] = {{mt_size - 1, 0, -1}};
        MPI_Group_range_incl(wg, 1, ranges, &g);
        members(g, wg, m, &n);
        CHECK_TRUE(same(m, n, rev, mt_size), "range_incl with negative stride");
        MPI_Group_free(&g);
        int ev[1][3] = {{0, mt_size - 1, 2}};
        MPI_Group_range_excl(wg, 1, ev, &g);
        members(g, wg, m, &n);
        CHECK_TRUE(same(m, n, odds, no), "range_excl evens");
        MPI_Group_free(&g);
    }
    {
        int in[2] = {0, MPI_PROC_NULL}, out[2];
        MPI_Group_translate_ranks(wg, 2, in, b, out);
        CHECK_ALL ("translate %d %d", out[0], out[1]) {
            CHECK_EQ_INT(out[0], MPI_UNDEFINED);
            CHECK_EQ_INT(out[1], MPI_PROC_NULL);
        }
    }

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    {
        int dup[2] = {0, 0};
        err = MPI_Group_incl(wg, 2, dup, &g);
        MPI_Error_class(err, &cls);
        CHECK_TRUE(mt_size < 2 || cls == MPI_ERR_RANK || cls == MPI_ERR_ARG,
                   "incl with a repeated rank: class %d", cls);
        int bad[1] = {mt_size};
        err = MPI_Group_incl(wg, 1, bad, &g);
        MPI_Error_class(err, &cls);
        CHECK_EQ_INT(cls, MPI_ERR_RANK, "incl with an out-of-range rank: class %d", cls);
        g = MPI_GROUP_NULL;
        err = MPI_Group_size(g, &n);
        MPI_Error_class(err, &cls);
        CHECK_EQ_INT(cls, MPI_ERR_GROUP, "size of MPI_GROUP_NULL: class %d", cls);
    }
    MPI_Group_free(&a);
    MPI_Group_free(&b);
    MPI_Group_free(&wg);
    return mt_finish("t_group");
}
