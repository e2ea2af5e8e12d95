/* Per-communicator matching state, found by context id. Messages for a
 * context id this rank has not created yet are parked and replayed when it
 * appears (a fast peer can use a new communicator first). */
#include "pml.h"

#include <stdlib.h>
#include <string.h>

static struct pml_comm **by_cid;
static uint32_t ncids;

/* Parked arrivals: whole messages, replayed in arrival order. */
struct parked {
    struct parked *next;
    int wsrc;
    size_t len;
    char data[];
};
static struct parked *parked_head, **parked_tail = &parked_head;

struct pml_comm *pml_comm_lookup(uint32_t cid)
{
    return cid < ncids ? by_cid[cid] : NULL;
}

void pml_comm_park(int wsrc, const void *data, size_t len)
{
    struct parked *p = malloc(sizeof(*p) + len);

    if (!p)
        rt_fatal("out of memory parking a message for a communicator not yet created");
    p->next = NULL;
    p->wsrc = wsrc;
    p->len = len;
    memcpy(p->data, data, len);
    *parked_tail = p;
    parked_tail = &p->next;
}

static void replay(uint32_t cid)
{
    struct parked **pp = &parked_head, *p;

    while ((p = *pp)) {
        const struct pml_hdr_match *h = (const void *)p->data;
        if (h->cid != cid) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        if (!*pp)
            parked_tail = pp;
        pml_recv_match(p->wsrc, p->data, p->len);
        free(p);
    }
}

int pml_comm_add(struct rdmpi_comm *c)
{
    struct pml_comm *pc;

    if (c->cid >= ncids) {
        uint32_t n = ncids ? ncids : 16;
        while (n <= c->cid)
            n *= 2;
        struct pml_comm **t = realloc(by_cid, n * sizeof(*t));
        if (!t)
            return -1;
        memset(t + ncids, 0, (n - ncids) * sizeof(*t));
        by_cid = t;
        ncids = n;
    }
    pc = calloc(1, sizeof(*pc) + (size_t)c->remote_size * sizeof(pc->peers[0]));
    if (!pc)
        return -1;
    pc->cid = c->cid;
    pc->rank = c->rank;
    pc->size = c->remote_size;
    pc->world = c->remote_world;
    pc->handle = c->handle;
    pml_list_init(&pc->any_posted);
    for (int i = 0; i < pc->size; i++) {
        pml_list_init(&pc->peers[i].posted);
        pml_list_init(&pc->peers[i].unexpected);
        pml_list_init(&pc->peers[i].ooo);
    }
    c->pml = pc;
    by_cid[c->cid] = pc;
    replay(c->cid);
    return 0;
}

void pml_comm_remove(struct rdmpi_comm *c)
{
    struct pml_comm *pc = c->pml;

    if (!pc)
        return;
    for (int i = 0; i < pc->size; i++) {
        struct pml_link *l = &pc->peers[i].unexpected;
        while (!pml_list_empty(l)) {
            struct pml_link *e = l->next;
            pml_list_remove(e);
            free(pml_container(e, struct pml_frag, link));
        }
    }
    by_cid[pc->cid] = NULL;
    c->pml = NULL;
    free(pc);
}
