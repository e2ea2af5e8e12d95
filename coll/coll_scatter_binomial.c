/* Binomial-tree scatter, the mirror of coll_gather_binomial: each rank
 * receives its subtree's blocks packed in one message and passes the
 * children's parts on. The root sends from its buffer in place when it is
 * rank 0 and the send type is contiguous; leaves receive in place. */
#include "coll.h"

void coll_scatter_binomial(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, v = (r - a->root + n) % n, mask = 1, sub;
    size_t bs = v ? a->rcount * a->rdt->size : a->scount * a->sdt->size;
    const char *buf;

    if (!bs)
        return;
    if (n == 1) {
        if (!a->inplace)
            coll_copy(s, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt);
        return;
    }
    while (mask < n && !(v & mask))
        mask <<= 1;
    sub = mask < n - v ? mask : n - v;
    if (sub == 1) {
        coll_recv(s, a->rbuf, a->rcount, a->rdt, (v - mask + a->root) % n);
        coll_fence(s);
        return;
    }
    if (!v && !a->root && rt_dt_contig(a->sdt, (size_t)n * a->scount)) {
        buf = (const char *)a->sbuf + a->sdt->lb;
    } else {
        char *t = coll_tmp_bytes(s, (size_t)sub * bs);
        buf = t;
        if (v) {
            coll_recv(s, t, (size_t)sub * bs, coll_byte, (v - mask + a->root) % n);
            coll_fence(s);
        } else {
            /* Relative block j is rank (j + root) % n. */
            size_t hi = (size_t)(n - a->root);
            coll_copy(s, coll_at(a->sbuf, (size_t)a->root * a->scount, a->sdt), hi * a->scount,
                      a->sdt, t, hi * bs, coll_byte);
            coll_copy(s, a->sbuf, (size_t)a->root * a->scount, a->sdt, t + hi * bs,
                      (size_t)a->root * bs, coll_byte);
        }
    }
    for (int m = mask >> 1; m > 0; m >>= 1) {
        if (v + m >= n)
            continue;
        int csub = m < n - v - m ? m : n - v - m;
        coll_send(s, buf + (size_t)m * bs, (size_t)csub * bs, coll_byte, (v + m + a->root) % n);
    }
    if (v || !a->inplace)
        coll_copy(s, buf, bs, coll_byte, a->rbuf, a->rcount, a->rdt);
    coll_fence(s);
}
