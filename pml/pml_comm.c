/* Per-communicator matching state, found by context id. Messages for a
 * context id this rank has not created yet are parked and replayed when it
 * appears (a fast peer can use a new communicator first). A communicator
 * freed while requests still use it lingers until they complete. */
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

/* Freed communicators whose requests are still in flight. */
static struct pml_comm **zombies;
static int nzombies, zombies_cap;

struct pml_comm *pml_comm_lookup(uint32_t cid)
{
    return cid < ncids ? by_cid[cid] : NULL;
}

uint32_t pml_comm_cid_limit(void)
{
    return ncids;
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

/* A CANCEL for a rendezvous still parked: it keeps its place (its sequence
 * number must be taken when the communicator appears) but is marked, so it
 * never becomes an unexpected message. True if found. */
bool pml_comm_park_cancel(int wsrc, uint32_t cid, uint64_t sreq)
{
    for (struct parked *p = parked_head; p; p = p->next) {
        struct pml_hdr_rndv *h = (void *)p->data;
        if (p->wsrc == wsrc && h->m.type == PML_HDR_RNDV && h->m.cid == cid && h->sreq == sreq &&
            !(h->m.flags & PML_F_DROPPED)) {
            h->m.flags |= PML_F_DROPPED;
            return true;
        }
    }
    return false;
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
        pml_recv_replay(p->wsrc, p->data, p->len);
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
    /* The peer table is copied: the groups may go before a lingering pc. */
    pc = calloc(1, sizeof(*pc) + (size_t)c->remote_size * sizeof(pc->peers[0]) +
                       (c->remote_world ? (size_t)c->remote_size * sizeof(int) : 0));
    if (!pc)
        return -1;
    pc->cid = c->cid;
    pc->rank = c->rank;
    pc->size = c->remote_size;
    if (c->remote_world) {
        int *w = (int *)&pc->peers[pc->size];
        memcpy(w, c->remote_world, (size_t)pc->size * sizeof(int));
        pc->world = w;
    }
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

static void release(struct pml_comm *pc)
{
    for (int i = 0; i < pc->size; i++) {
        struct pml_link *l = &pc->peers[i].unexpected;
        while (!pml_list_empty(l)) {
            struct pml_link *e = l->next;
            pml_list_remove(e);
            free(pml_container(e, struct pml_frag, link));
        }
    }
    pml_part_comm_free(pc);
    by_cid[pc->cid] = NULL;
    free(pc);
}

static bool in_use(const struct pml_comm *pc)
{
    return pc->holds || pml_req_using(pc);
}

/* Releases lingering communicators whose requests have all completed,
 * and the context ids the runtime left to us for them. */
static void sweep(void)
{
    for (int i = 0; i < nzombies;) {
        if (in_use(zombies[i])) {
            i++;
            continue;
        }
        rt_cid_release(zombies[i]->cid);
        release(zombies[i]);
        zombies[i] = zombies[--nzombies];
    }
}

/* The layer's comm_fini: 1 when the state lingers, keeping the id. */
int pml_comm_remove(struct rdmpi_comm *c)
{
    struct pml_comm *pc = c->pml;

    sweep();
    if (!pc)
        return 0;
    pml_bsend_comm_free(pc);
    c->pml = NULL;
    if (!in_use(pc)) {
        release(pc);
        return 0;
    }
    if (nzombies == zombies_cap) {
        int cap = zombies_cap ? 2 * zombies_cap : 8;
        struct pml_comm **z = realloc(zombies, (size_t)cap * sizeof(*z));
        if (!z)
            rt_fatal("out of memory freeing a communicator");
        zombies = z;
        zombies_cap = cap;
    }
    pc->handle = MPI_COMM_NULL;
    pc->freed = true;
    zombies[nzombies++] = pc;
    return 1;
}

void pml_comm_hold(struct pml_comm *pc)
{
    pc->holds++;
}

void pml_comm_unhold(struct pml_comm *pc)
{
    if (--pc->holds == 0 && pc->freed)
        sweep();
}

void pml_comm_op_start(struct pml_comm *pc)
{
    pc->ops++;
}

void pml_comm_op_done(struct pml_comm *pc)
{
    pc->ops--;
}

/* At finalize: everything left, freed or not, but for the predefined
 * communicators (ids 0 and 1), whose state the runtime drops next through
 * comm_fini. The table itself stays for the next start-up. */
void pml_comm_finalize(void)
{
    struct parked *p;

    nzombies = 0;
    free(zombies);
    zombies = NULL;
    zombies_cap = 0;
    for (uint32_t i = 2; i < ncids; i++)
        if (by_cid[i]) {
            rt_cid_release(i);
            release(by_cid[i]);
        }
    while ((p = parked_head)) {
        parked_head = p->next;
        free(p);
    }
    parked_tail = &parked_head;
}
