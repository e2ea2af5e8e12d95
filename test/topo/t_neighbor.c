/* Neighbourhood collectives (allgather, allgatherv, alltoall, alltoallv,
 * alltoallw) in every form: blocking, non-blocking, persistent (started
 * three times with new data), each with int and big (_c) counts, on:
 * a 2-D periodic grid, a grid with extent-1 dimensions (each process its
 * own neighbour) and open edges (MPI_PROC_NULL), a 1-D periodic ring (on 1
 * and 2 ranks both neighbours are one process), a graph with a self-loop
 * and parallel edges, and distributed graphs with weights, asymmetric and
 * parallel edges and self-loops, built adjacent and by
 * MPI_Dist_graph_create, and a tree with MPI_PROC_NULL neighbours. Blocks
 * move once small and once past the eager limit.
 *
 * Every element says who sent it, to whom, and which of the sender's
 * edges to that process it travelled (the key): on a grid block s of the
 * sender lands in block s^1 of the receiver (MPI-4.1 section 8.6); on a
 * graph the k-th edge to a process meets the k-th edge from it. Receive
 * buffers start as 0xEE bytes, and every byte no block should reach
 * (gaps, MPI_PROC_NULL blocks) must still be 0xEE. */
#include "../p2p/mpitest.h"

#define MAXN 64

struct nbh {
    const char *name;
    MPI_Comm comm;
    int cart, in, out, src[MAXN], dst[MAXN];
};

enum kind { AG, AGV, A2A, A2AV, A2AW, NKINDS };
static const char *kind_name[] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
enum form { BLOCK, BLOCK_C, NB, NB_C, PERS, PERS_C, NFORMS };
static const char *form_name[] = {"blocking",        "blocking _c", "non-blocking",
                                  "non-blocking _c", "persistent",  "persistent _c"};

static int key_out(const struct nbh *h, int j)
{
    int k = 0;

    if (h->cart)
        return j;
    for (int q = 0; q < j; q++)
        k += h->dst[q] == h->dst[j];
    return k;
}

static int key_in(const struct nbh *h, int i)
{
    int k = 0;

    if (h->cart)
        return i ^ 1;
    for (int q = 0; q < i; q++)
        k += h->src[q] == h->src[i];
    return k;
}

static int val(int iter, int sender, int target, int key, int e)
{
    return iter * 1000000 + sender * 100000 + target * 1000 + key * 100 + e % 100;
}

static int vcount(int scale, int sender, int target, int key)
{
    return scale * (1 + (sender + 2 * target + key) % 3);
}

/* Blocks of one side: byte offset, count, type; plus the arrays the call
 * takes in both count forms. */
struct side {
    int n;
    MPI_Aint off[MAXN];
    int cnt[MAXN];
    MPI_Datatype type[MAXN];
    int icnt[MAXN], idispl[MAXN];
    MPI_Count ccnt[MAXN];
    MPI_Aint cdispl[MAXN];
    size_t bytes;
    char *buf;
};

static void add_block(struct side *s, int i, int cnt, MPI_Datatype type, int gap)
{
    int size = type == MPI_DOUBLE ? 8 : 4;

    s->bytes = (s->bytes + 7) & ~(size_t)7;
    s->off[i] = (MPI_Aint)s->bytes;
    s->cnt[i] = cnt;
    s->type[i] = type;
    s->icnt[i] = cnt;
    s->ccnt[i] = cnt;
    /* v forms count in elements of the one type, w forms in bytes */
    s->idispl[i] = (int)(s->off[i] / 4);
    s->cdispl[i] = s->off[i] / 4;
    s->bytes += (size_t)cnt * (size_t)size + (gap ? 8 : 0);
}

