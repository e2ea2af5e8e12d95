/* Virtual topologies hang off a communicator, in its `topo` slot; the
 * communicator layer only duplicates them, and this code's rt_layer frees
 * them with the communicator. One allocation holds the header and every
 * array, so a dup is a copy and a re-layout. */
#ifndef RT_TOPO_H
#define RT_TOPO_H

#include "mpi.h"

#include <stdbool.h>
#include <stddef.h>

struct rdmpi_comm;

struct rt_topo {
    int kind;                     /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    int rank;                     /* this process's rank in the communicator */
    int ndims;                    /* cart */
    int nnodes, nedges;           /* graph */
    int indegree, outdegree;      /* neighbourhood, every kind */
    bool weighted;                /* dist graph built with weights */
    int *dims, *periods, *coords; /* cart */
    int *index, *edges;           /* graph */
    /* Neighbourhood in the order the neighbourhood collectives use:
     * cart, for each dimension the -1 then the +1 neighbour (MPI_PROC_NULL
     * where there is none); graph, the neighbours of this rank; dist graph,
     * sources and destinations. Cart and graph have in == out. */
    int *in, *out;
    int *inw, *outw; /* dist graph weights (weighted only) */
    int graph_off;   /* graph: where this rank's neighbours start in edges */
    size_t nints;
    int data[];
};

/* A topology of `kind` with room for its arrays, laid out but not filled:
 * cart a = ndims; graph a = nnodes, b = nedges; dist graph a = indegree,
 * b = outdegree. NULL when out of memory. */
struct rt_topo *rt_topo_new(int kind, int rank, int a, int b);

/* A copy for MPI_Comm_dup (NULL in, NULL out); NULL with *err set on failure. */
struct rt_topo *rt_topo_dup(const struct rt_topo *t, int *err);
void rt_topo_free(struct rt_topo *t);

/* The communicator and its topology if it has one of `kind` (0: any);
 * otherwise raises MPI_ERR_COMM or MPI_ERR_TOPOLOGY naming `fn`. */
int rt_topo_check(MPI_Comm comm, int kind, const char *fn, struct rdmpi_comm **c,
                  struct rt_topo **t);

/* Validates comm_old for a topology constructor: an intra-communicator. */
int rt_topo_check_old(MPI_Comm comm, const char *fn, struct rdmpi_comm **c);

/* The new communicator of a topology constructor: ranks 0..n-1 of
 * comm_old in order (reorder keeps the identity, as Open MPI does by
 * default), MPI_COMM_NULL on the others, carrying t (consumed; it is
 * freed on the ranks outside and on failure). Collective over comm_old. */
int rt_topo_attach(MPI_Comm comm_old, int n, struct rt_topo *t, MPI_Comm *newcomm, const char *fn);

#endif
