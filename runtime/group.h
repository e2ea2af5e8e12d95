/* Groups: an ordered set of world ranks. Communicators hold their groups by
 * reference; a group's rank table is what the pml uses to reach a peer. */
#ifndef RT_GROUP_H
#define RT_GROUP_H

#include "rt.h"

struct rdmpi_group {
    struct rt_obj obj;
    int refs;
    int size;
    int rank;                  /* this process's rank in it, or MPI_UNDEFINED */
    int world[];               /* group rank -> world rank */
};

struct rdmpi_group *rt_group_get(MPI_Group h);
/* A new group of n world ranks (copied), one reference held. */
struct rdmpi_group *rt_group_new(const int *world, int n);
void rt_group_retain(struct rdmpi_group *g);
void rt_group_release(struct rdmpi_group *g);
MPI_Group rt_group_handle(struct rdmpi_group *g);

void rt_group_init(void);
void rt_group_finalize(void);

#endif
