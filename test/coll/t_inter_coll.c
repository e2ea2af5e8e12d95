/* Collectives on intercommunicators, checked against hand-computed data:
 * MPI_COMM_WORLD split at rank 1 and at size/2 (groups of unequal sizes),
 * every collective in blocking, non-blocking and persistent form
 * (persistent ones started several times with new data), non-blocking ones
 * overlapped, a non-commutative op to check rank order, and bad input
 * (MPI_IN_PLACE, invalid roots, MPI_Scan/MPI_Exscan on an intercomm). */
#include "../p2p/mpitest.h"

#include <time.h>

enum { BLOCKING, NONBLOCKING, PERSISTENT, NMODES };
static const char *mode_name[] = {"blocking", "non-blocking", "persistent"};

/* One intercommunicator: group 0 is world ranks [0, split), group 1 the
 * rest; L and R are the local and remote group sizes, r our local rank. */
struct ic {
    MPI_Comm comm;
    int g, L, R, r, split;
};

static const char *what; /* the case running, for messages */

static void ck(int rc, const char *fn)
{
    CHECK_MPI(rc, "%s: %s returned %d", what, fn, rc);
}

/* The value element i of rank r in group g contributes, in run `it`. */
static int V(int g, int r, int i, int it)
{
    return (g + 1) * 1000000 + r * 10000 + i * 3 + it * 7;
}

static int iters(int mode)
{
    return mode == PERSISTENT ? 3 : 1;
}

/* Runs one collective call in the given mode; a persistent request is made
 * in run 0 and started in every run (its buffers keep their addresses). */
