/* Distributed graph topologies: each process knows only its own sources
 * and destinations (with optional weights). MPI_Dist_graph_create lets any
 * process name any edge, so the edges travel to both their ends in one
 * all-to-all exchange. MPI_PROC_NULL is accepted as a neighbour, as Open
 * MPI does (mpi-forum/mpi-issues#87): the neighbourhood collectives keep
 * its block and move nothing. */
#include "comm.h"

#include <stdlib.h>

static bool unweighted(const int *w)
{
    return w == MPI_UNWEIGHTED;
}

/* n ranks of comm in `what`, and their weights unless MPI_UNWEIGHTED. */
static int check_edges(MPI_Comm comm, int size, int n, const int *ranks, const char *what,
                       const int *w, const char *wwhat, const char *fn)
{
    if (n && !ranks)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL; pass an array of %d ranks", what,
                              n);
    for (int i = 0; i < n; i++)
        if ((ranks[i] < 0 || ranks[i] >= size) && ranks[i] != MPI_PROC_NULL)
            return rdmpi_err_comm(comm, MPI_ERR_RANK, fn,
                                  "%s[%d] is %d but the communicator has %d ranks; pass 0..%d "
                                  "or MPI_PROC_NULL",
                                  what, i, ranks[i], size, size - 1);
    if (unweighted(w) || !n)
        return MPI_SUCCESS;
    if (!w || w == MPI_WEIGHTS_EMPTY)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "%s is %s but there are %d edges; pass %d weights or "
                              "MPI_UNWEIGHTED",
                              wwhat, w ? "MPI_WEIGHTS_EMPTY" : "NULL", n, n);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s[%d] is %d; weights must be >= 0",
                                  wwhat, i, w[i]);
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int *sources,
                                    const int *sourceweights, int outdegree,
                                    const int *destinations, const int *destweights, MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    (void)info;
    (void)reorder;
    if ((err = rt_topo_check_old(comm_old, fn, &c)))
        return err;
    if (indegree < 0 || outdegree < 0)
        return rdmpi_err_comm(comm_old, MPI_ERR_ARG, fn, "%s is %d; it must be >= 0",
                              indegree < 0 ? "indegree" : "outdegree",
                              indegree < 0 ? indegree : outdegree);
    if ((err = check_edges(comm_old, c->size, indegree, sources, "sources", sourceweights,
                           "sourceweights", fn)) ||
        (err = check_edges(comm_old, c->size, outdegree, destinations, "destinations", destweights,
                           "destweights", fn)))
        return err;
    if (unweighted(sourceweights) != unweighted(destweights))
        return rdmpi_err_comm(comm_old, MPI_ERR_ARG, fn,
                              "only %s is MPI_UNWEIGHTED; pass it for both or neither",
                              unweighted(sourceweights) ? "sourceweights" : "destweights");
    if (!comm_dist_graph)
        return rdmpi_err_comm(comm_old, MPI_ERR_ARG, fn,
                              "comm_dist_graph is NULL; pass the address of an MPI_Comm");
    if ((t = rt_topo_new(MPI_DIST_GRAPH, c->rank, indegree, outdegree))) {
        t->weighted = !unweighted(sourceweights);
        for (int i = 0; i < indegree; i++) {
            t->in[i] = sources[i];
            t->inw[i] = t->weighted ? sourceweights[i] : 0;
        }
        for (int i = 0; i < outdegree; i++) {
            t->out[i] = destinations[i];
            t->outw[i] = t->weighted ? destweights[i] : 0;
        }
    }
    return rt_topo_attach(comm_old, c->size, t, comm_dist_graph, fn);
}

/* An edge on its way to one of its ends: the other end and the weight. */
enum { TO_SOURCE, TO_DEST };
struct edge_msg {
    int kind, peer, weight;
};

/* Edges named here, bucketed by the rank that must learn them; each edge
 * goes to its source (as a destination) and to its destination (as a
 * source), in the order given, so both ends list parallel edges in the
 * same order. An MPI_PROC_NULL end learns nothing; the other end keeps the
 * edge (a buffer block that moves no data). */
static struct edge_msg *bucket(int size, int n, const int *sources, const int *degrees,
                               const int *destinations, const int *weights, int *counts,
                               int *displs)
{
    struct edge_msg *m;
    int e = 0, total = 0;

    for (int p = 0; p < size; p++)
        counts[p] = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            if (sources[i] != MPI_PROC_NULL)
                counts[sources[i]]++;
            if (destinations[e] != MPI_PROC_NULL)
                counts[destinations[e]]++;
        }
    for (int p = 0; p < size; p++) {
        displs[p] = total;
        total += counts[p];
    }
    if (!(m = malloc((size_t)(total ? total : 1) * sizeof(*m))))
        return NULL;
    e = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, e++) {
            int s = sources[i], d = destinations[e], w = unweighted(weights) ? 0 : weights[e];
            if (s != MPI_PROC_NULL)
                m[displs[s]++] = (struct edge_msg){TO_SOURCE, d, w};
            if (d != MPI_PROC_NULL)
                m[displs[d]++] = (struct edge_msg){TO_DEST, s, w};
        }
    for (int p = 0; p < size; p++) {
        displs[p] -= counts[p];
        counts[p] *= 3;
        displs[p] *= 3;
    }
    return m;
}

