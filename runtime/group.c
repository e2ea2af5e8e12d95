/* Group objects: reference counted, so MPI_Group_free of a handle leaves
 * the group alive while a communicator still uses it. */
#include "group.h"

#include "obj.h"

#include <stdlib.h>
#include <string.h>

static struct rdmpi_group group_empty;

void rt_group_init(void)
{
    group_empty.obj.kind = RT_KIND_GROUP;
    group_empty.obj.findex = 1;
    group_empty.refs = 1;
    group_empty.rank = MPI_UNDEFINED;
}

struct rdmpi_group *rt_group_get(MPI_Group h)
{
    struct rdmpi_group *g;

    if (h == MPI_GROUP_EMPTY)
        return &group_empty;
    if ((uintptr_t)h < RDMPI_PREDEF_LIMIT)
        return NULL;
    g = (struct rdmpi_group *)h;
    return g->obj.kind == RT_KIND_GROUP ? g : NULL;
}

MPI_Group rt_group_handle(struct rdmpi_group *g)
{
    return g == &group_empty ? MPI_GROUP_EMPTY : (MPI_Group)g;
}

int rt_group_find(const struct rdmpi_group *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w)
            return i;
    return MPI_UNDEFINED;
}

struct rdmpi_group *rt_group_new(const int *world, int n)
{
    struct rdmpi_group *g;

    if (n == 0) {
        group_empty.refs++;
        return &group_empty;
    }
    g = rt_obj_new(RT_KIND_GROUP, sizeof(*g));
    if (!g)
        return NULL;
    g->world = malloc((size_t)n * sizeof(int));
    if (!g->world) {
        rt_obj_delete(g);
        return NULL;
    }
    memcpy(g->world, world, (size_t)n * sizeof(int));
    g->size = n;
    g->refs = 1;
    g->rank = rt_group_find(g, rt.rank);
    return g;
}

void rt_group_retain(struct rdmpi_group *g)
{
    g->refs++;
}

void rt_group_release(struct rdmpi_group *g)
{
    if (--g->refs > 0 || g == &group_empty)
        return;
    free(g->world);
    rt_obj_delete(g);
}
