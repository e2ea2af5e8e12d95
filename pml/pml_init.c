/* The pml as a runtime layer: opens the BTLs, lists per peer the modules
 * that reach it (the first carries its traffic), publishes its card, and
 * drains the network at finalize. */
#include "modex.h"
#include "param.h"
#include "proc.h"
#include "pml.h"
#include "session.h"

#include <stdlib.h>
#include <string.h>

RT_PARAM(p_credits, "PML_CREDITS", RT_PARAM_INT, "64",
         "Eager messages of 4 KiB a sender may have outstanding to one receiver before it "
         "switches to rendezvous (smaller messages count for less, by 64-byte units); "
         "bounds unexpected-message memory")

struct pml_peer *pml_peers;
int pml_nfailed;
uint32_t pml_credit_window;

#define CARD_KEY "rdmpi.pml"

static int pml_init(void)
{
    struct pml_card card = {.version = PML_PROTO_VERSION};
    int rc;

    btl_recv_table[PML_HDR_MATCH] = pml_recv_match;
    btl_recv_table[PML_HDR_RNDV] = pml_recv_match;
    btl_recv_table[PML_HDR_CTS] = pml_recv_cts;
    btl_recv_table[PML_HDR_FRAG] = pml_recv_frag;
    btl_recv_table[PML_HDR_FIN] = pml_recv_fin;
    btl_recv_table[PML_HDR_CREDIT] = pml_recv_credit;
    btl_recv_table[PML_HDR_PUT] = pml_recv_put;
    btl_recv_table[PML_HDR_PUTFIN] = pml_recv_putfin;
    btl_recv_table[PML_HDR_CANCEL] = pml_recv_cancel;
    btl_recv_table[PML_HDR_CANCELED] = pml_recv_canceled;
    btl_recv_table[PML_HDR_WCTS] = pml_recv_wcts;
    pml_rndv_params();
    pml_req_init();
    rt_session_bbuf_free = pml_bsend_session_free;
    pml_credit_window = (uint32_t)rt_param_int(&p_credits) * PML_CREDIT_PER_4K;
    if (pml_credit_window < 2 * PML_CREDIT_PER_4K)
        pml_credit_window = 2 * PML_CREDIT_PER_4K;
    card.credits = pml_credit_window;
    if ((rc = rt_modex_put(CARD_KEY, &card, sizeof(card))))
        return rc;

    /* Indexed by process index, reserved for every one (runtime/proc.h):
     * peers added later never move the table (its lists link into it). */
    pml_peers = rt_proc_array(sizeof(*pml_peers));
    if (!pml_peers)
        return -1;
    if ((rc = btl_open_all(&pml_btls, &pml_nbtls, pml_btl_error)))
        return rc;
    pml_stats_publish();
    for (int i = 0; i < pml_nbtls; i++)
        if ((rc = pml_btls[i]->init(pml_btls[i])))
            return rc;
    return 0;
}

uint32_t pml_peer_credits(int r)
{
    struct pml_card *c;
    size_t len;
    uint32_t n = pml_credit_window;

    if (r == rt.rank || rt_modex_get(r, CARD_KEY, (void **)&c, &len))
        return n;
    if (len != sizeof(*c) || c->version != PML_PROTO_VERSION)
        rt_fatal("rank %d speaks pml protocol %u, this rank %u: every rank must run "
                 "the same rdmpi build",
                 r, len >= 4 ? c->version : 0, PML_PROTO_VERSION);
    n = c->credits;
    free(c);
    return n;
}

/* Every peer's routes, pml_route_width (the modules opened) per peer,
 * for every process index. */
static struct pml_route *route_block;
int pml_route_width;
int pml_nparked;

struct pml_route *pml_routes_of(int r)
{
    return route_block + (size_t)r * (size_t)pml_route_width;
}

void pml_peer_unlist(int r, const struct btl_module *m)
{
    struct pml_peer *p = &pml_peers[r];
    int k = 0;

    for (int i = 0; i < p->nroutes; i++)
        if (p->routes[i].btl != m)
            p->routes[k++] = p->routes[i];
    p->nroutes = k;
    /* The next rail takes over; only a peer left with none keeps its last
     * module (it is failed, and nothing more goes to it). */
    if (p->btl == m && k && pml_rail_like(m, p->routes[0].btl)) {
        p->btl = p->routes[0].btl;
        p->ep = p->routes[0].ep;
        if (pml_peers[r].stats)
            pml_stats_rebind(r);
        pml_progress_routes();
    }
}

/* Whether m carries traffic for some peer: first on its list, or a rail
 * beside the first. */
static bool in_use(const struct btl_module *m)
{
    for (int r = 0; r < rt.size; r++) {
        const struct pml_peer *p = &pml_peers[r];

        for (int i = 0; i < p->nroutes; i++)
            if (p->routes[i].btl == m && (!i || pml_rail_like(p->routes[0].btl, m)))
                return true;
    }
    return false;
}