/* The exchange: a count and an unweighted flag per pair, then the edges. */
static int exchange(MPI_Comm comm, int size, int n, const int *sources, const int *degrees,
                    const int *destinations, const int *weights, struct edge_msg **got, int *ngot,
                    bool *weighted, const char *fn)
{
    int *v = malloc(8 * (size_t)size * sizeof(int)), err, total = 0;
    int *scounts = v, *sdispls = v + size, *rcounts = v + 2 * size, *rdispls = v + 3 * size;
    int *shdr = v + 4 * size, *rhdr = v + 6 * size;
    struct edge_msg *out = NULL;

    *got = NULL;
    if (!v || !(out = bucket(size, n, sources, degrees, destinations, weights, scounts, sdispls))) {
        free(v);
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of memory for the edges");
    }
    for (int p = 0; p < size; p++) {
        shdr[2 * p] = scounts[p];
        shdr[2 * p + 1] = unweighted(weights);
    }
    if ((err = rt_comm_alltoall(rt_comm_get(comm), shdr, 2, MPI_INT, rhdr, 2, MPI_INT)))
        goto out;
    *weighted = true;
    for (int p = 0; p < size; p++) {
        rcounts[p] = rhdr[2 * p];
        rdispls[p] = total;
        total += rcounts[p];
        if (rhdr[2 * p + 1])
            *weighted = false;
    }
    if (!(*got = malloc((size_t)(total ? total : 3) * sizeof(int)))) {
        err = rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of memory for the edges");
        goto out;
    }
    *ngot = total / 3;
    if ((err = rt_comm_alltoallv(rt_comm_get(comm), out, scounts, sdispls, MPI_INT, *got, rcounts,
                                 rdispls, MPI_INT))) {
        free(*got);
        *got = NULL;
    }
out:
    free(out);
    free(v);
    return err;
}

#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int *sources, const int *degrees,
                           const int *destinations, const int *weights, MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Dist_graph_create";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    struct edge_msg *got;
    int err, nedges = 0, ngot = 0, in = 0, out = 0;
    bool weighted = false;

    (void)info;
    (void)reorder;
    if ((err = rt_topo_check_old(comm_old, fn, &c)))
        return err;
    if (n < 0)
        return rdmpi_err_comm(comm_old, MPI_ERR_ARG, fn, "n is %d; it must be >= 0", n);
    if ((err = check_edges(comm_old, c->size, n, sources, "sources", MPI_UNWEIGHTED, "", fn)))
        return err;
    if (n && !degrees)
        return rdmpi_err_comm(comm_old, MPI_ERR_ARG, fn, "degrees is NULL; pass %d degrees", n);
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return rdmpi_err_comm(comm_old, MPI_ERR_ARG, fn, "degrees[%d] is %d; it must be >= 0",
                                  i, degrees[i]);
        nedges += degrees[i];
    }
    if ((err = check_edges(comm_old, c->size, nedges, destinations, "destinations", weights,
                           "weights", fn)))
        return err;
    if (!comm_dist_graph)
        return rdmpi_err_comm(comm_old, MPI_ERR_ARG, fn,
                              "comm_dist_graph is NULL; pass the address of an MPI_Comm");
    if ((err = exchange(comm_old, c->size, n, sources, degrees, destinations, weights, &got, &ngot,
                        &weighted, fn)))
        return err;
    for (int i = 0; i < ngot; i++)
        got[i].kind == TO_DEST ? in++ : out++;
    if ((t = rt_topo_new(MPI_DIST_GRAPH, c->rank, in, out))) {
        t->weighted = weighted;
        in = out = 0;
        for (int i = 0; i < ngot; i++) {
            if (got[i].kind == TO_DEST) {
                t->inw[in] = got[i].weight;
                t->in[in++] = got[i].peer;
            } else {
                t->outw[out] = got[i].weight;
                t->out[out++] = got[i].peer;
            }
        }
    }
    free(got);
    return rt_topo_attach(comm_old, c->size, t, comm_dist_graph, fn);
}

#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Dist_graph_neighbors_count";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    if ((err = rt_topo_check(comm, MPI_DIST_GRAPH, fn, &c, &t)))
        return err;
    if (!indegree || !outdegree || !weighted)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL; pass the address of an int",
                              !indegree    ? "indegree"
                              : !outdegree ? "outdegree"
                                           : "weighted");
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

/* Up to max of n ranks and, for a weighted graph, their weights. */
static int copy_out(MPI_Comm comm, int max, int n, const int *ranks, const int *w, int *rout,
                    int *wout, const char *what, const char *rwhat, const char *fn)
{
    int k = max < n ? max : n;

    if (max < 0)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "max%s is %d; it must be >= 0", what, max);
    if (k && !rout)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL; pass an array of %d ints", rwhat,
                              k);
    for (int i = 0; i < k; i++)
        rout[i] = ranks[i];
    if (w && wout && wout != MPI_UNWEIGHTED && wout != MPI_WEIGHTS_EMPTY)
        for (int i = 0; i < k; i++)
            wout[i] = w[i];
    return MPI_SUCCESS;
}

#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int *sources, int *sourceweights,
                              int maxoutdegree, int *destinations, int *destweights)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Dist_graph_neighbors";
    struct rdmpi_comm *c;
    struct rt_topo *t;
    int err;

    if ((err = rt_topo_check(comm, MPI_DIST_GRAPH, fn, &c, &t)) ||
        (err = copy_out(comm, maxindegree, t->indegree, t->in, t->weighted ? t->inw : NULL, sources,
                        sourceweights, "indegree", "sources", fn)) ||
        (err = copy_out(comm, maxoutdegree, t->outdegree, t->out, t->weighted ? t->outw : NULL,
                        destinations, destweights, "outdegree", "destinations", fn)))
        return err;
    return MPI_SUCCESS;
}