static void layout(const struct nbh *h, enum kind k, int scale, struct side *snd, struct side *rcv)
{
    int me;

    MPI_Comm_rank(h->comm, &me);
    memset(snd, 0, sizeof(*snd));
    memset(rcv, 0, sizeof(*rcv));
    snd->n = k == AG || k == AGV ? 1 : h->out;
    rcv->n = h->in;
    for (int j = 0; j < snd->n; j++) {
        int key = key_out(h, j), t = h->dst[j];
        switch (k) {
        case AG: add_block(snd, j, 2 * scale, MPI_INT, 0); break;
        case AGV: add_block(snd, j, scale * (1 + me % 3), MPI_INT, 0); break;
        case A2A: add_block(snd, j, 2 * scale, MPI_INT, 0); break;
        case A2AV: add_block(snd, j, t < 0 ? scale : vcount(scale, me, t, key), MPI_INT, 1); break;
        default:
            add_block(snd, j, t < 0 ? scale : vcount(scale, me, t, key),
                      key % 2 ? MPI_DOUBLE : MPI_INT, 1);
            break;
        }
    }
    for (int i = 0; i < rcv->n; i++) {
        int key = key_in(h, i), f = h->src[i], null = f == MPI_PROC_NULL;
        switch (k) {
        case AG: add_block(rcv, i, 2 * scale, MPI_INT, 0); break;
        case AGV: add_block(rcv, i, scale * (1 + (null ? 0 : f % 3)), MPI_INT, 1); break;
        case A2A: add_block(rcv, i, 2 * scale, MPI_INT, 0); break;
        case A2AV: add_block(rcv, i, null ? scale : vcount(scale, f, me, key), MPI_INT, 1); break;
        default:
            add_block(rcv, i, null ? scale : vcount(scale, f, me, key),
                      key % 2 ? MPI_DOUBLE : MPI_INT, 1);
            break;
        }
    }
    snd->buf = malloc(snd->bytes + 8);
    rcv->buf = malloc(rcv->bytes + 8);
}

static void fill(const struct nbh *h, enum kind k, struct side *snd, int iter)
{
    int me;

    MPI_Comm_rank(h->comm, &me);
    for (int j = 0; j < snd->n; j++) {
        int ag = k == AG || k == AGV;
        int t = ag ? 0 : h->dst[j], key = ag ? 0 : key_out(h, j);
        for (int e = 0; e < snd->cnt[j]; e++) {
            int v = val(iter, me, t, key, e);
            if (snd->type[j] == MPI_DOUBLE)
                ((double *)(snd->buf + snd->off[j]))[e] = v;
            else
                ((int *)(snd->buf + snd->off[j]))[e] = v;
        }
    }
}

static void check(const struct nbh *h, enum kind k, const struct side *rcv, int iter,
                  const char *what)
{
    char *touched = calloc(rcv->bytes + 8, 1);
    int me, bad = 0;

    MPI_Comm_rank(h->comm, &me);
    for (int i = 0; i < rcv->n; i++) {
        int ag = k == AG || k == AGV, f = h->src[i];
        int t = ag ? 0 : me, key = ag ? 0 : key_in(h, i);
        int size = rcv->type[i] == MPI_DOUBLE ? 8 : 4;
        if (f == MPI_PROC_NULL)
            continue;
        memset(touched + rcv->off[i], 1, (size_t)rcv->cnt[i] * (size_t)size);
        for (int e = 0; e < rcv->cnt[i] && !bad; e++) {
            int want = val(iter, f, t, key, e), got;
            if (rcv->type[i] == MPI_DOUBLE)
                got = (int)((double *)(rcv->buf + rcv->off[i]))[e];
            else
                got = ((int *)(rcv->buf + rcv->off[i]))[e];
            if (got != want) {
                CHECK_TRUE(0, "%s: block %d (from %d) element %d is %d, want %d", what, i, f, e,
                           got, want);
                bad = 1;
            }
        }
    }
    for (size_t b = 0; b < rcv->bytes && !bad; b++)
        if (!touched[b] && (unsigned char)rcv->buf[b] != 0xEE) {
            CHECK_TRUE(0, "%s: byte %zu outside every block was written", what, b);
            bad = 1;
        }
    free(touched);
}

