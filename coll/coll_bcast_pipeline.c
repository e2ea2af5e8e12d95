/* Segmented pipelined broadcast down a chain (fan-out 1) or a binary tree
 * (fan-out 2) rooted at the root. The message is cut into segments of
 * COLL_BCAST_SEGMENT bytes (whole elements, so any datatype works); in
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
    size_t count = a->rcount, seg, nseg;
    struct rdmpi_datatype *dt = a->rdt;

    if (RT_UNLIKELY(seg_bytes == (size_t)-1))
        seg_bytes = rt_param_size(&p_seg);
    seg = seg_bytes / dt->size;
    if (!seg)
        seg = 1;
    nseg = (count + seg - 1) / seg;
    if (last > n)
        last = n;
    for (size_t j = 0; j <= nseg; j++) {
        if (j) {
            size_t off = (j - 1) * seg, len = count - off < seg ? count - off : seg;
            for (int c = first; c < last; c++)
                coll_send(s, coll_at(a->rbuf, off, dt), len, dt, (c + a->root) % n);
        }
        /* The root has every segment: its rounds only send. */
        if (j < nseg && v) {
            size_t off = j * seg, len = count - off < seg ? count - off : seg;
            coll_recv(s, coll_at(a->rbuf, off, dt), len, dt, ((v - 1) / fanout + a->root) % n);
        }
        coll_fence(s);
    }
}

void coll_bcast_chain(struct coll_sched *s, const struct coll_args *a)
{
    pipeline(s, a, 1);
}

void coll_bcast_binary(struct coll_sched *s, const struct coll_args *a)
{
    pipeline(s, a, 2);
}
