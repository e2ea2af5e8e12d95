/* Bad arguments to the topology functions and neighbourhood collectives
 * return the right class under MPI_ERRORS_RETURN, with a message naming
 * the function and the argument; the communicators work afterwards. */
#include "../p2p/mpitest.h"

static void expect(int rc, int cls, const char *what, const char *needle)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, c = -1;

    MPI_Error_class(rc, &c);
    CHECK_EQ_INT(c, cls, "%s: class %d, expected %d", what, c, cls);
    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, msg, &len);
    CHECK_NE_PTR(strstr(msg, needle), NULL, "%s: message '%s' lacks '%s'", what, msg, needle);
}

/* Rejected before any communication, so each rank may fail alone. */
static void constructors(void)
{
    MPI_Comm w = MPI_COMM_WORLD, nc;
    int n = mt_size, dims[2] = {n + 1, 1}, zero[2] = {0, 1}, neg[2] = {-2, 1}, per[2] = {0, 0};
    int index[3] = {2, 1, 3}, edges[4] = {0, 0, 0, 0}, bad[2] = {n, 0}, w1[2] = {1, -4};
    int r, one = 1, minus = -1;

    expect(MPI_Cart_create(w, -1, dims, per, 0, &nc), MPI_ERR_DIMS, "cart ndims -1",
           "MPI_Cart_create: ndims is -1");
    expect(MPI_Cart_create(w, 2, zero, per, 0, &nc), MPI_ERR_DIMS, "cart dims 0", "dims[0] is 0");
    expect(MPI_Cart_create(w, 2, neg, per, 0, &nc), MPI_ERR_DIMS, "cart dims -2", "dims[0] is -2");
    expect(MPI_Cart_create(w, 2, dims, per, 0, &nc), MPI_ERR_DIMS, "cart too big",
           "more processes");
    expect(MPI_Cart_create(w, 2, dims, NULL, 0, &nc), MPI_ERR_ARG, "cart periods NULL",
           "periods is NULL");
    expect(MPI_Cart_create(MPI_COMM_NULL, 1, &one, per, 0, &nc), MPI_ERR_COMM, "cart comm null",
           "MPI_COMM_NULL");
    expect(MPI_Cart_create(w, 1, &one, per, 0, NULL), MPI_ERR_ARG, "cart comm_cart NULL",
           "comm_cart is NULL");
    expect(MPI_Cart_map(w, 2, dims, per, &r), MPI_ERR_DIMS, "cart_map too big", "MPI_Cart_map");
    expect(MPI_Graph_create(w, n + 1, index, edges, 0, &nc), MPI_ERR_ARG, "graph nnodes",
           "nnodes is");
    if (n >= 3) {
        expect(MPI_Graph_create(w, 3, index, edges, 0, &nc), MPI_ERR_ARG, "graph index",
               "index[1] is 1");
        index[1] = 2, edges[2] = 3;
        expect(MPI_Graph_create(w, 3, index, edges, 0, &nc), MPI_ERR_RANK, "graph edge",
               "edges[2] is 3");
    }
    expect(MPI_Graph_create(w, -1, index, edges, 0, &nc), MPI_ERR_ARG, "graph nnodes -1",
           "nnodes is -1");
    expect(MPI_Dist_graph_create_adjacent(w, 2, bad, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &nc),
           MPI_ERR_RANK, "adjacent source n", "sources[0] is");
    expect(MPI_Dist_graph_create_adjacent(w, -1, bad, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &nc),
           MPI_ERR_ARG, "adjacent indegree -1", "indegree is -1");
    bad[0] = 0;
    expect(MPI_Dist_graph_create_adjacent(w, 2, bad, w1, 0, NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL,
                                          0, &nc),
           MPI_ERR_ARG, "adjacent negative weight", "sourceweights[1] is -4");
    expect(MPI_Dist_graph_create_adjacent(w, 2, bad, MPI_WEIGHTS_EMPTY, 0, NULL, MPI_WEIGHTS_EMPTY,
                                          MPI_INFO_NULL, 0, &nc),
           MPI_ERR_ARG, "adjacent empty weights", "MPI_WEIGHTS_EMPTY");
    expect(MPI_Dist_graph_create_adjacent(w, 2, bad, MPI_UNWEIGHTED, 1, bad, w1, MPI_INFO_NULL, 0,
                                          &nc),
           MPI_ERR_ARG, "adjacent half weighted", "MPI_UNWEIGHTED");
    expect(MPI_Dist_graph_create(w, -1, bad, &one, bad, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc),
           MPI_ERR_ARG, "create n -1", "n is -1");
    expect(MPI_Dist_graph_create(w, 1, bad, &minus, bad, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc),
           MPI_ERR_ARG, "create degree -1", "degrees[0] is -1");
    bad[0] = -5;
    expect(MPI_Dist_graph_create(w, 1, &zero[0], &one, bad, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc),
           MPI_ERR_RANK, "create destination -5", "destinations[0] is -5");
    expect(MPI_Dims_create(6, 2, NULL), MPI_ERR_ARG, "dims NULL", "MPI_Dims_create: dims is NULL");
    dims[0] = 4, dims[1] = 0;
    expect(MPI_Dims_create(6, 2, dims), MPI_ERR_DIMS, "dims impossible", "does not divide");
}

