/* The layer's per-communicator state, and the collectives communicator
 * construction asks for. Every rank starts collectives on a communicator
 * in the same order, so a count names each one; it starts at zero when
 * the communicator is created. */
#include "coll_shm.h"

#include <stdlib.h>

/* Internal tags: negative (MPI_ANY_TAG never matches them), clear of the
 * pml's and the communicator layer's own, and 2^20 collectives apart before
 * they repeat. */
#define TAG_BASE 1024
#define TAG_MASK 0xfffffu

int coll_comm_next_tag(struct rdmpi_comm *c)
{
    return -(int)(TAG_BASE + (coll_comm(c)->seq++ & TAG_MASK));
}

int coll_comm_init(struct rdmpi_comm *c)
{
    struct coll_comm *cc;

    if (!(c->coll = cc = calloc(1, sizeof(struct coll_comm))))
        return -1;
    for (int r = 0; r < c->size && !cc->mixed; r++)
        cc->mixed = rt_comm_world_rank(c, r) >= rt.size;
    for (int r = 0; c->inter && r < c->remote_size && !cc->mixed; r++)
        cc->mixed = c->remote_world[r] >= rt.size;
    return 0;
}

int coll_comm_fini(struct rdmpi_comm *c)
{
    if (!c->coll)
        return 0;
    coll_comm_release(c);
    free(c->coll);
    c->coll = NULL;
    return 0;
}

static int allgather(struct rdmpi_comm *c, const void *sbuf, int scount, MPI_Datatype sdt,
                     void *rbuf, int rcount, MPI_Datatype rdt)
{
    return PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, c->handle);
}

static int alltoall(struct rdmpi_comm *c, const void *sbuf, int scount, MPI_Datatype sdt,
                    void *rbuf, int rcount, MPI_Datatype rdt)
{
    return PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, c->handle);
}

static int alltoallv(struct rdmpi_comm *c, const void *sbuf, const int *scounts, const int *sdispls,
                     MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                     MPI_Datatype rdt)
{
    return PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, c->handle);
}

const struct rt_comm_services coll_comm_services = {
    .allgather = allgather, .alltoall = alltoall, .alltoallv = alltoallv};
