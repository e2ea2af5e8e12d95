/* Flat broadcast: the root sends the whole message to every rank in one
 * round. Over sm each receiver pulls it from the root's buffer itself, so
 * all receivers copy at once and none waits for a forwarding rank to be
 * scheduled: with more ranks than cores that beats every tree up to a few
 * hundred KiB (see the selection in coll_api_bcast.c). */
#include "coll.h"

void coll_bcast_linear(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size;

    if (s->rank != a->root) {
        coll_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
    } else {
        for (int i = 1; i < n; i++)
            coll_send(s, a->rbuf, a->rcount, a->rdt, (a->root + i) % n);
    }
    coll_fence(s);
}
