/* The progress engine: poll every BTL, then retry what waited for
 * resources: control messages first (they unblock peers), then sends, then
 * RDMA reads. */
#include "pml.h"
#include "proc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct btl_module **pml_btls;
int pml_nbtls;
unsigned pml_rdma_out;

/* pml_btls sorted: the modules that are some peer's first (its eager and
 * control traffic) and the others, further rails. Over tcp;ofi_rxm an
 * empty poll of a rail is a system call: a second rail polled at every
 * call made an 8 B round trip 9% slower (test/ofi/rails_bw.sh MODE=lat),
 * though it carries only rendezvous chunks. Its peers' messages do not
 * come on it, but a peer reading or writing our memory over it needs our
 * polls (the provider emulates RMA in software), as do our own chunks. */
#define SIDE_EVERY 16
static struct btl_module *firsts[BTL_MAX_MODULES], *sides[BTL_MAX_MODULES];
static int nfirsts, nsides;

void pml_progress_routes(void)
{
    nfirsts = nsides = 0;
    for (int i = 0; i < pml_nbtls; i++) {
        bool first = false;

        for (int r = 0; r < rt_proc_count() && !first; r++)
            first = pml_peers[r].btl == pml_btls[i];
        if (first)
            firsts[nfirsts++] = pml_btls[i];
        else
            sides[nsides++] = pml_btls[i];
    }
}

/* Sends waiting for resources queue per peer, in order, and the peers
 * with any are listed: a pass costs a try per peer, not one per waiting
 * send (100000 sends queued behind a slow receiver made every progress
 * call walk them all). */
static struct pml_link busy_peers = {&busy_peers, &busy_peers};
static struct pml_link pending_gets = {&pending_gets, &pending_gets};

/* Control messages the BTL refused; tiny and rare. */
struct ctl {
    struct ctl *next;
    int wpeer;
    size_t len;
    uint8_t hdr[sizeof(struct pml_hdr_wcts) + 32]; /* the largest, key included */
};
static struct ctl *ctl_head, **ctl_tail = &ctl_head;

void pml_pending_send(struct pml_req *r)
{
    struct pml_peer *p = &pml_peers[r->wpeer];

    if (!p->pending.next) {
        pml_list_init(&p->pending);
        pml_list_init(&p->busy);
    }
    if (pml_list_empty(&p->pending))
        pml_list_append(&busy_peers, &p->busy);
    p->npending++;
    pml_list_append(&p->pending, &r->link);
}

void pml_pending_get(struct pml_req *r)
{
    if (r->rdma_pending)
        return; /* a completion ran the scheduler again while it waited */
    r->rdma_pending = 1;
    pml_list_append(&pending_gets, &r->link);
}

/* A CREDIT needs no place in the window: two peers whose windows are
 * both closed still free each other. */
static int ctl_try(int wpeer, const void *hdr, size_t len)
{
    struct pml_peer *p = &pml_peers[wpeer];
    bool credit = *(const uint8_t *)hdr == PML_HDR_CREDIT;
    int rc;

    /* A failed peer reads nothing more: what it is owed is dropped. */
    if (RT_UNLIKELY(p->failed))
        return 0;
    if (!credit && !pml_window_open(p))
        return -EAGAIN;
    rc = p->btl->sendi(p->ep, hdr, len, NULL, 0);
    if (!rc && !credit)
        pml_window_take(p);
    return rc;
}

void pml_send_ctl(int wpeer, const void *hdr, size_t len)
{
    struct ctl *c;

    if (ctl_try(wpeer, hdr, len) == 0)
        return;
    c = malloc(sizeof(*c));
    if (!c)
        rt_fatal("out of memory queueing a control message to rank %d", wpeer);
    c->next = NULL;
    c->wpeer = wpeer;
    c->len = len;
    memcpy(c->hdr, hdr, len);
    *ctl_tail = c;
    ctl_tail = &c->next;
}

/* Returns what we owe wpeer, if anything. */
void pml_credit_return(int wpeer)
{
    struct pml_peer *p = &pml_peers[wpeer];
    struct pml_hdr_credit h = {.type = PML_HDR_CREDIT};

    if (!p->owed && !p->msgs_owed)
        return;
    h.credits = p->owed;
    h.msgs = p->msgs_owed;
    p->owed = 0;
    p->msgs_owed = 0;
    pml_send_ctl(wpeer, &h, sizeof(h));
}

/* An eager message of len payload bytes from wpeer was consumed: return
 * credits in batches of half the window, so the sender rarely waits and we
 * rarely send. */
void pml_credit_consumed(int wpeer, size_t len)
{
    if ((pml_peers[wpeer].owed += pml_credit_cost(len)) >= pml_credit_window / 2)
        pml_credit_return(wpeer);
}

