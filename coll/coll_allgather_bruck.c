/* Bruck's allgather: ceil(log2 n) steps on any n. In step k a rank sends
 * the first min(2^k, n - 2^k) blocks it holds to rank - 2^k and appends
 * those of rank + 2^k, so it ends with the blocks of r, r+1, ... in order,
 * which one rotation puts in place. Packed bytes; for small blocks. */
#include "coll.h"

void coll_allgather_bruck(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;
    size_t bs = a->rcount * a->rdt->size, hi = (size_t)(n - r);
    char *t;

    if (!bs)
        return;
    if (n == 1) {
        if (!a->inplace)
            coll_copy(s, a->sbuf, a->scount, a->sdt, a->rbuf, a->rcount, a->rdt);
        return;
    }
    t = coll_tmp_bytes(s, (size_t)n * bs);
    for (int d = 1; d < n; d <<= 1) {
        size_t cnt = (size_t)(d < n - d ? d : n - d);
        coll_recv(s, t + (size_t)d * bs, cnt * bs, coll_byte, (r + d) % n);
        if (d > 1) {
            coll_send(s, t, cnt * bs, coll_byte, (r - d + n) % n);
        } else if (a->inplace) {
            const void *mine = coll_at(a->rbuf, (size_t)r * a->rcount, a->rdt);
            coll_send(s, mine, a->rcount, a->rdt, (r - 1 + n) % n);
            coll_copy(s, mine, a->rcount, a->rdt, t, bs, coll_byte);
        } else {
            /* Our block goes out from the send buffer while we copy it. */
            coll_send(s, a->sbuf, a->scount, a->sdt, (r - 1 + n) % n);
            coll_copy(s, a->sbuf, a->scount, a->sdt, t, bs, coll_byte);
        }
        coll_fence(s);
    }
    /* Block j is rank (r + j) % n. */
    coll_copy(s, t, hi * bs, coll_byte, coll_at(a->rbuf, (size_t)r * a->rcount, a->rdt),
              hi * a->rcount, a->rdt);
    coll_copy(s, t + hi * bs, (size_t)r * bs, coll_byte, a->rbuf, (size_t)r * a->rcount, a->rdt);
}