static int call(const struct nbh *h, enum kind k, enum form f, struct side *s, struct side *r,
                MPI_Request *rq)
{
    int big = f == BLOCK_C || f == NB_C || f == PERS_C;
    int nb = f == NB || f == NB_C, pers = f == PERS || f == PERS_C;
    MPI_Comm c = h->comm;
    const void *sb = s->buf;
    void *rb = r->buf;
    MPI_Info in = MPI_INFO_NULL;

    switch (k) {
    case AG:
        if (big)
            return pers ? MPI_Neighbor_allgather_init_c(sb, s->cnt[0], MPI_INT, rb,
                                                        r->n ? r->cnt[0] : 0, MPI_INT, c, in, rq)
                   : nb ? MPI_Ineighbor_allgather_c(sb, s->cnt[0], MPI_INT, rb,
                                                    r->n ? r->cnt[0] : 0, MPI_INT, c, rq)
                        : MPI_Neighbor_allgather_c(sb, s->cnt[0], MPI_INT, rb, r->n ? r->cnt[0] : 0,
                                                   MPI_INT, c);
        return pers ? MPI_Neighbor_allgather_init(sb, s->cnt[0], MPI_INT, rb, r->n ? r->cnt[0] : 0,
                                                  MPI_INT, c, in, rq)
               : nb ? MPI_Ineighbor_allgather(sb, s->cnt[0], MPI_INT, rb, r->n ? r->cnt[0] : 0,
                                              MPI_INT, c, rq)
                    : MPI_Neighbor_allgather(sb, s->cnt[0], MPI_INT, rb, r->n ? r->cnt[0] : 0,
                                             MPI_INT, c);
    case AGV:
        if (big)
            return pers ? MPI_Neighbor_allgatherv_init_c(sb, s->cnt[0], MPI_INT, rb, r->ccnt,
                                                         r->cdispl, MPI_INT, c, in, rq)
                   : nb ? MPI_Ineighbor_allgatherv_c(sb, s->cnt[0], MPI_INT, rb, r->ccnt, r->cdispl,
                                                     MPI_INT, c, rq)
                        : MPI_Neighbor_allgatherv_c(sb, s->cnt[0], MPI_INT, rb, r->ccnt, r->cdispl,
                                                    MPI_INT, c);
        return pers ? MPI_Neighbor_allgatherv_init(sb, s->cnt[0], MPI_INT, rb, r->icnt, r->idispl,
                                                   MPI_INT, c, in, rq)
               : nb ? MPI_Ineighbor_allgatherv(sb, s->cnt[0], MPI_INT, rb, r->icnt, r->idispl,
                                               MPI_INT, c, rq)
                    : MPI_Neighbor_allgatherv(sb, s->cnt[0], MPI_INT, rb, r->icnt, r->idispl,
                                              MPI_INT, c);
    case A2A: {
        int sc = s->n ? s->cnt[0] : 0, rc = r->n ? r->cnt[0] : 0;
        /* regular blocks: every count is the same (2 * scale) */
        sc = rc = sc ? sc : rc;
        if (big)
            return pers ? MPI_Neighbor_alltoall_init_c(sb, sc, MPI_INT, rb, rc, MPI_INT, c, in, rq)
                   : nb ? MPI_Ineighbor_alltoall_c(sb, sc, MPI_INT, rb, rc, MPI_INT, c, rq)
                        : MPI_Neighbor_alltoall_c(sb, sc, MPI_INT, rb, rc, MPI_INT, c);
        return pers ? MPI_Neighbor_alltoall_init(sb, sc, MPI_INT, rb, rc, MPI_INT, c, in, rq)
               : nb ? MPI_Ineighbor_alltoall(sb, sc, MPI_INT, rb, rc, MPI_INT, c, rq)
                    : MPI_Neighbor_alltoall(sb, sc, MPI_INT, rb, rc, MPI_INT, c);
    }
    case A2AV:
        if (big)
            return pers ? MPI_Neighbor_alltoallv_init_c(sb, s->ccnt, s->cdispl, MPI_INT, rb,
                                                        r->ccnt, r->cdispl, MPI_INT, c, in, rq)
                   : nb ? MPI_Ineighbor_alltoallv_c(sb, s->ccnt, s->cdispl, MPI_INT, rb, r->ccnt,
                                                    r->cdispl, MPI_INT, c, rq)
                        : MPI_Neighbor_alltoallv_c(sb, s->ccnt, s->cdispl, MPI_INT, rb, r->ccnt,
                                                   r->cdispl, MPI_INT, c);
        return pers ? MPI_Neighbor_alltoallv_init(sb, s->icnt, s->idispl, MPI_INT, rb, r->icnt,
                                                  r->idispl, MPI_INT, c, in, rq)
               : nb ? MPI_Ineighbor_alltoallv(sb, s->icnt, s->idispl, MPI_INT, rb, r->icnt,
                                              r->idispl, MPI_INT, c, rq)
                    : MPI_Neighbor_alltoallv(sb, s->icnt, s->idispl, MPI_INT, rb, r->icnt,
                                             r->idispl, MPI_INT, c);
    default:
        if (big)
            return pers ? MPI_Neighbor_alltoallw_init_c(sb, s->ccnt, s->off, s->type, rb, r->ccnt,
                                                        r->off, r->type, c, in, rq)
                   : nb ? MPI_Ineighbor_alltoallw_c(sb, s->ccnt, s->off, s->type, rb, r->ccnt,
                                                    r->off, r->type, c, rq)
                        : MPI_Neighbor_alltoallw_c(sb, s->ccnt, s->off, s->type, rb, r->ccnt,
                                                   r->off, r->type, c);
        return pers ? MPI_Neighbor_alltoallw_init(sb, s->icnt, s->off, s->type, rb, r->icnt, r->off,
                                                  r->type, c, in, rq)
               : nb ? MPI_Ineighbor_alltoallw(sb, s->icnt, s->off, s->type, rb, r->icnt, r->off,
                                              r->type, c, rq)
                    : MPI_Neighbor_alltoallw(sb, s->icnt, s->off, s->type, rb, r->icnt, r->off,
                                             r->type, c);
    }
}

