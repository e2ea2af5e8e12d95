/* The neighbourhood collectives' schedule builders (coll_neighbor.c),
 * shared with their entry points (coll_neighbor_api.c). */
#ifndef COLL_NEIGHBOR_H
#define COLL_NEIGHBOR_H

#include "coll.h"

/* The communicator's virtual topology (the topology code's slot). */
static inline const struct rt_topo *coll_topo(const struct rdmpi_comm *c)
{
    return c->topo;
}

/* Neighbor_allgather(v): sbuf (scount of sdt) to every destination, the
 * block of source i into recv block i (rcount, or rcounts/rdispls). */
void coll_neighbor_allgather(struct coll_sched *s, const struct coll_args *a);
/* Neighbor_alltoall(v, w): send block j to destination j, receive block i
 * from source i. */
void coll_neighbor_alltoall(struct coll_sched *s, const struct coll_args *a);

#endif