/* MPI_COMM_WORLD has no topology. */
static void no_topology(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int v[4], k, a, b, c;
    MPI_Request rq;

    expect(MPI_Cart_coords(w, 0, 1, v), MPI_ERR_TOPOLOGY, "coords on world", "no topology");
    expect(MPI_Cartdim_get(w, &k), MPI_ERR_TOPOLOGY, "cartdim on world", "MPI_Cartdim_get");
    expect(MPI_Graph_neighbors(w, 0, 4, v), MPI_ERR_TOPOLOGY, "graph_neighbors on world",
           "no topology");
    expect(MPI_Dist_graph_neighbors_count(w, &a, &b, &c), MPI_ERR_TOPOLOGY, "dist count on world",
           "no topology");
    expect(MPI_Neighbor_allgather(v, 1, MPI_INT, v + 1, 1, MPI_INT, w), MPI_ERR_TOPOLOGY,
           "neighbor_allgather on world", "MPI_Neighbor_allgather: the communicator has no");
    expect(MPI_Ineighbor_alltoall(v, 1, MPI_INT, v + 1, 1, MPI_INT, w, &rq), MPI_ERR_TOPOLOGY,
           "ineighbor_alltoall on world", "MPI_Ineighbor_alltoall");
    expect(MPI_Topo_test(MPI_COMM_NULL, &k), MPI_ERR_COMM, "topo_test null", "MPI_COMM_NULL");
    expect(MPI_Topo_test(w, NULL), MPI_ERR_ARG, "topo_test status NULL", "status is NULL");
}

static void on_cart(void)
{
    int n = mt_size, dims[2] = {n, 1}, per[2] = {0, 1}, v[8] = {0}, r[8], c[2], k;
    int counts[4] = {1, 1, 1, 1}, displs[4] = {0, 1, 2, 3};
    MPI_Comm cart, sub;

    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart);
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    expect(MPI_Cart_coords(cart, n, 2, c), MPI_ERR_RANK, "coords rank n", "rank is");
    expect(MPI_Cart_coords(cart, -1, 2, c), MPI_ERR_RANK, "coords rank -1", "rank is -1");
    expect(MPI_Cart_coords(cart, 0, 1, c), MPI_ERR_ARG, "coords maxdims", "maxdims is 1");
    expect(MPI_Cart_get(cart, 1, v, v, v), MPI_ERR_ARG, "cart_get maxdims", "maxdims is 1");
    expect(MPI_Cart_shift(cart, 2, 1, &k, &k), MPI_ERR_DIMS, "shift direction 2", "direction is 2");
    expect(MPI_Cart_shift(cart, -1, 1, &k, &k), MPI_ERR_DIMS, "shift direction -1",
           "direction is -1");
    c[0] = n, c[1] = 0;
    expect(MPI_Cart_rank(cart, c, &k), MPI_ERR_ARG, "rank off a non-periodic edge", "coords[0] is");
    c[0] = 0, c[1] = 5;
    expect(MPI_Cart_rank(cart, c, &k), MPI_SUCCESS, "rank wraps periodic", "");
    CHECK_EQ_INT(k, 0, "periodic wrap gave %d", k);
    expect(MPI_Cart_sub(cart, NULL, &sub), MPI_ERR_ARG, "sub NULL", "remain_dims is NULL");
    expect(MPI_Graph_neighbors_count(cart, 0, &k), MPI_ERR_TOPOLOGY, "graph query on cart",
           "a Cartesian topology");
    expect(MPI_Dist_graph_neighbors(cart, 1, v, v, 1, v, v), MPI_ERR_TOPOLOGY, "dist query on cart",
           "a distributed graph one");
    expect(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, r, 1, MPI_INT, cart), MPI_ERR_BUFFER,
           "in place", "MPI_IN_PLACE");
    expect(MPI_Neighbor_alltoall(v, -1, MPI_INT, r, 1, MPI_INT, cart), MPI_ERR_COUNT,
           "negative count", "count is -1");
    expect(MPI_Neighbor_alltoallv(v, NULL, displs, MPI_INT, r, counts, displs, MPI_INT, cart),
           MPI_ERR_ARG, "alltoallv NULL sendcounts", "sendcounts is NULL");
    counts[2] = -1;
    expect(MPI_Neighbor_alltoallv(v, counts, displs, MPI_INT, r, counts, displs, MPI_INT, cart),
           MPI_ERR_COUNT, "alltoallv negative count", "sendcounts[2] is -1");
    expect(MPI_Neighbor_allgather(v, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, cart), MPI_ERR_TYPE,
           "allgather null type", "MPI_DATATYPE_NULL");
    /* still works: along dimension 0 the ends have one neighbour */
    v[0] = mt_rank;
    for (int i = 0; i < 4; i++)
        r[i] = -9;
    expect(MPI_Neighbor_allgather(v, 1, MPI_INT, r, 1, MPI_INT, cart), MPI_SUCCESS,
           "allgather after errors", "");
    CHECK_ALL ("allgather after errors: %d %d %d %d", r[0], r[1], r[2], r[3]) {
        CHECK_EQ_INT(r[0], (mt_rank ? mt_rank - 1 : -9));
        CHECK_EQ_INT(r[1], (mt_rank < n - 1 ? mt_rank + 1 : -9));
        CHECK_EQ_INT(r[2], mt_rank);
        CHECK_EQ_INT(r[3], mt_rank);
    }
    MPI_Comm_free(&cart);
}

