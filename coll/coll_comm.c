/* Per-communicator collective sequence numbers: every rank starts
 * collectives on a communicator in the same order, so the count names each
 * one. The counter lives in the communicator and starts at zero when the
 * communicator is created. */
#include "coll.h"

/* Internal tags: negative (MPI_ANY_TAG never matches them), clear of the
 * pml's and the communicator layer's own, and 2^20 collectives apart before
 * they repeat. */
#define TAG_BASE 1024
#define TAG_MASK 0xfffffu

int coll_comm_next_tag(struct rdmpi_comm *c)
{
    return -(int)(TAG_BASE + (c->coll_seq++ & TAG_MASK));
}
