/* Processes added after MPI_Init (MPI_Comm_spawn, accept/connect, join):
 * each module in use or parked is asked whether it reaches them
 * (add_peers), and each new peer gets its routes as connect gives the
 * world's (pml_init.c), ordered the same way; a parked module that now
 * carries a peer's traffic is polled from then on. A process nobody
 * reaches any more leaves every module (del_peer). docs/dynamic.md, "The
 * process table". */
#include "log.h"
#include "pml.h"
#include "proc.h"

#include <stdlib.h>
#include <string.h>

/* btl_open_all's order: exclusivity, highest first, then latency. */
static int before(const struct btl_module *a, const struct btl_module *b)
{
    return a->exclusivity != b->exclusivity ? a->exclusivity > b->exclusivity
                                            : a->latency_ns < b->latency_ns;
}

static void insert_route(struct pml_peer *p, struct btl_module *m, struct btl_endpoint *ep)
{
    int k = p->nroutes++;

    while (k > 0 && before(m, p->routes[k - 1].btl)) {
        p->routes[k] = p->routes[k - 1];
        k--;
    }
    p->routes[k] = (struct pml_route){m, ep};
}

/* A parked module that is some new peer's first, or a rail beside it,
 * joins the polled ones. */
static void unpark(int first, int n)
{
    for (int j = pml_nbtls; j < pml_nbtls + pml_nparked; j++) {
        struct btl_module *m = pml_btls[j];
        int used = 0;

        for (int r = first; r < first + n && !used; r++)
            for (int i = 0; i < pml_peers[r].nroutes && !used; i++)
                used = pml_peers[r].routes[i].btl == m &&
                       (!i || pml_rail_like(pml_peers[r].routes[0].btl, m));
        if (!used)
            continue;
        pml_btls[j] = pml_btls[pml_nbtls];
        pml_btls[pml_nbtls++] = m;
        pml_nparked--;
        rt_info(2, "pml: btl %s (rail %u) is polled from now on: an added process needs it",
                m->name, m->rail);
    }
}

int pml_procs_add(int first, int n)
{
    uint8_t *reach = calloc((size_t)n, 1);
    int rc, err = MPI_SUCCESS;

    if (!reach)
        return MPI_ERR_NO_MEM;
    for (int r = first; r < first + n; r++)
        pml_peers[r].routes = pml_routes_of(r);
    for (int i = 0; i < pml_nbtls + pml_nparked; i++) {
        struct btl_module *m = pml_btls[i];

        memset(reach, 0, (size_t)n);
        if ((rc = m->add_peers(m, first, n, reach))) {
            rt_warn("pml: btl %s could not add processes %d..%d: %s", m->name, first, first + n - 1,
                    strerror(-rc));
            err = MPI_ERR_OTHER;
            break;
        }
        for (int k = 0; k < n; k++)
            if (reach[k])
                insert_route(&pml_peers[first + k], m, m->endpoint(m, first + k));
    }
    free(reach);
    for (int r = first; r < first + n && !err; r++) {
        struct pml_peer *p = &pml_peers[r];

        if (!p->nroutes) {
            rt_warn("no transport reaches process %u of namespace %s (on host %s) from rank %d "
                    "of %s (on %s): btl/sm does not reach other namespaces yet, and btl/ofi is "
                    "not open (a job on one host opens it only when RDMPI_BTL names it: "
                    "RDMPI_BTL=ofi,self or ofi,sm,self)",
                    rt_proc_rank(r), rt_proc_nspace(r), rt_proc_get(r)->host, rt.rank, rt.nspace,
                    rt.hostname);
            err = MPI_ERR_OTHER;
            continue;
        }
        p->btl = p->routes[0].btl;
        p->ep = p->routes[0].ep;
        p->credits = pml_peer_credits(r);
        p->msg_window = p->btl->peer_msgs ? p->btl->peer_msgs : UINT32_MAX;
        p->msgs = p->msg_window == UINT32_MAX ? UINT64_MAX : p->msg_window;
    }
    if (err) {
        for (int r = first; r < first + n; r++)
            pml_proc_drop(r);
        return err;
    }
    unpark(first, n);
    pml_progress_routes();
    for (int r = first; r < first + n; r++)
        pml_stats_rebind(r);
    return MPI_SUCCESS;
}

void pml_proc_drop(int idx)
{
    struct pml_peer *p = &pml_peers[idx];

    if (p->npending)
        rt_info(1, "pml: process %d leaves with %d sends still queued to it", idx, p->npending);
    for (int i = 0; i < p->nroutes; i++)
        p->routes[i].btl->del_peer(p->routes[i].btl, idx);
    if (p->pending.next && p->busy.next != &p->busy)
        pml_list_remove(&p->busy);
    memset(p, 0, sizeof(*p));
    pml_progress_routes();
}
