/* MPI_Group_*: queries and set operations. Errors not tied to a
 * communicator are raised on MPI_COMM_SELF (MPI-4.1 9.3). */
#include "comm.h"

#include <stdlib.h>
#include <string.h>

#define GERR(cls, fn, ...) rdmpi_err_comm(MPI_COMM_SELF, cls, fn, __VA_ARGS__)

static struct rdmpi_group *check_group(MPI_Group h, const char *fn, const char *arg, int *err)
{
    struct rdmpi_group *g = rt_group_get(h);

    if (!g)
        *err = GERR(MPI_ERR_GROUP, fn,
                    "%s is %s; pass a group from MPI_Comm_group or a "
                    "group constructor",
                    arg,
                    h == MPI_GROUP_NULL ? "MPI_GROUP_NULL"
                                        : "not a valid group (freed, or not a group handle)");
    return g;
}

/* world rank -> rank in g, or -1; the caller frees it. */
static int *rank_table(const struct rdmpi_group *g)
{
    int *t = malloc(((size_t)rt.size + 1) * sizeof(int));

    if (!t)
        return NULL;
    for (int i = 0; i < rt.size; i++)
        t[i] = -1;
    for (int i = 0; i < g->size; i++)
        t[g->world[i]] = i;
    return t;
}

/* A group made from others keeps the session of the first (MPI-4.1:
 * communicators from it are derived from that session). */
static int new_group(const int *world, int n, MPI_Session session, MPI_Group *out, const char *fn)
{
    struct rdmpi_group *g = rt_group_new(world, n);

    if (!g)
        return GERR(MPI_ERR_NO_MEM, fn, "out of memory for a group of %d", n);
    *out = rt_group_handle(g);
    if (*out != MPI_GROUP_EMPTY)
        g->session = session;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int *size)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Group_size";
    struct rdmpi_group *g;
    int err;

    RT_CHECK_INIT(fn);
    if (!(g = check_group(group, fn, "group", &err)))
        return err;
    if (!size)
        return GERR(MPI_ERR_ARG, fn, "size is NULL; pass the address of an int");
    *size = g->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int *rank)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Group_rank";
    struct rdmpi_group *g;
    int err;

    RT_CHECK_INIT(fn);
    if (!(g = check_group(group, fn, "group", &err)))
        return err;
    if (!rank)
        return GERR(MPI_ERR_ARG, fn, "rank is NULL; pass the address of an int");
    *rank = g->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group *group)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Group_free";
    struct rdmpi_group *g;
    int err;

    RT_CHECK_INIT(fn);
    if (!group)
        return GERR(MPI_ERR_ARG, fn, "group is NULL; pass the address of a group handle");
    if (!(g = check_group(*group, fn, "*group", &err)))
        return err;
    rt_group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Group_translate_ranks";
    struct rdmpi_group *g1, *g2;
    int err, *t;

    RT_CHECK_INIT(fn);
    if (!(g1 = check_group(group1, fn, "group1", &err)) ||
        !(g2 = check_group(group2, fn, "group2", &err)))
        return err;
    if (n < 0)
        return GERR(MPI_ERR_ARG, fn, "n is %d; it must not be negative", n);
    if (n > 0 && (!ranks1 || !ranks2))
        return GERR(MPI_ERR_ARG, fn, "ranks1 or ranks2 is NULL with n = %d", n);
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return GERR(MPI_ERR_RANK, fn, "ranks1[%d] is %d, outside group1 of size %d", i,
                        ranks1[i], g1->size);
    if (!(t = rank_table(g2)))
        return GERR(MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < n; i++) {
        int r = ranks1[i] == MPI_PROC_NULL ? -2 : t[g1->world[ranks1[i]]];
        ranks2[i] = r == -2 ? MPI_PROC_NULL : r < 0 ? MPI_UNDEFINED : r;
    }
    free(t);
    return MPI_SUCCESS;
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Group_compare";
    struct rdmpi_group *g1, *g2;
    int err, *t, same = 1;

    RT_CHECK_INIT(fn);
    if (!(g1 = check_group(group1, fn, "group1", &err)) ||
        !(g2 = check_group(group2, fn, "group2", &err)))
        return err;
    if (!result)
        return GERR(MPI_ERR_ARG, fn, "result is NULL; pass the address of an int");
    if (g1->size != g2->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (!(t = rank_table(g2)))
        return GERR(MPI_ERR_NO_MEM, fn, "out of memory");
    *result = MPI_IDENT;
    for (int i = 0; i < g1->size && same; i++) {
        int r = t[g1->world[i]];
        if (r < 0)
            same = 0;
        else if (r != i)
            *result = MPI_SIMILAR;
    }
    if (!same)
        *result = MPI_UNEQUAL;
    free(t);
    return MPI_SUCCESS;
}

