/* Groups: an ordered set of world ranks. Communicators hold their groups by
 * reference; a group's rank table is what the pml uses to reach a peer. */
#ifndef RT_GROUP_H
#define RT_GROUP_H

#include "rt.h"

struct rdmpi_group {
    struct rt_obj obj;
    int refs; /* handles and communicators holding it */
    int size;
    int rank;            /* this process's rank in it, or MPI_UNDEFINED */
    int *world;          /* group rank -> world rank (owned) */
    MPI_Session session; /* the session it derives from, or MPI_SESSION_NULL */
};

/* Handle to object, or NULL for null, freed or foreign handles. */
struct rdmpi_group *rt_group_get(MPI_Group h);
/* A new group of the n world ranks given (copied), one reference held;
 * NULL when out of memory. */
struct rdmpi_group *rt_group_new(const int *world, int n);
void rt_group_retain(struct rdmpi_group *g);
void rt_group_release(struct rdmpi_group *g);
MPI_Group rt_group_handle(struct rdmpi_group *g);
/* The rank of world rank w in g, or MPI_UNDEFINED. */
int rt_group_find(const struct rdmpi_group *g, int w);

void rt_group_init(void);

#endif
