/* Graph and distributed graph topologies: MPI_Graph_create with a
 * self-loop and a parallel edge, its queries for every node, graphs that
 * leave ranks out; MPI_Dist_graph_create_adjacent weighted, unweighted and
 * asymmetric (in-degree != out-degree), its order kept; MPI_Dist_graph_create
 * where ranks name edges of other ranks (with parallel edges, weights,
 * MPI_UNWEIGHTED, and MPI_WEIGHTS_EMPTY on ranks naming none), checked
 * against the global edge list every rank can compute; MPI_Comm_dup
 * keeping each topology. */
#include "../p2p/mpitest.h"

#define MAXE 64

/* Ring graph over m nodes; node 0 also has a self-loop and a second edge
 * to node 1. */
static int ring_graph(int m, int *index, int *edges)
{
    int e = 0;

    for (int i = 0; i < m; i++) {
        if (m > 1) {
            edges[e++] = (i + 1) % m;
            edges[e++] = (i + m - 1) % m;
        }
        if (i == 0) {
            edges[e++] = 0;
            if (m > 1)
                edges[e++] = 1;
        }
        index[i] = e;
    }
    return e;
}

static void check_graph(int m)
{
    int index[16], edges[MAXE], gi[16], ge[MAXE], nn, ne, t, cnt, nb[MAXE];
    int nedges = ring_graph(m, index, edges);
    MPI_Comm g, dup;

    MPI_Graph_create(MPI_COMM_WORLD, m, index, edges, 0, &g);
    if (mt_rank >= m) {
        CHECK_EQ_PTR(g, MPI_COMM_NULL, "graph of %d: rank %d got a communicator", m, mt_rank);
        return;
    }
    MPI_Topo_test(g, &t);
    MPI_Graphdims_get(g, &nn, &ne);
    CHECK_ALL ("graph of %d: topo %d, %d nodes, %d edges", m, t, nn, ne) {
        CHECK_EQ_INT(t, MPI_GRAPH);
        CHECK_EQ_INT(nn, m);
        CHECK_EQ_INT(ne, nedges);
    }
    MPI_Graph_get(g, 16, MAXE, gi, ge);
    for (int i = 0; i < m; i++)
        CHECK_EQ_INT(gi[i], index[i], "Graph_get index[%d] = %d, want %d", i, gi[i], index[i]);
    for (int j = 0; j < nedges; j++)
        CHECK_EQ_INT(ge[j], edges[j], "Graph_get edges[%d] = %d, want %d", j, ge[j], edges[j]);
    for (int i = 0; i < m; i++) {
        int lo = i ? index[i - 1] : 0;
        MPI_Graph_neighbors_count(g, i, &cnt);
        CHECK_EQ_INT(cnt, index[i] - lo, "node %d: %d neighbours, want %d", i, cnt, index[i] - lo);
        MPI_Graph_neighbors(g, i, MAXE, nb);
        for (int j = 0; j < cnt && j < MAXE; j++)
            CHECK_EQ_INT(nb[j], edges[lo + j], "node %d neighbour %d is %d, want %d", i, j, nb[j],
                         edges[lo + j]);
    }
    MPI_Comm_dup(g, &dup);
    MPI_Topo_test(dup, &t);
    MPI_Graphdims_get(dup, &nn, &ne);
    CHECK_ALL ("dup of a graph: topo %d", t) {
        CHECK_EQ_INT(t, MPI_GRAPH);
        CHECK_EQ_INT(nn, m);
        CHECK_EQ_INT(ne, nedges);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&g);
}

