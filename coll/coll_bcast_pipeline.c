/* Segmented pipelined broadcast down a chain (fan-out 1) or a binary tree
 * (fan-out 2) rooted at the root. The message is cut into segments of
 * COLL_BCAST_SEGMENT bytes of the packed message; in
 * round j a rank forwards segment j-1 to its children and receives segment
 * j from its parent, so every level of the tree copies at once instead of
 * waiting for the whole message as in the binomial tree. Over sm the
 * receiver pulls each segment, so a round's sends cost the forwarding rank
 * only a notice and its children copy in parallel with it; a segment small
 * enough to stay in cache is read hot by the next level. */
#include "coll.h"
#include "param.h"

RT_PARAM(p_seg, "COLL_BCAST_SEGMENT", RT_PARAM_SIZE, "64k",
         "Segment size of the pipelined broadcasts (chain and binary)")

static size_t seg_bytes = (size_t)-1;

static void pipeline(struct coll_sched *s, const struct coll_args *a, int fanout)
{
    int n = s->size, v = (s->rank - a->root + n) % n;
    int first = fanout * v + 1, last = first + fanout; /* children [first, last) */
    size_t bytes = a->rcount * a->rdt->size, seg, nseg;
    bool contig = rt_dt_contig(a->rdt, a->rcount);
    char *base;

    if (RT_UNLIKELY(seg_bytes == (size_t)-1))
        seg_bytes = rt_param_size(&p_seg);
    /* Segments are cut from the packed bytes, not in whole elements: ranks
     * may pass datatypes of one signature whose elements differ in size
     * (a vector of ints against ints), and all must cut alike. A layout
     * that is not contiguous travels through a packed copy. */
    seg = seg_bytes ? seg_bytes : 1;
    nseg = (bytes + seg - 1) / seg;
    if (contig) {
        base = (char *)a->rbuf + a->rdt->lb;
    } else {
        base = coll_tmp_bytes(s, bytes);
        if (!v)
            coll_copy(s, a->rbuf, a->rcount, a->rdt, base, bytes, coll_byte);
    }
    if (last > n)
        last = n;
    for (size_t j = 0; j <= nseg; j++) {
        if (j) {
            size_t off = (j - 1) * seg, len = bytes - off < seg ? bytes - off : seg;
            for (int c = first; c < last; c++)
                coll_send(s, base + off, len, coll_byte, (c + a->root) % n);
        }
        /* The root has every segment: its rounds only send. */
        if (j < nseg && v) {
            size_t off = j * seg, len = bytes - off < seg ? bytes - off : seg;
            coll_recv(s, base + off, len, coll_byte, ((v - 1) / fanout + a->root) % n);
        }
        coll_fence(s);
    }
    if (!contig && v)
        coll_copy(s, base, bytes, coll_byte, a->rbuf, a->rcount, a->rdt);
}

void coll_bcast_chain(struct coll_sched *s, const struct coll_args *a)
{
    pipeline(s, a, 1);
}

void coll_bcast_binary(struct coll_sched *s, const struct coll_args *a)
{
    pipeline(s, a, 2);
}
