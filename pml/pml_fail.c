/* A BTL's error callback (btl_error_fn): a module can no longer carry an
 * operation to a peer, or to any of its peers. The pml marks those peers
 * failed, completes what waits on them with MPI_ERR_OTHER, and fails every
 * later operation naming them. When the communicator of one of those
 * requests (MPI_COMM_WORLD's when none waits) keeps a fatal error handler,
 * the job ends with the BTL's words, as it did before BTLs reported. */
#include "comm.h"
#include "errors.h"
#include "pml.h"
#include "proc.h"

static bool fatal_on(MPI_Comm h)
{
    const struct rdmpi_comm *c = rt_comm_get(h);

    return !c || !c->errh || c->errh->builtin == RT_ERRH_FATAL || c->errh->builtin == RT_ERRH_ABORT;
}

static bool listed(const struct pml_link *list, const struct pml_link *e)
{
    for (const struct pml_link *l = list->next; list->next && l != list; l = l->next)
        if (l == e)
            return true;
    return false;
}

/* Whether r waits for world rank w to do something. A send queued for
 * resources fails when it is retried (pml_send_continue); a receive with
 * RDMA reads in flight waits for their completions, which a lost peer
 * fails; one waiting for the sender's PUTFIN (write rendezvous, or the
 * sender's half of a split read) with nothing in flight waits on w. */
static bool waits_on(const struct pml_req *r, int w)
{
    if (r->state == PML_S_POSTED)
        return !r->send && r->peer != MPI_ANY_SOURCE && pml_world(r->pc, r->peer) == w;
    if (r->state == PML_S_GET && !r->send)
        return r->wpeer == w && r->put_wait && r->inflight == 0;
    if (r->state != PML_S_WAIT_FIN && r->state != PML_S_FRAGS)
        return false;
    return r->wpeer == w && !(r->send && listed(&pml_peers[w].pending, &r->link));
}

void pml_fail_req(struct pml_req *r)
{
    if (r->state == PML_S_POSTED) {
        pml_list_remove(&r->link);
        r->base.status.MPI_SOURCE = r->peer;
        r->base.status.MPI_TAG = r->tag;
        r->base.status.rdmpi_count = 0;
    }
    r->base.status.MPI_ERROR = MPI_ERR_OTHER;
    r->base.status.rdmpi_cancelled = 0;
    pml_req_complete(r);
}

static void fail_peer(int w, const char *what)
{
    struct pml_req *r;
    uint32_t slot = 0;
    bool waited = false;

    if (pml_peers[w].failed)
        return;
    for (slot = 0; (r = pml_req_next(&slot));)
        if (waits_on(r, w)) {
            waited = true;
            if (fatal_on(r->base.comm))
                rt_fatal("%s", what);
        }
    if (!waited && fatal_on(MPI_COMM_WORLD))
        rt_fatal("%s", what);
    rt_warn("%s; operations with rank %d fail with MPI_ERR_OTHER from now on", what, w);
    pml_peers[w].failed = true;
    pml_nfailed++;
    for (slot = 0; (r = pml_req_next(&slot));)
        if (waits_on(r, w))
            pml_fail_req(r);
}

/* A module leaves the peer's list while another rail of the same kind
 * still reaches it: that one carries the traffic from now on, and the
 * chunks of rendezvous in flight on the lost one go again on the others
 * (pml_stripe.c). The first module with no such rail left fails the peer;
 * any other module only leaves the list. */
static void lost(struct btl_module *btl, int w, const char *what)
{
    struct pml_peer *p = &pml_peers[w];
    bool rail = false;

    if (!pml_route_has(w, btl))
        return;
    for (int i = 0; i < p->nroutes; i++)
        rail |= p->routes[i].btl != btl && pml_rail_like(p->btl, p->routes[i].btl);
    if (p->btl == btl && !rail) {
        fail_peer(w, what);
        return;
    }
    pml_peer_unlist(w, btl);
    rt_info(1, "%s; rank %d is still reached by btl %s (rail %u)", what, w, p->btl->name,
            p->btl->rail);
}

void pml_btl_error(struct btl_module *btl, int peer, int err, const char *what)
{
    (void)err;
    if (peer >= 0 && peer < rt_proc_count()) {
        lost(btl, peer, what);
        return;
    }
    for (int w = 0; w < rt_proc_count(); w++)
        if (pml_peers[w].nroutes)
            lost(btl, w, what);
}
