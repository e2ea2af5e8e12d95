/* Binomial-tree gather: relative to the root, rank v collects the blocks
 * of its subtree [v, v + lowbit(v)) from its children into one packed
 * buffer and sends it up in a single message: ceil(log2 n) steps instead
 * of n - 1 messages at the root, for small blocks. The root receives in
 * place when it is rank 0 and the receive type is contiguous; otherwise it
 * unpacks the rotated blocks at the end. */
#include "coll.h"

void coll_gather_binomial(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, v = (r - a->root + n) % n, mask = 1, sub;
    size_t bs = v ? a->scount * a->sdt->size : a->rcount * a->rdt->size;
    char *buf;

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
        coll_send(s, a->sbuf, a->scount, a->sdt, (v - mask + a->root) % n);
        coll_fence(s);
        return;
    }
    if (!v && !a->root && rt_dt_contig(a->rdt, (size_t)n * a->rcount))
        buf = (char *)a->rbuf + a->rdt->lb;
    else
        buf = coll_tmp_bytes(s, (size_t)sub * bs);
    if (v)
        coll_copy(s, a->sbuf, a->scount, a->sdt, buf, bs, coll_byte);
    else if (!a->inplace)
        coll_copy(s, a->sbuf, a->scount, a->sdt, buf, bs, coll_byte);
    else if (buf != (char *)a->rbuf + a->rdt->lb)
        coll_copy(s, coll_at(a->rbuf, (size_t)r * a->rcount, a->rdt), a->rcount, a->rdt, buf, bs,
                  coll_byte);
    for (int m = 1; m < mask && v + m < n; m <<= 1) {
        int csub = m < n - v - m ? m : n - v - m;
        coll_recv(s, buf + (size_t)m * bs, (size_t)csub * bs, coll_byte, (v + m + a->root) % n);
    }
    coll_fence(s);
    if (v) {
        coll_send(s, buf, (size_t)sub * bs, coll_byte, (v - mask + a->root) % n);
        coll_fence(s);
    } else if (buf != (char *)a->rbuf + a->rdt->lb) {
        /* Relative block j is rank (j + root) % n. */
        size_t hi = (size_t)(n - a->root);
        coll_copy(s, buf, hi * bs, coll_byte, coll_at(a->rbuf, (size_t)a->root * a->rcount, a->rdt),
                  hi * a->rcount, a->rdt);
        coll_copy(s, buf + hi * bs, (size_t)a->root * bs, coll_byte, a->rbuf,
                  (size_t)a->root * a->rcount, a->rdt);
    }
}