enum setop { UNION, INTERSECTION, DIFFERENCE };

static int set_op(MPI_Group group1, MPI_Group group2, MPI_Group *out, enum setop op, const char *fn)
{
    struct rdmpi_group *g1, *g2;
    int err, *t, *w, n = 0;

    RT_CHECK_INIT(fn);
    if (!(g1 = check_group(group1, fn, "group1", &err)) ||
        !(g2 = check_group(group2, fn, "group2", &err)))
        return err;
    if (!out)
        return GERR(MPI_ERR_ARG, fn, "newgroup is NULL; pass the address of a group handle");
    t = rank_table(g2);
    w = malloc(((size_t)g1->size + (size_t)g2->size + 1) * sizeof(int));
    if (!t || !w) {
        free(t);
        free(w);
        return GERR(MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < g1->size; i++) {
        int in2 = t[g1->world[i]] >= 0;
        if (op == UNION || (op == INTERSECTION) == in2)
            w[n++] = g1->world[i];
    }
    if (op == UNION) {
        /* g2's members not in g1, in g2's order: reuse t as "in g1". */
        for (int i = 0; i < g2->size; i++)
            t[g2->world[i]] = -1;
        for (int i = 0; i < g1->size; i++)
            t[g1->world[i]] = i;
        for (int i = 0; i < g2->size; i++)
            if (t[g2->world[i]] < 0)
                w[n++] = g2->world[i];
    }
    err = new_group(w, n, g1->session, out, fn);
    free(t);
    free(w);
    return err;
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    RT_API_ENTER();
    return set_op(group1, group2, newgroup, UNION, "MPI_Group_union");
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    RT_API_ENTER();
    return set_op(group1, group2, newgroup, INTERSECTION, "MPI_Group_intersection");
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    RT_API_ENTER();
    return set_op(group1, group2, newgroup, DIFFERENCE, "MPI_Group_difference");
}

/* Marks the group ranks listed (incl/excl) in sel, checking range and
 * uniqueness; sel[i] = position in the list + 1, 0 when not listed. */
static int select_ranks(const struct rdmpi_group *g, int n, const int ranks[], int *sel,
                        const char *fn)
{
    if (n < 0 || n > g->size)
        return GERR(MPI_ERR_ARG, fn, "n is %d; it must be between 0 and the group size %d", n,
                    g->size);
    if (n > 0 && !ranks)
        return GERR(MPI_ERR_ARG, fn, "ranks is NULL with n = %d", n);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return GERR(MPI_ERR_RANK, fn, "ranks[%d] is %d, outside the group of size %d", i,
                        ranks[i], g->size);
        if (sel[ranks[i]])
            return GERR(MPI_ERR_RANK, fn,
                        "ranks[%d] = %d appears twice; ranks must be "
                        "distinct",
                        i, ranks[i]);
        sel[ranks[i]] = i + 1;
    }
    return MPI_SUCCESS;
}