static void check_adjacent(int weighted)
{
    int n = mt_size, r = mt_rank, src[2], sw[2], dst[2], dw[2];
    int in, out, w, gs[4], gsw[4], gd[4], gdw[4], t;
    MPI_Comm g, dup;

    for (int j = 0; j < 2; j++) {
        src[j] = (r + n - 1 - j) % n;
        dst[j] = (r + 1 + j) % n;
        sw[j] = 10 * r + j;
        dw[j] = 100 * r + j;
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, weighted ? sw : MPI_UNWEIGHTED, 2, dst,
                                   weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    MPI_Topo_test(g, &t);
    MPI_Dist_graph_neighbors_count(g, &in, &out, &w);
    CHECK_ALL ("adjacent: topo %d, in %d, out %d, weighted %d", t, in, out, w) {
        CHECK_EQ_INT(t, MPI_DIST_GRAPH);
        CHECK_EQ_INT(in, 2);
        CHECK_EQ_INT(out, 2);
        CHECK_EQ_INT(w, weighted);
    }
    MPI_Dist_graph_neighbors(g, 4, gs, gsw, 4, gd, gdw);
    for (int j = 0; j < 2; j++) {
        CHECK_ALL ("adjacent: neighbour %d is (%d, %d)", j, gs[j], gd[j]) {
            CHECK_EQ_INT(gs[j], src[j]);
            CHECK_EQ_INT(gd[j], dst[j]);
        }
        if (weighted)
            CHECK_ALL ("adjacent: weights %d are (%d, %d)", j, gsw[j], gdw[j]) {
                CHECK_EQ_INT(gsw[j], sw[j]);
                CHECK_EQ_INT(gdw[j], dw[j]);
            }
    }
    MPI_Comm_dup(g, &dup);
    MPI_Dist_graph_neighbors_count(dup, &in, &out, &w);
    CHECK_ALL ("dup of a dist graph: in %d out %d", in, out) {
        CHECK_EQ_INT(in, 2);
        CHECK_EQ_INT(out, 2);
        CHECK_EQ_INT(w, weighted);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&g);
}

/* In-edges from every lower rank, out-edges to every higher one. */
static void check_asymmetric(void)
{
    int n = mt_size, r = mt_rank, src[16], dst[16], in, out, w, gs[16], gd[16];
    MPI_Comm g;

    if (n > 16)
        return;
    for (int q = 0; q < r; q++)
        src[q] = q;
    for (int q = r + 1; q < n; q++)
        dst[q - r - 1] = q;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, r, src, MPI_UNWEIGHTED, n - 1 - r, dst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    MPI_Dist_graph_neighbors_count(g, &in, &out, &w);
    CHECK_ALL ("asymmetric: in %d out %d weighted %d", in, out, w) {
        CHECK_EQ_INT(in, r);
        CHECK_EQ_INT(out, n - 1 - r);
        CHECK_TRUE(!w);
    }
    /* maxindegree below the degree: only what fits is written. */
    gs[0] = gs[1] = -7;
    MPI_Dist_graph_neighbors(g, 1, gs, MPI_UNWEIGHTED, 16, gd, MPI_UNWEIGHTED);
    CHECK_TRUE(r == 0 ? gs[0] == -7 : gs[0] == 0, "asymmetric: first source %d", gs[0]);
    CHECK_EQ_INT(gs[1], -7, "asymmetric: wrote past maxindegree");
    for (int j = 0; j < out; j++)
        CHECK_EQ_INT(gd[j], r + 1 + j, "asymmetric: destination %d is %d", j, gd[j]);
    MPI_Comm_free(&g);
}

/* The edges rank q names in MPI_Dist_graph_create: from (q+1)%n to q and
 * to (q+2)%n, and on rank 0 twice more from 0 to 1 (parallel edges). */
static int named_edges(int q, int n, int *s, int *d, int *w)
{
    int e = 0;

    s[e] = (q + 1) % n, d[e] = q, w[e] = 100 * q, e++;
    s[e] = (q + 1) % n, d[e] = (q + 2) % n, w[e] = 100 * q + 1, e++;
    if (q == 0) {
        s[e] = 0, d[e] = 1 % n, w[e] = 7, e++;
        s[e] = 0, d[e] = 1 % n, w[e] = 8, e++;
    }
    return e;
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;

    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* (peer, weight) pairs sorted, so orders may differ. */
static void check_pairs(const char *what, const int *peers, const int *w, int n, int (*want)[2],
                        int nwant, int weighted)
{
    int got[MAXE][2];

    CHECK_EQ_INT(n, nwant, "%s: %d edges, want %d", what, n, nwant);
    if (n != nwant || n > MAXE)
        return;
    for (int i = 0; i < n; i++) {
        got[i][0] = peers[i];
        got[i][1] = weighted ? w[i] : 0;
        if (!weighted)
            want[i][1] = 0;
    }
    qsort(got, (size_t)n, sizeof(got[0]), cmp_pair);
    qsort(want, (size_t)n, sizeof(want[0]), cmp_pair);
    for (int i = 0; i < n; i++)
        CHECK_ALL ("%s: edge %d is (%d, w %d), want (%d, w %d)", what, i, got[i][0], got[i][1],
                   want[i][0], want[i][1]) {
            CHECK_EQ_INT(got[i][0], want[i][0]);
            CHECK_EQ_INT(got[i][1], want[i][1]);
        }
}

/* mode 0: weighted, every rank names edges; 1: MPI_UNWEIGHTED; 2: only
 * rank 0 names edges (all of them), the others pass MPI_WEIGHTS_EMPTY. */
static void check_create(int mode)
{
    int n = mt_size, r = mt_rank, s[MAXE], d[MAXE], w[MAXE], ne = 0;
    int srcs[MAXE], degs[MAXE], dsts[MAXE], nsrc = 0;
    int win[MAXE][2], wout[MAXE][2], nin = 0, nout = 0, in, out, wt;
    int gs[MAXE], gsw[MAXE], gd[MAXE], gdw[MAXE];
    MPI_Comm g, dup;

    if (n > 16)
        return;
    for (int q = 0; q < n; q++) {
        int qs[4], qd[4], qw[4], k = named_edges(q, n, qs, qd, qw);
        for (int e = 0; e < k; e++) {
            if (qd[e] == r)
                win[nin][0] = qs[e], win[nin++][1] = qw[e];
            if (qs[e] == r)
                wout[nout][0] = qd[e], wout[nout++][1] = qw[e];
            if (mode == 2 ? r == 0 : q == r)
                s[ne] = qs[e], d[ne] = qd[e], w[ne++] = qw[e];
        }
    }
    /* One entry per edge, except consecutive edges of one source share it. */
    for (int e = 0; e < ne; e++) {
        if (nsrc && srcs[nsrc - 1] == s[e]) {
            degs[nsrc - 1]++;
        } else {
            srcs[nsrc] = s[e];
            degs[nsrc++] = 1;
        }
        dsts[e] = d[e];
    }
    MPI_Dist_graph_create(MPI_COMM_WORLD, nsrc, srcs, degs, dsts,
                          mode == 1 ? MPI_UNWEIGHTED
                          : ne      ? w
                                    : MPI_WEIGHTS_EMPTY,
                          MPI_INFO_NULL, 1, &g);
    MPI_Dist_graph_neighbors_count(g, &in, &out, &wt);
    CHECK_EQ_INT(wt, (mode != 1), "create mode %d: weighted %d", mode, wt);
    MPI_Dist_graph_neighbors(g, MAXE, gs, gsw, MAXE, gd, gdw);
    check_pairs("create: sources", gs, gsw, in, win, nin, wt);
    check_pairs("create: destinations", gd, gdw, out, wout, nout, wt);
    MPI_Comm_dup(g, &dup);
    MPI_Dist_graph_neighbors_count(dup, &in, &out, &wt);
    CHECK_ALL ("dup of a created dist graph: in %d out %d", in, out) {
        CHECK_EQ_INT(in, nin);
        CHECK_EQ_INT(out, nout);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    MPI_Comm g;

    mt_init(&argc, &argv);
    check_graph(mt_size);
    if (mt_size > 1)
        check_graph(mt_size - 1);
    MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g);
    CHECK_EQ_PTR(g, MPI_COMM_NULL, "empty graph gave a communicator");
    check_adjacent(1);
    check_adjacent(0);
    check_asymmetric();
    for (int mode = 0; mode < 3; mode++)
        check_create(mode);
    return mt_finish("t_graph");
}
