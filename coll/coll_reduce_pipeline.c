/* Segmented pipelined reduce along a chain (fan-out 1) or a binary tree
 * (fan-out 2). The message is cut into segments of COLL_REDUCE_SEGMENT
 * bytes (whole elements); in round j a rank folds segment j-1 of its
 * children's partial results into its own contribution and forwards it to
 * its parent while it receives segment j, so every level of the tree works
 * at once and each segment is folded while still in cache.
 *
 * Rank v's subtree is the run of relative ranks [v, end): the children
 * split [v+1, end) into `fanout` consecutive runs. A partial result is
 * then always own op (higher runs in order), which keeps rank order for
 * non-commutative ops when the tree is rooted at rank 0; rank 0 forwards
 * the result to the root then. Commutative ops root the tree at the root.
 * A leaf sends all its segments in one round. */
#include "coll.h"
#include "param.h"

RT_PARAM(p_seg, "COLL_REDUCE_SEGMENT", RT_PARAM_SIZE, "128k",
         "Segment size of the pipelined reduces (chain and binary)")

static size_t seg_bytes = (size_t)-1;

enum { MAX_FANOUT = 2 };

struct tree {
    int parent; /* -1 at the top */
    int nchild, child[MAX_FANOUT];
};

/* Walks down from the top to v, splitting runs as the module comment says. */
static void tree_of(struct tree *t, int v, int n, int fanout)
{
    int cur = 0, end = n;

    t->parent = -1;
    for (;;) {
        int lo = cur + 1, len = end - lo, next = -1, next_end = end;

        t->nchild = 0;
        for (int i = 0; i < fanout && len; i++) {
            int a = lo + len * i / fanout, b = lo + len * (i + 1) / fanout;
            if (a == b)
                continue;
            t->child[t->nchild++] = a;
            if (v >= a && v < b) {
                next = a;
                next_end = b;
            }
        }
        if (cur == v)
            return;
        t->parent = cur;
        cur = next;
        end = next_end;
    }
}

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

static void pipeline(struct coll_sched *s, const struct coll_args *a, int fanout)
{
    int n = s->size, r = s->rank, root = a->root;
    int top = s->op->commute ? root : 0, v = (r - top + n) % n;
    const void *own = a->inplace ? a->rbuf : a->sbuf;
    struct rdmpi_datatype *dt = a->rdt;
    struct segs g = {.count = a->rcount};
    struct tree t;
    void *acc = NULL, *tmp[MAX_FANOUT][2] = {{NULL}};
    int parent;

    if (n == 1) {
        if (!a->inplace)
            coll_copy(s, a->sbuf, g.count, dt, a->rbuf, g.count, dt);
        return;
    }
    if (RT_UNLIKELY(seg_bytes == (size_t)-1))
        seg_bytes = rt_param_size(&p_seg);
    /* Elements of a zero-size type carry no data: one segment. */
    g.seg = !dt->size ? g.count : seg_bytes / dt->size ? seg_bytes / dt->size : 1;
    g.n = (g.count + g.seg - 1) / g.seg;
    tree_of(&t, v, n, fanout);
    parent = (t.parent + top) % n;
    if (!t.nchild) {
        for (size_t j = 0; j < g.n; j++)
            coll_send(s, coll_at(own, seg_off(&g, j), dt), seg_len(&g, j), dt, parent);
        coll_fence(s);
    } else {
        /* The first child's segments land in the accumulator and our
         * contribution is folded into them, unless it already lives there
         * (MPI_IN_PLACE); the other children's go to scratch. */
        acc = r == root ? a->rbuf : coll_tmp(s, g.count, dt);
        for (size_t j = 0; j <= g.n; j++) {
            if (j) {
                size_t k = j - 1, len = seg_len(&g, k);
                void *dst = coll_at(acc, seg_off(&g, k), dt);
                if (acc != own)
                    coll_reduce(s, coll_at(own, seg_off(&g, k), dt), dst, len, dt, COLL_SRC_LOWER);
                for (int c = acc != own; c < t.nchild; c++)
                    coll_reduce(s, tmp[c][k % 2], dst, len, dt, COLL_SRC_HIGHER);
                if (t.parent >= 0)
                    coll_send(s, dst, len, dt, parent);
            }
            for (int c = 0; c < t.nchild && j < g.n; c++) {
                void *b = coll_at(acc, seg_off(&g, j), dt);
                if (c || acc == own) {
                    if (!tmp[c][j % 2])
                        tmp[c][j % 2] = coll_tmp(s, g.seg, dt);
                    b = tmp[c][j % 2];
                }
                coll_recv(s, b, seg_len(&g, j), dt, (t.child[c] + top) % n);
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

void coll_reduce_chain(struct coll_sched *s, const struct coll_args *a)
{
    pipeline(s, a, 1);
}

void coll_reduce_binary(struct coll_sched *s, const struct coll_args *a)
{
    pipeline(s, a, 2);
}
