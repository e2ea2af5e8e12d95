/* Bruck's alltoall for small blocks on many ranks: ceil(log2 n) steps
 * instead of n - 1. Blocks are first rotated so that block j is the one
 * for rank + j; in step k every block whose index has bit k set moves
 * 2^k ranks on; a final rotation puts block j, which came from rank - j,
 * in place. Packed bytes throughout. */
#include "coll.h"

void coll_alltoall_bruck(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, half = n / 2 + 1;
    size_t bs = a->rcount * a->rdt->size, hi = (size_t)(n - r);
    char *t, *out, *in;

    if (!bs)
        return;
    t = coll_tmp_bytes(s, (size_t)n * bs);
    out = coll_tmp_bytes(s, (size_t)half * bs);
    in = coll_tmp_bytes(s, (size_t)half * bs);
    if (!t || !out || !in)
        return;
    coll_copy(s, coll_at(a->sbuf, (size_t)r * a->scount, a->sdt), hi * a->scount, a->sdt, t,
              hi * bs, coll_byte);
    coll_copy(s, a->sbuf, (size_t)r * a->scount, a->sdt, t + hi * bs, (size_t)r * bs, coll_byte);
    for (int d = 1; d < n; d <<= 1) {
        size_t k = 0;
        for (int j = d; j < n; j++)
            if (j & d)
                coll_copy(s, t + (size_t)j * bs, bs, coll_byte, out + k++ * bs, bs, coll_byte);
        coll_recv(s, in, k * bs, coll_byte, (r - d + n) % n);
        coll_send(s, out, k * bs, coll_byte, (r + d) % n);
        coll_fence(s);
        k = 0;
        for (int j = d; j < n; j++)
            if (j & d)
                coll_copy(s, in + k++ * bs, bs, coll_byte, t + (size_t)j * bs, bs, coll_byte);
    }
    for (int j = 0; j < n; j++)
        coll_copy(s, t + (size_t)j * bs, bs, coll_byte,
                  coll_at(a->rbuf, (size_t)((r - j + n) % n) * a->rcount, a->rdt), a->rcount,
                  a->rdt);
}
