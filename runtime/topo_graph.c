/* Graph topologies (MPI_Graph_create): every process holds the whole
 * graph as index/edges arrays; node i's neighbours are
 * edges[index[i-1] .. index[i]-1] (from 0 for node 0). An MPI_PROC_NULL
 * edge is accepted, as in distributed graphs. */
#include "comm.h"

/* Points the neighbour list at t->rank's edges once index is filled. */
static void graph_neighbours(struct rt_topo *t)
{
    int lo = t->rank ? t->index[t->rank - 1] : 0;

    t->graph_off = lo;
    t->indegree = t->outdegree = t->index[t->rank] - lo;
    t->in = t->out = t->edges + lo;
}

/* The graph arguments of MPI_Graph_create and MPI_Graph_map. */
static int check_graph(MPI_Comm comm, int size, int nnodes, const int *index, const int *edges,
                       const char *fn)
{
    if (nnodes < 0 || nnodes > size)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "nnodes is %d but the communicator has %d ranks; pass 0..%d", nnodes,
                              size, size);
    if (nnodes && !index)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "index is NULL; pass nnodes (%d) cumulative degrees", nnodes);
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                                  "index[%d] is %d, less than %s; index holds cumulative "
                                  "degrees, so it must not decrease",
                                  i, index[i], i ? "index[i-1]" : "0");
    if (nnodes && index[nnodes - 1] && !edges)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "edges is NULL; pass index[nnodes-1] (%d) node numbers",
                              index[nnodes - 1]);
    for (int j = 0; nnodes && j < index[nnodes - 1]; j++)
        if ((edges[j] < 0 || edges[j] >= nnodes) && edges[j] != MPI_PROC_NULL)
            return rdmpi_err_comm(comm, MPI_ERR_RANK, fn,
                                  "edges[%d] is %d; nodes are numbered 0..%d (or MPI_PROC_NULL)", j,
                                  edges[j], nnodes - 1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_create = PMPI_Graph_create
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int *index, const int *edges,
                      int reorder, MPI_Comm *comm_graph)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Graph_create";
    struct rdmpi_comm *c;
    struct rt_topo *t = NULL;
    int err, nedges;

    (void)reorder;
    if ((err = rt_topo_check_old(comm_old, fn, &c)) ||
        (err = check_graph(comm_old, c->size, nnodes, index, edges, fn)))
        return err;
    if (!comm_graph)
        return rdmpi_err_comm(comm_old, MPI_ERR_ARG, fn,
                              "comm_graph is NULL; pass the address of an MPI_Comm");
    nedges = nnodes ? index[nnodes - 1] : 0;
    if (c->rank < nnodes && (t = rt_topo_new(MPI_GRAPH, c->rank, nnodes, nedges))) {
        for (int i = 0; i < nnodes; i++)
            t->index[i] = index[i];
        for (int j = 0; j < nedges; j++)
            t->edges[j] = edges[j];
        graph_neighbours(t);
    }
    return rt_topo_attach(comm_old, nnodes, t, comm_graph, fn);
}

#pragma weak MPI_Graph_map = PMPI_Graph_map
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int *index, const int *edges, int *newrank)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Graph_map";
    struct rdmpi_comm *c;
    int err;

    if ((err = rt_topo_check_old(comm, fn, &c)) ||
        (err = check_graph(comm, c->size, nnodes, index, edges, fn)))
        return err;
    if (!newrank)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "newrank is NULL; pass the address of an int");
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Graphdims_get";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    if ((err = rt_topo_check(comm, MPI_GRAPH, fn, &c, &t)))
        return err;
    if (!nnodes || !nedges)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL; pass the address of an int",
                              !nnodes ? "nnodes" : "nedges");
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}

/* An output array of max entries: copied up to max (the caller says how
 * much room it has), NULL only when nothing is to be written. */
static int check_out(MPI_Comm comm, int max, const int *p, int n, const char *what, const char *fn)
{
    if (max < 0)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "max%s is %d; it must be >= 0", what, max);
    if (!p && max && n)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL; pass an array of max%s ints",
                              what, what);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_get = PMPI_Graph_get
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int *index, int *edges)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Graph_get";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    if ((err = rt_topo_check(comm, MPI_GRAPH, fn, &c, &t)) ||
        (err = check_out(comm, maxindex, index, t->nnodes, "index", fn)) ||
        (err = check_out(comm, maxedges, edges, t->nedges, "edges", fn)))
        return err;
    for (int i = 0; i < maxindex && i < t->nnodes; i++)
        index[i] = t->index[i];
    for (int j = 0; j < maxedges && j < t->nedges; j++)
        edges[j] = t->edges[j];
    return MPI_SUCCESS;
}

static int check_node(MPI_Comm comm, const struct rt_topo *t, int rank, const char *fn)
{
    if (rank < 0 || rank >= t->nnodes)
        return rdmpi_err_comm(comm, MPI_ERR_RANK, fn,
                              "rank is %d but the graph has %d nodes; pass 0..%d", rank, t->nnodes,
                              t->nnodes - 1);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Graph_neighbors_count";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    if ((err = rt_topo_check(comm, MPI_GRAPH, fn, &c, &t)) || (err = check_node(comm, t, rank, fn)))
        return err;
    if (!nneighbors)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "nneighbors is NULL; pass the address of an int");
    *nneighbors = t->index[rank] - (rank ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}

#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int *neighbors)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Graph_neighbors";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err, lo, n;

    if ((err = rt_topo_check(comm, MPI_GRAPH, fn, &c, &t)) || (err = check_node(comm, t, rank, fn)))
        return err;
    lo = rank ? t->index[rank - 1] : 0;
    n = t->index[rank] - lo;
    if ((err = check_out(comm, maxneighbors, neighbors, n, "neighbors", fn)))
        return err;
    for (int j = 0; j < maxneighbors && j < n; j++)
        neighbors[j] = t->edges[lo + j];
    return MPI_SUCCESS;
}
