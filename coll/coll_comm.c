/* Per-communicator collective sequence numbers, kept beside the
 * communicator (found by context id) since the runtime's communicator has
 * no slot for this layer. An entry whose communicator object changed was
 * left by a freed communicator, and starts again from zero. */
#include "coll.h"

#include <stdlib.h>

/* Internal tags: negative (MPI_ANY_TAG never matches them), clear of the
 * pml's own (-2), and 2^20 collectives apart before they repeat. */
#define TAG_BASE 1024
#define TAG_MASK 0xfffffu

struct entry {
    const struct rdmpi_comm *comm;
    uint32_t cid;
    uint32_t seq;
};

static struct entry *table;
static uint32_t mask; /* table size - 1; a power of two */
static uint32_t used;
static struct entry *last; /* most programs use one communicator at a time */

static struct entry *slot(uint32_t cid)
{
    uint32_t i = (cid * 2654435761u) & mask;

    while (table[i].comm && table[i].cid != cid)
        i = (i + 1) & mask;
    return &table[i];
}

static void grow(void)
{
    struct entry *old = table;
    uint32_t n = old ? mask + 1 : 0;

    last = NULL;
    table = calloc(n ? 2 * n : 16, sizeof(*table));
    if (!table)
        rt_fatal("out of memory for collective state");
    mask = n ? 2 * n - 1 : 15;
    for (uint32_t i = 0; i < n; i++)
        if (old[i].comm)
            *slot(old[i].cid) = old[i];
    free(old);
}

int coll_comm_next_tag(struct rdmpi_comm *c)
{
    struct entry *e = last;

    if (RT_LIKELY(e && e->comm == c && e->cid == c->cid))
        return -(int)(TAG_BASE + (e->seq++ & TAG_MASK));
    if (RT_UNLIKELY(!table || 2 * (used + 1) > mask + 1))
        grow();
    e = last = slot(c->cid);
    if (RT_UNLIKELY(e->comm != c)) {
        if (!e->comm)
            used++;
        e->comm = c;
        e->cid = c->cid;
        e->seq = 0;
    }
    return -(int)(TAG_BASE + (e->seq++ & TAG_MASK));
}
