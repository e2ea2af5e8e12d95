/* Rabenseifner's allreduce for long vectors: a reduce-scatter by recursive
 * halving (each exchange sends half of what is left) and an allgather by
 * recursive doubling that retraces it, so each rank sends about 2 (p-1)/p
 * of the vector instead of log2 p whole ones. Non-powers of two fold the
 * first 2r ranks pairwise first, as recursive doubling does. Distances grow
 * 1, 2, 4... so partners always hold runs of ranks adjacent to ours and a
 * non-commutative op is still applied in rank order. */
#include "coll.h"

struct vec {
    const struct coll_args *a;
    size_t q, rm; /* the vector is cut in p blocks: q or q + 1 elements */
};

static size_t off(const struct vec *v, int i)
{
    return (size_t)i * v->q + ((size_t)i < v->rm ? (size_t)i : v->rm);
}

static void *at(const struct vec *v, const void *base, int i)
{
    return coll_at(base, off(v, i), v->a->rdt);
}

static size_t span(const struct vec *v, int lo, int hi)
{
    return off(v, hi) - off(v, lo);
}

void coll_allreduce_rabenseifner(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, p = coll_pow2_floor(n), rem = n - p, nr, steps = 0;
    const void *own = a->inplace ? a->rbuf : a->sbuf;
    size_t count = a->rcount;
    struct rdmpi_datatype *dt = a->rdt;
    struct vec v = {.a = a, .q = count / (size_t)p, .rm = count % (size_t)p};
    bool merged = a->inplace;
    void *tmp = NULL;
    int lo = 0, hi = p, wlo[32], whi[32];

    if (r < 2 * rem && !(r & 1)) {
        coll_send(s, own, count, dt, r + 1);
        coll_fence(s);
        coll_recv(s, a->rbuf, count, dt, r + 1);
        coll_fence(s);
        return;
    }
    /* With a commutative op the first data received lands in rbuf and our
     * own contribution is folded into it, saving a copy of the vector. */
    if (!merged && !s->op->commute) {
        coll_copy(s, a->sbuf, count, dt, a->rbuf, count, dt);
        merged = true;
    }
    if (r < 2 * rem) {
        void *b = merged ? (tmp = coll_tmp(s, count, dt)) : a->rbuf;
        coll_recv(s, b, count, dt, r - 1);
        coll_fence(s);
        coll_reduce(s, merged ? b : own, a->rbuf, count, dt,
                    merged ? COLL_SRC_LOWER : COLL_SRC_HIGHER);
        merged = true;
        nr = r / 2;
    } else {
        nr = r - rem;
    }
    for (int d = 1; d < p; d <<= 1, steps++) {
        int pn = nr ^ d, peer = pn < rem ? 2 * pn + 1 : pn + rem, mid = (lo + hi) / 2;
        int klo = nr & d ? mid : lo, khi = nr & d ? hi : mid;
        int slo = nr & d ? lo : mid, shi = nr & d ? mid : hi;
        const void *src = merged ? a->rbuf : own;
        void *b = a->rbuf;

        if (merged && !tmp)
            tmp = coll_tmp(s, count, dt);
        if (merged)
            b = tmp;
        wlo[steps] = lo;
        whi[steps] = hi;
        if (span(&v, klo, khi))
            coll_recv(s, at(&v, b, klo), span(&v, klo, khi), dt, peer);
        if (span(&v, slo, shi))
            coll_send(s, at(&v, src, slo), span(&v, slo, shi), dt, peer);
        coll_fence(s);
        if (merged)
            coll_reduce(s, at(&v, b, klo), at(&v, a->rbuf, klo), span(&v, klo, khi), dt,
                        pn < nr ? COLL_SRC_LOWER : COLL_SRC_HIGHER);
        else
            coll_reduce(s, at(&v, own, klo), at(&v, a->rbuf, klo), span(&v, klo, khi), dt,
                        pn < nr ? COLL_SRC_HIGHER : COLL_SRC_LOWER);
        merged = true;
        lo = klo;
        hi = khi;
    }
    if (!merged)
        coll_copy(s, a->sbuf, count, dt, a->rbuf, count, dt);
    while (steps-- > 0) {
        int d = 1 << steps, pn = nr ^ d, peer = pn < rem ? 2 * pn + 1 : pn + rem;
        int plo = lo == wlo[steps] ? hi : wlo[steps], phi = lo == wlo[steps] ? whi[steps] : lo;

        if (span(&v, plo, phi))
            coll_recv(s, at(&v, a->rbuf, plo), span(&v, plo, phi), dt, peer);
        if (span(&v, lo, hi))
            coll_send(s, at(&v, a->rbuf, lo), span(&v, lo, hi), dt, peer);
        coll_fence(s);
        lo = wlo[steps];
        hi = whi[steps];
    }
    if (r < 2 * rem) {
        coll_send(s, a->rbuf, count, dt, r - 1);
        coll_fence(s);
    }
}