#define RUN(mode, it, rq, B, I, P, ...)                                                            \
    do {                                                                                           \
        if ((mode) == BLOCKING) {                                                                  \
            ck(B(__VA_ARGS__), #B);                                                                \
        } else {                                                                                   \
            if ((mode) == NONBLOCKING)                                                             \
                ck(I(__VA_ARGS__, &(rq)), #I);                                                     \
            else if ((it) == 0)                                                                    \
                ck(P(__VA_ARGS__, MPI_INFO_NULL, &(rq)), #P);                                      \
            if ((mode) == PERSISTENT)                                                              \
                ck(MPI_Start(&(rq)), "MPI_Start");                                                 \
            ck(MPI_Wait(&(rq), MPI_STATUS_IGNORE), "MPI_Wait");                                    \
        }                                                                                          \
    } while (0)

static void done(int mode, MPI_Request *rq)
{
    if (mode == PERSISTENT)
        ck(MPI_Request_free(rq), "MPI_Request_free");
}

static int *ints(size_t n)
{
    int *p = calloc(n ? n : 1, sizeof(int));

    if (!p)
        abort();
    return p;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Nobody leaves before every rank of the other group entered: entry and
 * exit wall-clock times (one host, one clock) compared over WORLD. Group 1
 * enters late in some runs, group 0 in others. */
static void t_barrier(const struct ic *c, int mode)
{
    int n = mt_size;
    double t[2], *all = malloc(2 * sizeof(double) * (size_t)n);
    MPI_Request rq;

    for (int it = 0; it < iters(mode) + 1; it++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (c->g == it % 2 && c->r == c->L - 1) {
            struct timespec d = {0, 20 * 1000 * 1000};
            nanosleep(&d, NULL);
        }
        t[0] = now();
        if (it == iters(mode))
            ck(MPI_Barrier(c->comm), "MPI_Barrier"); /* the blocking one again */
        else
            RUN(mode, it, rq, MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init, c->comm);
        t[1] = now();
        MPI_Allgather(t, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, MPI_COMM_WORLD);
        for (int w = 0; w < n; w++)
            if ((w < c->split) != (c->g == 0))
                CHECK_TRUE(t[1] >= all[2 * w],
                           "%s: left at %.6f before world rank %d entered "
                           "at %.6f",
                           what, t[1], w, all[2 * w]);
    }
    done(mode, &rq);
    free(all);
}

/* Every root in turn, on both sides: ranks of the root's group pass
 * MPI_ROOT (the root) or MPI_PROC_NULL, the other group the root's rank. */
static int root_arg(const struct ic *c, int rg, int rr)
{
    return c->g == rg ? (c->r == rr ? MPI_ROOT : MPI_PROC_NULL) : rr;
}

static void t_bcast(const struct ic *c, int mode, int count)
{
    int *b = ints((size_t)count);
    MPI_Request rq;

    for (int rg = 0; rg < 2; rg++) {
        int gsize = c->g == rg ? c->L : c->R;
        for (int rr = 0; rr<gsize; rr += gsize - 1> 0 ? gsize - 1 : 1) {
            int root = root_arg(c, rg, rr);
            for (int it = 0; it < iters(mode); it++) {
                for (int i = 0; i < count; i++)
                    b[i] = root == MPI_ROOT ? V(rg, rr, i, it) : -1;
                RUN(mode, it, rq, MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, b, count, MPI_INT, root,
                    c->comm);
                for (int i = 0; i < count; i++) {
                    int want = root == MPI_PROC_NULL ? -1 : V(rg, rr, i, it);
                    if (b[i] != want) {
                        CHECK_TRUE(0, "%s: root %d:%d count %d: b[%d] = %d, expected %d", what, rg,
                                   rr, count, i, b[i], want);
                        break;
                    }
                }
            }
            done(mode, &rq);
        }
    }
    free(b);
}

/* A non-commutative op: 2x2 matrices of unsigned ints (4 MPI_UNSIGNED
 * each; derived datatypes are not there yet), multiplied in rank order
 * (in * inout: in holds the lower ranks). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    unsigned *a = in, *b = inout;

    (void)dt;
    for (int k = 0; k < *len / 4; k++, a += 4, b += 4) {
        unsigned r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof(r));
    }
}

static MPI_Op op_mat;

static void mat_of(unsigned *m, int g, int r, int i, int it)
{
    m[0] = (unsigned)V(g, r, i, it);
    m[1] = (unsigned)(r + 2);
    m[2] = (unsigned)(i + 1);
    m[3] = (unsigned)(g + 3 + it);
}

/* The product, in rank order, of group g's (n ranks) matrices i. */
static void mat_expect(unsigned *m, int g, int n, int i, int it)
{
    mat_of(m, g, 0, i, it);
    for (int r = 1; r < n; r++) {
        unsigned x[4];
        int one = 4;
        mat_of(x, g, r, i, it);
        matmul(m, x, &one, NULL);
        memcpy(m, x, sizeof(x));
    }
}

/* Reduce to every root with SUM on ints and the matrix op. */
static void t_reduce(const struct ic *c, int mode, int count)
{
    int *s = ints((size_t)count), *d = ints((size_t)count);
    unsigned *ms = calloc((size_t)count * 4 + 4, sizeof(unsigned));
    unsigned *md = calloc((size_t)count * 4 + 4, sizeof(unsigned));
    MPI_Request rq;

    for (int rg = 0; rg < 2; rg++) {
        int gsize = c->g == rg ? c->L : c->R, og = 1 - rg, on = c->g == rg ? c->R : c->L;
        for (int rr = 0; rr<gsize; rr += gsize - 1> 0 ? gsize - 1 : 1) {
            int root = root_arg(c, rg, rr);
            for (int it = 0; it < iters(mode); it++) {
                for (int i = 0; i < count; i++) {
                    s[i] = V(c->g, c->r, i, it);
                    d[i] = -1;
                }
                RUN(mode, it, rq, MPI_Reduce, MPI_Ireduce, MPI_Reduce_init, s, d, count, MPI_INT,
                    MPI_SUM, root, c->comm);
                for (int i = 0; i < count; i++) {
                    int want = -1;
                    if (root == MPI_ROOT) {
                        want = 0;
                        for (int q = 0; q < on; q++)
                            want += V(og, q, i, it);
                    }
                    if (d[i] != want) {
                        CHECK_TRUE(0, "%s: sum to %d:%d count %d: d[%d] = %d, expected %d", what,
                                   rg, rr, count, i, d[i], want);
                        break;
                    }
                }
            }
            done(mode, &rq);
            /* the non-commutative op, blocking and once per mode */
            for (int i = 0; i < count; i++)
                mat_of(ms + 4 * i, c->g, c->r, i, mode);
            memset(md, 0, (size_t)count * 4 * sizeof(unsigned));
            if (mode == BLOCKING)
                ck(MPI_Reduce(ms, md, 4 * count, MPI_UNSIGNED, op_mat, root, c->comm),
                   "MPI_Reduce");
            else {
                if (mode == NONBLOCKING)
                    ck(MPI_Ireduce(ms, md, 4 * count, MPI_UNSIGNED, op_mat, root, c->comm, &rq),
                       "Ireduce");
                else {
                    ck(MPI_Reduce_init(ms, md, 4 * count, MPI_UNSIGNED, op_mat, root, c->comm,
                                       MPI_INFO_NULL, &rq),
                       "Reduce_init");
                    ck(MPI_Start(&rq), "MPI_Start");
                }
                ck(MPI_Wait(&rq, MPI_STATUS_IGNORE), "MPI_Wait");
                done(mode, &rq);
            }
            for (int i = 0; root == MPI_ROOT && i < count; i++) {
                unsigned m[4];
                mat_expect(m, og, on, i, mode);
                if (memcmp(m, md + 4 * i, sizeof(m))) {
                    CHECK_TRUE(0, "%s: matrix reduce to %d:%d, element %d wrong", what, rg, rr, i);
                    break;
                }
            }
        }
    }
    free(s);
    free(d);
    free(ms);
    free(md);
}

/* Each group gets the reduction of the other group's data. */
static void t_allreduce(const struct ic *c, int mode, int count)
{
    int *s = ints((size_t)count), *d = ints((size_t)count);
    unsigned *ms = calloc((size_t)count * 4 + 4, sizeof(unsigned));
    unsigned *md = calloc((size_t)count * 4 + 4, sizeof(unsigned));
    MPI_Request rq, rq2;

    for (int it = 0; it < iters(mode); it++) {
        for (int i = 0; i < count; i++) {
            s[i] = V(c->g, c->r, i, it);
            d[i] = -1;
            mat_of(ms + 4 * i, c->g, c->r, i, it);
        }
        RUN(mode, it, rq, MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, s, d, count, MPI_INT,
            MPI_SUM, c->comm);
        RUN(mode, it, rq2, MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, ms, md, 4 * count,
            MPI_UNSIGNED, op_mat, c->comm);
        for (int i = 0; i < count; i++) {
            int want = 0;
            unsigned m[4];
            for (int q = 0; q < c->R; q++)
                want += V(1 - c->g, q, i, it);
            mat_expect(m, 1 - c->g, c->R, i, it);
            if (d[i] != want || memcmp(m, md + 4 * i, sizeof(m))) {
                CHECK_TRUE(0,
                           "%s: allreduce count %d: element %d: %d, expected %d (or the "
                           "matrix differs)",
                           what, count, i, d[i], want);
                break;
            }
        }
    }
    done(mode, &rq);
    done(mode, &rq2);
    free(s);
    free(d);
    free(ms);
    free(md);
}

/* Reduce_scatter_block: n * recvcount must be equal in both groups, so a
 * group of L ranks takes blocks of R * k. Reduce_scatter: the same total
 * split unevenly (rank 0's block empty); off is our block's start. */
static void t_reduce_scatter(const struct ic *c, int mode, int k)
{
    int bc = c->R * k, total = c->L * c->R * k, *rc = ints((size_t)c->L);
    int *s = ints((size_t)total), *d = ints((size_t)total), off = 0;
    MPI_Request rq;

    for (int it = 0; it < iters(mode); it++) {
        for (int i = 0; i < total; i++)
            s[i] = V(c->g, c->r, i, it);
        for (int i = 0; i < bc; i++)
            d[i] = -1;
        RUN(mode, it, rq, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block,
            MPI_Reduce_scatter_block_init, s, d, bc, MPI_INT, MPI_SUM, c->comm);
        for (int i = 0; i < bc; i++) {
            int want = 0, e = c->r * bc + i;
            for (int q = 0; q < c->R; q++)
                want += V(1 - c->g, q, e, it);
            if (d[i] != want) {
                CHECK_TRUE(0, "%s: reduce_scatter_block k %d: d[%d] = %d, expected %d", what, k, i,
                           d[i], want);
                break;
            }
        }
    }
    done(mode, &rq);
    for (int i = 0, sum = 0; i < c->L; i++) {
        rc[i] = i < c->L - 1 ? i % 3 : total - sum;
        sum += rc[i];
        if (i < c->r)
            off += rc[i];
    }
    for (int it = 0; it < iters(mode); it++) {
        for (int i = 0; i < total; i++)
            s[i] = V(c->g, c->r, i, it);
        for (int i = 0; i < rc[c->r]; i++)
            d[i] = -1;
        RUN(mode, it, rq, MPI_Reduce_scatter, MPI_Ireduce_scatter, MPI_Reduce_scatter_init, s, d,
            rc, MPI_INT, MPI_SUM, c->comm);
        for (int i = 0; i < rc[c->r]; i++) {
            int want = 0;
            for (int q = 0; q < c->R; q++)
                want += V(1 - c->g, q, off + i, it);
            if (d[i] != want) {
                CHECK_TRUE(0, "%s: reduce_scatter: d[%d] = %d, expected %d", what, i, d[i], want);
                break;
            }
        }
    }
    done(mode, &rq);
    free(rc);
    free(s);
    free(d);
}

/* Gather and Gatherv to every root; gatherv's remote rank q sends q + 1
 * elements, placed in reverse order with gaps. */
static void t_gather(const struct ic *c, int mode, int k)
{
    int n = c->L > c->R ? c->L : c->R, span = n * (k + n + 2);
    int *s = ints((size_t)(k + n + 1)), *d = ints((size_t)span), *rc = ints((size_t)n);
    int *dis = ints((size_t)n);
    MPI_Request rq;

    for (int rg = 0; rg < 2; rg++) {
        int gsize = c->g == rg ? c->L : c->R, og = 1 - rg, on = c->g == rg ? c->R : c->L;
        for (int rr = 0; rr<gsize; rr += gsize - 1> 0 ? gsize - 1 : 1) {
            int root = root_arg(c, rg, rr);
            for (int it = 0; it < iters(mode); it++) {
                for (int i = 0; i < k; i++)
                    s[i] = V(c->g, c->r, i, it);
                for (int i = 0; i < span; i++)
                    d[i] = -1;
                RUN(mode, it, rq, MPI_Gather, MPI_Igather, MPI_Gather_init, s, k, MPI_INT, d, k,
                    MPI_INT, root, c->comm);
                for (int q = 0; q < on && root == MPI_ROOT; q++)
                    for (int i = 0; i < k; i++)
                        CHECK_EQ_INT(d[q * k + i], V(og, q, i, it),
                                     "%s: gather to %d:%d: block "
                                     "%d[%d] = %d",
                                     what, rg, rr, q, i, d[q * k + i]);
                if (root != MPI_ROOT)
                    CHECK_EQ_INT(d[0], -1, "%s: gather wrote at a non-root", what);
            }
            done(mode, &rq);
            for (int q = 0, o = span; q < on; q++) {
                rc[q] = q + 1;
                dis[q] = (o -= q + 2);
            }
            for (int it = 0; it < iters(mode); it++) {
                for (int i = 0; i <= c->r; i++)
                    s[i] = V(c->g, c->r, i, it);
                for (int i = 0; i < span; i++)
                    d[i] = -1;
                RUN(mode, it, rq, MPI_Gatherv, MPI_Igatherv, MPI_Gatherv_init, s, c->r + 1, MPI_INT,
                    d, rc, dis, MPI_INT, root, c->comm);
                for (int q = 0; q < on && root == MPI_ROOT; q++) {
                    for (int i = 0; i <= q; i++)
                        CHECK_EQ_INT(d[dis[q] + i], V(og, q, i, it),
                                     "%s: gatherv to %d:%d: "
                                     "block %d[%d] = %d",
                                     what, rg, rr, q, i, d[dis[q] + i]);
                    CHECK_EQ_INT(d[dis[q] + q + 1], -1, "%s: gatherv wrote past block %d", what, q);
                }
            }
            done(mode, &rq);
        }
    }
    free(s);
    free(d);
    free(rc);
    free(dis);
}

/* Scatter and Scatterv from every root; scatterv gives remote rank q
 * q + 1 elements taken in reverse order. */
static void t_scatter(const struct ic *c, int mode, int k)
{
    int n = c->L > c->R ? c->L : c->R, span = n * (k + n + 2);
    int *s = ints((size_t)span), *d = ints((size_t)(k + n + 1)), *sc = ints((size_t)n);
    int *dis = ints((size_t)n);
    MPI_Request rq;

    for (int rg = 0; rg < 2; rg++) {
        int gsize = c->g == rg ? c->L : c->R, on = c->g == rg ? c->R : c->L;
        for (int rr = 0; rr<gsize; rr += gsize - 1> 0 ? gsize - 1 : 1) {
            int root = root_arg(c, rg, rr);
            for (int it = 0; it < iters(mode); it++) {
                for (int i = 0; i < span; i++)
                    s[i] = root == MPI_ROOT ? V(rg, rr, i, it) : -2;
                for (int i = 0; i < k + 1; i++)
                    d[i] = -1;
                RUN(mode, it, rq, MPI_Scatter, MPI_Iscatter, MPI_Scatter_init, s, k, MPI_INT, d, k,
                    MPI_INT, root, c->comm);
                for (int i = 0; i < k && c->g != rg; i++)
                    CHECK_EQ_INT(d[i], V(rg, rr, c->r * k + i, it),
                                 "%s: scatter from %d:%d: "
                                 "d[%d] = %d",
                                 what, rg, rr, i, d[i]);
                CHECK_ALL ("%s: scatter wrote where it "
                           "should not",
                           what) {
                    CHECK_EQ_INT(d[k], -1);
                    CHECK_TRUE(c->g != rg || d[0] == -1);
                }
            }
            done(mode, &rq);
            for (int q = 0, o = span; q < on; q++) {
                sc[q] = q + 1;
                dis[q] = (o -= q + 2);
            }
            for (int it = 0; it < iters(mode); it++) {
                for (int i = 0; i < span; i++)
                    s[i] = root == MPI_ROOT ? V(rg, rr, i, it) : -2;
                for (int i = 0; i < k + n + 1; i++)
                    d[i] = -1;
                RUN(mode, it, rq, MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init, s, sc, dis,
                    MPI_INT, d, c->r + 1, MPI_INT, root, c->comm);
                if (c->g == rg)
                    continue;
                /* our block's displacement at the root: span - sum (q + 2) for q <= r */
                int o = span;
                for (int q = 0; q <= c->r; q++)
                    o -= q + 2;
                for (int i = 0; i <= c->r; i++)
                    CHECK_EQ_INT(d[i], V(rg, rr, o + i, it), "%s: scatterv from %d:%d: d[%d] = %d",
                                 what, rg, rr, i, d[i]);
                CHECK_EQ_INT(d[c->r + 1], -1, "%s: scatterv wrote past the block", what);
            }
            done(mode, &rq);
        }
    }
    free(s);
    free(d);
    free(sc);
    free(dis);
}

/* Allgather (k each) and Allgatherv (remote rank q sends q % 3, some
 * empty, placed with gaps; the _c form in the persistent mode): every
 * rank gets the remote group's blocks. */
static void t_allgather(const struct ic *c, int mode, int k)
{
    int span = c->R * (k + 4);
    int *s = ints((size_t)k + 3), *d = ints((size_t)span), *rc = ints((size_t)c->R);
    int *dis = ints((size_t)c->R);
    MPI_Count *rcc = calloc((size_t)c->R, sizeof(MPI_Count));
    MPI_Aint *disc = calloc((size_t)c->R, sizeof(MPI_Aint));
    MPI_Request rq;

    for (int it = 0; it < iters(mode); it++) {
        for (int i = 0; i < k; i++)
            s[i] = V(c->g, c->r, i, it);
        for (int i = 0; i < span; i++)
            d[i] = -1;
        RUN(mode, it, rq, MPI_Allgather, MPI_Iallgather, MPI_Allgather_init, s, k, MPI_INT, d, k,
            MPI_INT, c->comm);
        for (int q = 0; q < c->R; q++)
            for (int i = 0; i < k; i++)
                if (d[q * k + i] != V(1 - c->g, q, i, it)) {
                    CHECK_TRUE(0, "%s: allgather k %d: block %d[%d] = %d", what, k, q, i,
                               d[q * k + i]);
                    q = c->R;
                    break;
                }
    }
    done(mode, &rq);
    for (int q = 0; q < c->R; q++) {
        rcc[q] = rc[q] = q % 3;
        disc[q] = dis[q] = (c->R - 1 - q) * 4 + 1;
    }
    for (int it = 0; it < iters(mode); it++) {
        for (int i = 0; i < c->r % 3; i++)
            s[i] = V(c->g, c->r, i, it);
        for (int i = 0; i < span; i++)
            d[i] = -1;
        if (mode == PERSISTENT)
            RUN(mode, it, rq, MPI_Allgatherv_c, MPI_Iallgatherv_c, MPI_Allgatherv_init_c, s,
                c->r % 3, MPI_INT, d, rcc, disc, MPI_INT, c->comm);
        else
            RUN(mode, it, rq, MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init, s, c->r % 3,
                MPI_INT, d, rc, dis, MPI_INT, c->comm);
        for (int q = 0; q < c->R; q++) {
            for (int i = 0; i < rc[q]; i++)
                CHECK_EQ_INT(d[dis[q] + i], V(1 - c->g, q, i, it),
                             "%s: allgatherv block %d[%d] = "
                             "%d",
                             what, q, i, d[dis[q] + i]);
            CHECK_ALL ("%s: allgatherv wrote "
                       "outside block %d",
                       what, q) {
                CHECK_EQ_INT(d[dis[q] - 1], -1);
                CHECK_EQ_INT(d[dis[q] + rc[q]], -1);
            }
        }
    }
    done(mode, &rq);
    free(s);
    free(d);
    free(rc);
    free(dis);
    free(rcc);
    free(disc);
}

/* What rank `from` of group g sends rank `to` of the other group, element
 * i: the alltoall blocks; the v and w forms send f(from, to) elements. */
static int A2A(int g, int from, int to, int i, int it)
{
    return V(g, from, i, it) + to * 100;
}

static int f(int from, int to)
{
    return (from + 2 * to) % 3;
}

static void t_alltoall(const struct ic *c, int mode, int k)
{
    int R = c->R, cap = R * (k + 4);
    int *s = ints((size_t)cap), *d = ints((size_t)cap);
    int *sc = ints((size_t)R), *sd = ints((size_t)R), *rc = ints((size_t)R), *rd = ints((size_t)R);
    int *sdb = ints((size_t)R), *rdb = ints((size_t)R);
    MPI_Datatype *ty = malloc((size_t)R * sizeof(MPI_Datatype));
    MPI_Request rq;

    for (int it = 0; it < iters(mode); it++) {
        for (int q = 0; q < R; q++)
            for (int i = 0; i < k; i++)
                s[q * k + i] = A2A(c->g, c->r, q, i, it);
        for (int i = 0; i < cap; i++)
            d[i] = -1;
        RUN(mode, it, rq, MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init, s, k, MPI_INT, d, k,
            MPI_INT, c->comm);
        for (int q = 0; q < R; q++)
            for (int i = 0; i < k; i++)
                if (d[q * k + i] != A2A(1 - c->g, q, c->r, i, it)) {
                    CHECK_TRUE(0, "%s: alltoall k %d: block %d[%d] = %d", what, k, q, i,
                               d[q * k + i]);
                    q = R;
                    break;
                }
    }
    done(mode, &rq);
    /* v: send blocks packed in reverse order, receive with gaps */
    for (int q = 0, so = cap; q < R; q++) {
        sc[q] = f(c->r, q);
        sd[q] = (so -= sc[q] + 1);
        rc[q] = f(q, c->r);
        rd[q] = q * 4 + 1;
        sdb[q] = sd[q] * (int)sizeof(int);
        rdb[q] = rd[q] * (int)sizeof(int);
        ty[q] = MPI_INT;
    }
    for (int w = 0; w < 2; w++) {
        for (int it = 0; it < iters(mode); it++) {
            for (int q = 0; q < R; q++)
                for (int i = 0; i < sc[q]; i++)
                    s[sd[q] + i] = A2A(c->g, c->r, q, i, it + w);
            for (int i = 0; i < cap; i++)
                d[i] = -1;
            if (w)
                RUN(mode, it, rq, MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init, s, sc, sdb, ty,
                    d, rc, rdb, ty, c->comm);
            else
                RUN(mode, it, rq, MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init, s, sc, sd,
                    MPI_INT, d, rc, rd, MPI_INT, c->comm);
            for (int q = 0; q < R; q++) {
                for (int i = 0; i < rc[q]; i++)
                    CHECK_EQ_INT(d[rd[q] + i], A2A(1 - c->g, q, c->r, i, it + w),
                                 "%s: alltoall%s "
                                 "block %d[%d] = %d",
                                 what, w ? "w" : "v", q, i, d[rd[q] + i]);
                CHECK_ALL ("%s: alltoall%s wrote "
                           "outside block %d",
                           what, w ? "w" : "v", q) {
                    CHECK_EQ_INT(d[rd[q] - 1], -1);
                    CHECK_EQ_INT(d[rd[q] + rc[q]], -1);
                }
            }
        }
        done(mode, &rq);
    }
    free(s);
    free(d);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sdb);
    free(rdb);
    free(ty);
}

/* Several non-blocking collectives outstanding on two intercomms at once,
 * completed together. */
static void t_overlap(const struct ic *c, const struct ic *c2)
{
    int n = 64, R = c->R, s1[64], d1[64], b[64], s2[8], *d2 = ints((size_t)R * 8);
    int *s3 = ints((size_t)R * 2), *d3 = ints((size_t)R * 2), s4 = c2->r + 1, d4 = -1;
    MPI_Request rq[6];

    for (int i = 0; i < n; i++) {
        s1[i] = V(c->g, c->r, i, 5);
        d1[i] = -1;
        b[i] = c->g == 0 && c->r == 0 ? V(0, 0, i, 6) : -1;
    }
    for (int i = 0; i < 8; i++)
        s2[i] = V(c->g, c->r, i, 7);
    for (int q = 0; q < R; q++)
        for (int i = 0; i < 2; i++)
            s3[q * 2 + i] = A2A(c->g, c->r, q, i, 8);
    ck(MPI_Iallreduce(s1, d1, n, MPI_INT, MPI_SUM, c->comm, &rq[0]), "Iallreduce");
    ck(MPI_Ibcast(b, n, MPI_INT, root_arg(c, 0, 0), c->comm, &rq[1]), "Ibcast");
    ck(MPI_Iallgather(s2, 8, MPI_INT, d2, 8, MPI_INT, c->comm, &rq[2]), "Iallgather");
    ck(MPI_Iallreduce(&s4, &d4, 1, MPI_INT, MPI_MAX, c2->comm, &rq[3]), "Iallreduce 2");
    ck(MPI_Ialltoall(s3, 2, MPI_INT, d3, 2, MPI_INT, c->comm, &rq[4]), "Ialltoall");
    ck(MPI_Ibarrier(c->comm, &rq[5]), "Ibarrier");
    for (int i = 5; i >= 0; i--)
        ck(MPI_Wait(&rq[i], MPI_STATUS_IGNORE), "MPI_Wait");
    for (int i = 0; i < n; i++) {
        int want = 0;
        for (int q = 0; q < R; q++)
            want += V(1 - c->g, q, i, 5);
        CHECK_EQ_INT(d1[i], want, "%s: overlapped allreduce [%d] = %d, expected %d", what, i, d1[i],
                     want);
        CHECK_TRUE(c->g == 0 || b[i] == V(0, 0, i, 6), "%s: overlapped bcast [%d] = %d", what, i,
                   b[i]);
    }
    for (int q = 0; q < R; q++) {
        for (int i = 0; i < 8; i++)
            CHECK_EQ_INT(d2[q * 8 + i], V(1 - c->g, q, i, 7), "%s: overlapped allgather", what);
        for (int i = 0; i < 2; i++)
            CHECK_EQ_INT(d3[q * 2 + i], A2A(1 - c->g, q, c->r, i, 8), "%s: overlapped alltoall",
                         what);
    }
    CHECK_EQ_INT(d4, c2->R, "%s: overlapped allreduce on the second intercomm: %d, expected %d",
                 what, d4, c2->R);
    free(d2);
    free(s3);
    free(d3);
}

static void expect(int rc, int cls, const char *w, const char *needle)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len, k = -1;

    MPI_Error_class(rc, &k);
    CHECK_EQ_INT(k, cls, "%s: %s: class %d, expected %d", what, w, k, cls);
    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, msg, &len);
    CHECK_NE_PTR(strstr(msg, needle), NULL, "%s: %s: message '%s' lacks '%s'", what, w, msg,
                 needle);
}

/* Bad arguments fail at once, on the ranks that pass them, before any
 * communication; counts that differ across the groups are caught where
 * the message arrives; the intercomm works afterwards. */
static void t_badinput(const struct ic *c)
{
    int v[64] = {0}, w[64] = {0}, R = c->R, rc;
    MPI_Request rq;

    expect(MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, c->comm), MPI_ERR_BUFFER,
           "allreduce in place", "MPI_IN_PLACE, which intercommunicators do not allow");
    expect(MPI_Iallgather(MPI_IN_PLACE, 1, MPI_INT, v, 1, MPI_INT, c->comm, &rq), MPI_ERR_BUFFER,
           "iallgather in place", "MPI_Iallgather: sendbuf is MPI_IN_PLACE");
    expect(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, v, 1, MPI_INT, c->comm), MPI_ERR_BUFFER,
           "alltoall in place", "MPI_IN_PLACE");
    expect(MPI_Reduce_scatter_block(MPI_IN_PLACE, v, 1, MPI_INT, MPI_SUM, c->comm), MPI_ERR_BUFFER,
           "reduce_scatter_block in place", "MPI_IN_PLACE");
    expect(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, MPI_ROOT, c->comm), MPI_ERR_BUFFER, "bcast in place",
           "MPI_IN_PLACE");
    expect(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, v, 1, MPI_INT, 0, c->comm), MPI_ERR_BUFFER,
           "gather in place at a sender", "sendbuf is MPI_IN_PLACE");
    expect(MPI_Reduce(v, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_ROOT, c->comm), MPI_ERR_BUFFER,
           "reduce in place at the root", "recvbuf is MPI_IN_PLACE");
    expect(MPI_Bcast(v, 1, MPI_INT, R, c->comm), MPI_ERR_ROOT, "bcast root R",
           "pass MPI_ROOT at the root");
    expect(MPI_Ireduce(v, w, 1, MPI_INT, MPI_SUM, -7, c->comm, &rq), MPI_ERR_ROOT,
           "ireduce root -7", "MPI_Ireduce: root is -7");
    expect(MPI_Scatter_init(v, 1, MPI_INT, w, 1, MPI_INT, R + 3, c->comm, MPI_INFO_NULL, &rq),
           MPI_ERR_ROOT, "scatter_init root", "remote group");
    expect(MPI_Gatherv(v, 1, MPI_INT, w, NULL, NULL, MPI_INT, MPI_ROOT, c->comm), MPI_ERR_ARG,
           "gatherv NULL recvcounts at the root", "recvcounts is NULL");
    expect(MPI_Scan(v, w, 1, MPI_INT, MPI_SUM, c->comm), MPI_ERR_COMM, "scan",
           "MPI_Scan: comm is an intercommunicator");
    expect(MPI_Iexscan(v, w, 1, MPI_INT, MPI_SUM, c->comm, &rq), MPI_ERR_COMM, "iexscan",
           "intercommunicator");
    expect(MPI_Scan_init(v, w, 1, MPI_INT, MPI_SUM, c->comm, MPI_INFO_NULL, &rq), MPI_ERR_COMM,
           "scan_init", "intercommunicator");
    expect(MPI_Allreduce(v, w, 1, MPI_INT, MPI_OP_NULL, c->comm), MPI_ERR_OP, "op null",
           "MPI_OP_NULL");
    expect(MPI_Allreduce(v, v, 2, MPI_INT, MPI_SUM, c->comm), MPI_ERR_BUFFER, "aliased", "overlap");
    /* The root (group 0, rank 0) sends 8 ints where group 1 expects 16:
     * group 1's leader, the only one receiving from the root, says so, and
     * passes empty messages on, so the rest of group 1 fails too. */
    rc = MPI_Bcast(v, c->g ? 16 : 8, MPI_INT, root_arg(c, 0, 0), c->comm);
    if (c->g == 1 && c->r == 0)
        expect(rc, MPI_ERR_NOT_SAME, "bcast shorter", "remote rank 0 sent 32 bytes");
    else if (c->g == 1)
        expect(rc, MPI_ERR_NOT_SAME, "bcast shorter, below the leader", "sent 0 bytes");
    else
        ck(rc, "MPI_Bcast with a short root");
    /* still usable */
    v[0] = 1;
    ck(MPI_Allreduce(v, w, 1, MPI_INT, MPI_SUM, c->comm), "MPI_Allreduce after the errors");
    CHECK_EQ_INT(w[0], R, "%s: allreduce after the errors gave %d, expected %d", what, w[0], R);
}

