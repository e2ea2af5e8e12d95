/* The progress engine: poll every BTL, then retry what waited for
 * resources: control messages first (they unblock peers), then sends, then
 * RDMA reads. */
#include "pml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct btl_module **pml_btls;
int pml_nbtls;

static struct pml_link pending_sends = {&pending_sends, &pending_sends};
static struct pml_link pending_gets = {&pending_gets, &pending_gets};

/* Control messages the BTL refused; tiny and rare. */
struct ctl {
    struct ctl *next;
    int wpeer;
    size_t len;
    uint8_t hdr[40];
};
static struct ctl *ctl_head, **ctl_tail = &ctl_head;

void pml_pending_send(struct pml_req *r)
{
    pml_peers[r->wpeer].npending++;
    pml_list_append(&pending_sends, &r->link);
}

void pml_pending_get(struct pml_req *r)
{
    pml_list_append(&pending_gets, &r->link);
}

static int ctl_try(int wpeer, const void *hdr, size_t len)
{
    struct pml_peer *p = &pml_peers[wpeer];

    return p->btl->sendi(p->ep, hdr, len, NULL, 0);
}

void pml_send_ctl(int wpeer, const void *hdr, size_t len)
{
    struct ctl *c;

    if (!ctl_head && ctl_try(wpeer, hdr, len) == 0)
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

/* An eager message of len payload bytes from wpeer was consumed: return
 * credits in batches of half the window, so the sender rarely waits and we
 * rarely send. */
void pml_credit_consumed(int wpeer, size_t len)
{
    struct pml_peer *p = &pml_peers[wpeer];
    struct pml_hdr_credit h = {.type = PML_HDR_CREDIT};

    if ((p->owed += pml_credit_cost(len)) < pml_credit_window / 2)
        return;
    h.credits = p->owed;
    p->owed = 0;
    pml_send_ctl(wpeer, &h, sizeof(h));
}

static int retry_ctl(void)
{
    int n = 0;

    while (ctl_head) {
        struct ctl *c = ctl_head;
        if (ctl_try(c->wpeer, c->hdr, c->len))
            break;
        ctl_head = c->next;
        if (!ctl_head)
            ctl_tail = &ctl_head;
        free(c);
        n++;
    }
    return n;
}

static int retry_list(struct pml_link *list, bool sends)
{
    static uint32_t pass;
    struct pml_link todo;
    int n = 0;

    if (pml_list_empty(list))
        return 0;
    /* Take the whole list: whatever fails again re-queues itself behind. */
    todo.next = list->next;
    todo.prev = list->prev;
    todo.next->prev = &todo;
    todo.prev->next = &todo;
    pml_list_init(list);
    pass++;
    while (!pml_list_empty(&todo)) {
        struct pml_req *r = pml_container(todo.next, struct pml_req, link);
        pml_list_remove(&r->link);
        if (sends) {
            struct pml_peer *p = &pml_peers[r->wpeer];
            /* Once a send to a peer fails in this pass, the later ones to
             * it wait too, even if they would fit: order is per peer. */
            if (p->blocked_pass == pass) {
                pml_list_append(list, &r->link);
                continue;
            }
            p->npending--;
            pml_send_continue(r);
            if (!pml_list_empty(list) && list->prev == &r->link)
                p->blocked_pass = pass;
        } else {
            pml_get_continue(r);
        }
        n++;
    }
    return n;
}

int pml_progress(void)
{
    int n = 0;

    for (int i = 0; i < pml_nbtls; i++)
        n += pml_btls[i]->progress(pml_btls[i]);
    if (RT_UNLIKELY(ctl_head != NULL))
        n += retry_ctl();
    if (RT_UNLIKELY(!pml_list_empty(&pending_sends)))
        retry_list(&pending_sends, true);
    if (RT_UNLIKELY(!pml_list_empty(&pending_gets)))
        retry_list(&pending_gets, false);
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
            rt_progress_idle(&spins);
    }
}

/* True when nothing is waiting for resources: finalize drains to this. */
bool pml_idle(void)
{
    return !ctl_head && pml_list_empty(&pending_sends) && pml_list_empty(&pending_gets);
}
