/* Topology objects: allocation, copy for MPI_Comm_dup, the checks every
 * topology function shares, attaching a topology to a new communicator,
 * and MPI_Topo_test. The kinds live in topo_cart.c, topo_graph.c and
 * topo_dist_graph.c. */
#include "topo.h"

#include "comm.h"

#include <stdlib.h>
#include <string.h>

/* Points the arrays into t->data from the counts in the header. */
static void layout(struct rt_topo *t)
{
    int *p = t->data;

    t->dims = t->periods = t->coords = t->index = t->edges = NULL;
    t->in = t->out = t->inw = t->outw = NULL;
    switch (t->kind) {
    case MPI_CART:
        t->dims = p;
        t->periods = p + t->ndims;
        t->coords = p + 2 * t->ndims;
        t->in = t->out = p + 3 * t->ndims;
        break;
    case MPI_GRAPH:
        t->index = p;
        t->edges = p + t->nnodes;
        t->in = t->out = t->edges + t->graph_off;
        break;
    default:
        t->in = p;
        t->inw = p + t->indegree;
        t->out = p + 2 * t->indegree;
        t->outw = p + 2 * t->indegree + t->outdegree;
        break;
    }
}

struct rt_topo *rt_topo_new(int kind, int rank, int a, int b)
{
    size_t n = kind == MPI_CART    ? 5 * (size_t)a
               : kind == MPI_GRAPH ? (size_t)a + (size_t)b
                                   : 2 * ((size_t)a + (size_t)b);
    struct rt_topo *t = calloc(1, sizeof(*t) + n * sizeof(int));

    if (!t)
        return NULL;
    t->kind = kind;
    t->rank = rank;
    t->nints = n;
    switch (kind) {
    case MPI_CART:
        t->ndims = a;
        t->indegree = t->outdegree = 2 * a;
        break;
    case MPI_GRAPH:
        t->nnodes = a;
        t->nedges = b;
        break;
    default:
        t->indegree = a;
        t->outdegree = b;
        break;
    }
    layout(t);
    return t;
}

struct rt_topo *rt_topo_dup(const struct rt_topo *t, int *err)
{
    size_t bytes;
    struct rt_topo *n;

    *err = MPI_SUCCESS;
    if (!t)
        return NULL;
    bytes = sizeof(*t) + t->nints * sizeof(int);
    if (!(n = malloc(bytes))) {
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    memcpy(n, t, bytes);
    layout(n);
    return n;
}

void rt_topo_free(struct rt_topo *t)
{
    free(t);
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case MPI_CART: return "a Cartesian";
    case MPI_GRAPH: return "a graph";
    case MPI_DIST_GRAPH: return "a distributed graph";
    default: return "no";
    }
}

int rt_topo_check(MPI_Comm comm, int kind, const char *fn, struct rdmpi_comm **c,
                  struct rt_topo **t)
{
    int err;

    RT_CHECK_INIT(fn);
    if (!(*c = rt_comm_check(comm, fn, &err)))
        return err;
    *t = (*c)->topo;
    if (RT_UNLIKELY(!*t))
        return rdmpi_err_comm(comm, MPI_ERR_TOPOLOGY, fn,
                              "the communicator has no topology; create one with "
                              "MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create");
    if (RT_UNLIKELY(kind && (*t)->kind != kind))
        return rdmpi_err_comm(comm, MPI_ERR_TOPOLOGY, fn,
                              "the communicator has %s topology, this function needs %s one",
                              kind_name((*t)->kind), kind_name(kind));
    return MPI_SUCCESS;
}

int rt_topo_check_old(MPI_Comm comm, const char *fn, struct rdmpi_comm **c)
{
    int err;

    RT_CHECK_INIT(fn);
    if (!(*c = rt_comm_check(comm, fn, &err)))
        return err;
    if (RT_UNLIKELY((*c)->inter))
        return rdmpi_err_comm(comm, MPI_ERR_COMM, fn,
                              "comm_old is an inter-communicator; topologies need an "
                              "intra-communicator");
    return MPI_SUCCESS;
}

int rt_topo_attach(MPI_Comm comm_old, int n, struct rt_topo *t, MPI_Comm *newcomm, const char *fn)
{
    struct rdmpi_comm *c = rt_comm_get(comm_old), *nc;
    int err;

    /* Every rank takes part in the split, even one that ran out of memory
     * building t, so the others do not hang. */
    err = PMPI_Comm_split(comm_old, c->rank < n ? 0 : MPI_UNDEFINED, c->rank, newcomm);
    if (err || *newcomm == MPI_COMM_NULL) {
        rt_topo_free(t);
        return err;
    }
    if (!t) {
        PMPI_Comm_free(newcomm);
        return rdmpi_err_comm(comm_old, MPI_ERR_NO_MEM, fn, "out of memory for the topology");
    }
    nc = rt_comm_get(*newcomm);
    rt_topo_free(nc->topo);
    nc->topo = t;
    return MPI_SUCCESS;
}

#pragma weak MPI_Topo_test = PMPI_Topo_test
int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Topo_test";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    if (!status)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "status is NULL; pass the address of an int");
    t = c->topo;
    *status = t ? t->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* The topology is this code's slot of a communicator: made by the
 * constructors (rt_topo_attach, MPI_Cart_sub, a dup), dropped here. */
static int topo_comm_fini(struct rdmpi_comm *c)
{
    rt_topo_free(c->topo);
    c->topo = NULL;
    return 0;
}

static struct rt_layer topo_layer = {.name = "topo", .order = 30, .comm_fini = topo_comm_fini};

__attribute__((constructor)) static void topo_register(void)
{
    rt_layer_register(&topo_layer);
}