static void make(struct ic *c, int split)
{
    MPI_Comm local;

    c->split = split;
    c->g = mt_rank >= split;
    MPI_Comm_split(MPI_COMM_WORLD, c->g, mt_rank, &local);
    ck(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, c->g ? 0 : split, 77, &c->comm),
       "MPI_Intercomm_create");
    MPI_Comm_free(&local);
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    MPI_Comm_size(c->comm, &c->L);
    MPI_Comm_rank(c->comm, &c->r);
    MPI_Comm_remote_size(c->comm, &c->R);
}

int main(int argc, char **argv)
{
    struct ic ics[2];
    char name[128];

    mt_init(&argc, &argv);
    if (mt_size < 2) {
        printf("t_inter_coll: needs 2 ranks or more, nothing to do\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Op_create(matmul, 0, &op_mat);
    make(&ics[0], 1);
    make(&ics[1], mt_size / 2);
    for (int k = 0; k < 2; k++) {
        const struct ic *c = &ics[k];
        for (int m = 0; m < NMODES; m++) {
            snprintf(name, sizeof(name), "split %d, %s", c->split, mode_name[m]);
            what = name;
            t_barrier(c, m);
            t_bcast(c, m, 0);
            t_bcast(c, m, 7);
            t_bcast(c, m, m == BLOCKING ? 100000 : 3000);
            t_reduce(c, m, 3);
            t_reduce(c, m, m == BLOCKING ? 20000 : 0);
            t_allreduce(c, m, 1);
            t_allreduce(c, m, m == BLOCKING ? 30000 : 500);
            t_reduce_scatter(c, m, 2);
            t_gather(c, m, 3);
            t_scatter(c, m, 3);
            t_allgather(c, m, 5);
            t_allgather(c, m, m == BLOCKING ? 20000 : 0);
            t_alltoall(c, m, 4);
            t_alltoall(c, m, m == BLOCKING ? 9000 : 0);
        }
        snprintf(name, sizeof(name), "split %d, overlapped", c->split);
        t_overlap(c, &ics[1 - k]);
        snprintf(name, sizeof(name), "split %d, bad input", c->split);
        t_badinput(c);
    }
    /* A duplicate intercomm has its own collectives. */
    {
        MPI_Comm dup;
        int v = ics[1].r, sum = -1, want = 0;

        what = "dup";
        ck(MPI_Comm_dup(ics[1].comm, &dup), "MPI_Comm_dup");
        ck(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup), "MPI_Allreduce on the dup");
        for (int q = 0; q < ics[1].R; q++)
            want += q;
        CHECK_EQ_INT(sum, want, "dup: allreduce gave %d, expected %d", sum, want);
        MPI_Comm_free(&dup);
    }
    /* Freed with collectives pending (the leaders' in-group parts still
     * waiting): they complete, and correctly; with and without one that
     * has a transfer with the remote group posted at the free. */
    for (int k = 0; k < 2; k++) {
        const struct ic *c = &ics[0];
        int v = c->r + 1, sum = -1, want = 0, b = c->g ? -1 : 42;
        MPI_Request rq[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        MPI_Comm dup;

        what = "freed while pending";
        for (int q = 0; q < c->R; q++)
            want += q + 1;
        ck(MPI_Comm_dup(c->comm, &dup), "MPI_Comm_dup");
        if (c->r) {
            struct timespec d = {0, 30 * 1000 * 1000};
            nanosleep(&d, NULL);
        }
        ck(MPI_Ibarrier(dup, &rq[0]), "MPI_Ibarrier");
        ck(MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup, &rq[1]), "MPI_Iallreduce");
        if (k)
            ck(MPI_Ibcast(&b, 1, MPI_INT, root_arg(c, 0, 0), dup, &rq[2]), "MPI_Ibcast");
        ck(MPI_Comm_free(&dup), "MPI_Comm_free");
        ck(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE), "MPI_Waitall");
        CHECK_EQ_INT(sum, want, "%s: allreduce gave %d, expected %d", what, sum, want);
        CHECK_TRUE(!k || b == 42 || (c->g == 0 && c->r), "%s: bcast gave %d", what, b);
    }
    MPI_Comm_free(&ics[0].comm);
    MPI_Comm_free(&ics[1].comm);
    MPI_Op_free(&op_mat);
    return mt_finish("t_inter_coll");
}
