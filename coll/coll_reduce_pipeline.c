/* Segmented pipelined reduce along a chain: relative rank v receives the
 * partial result of v+1..n-1 segment by segment, folds its own
 * contribution into each segment and passes it on to v-1. In round j a
 * rank folds and forwards segment j-1 while it receives segment j, so the
 * whole chain works at once and each segment is folded while still in
 * cache. With a commutative op the chain ends at the root; otherwise it
 * runs down the ranks to rank 0 (every partial result is then a run of
 * consecutive higher ranks, folded as own op higher) and rank 0 forwards
 * the result to the root. The leaf sends all its segments in one round. */
#include "coll.h"
#include "param.h"

RT_PARAM(p_seg, "COLL_REDUCE_SEGMENT", RT_PARAM_SIZE, "32k",
         "Segment size of the pipelined (chain) reduce")

static size_t seg_bytes = (size_t)-1;

struct segs {
    size_t count, seg, n;
};

static size_t seg_off(const struct segs *g, size_t j)
{
    return j * g->seg;
}

static size_t seg_len(const struct segs *g, size_t j)
{
    size_t off = j * g->seg;
    return g->count - off < g->seg ? g->count - off : g->seg;
}

void coll_reduce_chain(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, root = a->root;
    int top = s->op->commute ? root : 0, v = (r - top + n) % n;
    int parent = (r - 1 + n) % n, child = (r + 1) % n;
    const void *own = a->inplace ? a->rbuf : a->sbuf;
    struct rdmpi_datatype *dt = a->rdt;
    struct segs g = {.count = a->rcount};
    void *acc = NULL, *t[2] = {NULL, NULL};

    if (n == 1) {
        if (!a->inplace)
            coll_copy(s, a->sbuf, g.count, dt, a->rbuf, g.count, dt);
        return;
    }
    if (RT_UNLIKELY(seg_bytes == (size_t)-1))
        seg_bytes = rt_param_size(&p_seg);
    g.seg = seg_bytes / dt->size ? seg_bytes / dt->size : 1;
    g.n = (g.count + g.seg - 1) / g.seg;
    if (v == n - 1) {
        for (size_t j = 0; j < g.n; j++)
            coll_send(s, coll_at(own, seg_off(&g, j), dt), seg_len(&g, j), dt, parent);
        coll_fence(s);
    } else {
        /* Segments land in the accumulator and our contribution is folded
         * into them, unless it already lives there (MPI_IN_PLACE). */
        acc = r == root ? a->rbuf : coll_tmp(s, g.count, dt);
        for (size_t j = 0; j <= g.n; j++) {
            if (j) {
                size_t k = j - 1;
                void *dst = coll_at(acc, seg_off(&g, k), dt);
                if (acc != own)
                    coll_reduce(s, coll_at(own, seg_off(&g, k), dt), dst, seg_len(&g, k), dt,
                                COLL_SRC_LOWER);
                else
                    coll_reduce(s, t[k % 2], dst, seg_len(&g, k), dt, COLL_SRC_HIGHER);
                if (v)
                    coll_send(s, dst, seg_len(&g, k), dt, parent);
            }
            if (j < g.n) {
                void *b = coll_at(acc, seg_off(&g, j), dt);
                if (acc == own) {
                    if (!t[j % 2])
                        t[j % 2] = coll_tmp(s, g.seg, dt);
                    b = t[j % 2];
                }
                coll_recv(s, b, seg_len(&g, j), dt, child);
            }
            coll_fence(s);
        }
    }
    if (top == root)
        return;
    if (r == 0)
        coll_send(s, acc, g.count, dt, root);
    else if (r == root)
        coll_recv(s, a->rbuf, g.count, dt, 0);
    coll_fence(s);
}