static int incl_excl(MPI_Group group, int n, const int ranks[], MPI_Group *out, int incl,
                     const char *fn)
{
    struct rdmpi_group *g;
    int err, *sel, *w, m = 0;

    RT_CHECK_INIT(fn);
    if (!(g = check_group(group, fn, "group", &err)))
        return err;
    if (!out)
        return GERR(MPI_ERR_ARG, fn, "newgroup is NULL; pass the address of a group handle");
    sel = calloc((size_t)g->size + 1, sizeof(int));
    w = malloc(((size_t)g->size + 1) * sizeof(int));
    if (!sel || !w) {
        err = GERR(MPI_ERR_NO_MEM, fn, "out of memory");
        goto out;
    }
    if ((err = select_ranks(g, n, ranks, sel, fn)))
        goto out;
    if (incl)
        for (int i = 0; i < n; i++)
            w[m++] = g->world[ranks[i]];
    else
        for (int i = 0; i < g->size; i++)
            if (!sel[i])
                w[m++] = g->world[i];
    err = new_group(w, m, g->session, out, fn);
out:
    free(sel);
    free(w);
    return err;
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    RT_API_ENTER();
    return incl_excl(group, n, ranks, newgroup, 1, "MPI_Group_incl");
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    RT_API_ENTER();
    return incl_excl(group, n, ranks, newgroup, 0, "MPI_Group_excl");
}

/* Expands (first, last, stride) triplets into a rank list. */
static int expand_ranges(const struct rdmpi_group *g, int n, int ranges[][3], int **out, int *count,
                         const char *fn)
{
    int m = 0, *r;

    if (n < 0)
        return GERR(MPI_ERR_ARG, fn, "n is %d; it must not be negative", n);
    if (n > 0 && !ranges)
        return GERR(MPI_ERR_ARG, fn, "ranges is NULL with n = %d", n);
    for (int i = 0; i < n; i++) {
        int f = ranges[i][0], l = ranges[i][1], s = ranges[i][2];
        if (s == 0)
            return GERR(MPI_ERR_ARG, fn, "ranges[%d] has stride 0", i);
        if (f < 0 || f >= g->size || l < 0 || l >= g->size)
            return GERR(MPI_ERR_RANK, fn,
                        "ranges[%d] = (%d, %d, %d) names a rank outside "
                        "the group of size %d",
                        i, f, l, s, g->size);
        if ((s > 0 && f > l) || (s < 0 && f < l))
            continue;
        m += (l - f) / s + 1;
        if (m > g->size)
            return GERR(MPI_ERR_RANK, fn,
                        "the ranges name more ranks than the group has "
                        "(%d); a rank appears twice",
                        g->size);
    }
    r = malloc(((size_t)m + 1) * sizeof(int));
    if (!r)
        return GERR(MPI_ERR_NO_MEM, fn, "out of memory");
    m = 0;
    for (int i = 0; i < n; i++) {
        int f = ranges[i][0], l = ranges[i][1], s = ranges[i][2];
        for (int k = f; s > 0 ? k <= l : k >= l; k += s)
            r[m++] = k;
    }
    *out = r;
    *count = m;
    return MPI_SUCCESS;
}

static int range_incl_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *out, int incl,
                           const char *fn)
{
    struct rdmpi_group *g;
    int err, *ranks = NULL, m = 0;

    RT_CHECK_INIT(fn);
    if (!(g = check_group(group, fn, "group", &err)))
        return err;
    if ((err = expand_ranges(g, n, ranges, &ranks, &m, fn)))
        return err;
    err = incl_excl(group, m, ranks, out, incl, fn);
    free(ranks);
    return err;
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    RT_API_ENTER();
    return range_incl_excl(group, n, ranges, newgroup, 1, "MPI_Group_range_incl");
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    RT_API_ENTER();
    return range_incl_excl(group, n, ranges, newgroup, 0, "MPI_Group_range_excl");
}