static void run(const struct nbh *h, enum kind k, enum form f, int scale)
{
    struct side *s = malloc(sizeof(*s)), *r = malloc(sizeof(*r));
    int pers = f == PERS || f == PERS_C, iters = pers ? 3 : 1, rc = MPI_SUCCESS;
    MPI_Request rq = MPI_REQUEST_NULL;
    char what[160];

    layout(h, k, scale, s, r);
    snprintf(what, sizeof(what), "%s %s %s x%d", h->name, kind_name[k], form_name[f], scale);
    for (int it = 1; it <= iters; it++) {
        fill(h, k, s, it);
        memset(r->buf, 0xEE, r->bytes + 8);
        if (it == 1)
            rc = call(h, k, f, s, r, &rq);
        if (rc != MPI_SUCCESS) {
            CHECK_TRUE(0, "%s: returned %d", what, rc);
            break;
        }
        if (pers)
            MPI_Start(&rq);
        if (rq != MPI_REQUEST_NULL)
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        check(h, k, r, it, what);
    }
    if (pers && rq != MPI_REQUEST_NULL)
        MPI_Request_free(&rq);
    free(s->buf);
    free(r->buf);
    free(s);
    free(r);
}

static void run_all(struct nbh *h)
{
    int me;

    if (h->comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(h->comm, &me);
    for (int k = 0; k < NKINDS; k++)
        for (int f = 0; f < NFORMS; f++)
            run(h, (enum kind)k, (enum form)f, 1);
    /* Past the eager limit: rendezvous must keep the pairing. */
    run(h, A2AV, BLOCK, 6000);
    run(h, A2AW, NB, 6000);
    run(h, AG, PERS, 6000);
    MPI_Comm_free(&h->comm);
}

static void cart(const char *name, int ndims, int *dims, const int *periods)
{
    struct nbh h = {.name = name, .cart = 1};

    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &h.comm);
    if (h.comm == MPI_COMM_NULL)
        return;
    h.in = h.out = 2 * ndims;
    for (int d = 0; d < ndims; d++) {
        MPI_Cart_shift(h.comm, d, 1, &h.src[2 * d], &h.src[2 * d + 1]);
        h.dst[2 * d] = h.src[2 * d];
        h.dst[2 * d + 1] = h.src[2 * d + 1];
    }
    run_all(&h);
}

/* Ring plus a self-loop on node 0; on 2 ranks the ring's two edges are
 * parallel, on 1 both are self-loops. */
static void graph(void)
{
    struct nbh h = {.name = "graph"};
    int n = mt_size, index[64], edges[192], e = 0;

    for (int i = 0; i < n; i++) {
        edges[e++] = (i + 1) % n;
        edges[e++] = (i + n - 1) % n;
        if (i == 0)
            edges[e++] = 0;
        index[i] = e;
    }
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &h.comm);
    MPI_Graph_neighbors_count(h.comm, mt_rank, &h.in);
    h.out = h.in;
    MPI_Graph_neighbors(h.comm, mt_rank, MAXN, h.src);
    memcpy(h.dst, h.src, sizeof(h.src));
    run_all(&h);
}

