/* Intercommunicator collectives: the schedule pieces their builders share.
 * Data crosses between the groups either straight between remote peers or
 * through the leaders (local rank 0 of each group); phases within a group
 * are steps on the intercomm's hidden local intracommunicator
 * (coll_on_local), under the same tag. */
#ifndef COLL_INTER_H
#define COLL_INTER_H

#include "coll_api.h"

static inline int coll_inter_rsize(const struct coll_sched *s)
{
    return s->comm->remote_size;
}

/* Zero-byte binomial fan-in to local rank 0: when rank 0 has heard from
 * its children, every rank of the local group has arrived. */
void coll_inter_fanin(struct coll_sched *s);
/* Zero-byte binomial fan-out from local rank 0. */
void coll_inter_fanout(struct coll_sched *s);
/* Binomial broadcast from local rank 0 to the local group of the blocks
 * 0..nblocks-1 of a's receive side (coll_rblock; the regular form moves
 * them as one message). Empty blocks are skipped. */
void coll_inter_bcast_blocks(struct coll_sched *s, const struct coll_args *a, int nblocks);
/* Reduces (sbuf, count, dt) over the local group, in rank order, to local
 * rank 0 and returns where rank 0 then finds the result (sbuf itself in a
 * group of one); NULL at the other ranks. Uses s->op. */
const void *coll_inter_reduce_local_group(struct coll_sched *s, const void *sbuf, size_t count,
                                          struct rdmpi_datatype *dt);

#endif
