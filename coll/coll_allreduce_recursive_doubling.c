/* Recursive-doubling allreduce: log2 p exchanges of the whole vector, the
 * latency choice. With n not a power of two, the first 2r ranks (r = n - p)
 * fold pairwise first: even ranks hand their data to the odd neighbour and
 * get the result back at the end. Partners' data always covers a run of
 * ranks below or above ours, so the op is applied in rank order. */
#include "coll.h"

struct state {
    const void *own; /* our contribution */
    void *tmp;       /* where partners' data lands once rbuf holds our result */
    bool merged;     /* rbuf holds our running result */
};

/* The buffer the next partner's data lands in. With a commutative op the
 * first lands straight in rbuf and our own contribution is folded into it,
 * which saves copying sendbuf first. */
static void *landing(struct coll_sched *s, const struct coll_args *a, struct state *st)
{
    if (!st->merged && s->op->commute && !a->inplace)
        return a->rbuf;
    if (!st->merged && !a->inplace)
        coll_copy(s, a->sbuf, a->rcount, a->rdt, a->rbuf, a->rcount, a->rdt);
    st->merged = true;
    if (!st->tmp)
        st->tmp = coll_tmp(s, a->rcount, a->rdt);
    return st->tmp;
}

/* Folds the partner's data, from ranks below ours (lower) or above, into
 * rbuf. */
static void fold(struct coll_sched *s, const struct coll_args *a, struct state *st, void *b,
                 bool lower)
{
    if (b == a->rbuf) {
        coll_reduce(s, st->own, a->rbuf, a->rcount, a->rdt,
                    lower ? COLL_SRC_HIGHER : COLL_SRC_LOWER);
        st->merged = true;
        return;
    }
    coll_reduce(s, b, a->rbuf, a->rcount, a->rdt, lower ? COLL_SRC_LOWER : COLL_SRC_HIGHER);
}

void coll_allreduce_recursive_doubling(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, p = coll_pow2_floor(n), rem = n - p, nr;
    struct state st = {.own = a->inplace ? a->rbuf : a->sbuf, .merged = a->inplace};
    size_t count = a->rcount;
    struct rdmpi_datatype *dt = a->rdt;

    if (r < 2 * rem && !(r & 1)) {
        coll_send(s, st.own, count, dt, r + 1);
        coll_fence(s);
        coll_recv(s, a->rbuf, count, dt, r + 1);
        coll_fence(s);
        return;
    }
    if (r < 2 * rem) {
        void *b = landing(s, a, &st);
        coll_recv(s, b, count, dt, r - 1);
        coll_fence(s);
        fold(s, a, &st, b, true);
        nr = r / 2;
    } else {
        nr = r - rem;
    }
    for (int mask = 1; mask < p; mask <<= 1) {
        int pn = nr ^ mask, peer = pn < rem ? 2 * pn + 1 : pn + rem;
        const void *out = st.merged ? a->rbuf : st.own;
        void *b = landing(s, a, &st);
        coll_recv(s, b, count, dt, peer);
        coll_send(s, out, count, dt, peer);
        coll_fence(s);
        fold(s, a, &st, b, pn < nr);
    }
    if (!st.merged)
        coll_copy(s, a->sbuf, count, dt, a->rbuf, count, dt);
    if (r < 2 * rem) {
        coll_send(s, a->rbuf, count, dt, r - 1);
        coll_fence(s);
    }
}
