/* Large broadcast (van de Geijn): scatter the message in n chunks down a
 * binomial tree, then circulate the chunks in a ring. Every rank moves
 * about 2 (n-1)/n of the message instead of log2 n whole copies through
 * the root. Works on the packed bytes; the root is skipped as a ring
 * receiver since it has everything. */
#include "coll.h"

struct layout {
    char *base;
    size_t bytes, chunk;
    int n, root;
};

/* Bytes of relative ranks [lo, hi). */
static size_t at(const struct layout *l, int v)
{
    size_t off = (size_t)v * l->chunk;
    return off < l->bytes ? off : l->bytes;
}

static void xfer(struct coll_sched *s, const struct layout *l, int lo, int hi, int peer, bool send)
{
    size_t off = at(l, lo), len = at(l, hi) - off;
    int p = (peer + l->root) % l->n;

    if (!len)
        return;
    if (send)
        coll_send(s, l->base + off, len, coll_byte, p);
    else
        coll_recv(s, l->base + off, len, coll_byte, p);
}

void coll_bcast_scatter_allgather(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, v = (s->rank - a->root + n) % n, mask = 1;
    bool contig = rt_dt_contig(a->rdt, a->rcount);
    struct layout l = {.bytes = a->rcount * a->rdt->size, .n = n, .root = a->root};

    l.chunk = (l.bytes + (size_t)n - 1) / (size_t)n;
    if (contig) {
        l.base = (char *)a->rbuf + a->rdt->lb;
    } else {
        l.base = coll_tmp_bytes(s, l.bytes);
        if (!v)
            coll_copy(s, a->rbuf, a->rcount, a->rdt, l.base, l.bytes, coll_byte);
    }
    while (mask < n && !(v & mask))
        mask <<= 1;
    if (v) {
        xfer(s, &l, v, v + mask < n ? v + mask : n, v - mask, false);
        coll_fence(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            xfer(s, &l, v + mask, v + 2 * mask < n ? v + 2 * mask : n, v + mask, true);
    coll_fence(s);
    for (int i = 0; i < n - 1; i++) {
        int sc = (v - i + n) % n, rc = (v - i - 1 + n) % n;
        if (v)
            xfer(s, &l, rc, rc + 1, (v - 1 + n) % n, false);
        if (v != n - 1)
            xfer(s, &l, sc, sc + 1, (v + 1) % n, true);
        coll_fence(s);
    }
    if (!contig && v)
        coll_copy(s, l.base, l.bytes, coll_byte, a->rbuf, a->rcount, a->rdt);
}
