/* Communicators as the runtime sees them; the pml keeps its matching state
 * behind `pml`. */
#ifndef RT_COMM_H
#define RT_COMM_H

#include "attr.h"
#include "errors.h"
#include "group.h"
#include "rt.h"
#include "topo.h"

struct rdmpi_comm {
    struct rt_obj obj;
    uint32_t cid;                   /* context id: the matching key on the wire */
    int rank;                       /* in the local group */
    int size;                       /* of the local group */
    const int *world;               /* comm rank -> world rank; NULL: identity */
    /* Peers: the remote group of an intercommunicator, else the local one. */
    int remote_size;
    const int *remote_world;
    int inter;
    struct rdmpi_group *group, *remote_group; /* NULL for predefined until asked */
    struct rdmpi_errhandler *errh;
    MPI_Comm handle;                /* what the user holds (a constant for predefined) */
    void *pml;                      /* per-communicator matching state */
    uint32_t coll_seq;              /* collectives started: internal tag source */
    struct rt_topo *topo;           /* virtual topology, or NULL */
    struct rt_attr *attrs;          /* cached attributes */
    MPI_Info info;                  /* hints set by the user, or MPI_INFO_NULL */
    char name[MPI_MAX_OBJECT_NAME];
};

#define RT_COMM_NPREDEF 2
extern struct rdmpi_comm *rt_comm_predef[RT_COMM_NPREDEF];

/* Handle to object, or NULL for null, freed or foreign handles. */
static inline struct rdmpi_comm *rt_comm_get(MPI_Comm h)
{
    uintptr_t v = (uintptr_t)h;
    struct rdmpi_comm *c;

    if (v < RDMPI_PREDEF_LIMIT) {
        v -= RDMPI_COMM_BASE + 1;
        return v < RT_COMM_NPREDEF ? rt_comm_predef[v] : NULL;
    }
    c = (struct rdmpi_comm *)h;
    return c->obj.kind == RT_KIND_COMM ? c : NULL;
}

static inline int rt_comm_world_rank(const struct rdmpi_comm *c, int r)
{
    return c->world ? c->world[r] : r;
}

int rt_comm_init(void);
void rt_comm_finalize(void);

/* Validates a communicator argument; on failure raises MPI_ERR_COMM on
 * MPI_COMM_SELF's handler and returns NULL with *err set. */
struct rdmpi_comm *rt_comm_check(MPI_Comm comm, const char *func, int *err);

#endif