static void on_graphs(void)
{
    int n = mt_size, index[16], edges[16], v[4], c[2], k, a, b, w;
    MPI_Comm g, dg;

    for (int i = 0; i < n && i < 16; i++)
        index[i] = i + 1, edges[i] = (i + 1) % n;
    if (n > 16)
        return;
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g);
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    expect(MPI_Cart_coords(g, 0, 2, c), MPI_ERR_TOPOLOGY, "cart query on graph", "a graph");
    expect(MPI_Graph_neighbors(g, n, 4, v), MPI_ERR_RANK, "graph neighbours of n", "rank is");
    expect(MPI_Graph_neighbors_count(g, -1, &k), MPI_ERR_RANK, "graph count of -1", "rank is -1");
    expect(MPI_Graph_get(g, -1, 4, v, v), MPI_ERR_ARG, "graph_get maxindex -1", "maxindex is -1");
    MPI_Comm_free(&g);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                   MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg);
    MPI_Comm_set_errhandler(dg, MPI_ERRORS_RETURN);
    expect(MPI_Graphdims_get(dg, &a, &b), MPI_ERR_TOPOLOGY, "graph query on dist graph",
           "a distributed graph");
    expect(MPI_Cart_get(dg, 2, v, v, v), MPI_ERR_TOPOLOGY, "cart query on dist graph",
           "needs a Cartesian one");
    expect(MPI_Dist_graph_neighbors(dg, -1, v, v, 0, v, v), MPI_ERR_ARG, "maxindegree -1",
           "maxindegree is -1");
    expect(MPI_Dist_graph_neighbors_count(dg, &a, &b, &w), MPI_SUCCESS, "empty dist graph", "");
    CHECK_ALL ("empty dist graph: %d %d %d", a, b, w) {
        CHECK_EQ_INT(a, 0);
        CHECK_EQ_INT(b, 0);
        CHECK_EQ_INT(w, 1);
    }
    expect(MPI_Neighbor_alltoall(v, 1, MPI_INT, v, 1, MPI_INT, dg), MPI_SUCCESS,
           "alltoall with no neighbours", "");
    expect(MPI_Neighbor_alltoallv(v, NULL, NULL, MPI_INT, v, NULL, NULL, MPI_INT, dg), MPI_SUCCESS,
           "alltoallv with no neighbours takes NULL arrays", "");
    MPI_Comm_free(&dg);
}

/* Topologies need an intra-communicator; an inter-communicator has none. */
static void on_intercomm(void)
{
    int one = 1, per = 0, k, v[2] = {0, 0};
    MPI_Comm half, inter, nc;

    if (mt_size < 2)
        return;
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, mt_rank % 2 ? 0 : 1, 7, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    expect(MPI_Cart_create(inter, 1, &one, &per, 0, &nc), MPI_ERR_COMM, "cart on intercomm",
           "inter-communicator");
    expect(MPI_Dist_graph_create_adjacent(inter, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &nc),
           MPI_ERR_COMM, "dist graph on intercomm", "inter-communicator");
    expect(MPI_Topo_test(inter, &k), MPI_SUCCESS, "topo_test on intercomm", "");
    CHECK_EQ_INT(k, MPI_UNDEFINED, "topo_test on intercomm: %d", k);
    expect(MPI_Neighbor_allgather(v, 1, MPI_INT, v + 1, 1, MPI_INT, inter), MPI_ERR_TOPOLOGY,
           "neighbor_allgather on intercomm", "no topology");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    constructors();
    no_topology();
    on_cart();
    on_graphs();
    on_intercomm();
    return mt_finish("t_badinput");
}