/* Every queued control message is tried: one to a peer whose window is
 * closed must not hold back those to others, nor a CREDIT behind it. */
static int retry_ctl(void)
{
    struct ctl **cp = &ctl_head;
    int n = 0;

    while (*cp) {
        struct ctl *c = *cp;

        if (ctl_try(c->wpeer, c->hdr, c->len)) {
            cp = &c->next;
            continue;
        }
        *cp = c->next;
        free(c);
        n++;
    }
    ctl_tail = cp;
    return n;
}

/* Takes list l whole into todo (what fails again re-queues itself). */
static void take(struct pml_link *l, struct pml_link *todo)
{
    todo->next = l->next;
    todo->prev = l->prev;
    todo->next->prev = todo;
    todo->prev->next = todo;
    pml_list_init(l);
}

/* Each busy peer's sends in order, until one fails again: it goes back to
 * the head of its queue and the peer waits for the next pass. */
static void retry_sends(void)
{
    struct pml_link todo;

    take(&busy_peers, &todo);
    while (!pml_list_empty(&todo)) {
        struct pml_peer *p = pml_container(todo.next, struct pml_peer, busy);

        pml_list_remove(&p->busy);
        while (!pml_list_empty(&p->pending)) {
            struct pml_req *r = pml_container(p->pending.next, struct pml_req, link);

            pml_list_remove(&r->link);
            p->npending--;
            pml_send_continue(r);
            if (r->link.next != &r->link) {
                /* Queued again, behind the others: first in line still. */
                pml_list_remove(&r->link);
                pml_list_prepend(&p->pending, &r->link);
                break;
            }
        }
        if (!pml_list_empty(&p->pending) && p->busy.next == &p->busy)
            pml_list_append(&busy_peers, &p->busy);
    }
}

static void retry_gets(void)
{
    struct pml_link todo;

    take(&pending_gets, &todo);
    while (!pml_list_empty(&todo)) {
        struct pml_req *r = pml_container(todo.next, struct pml_req, link);
        pml_list_remove(&r->link);
        r->rdma_pending = 0;
        if (r->stripe)
            pml_stripe_run(r);
    }
}

static inline bool nothing_waiting(void)
{
    return !ctl_head && pml_list_empty(&busy_peers) && pml_list_empty(&pending_gets);
}

/* Out of line: most polls find nothing waiting, and then pay neither the
 * call nor the registers the retries need saved. */
static __attribute__((noinline)) int retry_waiting(void)
{
    int n = retry_ctl();

    if (!pml_list_empty(&busy_peers))
        retry_sends();
    if (!pml_list_empty(&pending_gets))
        retry_gets();
    return n;
}

/* The BTL list is fixed between start-up and finalize, so it is read once
 * per poll, not reloaded after every BTL's call. */
int pml_progress(void)
{
    static unsigned turn;
    struct btl_module **b = pml_btls, **end = pml_btls + pml_nbtls;
    int n = 0;

    rt_noise();
    if (RT_UNLIKELY(nsides) && !pml_rdma_out && ++turn % SIDE_EVERY) {
        b = firsts;
        end = firsts + nfirsts;
    }
    for (; b < end; b++)
        n += (*b)->progress(*b);
    if (RT_UNLIKELY(!nothing_waiting()))
        n += retry_waiting();
    return n;
}

/* Blocks on an internal request (no user handle involved). Polls every
 * progress source, not just the pml: a non-blocking collective must move
 * while its rank blocks in MPI_Recv, or legal programs deadlock. */
void pml_wait(struct pml_req *r)
{
    unsigned spins = 0;

    while (!__atomic_load_n(&r->base.complete, __ATOMIC_ACQUIRE)) {
        if (!rt_progress())
            rt_progress_wait(&spins);
    }
}

/* True when nothing is waiting for resources: finalize drains to this. */
bool pml_idle(void)
{
    return nothing_waiting();
}

/* The runtime's sleep for a rank blocked on messages (rt_progress_wait):
 * only when nothing waits here for resources (sends for ring space, reads,
 * control messages: they need our own polls, and no peer would wake us
 * for them) and every BTL in use wakes its sleepers. 1: slept, or found
 * something to poll; 0: the caller yields instead. */
int pml_sleep(unsigned timeout_us)
{
    if (!pml_idle())
        return 0;
    for (int i = 0; i < pml_nbtls; i++)
        if (!(pml_btls[i]->flags & BTL_CAP_WAIT))
            return 0;
    for (int i = 0; i < pml_nbtls; i++)
        if (pml_btls[i]->wait(pml_btls[i], timeout_us))
            return 1;
    return 1;
}