static int pml_connect(void)
{
    uint8_t *reach = calloc((size_t)rt.size, 1);
    int rc = 0;

    pml_route_width = pml_nbtls ? pml_nbtls : 1;
    route_block = rt_proc_array((size_t)pml_route_width * sizeof(*route_block));
    if (!reach || !route_block) {
        free(reach);
        return -1;
    }
    for (int r = 0; r < rt.size; r++)
        pml_peers[r].routes = route_block + (size_t)r * (size_t)pml_route_width;
    /* Modules come in btl_open_all's order, so each peer's routes do. */
    for (int i = 0; i < pml_nbtls; i++) {
        struct btl_module *m = pml_btls[i];
        memset(reach, 0, (size_t)rt.size);
        if ((rc = m->connect(m, reach)))
            goto out;
        for (int r = 0; r < rt.size; r++) {
            struct pml_peer *p = &pml_peers[r];

            if (reach[r])
                p->routes[p->nroutes++] = (struct pml_route){m, m->endpoint(m, r)};
        }
    }
    /* Only modules that carry some peer's traffic (its first, or a rail of
     * the first's kind) are polled; the others leave every list and are
     * parked after them, unpolled, for processes added later
     * (pml_procs.c), until finalize. */
    int used = 0, total = pml_nbtls;
    struct btl_module *parked[BTL_MAX_MODULES];
    for (int i = 0; i < total; i++) {
        struct btl_module *m = pml_btls[i];

        if (in_use(m)) {
            pml_btls[used++] = m;
            continue;
        }
        for (int r = 0; r < rt.size; r++)
            pml_peer_unlist(r, m);
        parked[i - used] = m;
    }
    memcpy(pml_btls + used, parked, (size_t)(total - used) * sizeof(*parked));
    pml_nparked = total - used;
    for (int r = 0; r < rt.size; r++)
        if (pml_peers[r].nroutes) {
            pml_peers[r].btl = pml_peers[r].routes[0].btl;
            pml_peers[r].ep = pml_peers[r].routes[0].ep;
        }
    pml_nbtls = used;
    for (int r = 0; r < rt.size; r++) {
        if (!pml_peers[r].btl)
            rt_fatal("MPI_Init: no transport reaches rank %d from rank %d (%s); "
                     "the BTLs tried were those in RDMPI_BTL (default: all); "
                     "add ofi for ranks on other hosts",
                     r, rt.rank, rt.hostname);
        pml_peers[r].credits = pml_peer_credits(r);
        /* A BTL's peer_msgs is the smallest any rank it reaches stated,
         * so both sides of a pair see the same window. */
        pml_peers[r].msg_window =
            pml_peers[r].btl->peer_msgs ? pml_peers[r].btl->peer_msgs : UINT32_MAX;
        pml_peers[r].msgs =
            pml_peers[r].msg_window == UINT32_MAX ? UINT64_MAX : pml_peers[r].msg_window;
    }
    pml_progress_routes();
    pml_stats_connect();
    if (rt_verbosity >= 1 && rt.rank == 0)
        for (int i = 0; i < pml_nbtls; i++)
            rt_info(1, "btl %s: eager limit %zu, %s", pml_btls[i]->name, pml_btls[i]->eager_limit,
                    pml_btls[i]->flags & BTL_CAP_GET ? "rendezvous by RDMA read"
                                                     : "rendezvous by copy pipeline");
    rt_proc_connect_hook = pml_procs_add;
    rt_proc_drop_hook = pml_proc_drop;
    rt_progress_set_dump(pml_dump);
    rt_progress_set_sleep(pml_sleep);
out:
    free(reach);
    return rc;
}

static int pml_finalize(void)
{
    unsigned spins = 0;

    pml_stats_report();
    /* Owed FINs, CTSs and credits go out before anyone leaves; the barrier
     * then proves no peer still needs this rank's progress. */
    while (!pml_idle()) {
        if (!pml_progress())
            rt_progress_idle(&spins);
    }
    pml_barrier(rt_comm_predef[0]->pml);
    rt_progress_set_sleep(NULL); /* the BTLs go now */
    for (int i = 0; i < pml_nbtls; i++)
        if (pml_btls[i]->flush)
            pml_btls[i]->flush(pml_btls[i]);
    rt_proc_connect_hook = NULL;
    rt_proc_drop_hook = NULL;
    for (int i = 0; i < pml_nbtls + pml_nparked; i++)
        pml_btls[i]->finalize(pml_btls[i]);
    pml_nparked = 0;
    btl_close_all();
    pml_comm_finalize();
    pml_stripe_fini();
    rt_proc_array_free(pml_peers, sizeof(*pml_peers));
    pml_peers = NULL;
    rt_proc_array_free(route_block, (size_t)pml_route_width * sizeof(*route_block));
    route_block = NULL;
    return 0;
}

static struct rt_layer pml_layer = {
    .name = "pml",
    .order = 10,
    .init = pml_init,
    .connect = pml_connect,
    .finalize = pml_finalize,
    .comm_init = pml_comm_add,
    .comm_fini = pml_comm_remove,
    .progress = pml_progress,
    .services = &pml_comm_services,
};

__attribute__((constructor)) static void pml_register(void)
{
    rt_layer_register(&pml_layer);
}