/* Out-edges of q: to q+1 twice, q+3 and itself (mod n), with weights. */
static int outs(int q, int n, int *d)
{
    d[0] = (q + 1) % n, d[1] = (q + 1) % n, d[2] = (q + 3) % n, d[3] = q;
    return 4;
}

static void dist_adjacent(void)
{
    struct nbh h = {.name = "dist graph (adjacent)"};
    int n = mt_size, sw[MAXN], dw[MAXN], d[4];

    h.out = outs(mt_rank, n, h.dst);
    /* in-edges listed from the highest source down: only the order among
     * edges from one process matters */
    for (int q = n - 1; q >= 0; q--)
        for (int j = 0; j < outs(q, n, d); j++)
            if (d[j] == mt_rank)
                h.src[h.in++] = q;
    for (int i = 0; i < MAXN; i++)
        sw[i] = i, dw[i] = 2 * i;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, h.in, h.src, sw, h.out, h.dst, dw, MPI_INFO_NULL,
                                   0, &h.comm);
    run_all(&h);
}

/* Rank q names the out-edges of q+1 (mod n): every edge is named by a
 * process other than its ends (on more than 2 ranks). Only some ranks
 * have a self-loop, so degrees differ. */
static void dist_create(void)
{
    struct nbh h = {.name = "dist graph (create)"};
    int n = mt_size, src = (mt_rank + 1) % n, d[4], deg = outs(src, n, d), w[4] = {5, 6, 7, 8};
    int weighted;

    if (src % 2)
        deg--; /* drop the self-loop of odd ranks */
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, d, w, MPI_INFO_NULL, 0, &h.comm);
    MPI_Dist_graph_neighbors_count(h.comm, &h.in, &h.out, &weighted);
    MPI_Dist_graph_neighbors(h.comm, MAXN, h.src, MPI_UNWEIGHTED, MAXN, h.dst, MPI_UNWEIGHTED);
    run_all(&h);
}

/* A binary tree whose missing parent and children are MPI_PROC_NULL:
 * adjacent (in = out = parent, children), and by MPI_Dist_graph_create
 * with each rank naming its own out-edges (the null ones stay out-edges
 * only). */
static void tree(int adjacent)
{
    struct nbh h = {.name = adjacent ? "tree with MPI_PROC_NULL (adjacent)"
                                     : "tree with MPI_PROC_NULL (create)"};
    int r = mt_rank, n = mt_size, nb[3], three = 3, weighted;

    nb[0] = r ? (r - 1) / 2 : MPI_PROC_NULL;
    nb[1] = 2 * r + 1 < n ? 2 * r + 1 : MPI_PROC_NULL;
    nb[2] = 2 * r + 2 < n ? 2 * r + 2 : MPI_PROC_NULL;
    if (adjacent)
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, nb, MPI_UNWEIGHTED, 3, nb, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &h.comm);
    else
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &r, &three, nb, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                              &h.comm);
    MPI_Dist_graph_neighbors_count(h.comm, &h.in, &h.out, &weighted);
    MPI_Dist_graph_neighbors(h.comm, MAXN, h.src, MPI_UNWEIGHTED, MAXN, h.dst, MPI_UNWEIGHTED);
    CHECK_ALL ("tree: in %d out %d", h.in, h.out) {
        CHECK_EQ_INT(h.out, 3);
        CHECK_EQ_INT(h.in, (adjacent ? 3 : 3 - (nb[0] < 0) - (nb[1] < 0) - (nb[2] < 0)));
    }
    run_all(&h);
}

int main(int argc, char **argv)
{
    int dims[3], periods[3];

    mt_init(&argc, &argv);
    dims[0] = dims[1] = 0;
    MPI_Dims_create(mt_size, 2, dims);
    periods[0] = periods[1] = 1;
    cart("2-D periodic grid", 2, dims, periods);
    dims[0] = mt_size, dims[1] = 1, dims[2] = 1;
    periods[0] = 0, periods[1] = 1, periods[2] = 1;
    cart("grid with extent-1 dimensions", 3, dims, periods);
    dims[0] = mt_size, periods[0] = 1;
    cart("1-D periodic ring", 1, dims, periods);
    graph();
    dist_adjacent();
    dist_create();
    tree(1);
    tree(0);
    return mt_finish("t_neighbor");
}
