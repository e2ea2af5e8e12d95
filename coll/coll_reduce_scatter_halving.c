/* Recursive-halving reduce-scatter for short vectors and commutative ops:
 * log2 p exchanges, each sending the half of the remaining vector that
 * the partner keeps. With n not a power of two, even ranks among the first
 * 2r hand their vector to the odd neighbour first and get their block from
 * it at the end; a surviving rank then owns the blocks of the ranks it
 * stands for. */
#include "coll.h"

struct vec {
    const struct coll_args *a;
    int rem;
};

/* Start of the blocks of surviving rank v (v == p: the end). */
static size_t start(const struct vec *v, int nr)
{
    int real = nr < v->rem ? 2 * nr : nr + v->rem;
    size_t d = 0;

    for (int i = 0; i < real; i++)
        d += (size_t)v->a->rcounts[i];
    return d;
}

void coll_reduce_scatter_halving(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, p = coll_pow2_floor(n), rem = n - p, nr, lo = 0, hi = p;
    struct rdmpi_datatype *dt = a->rdt;
    const void *in = a->inplace ? a->rbuf : a->sbuf;
    struct vec v = {.a = a, .rem = rem};
    size_t total = start(&v, p), rc = (size_t)a->rcounts[r], mine;
    void *acc, *tmp;

    if (r < 2 * rem && !(r & 1)) {
        coll_send(s, in, total, dt, r + 1);
        coll_fence(s);
        if (rc)
            coll_recv(s, a->rbuf, rc, dt, r + 1);
        coll_fence(s);
        return;
    }
    acc = coll_tmp(s, total, dt);
    tmp = coll_tmp(s, total, dt);
    coll_copy(s, in, total, dt, acc, total, dt);
    if (r < 2 * rem) {
        coll_recv(s, tmp, total, dt, r - 1);
        coll_fence(s);
        coll_reduce(s, tmp, acc, total, dt, COLL_SRC_LOWER);
        nr = r / 2;
    } else {
        nr = r - rem;
    }
    for (int d = p / 2; d > 0; d /= 2) {
        int mid = lo + d, pn = nr ^ d, peer = pn < rem ? 2 * pn + 1 : pn + rem;
        int klo = nr < mid ? lo : mid, khi = nr < mid ? mid : hi;
        int slo = nr < mid ? mid : lo, shi = nr < mid ? hi : mid;
        size_t k0 = start(&v, klo), kn = start(&v, khi) - k0;
        size_t s0 = start(&v, slo), sn = start(&v, shi) - s0;

        if (kn)
            coll_recv(s, coll_at(tmp, k0, dt), kn, dt, peer);
        if (sn)
            coll_send(s, coll_at(acc, s0, dt), sn, dt, peer);
        coll_fence(s);
        coll_reduce(s, coll_at(tmp, k0, dt), coll_at(acc, k0, dt), kn, dt, COLL_SRC_LOWER);
        lo = klo;
        hi = khi;
    }
    mine = 0;
    for (int i = 0; i < r; i++)
        mine += (size_t)a->rcounts[i];
    if (r < 2 * rem) {
        size_t prev = mine - (size_t)a->rcounts[r - 1];
        if (a->rcounts[r - 1])
            coll_send(s, coll_at(acc, prev, dt), (size_t)a->rcounts[r - 1], dt, r - 1);
    }
    coll_copy(s, coll_at(acc, mine, dt), rc, dt, a->rbuf, rc, dt);
    coll_fence(s);
}
