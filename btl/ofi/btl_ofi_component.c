/* btl/ofi setup and teardown: provider choice, the endpoint and its
 * buffers, the business card, connecting to peers, flush and finalize. */
#include "config.h"

#include "btl_ofi.h"
#include "log.h"
#include "modex.h"
#include "proc.h"
#include "param.h"
#include "rt.h"

#include <errno.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

RT_PARAM(p_provider, "OFI_PROVIDER", RT_PARAM_STRING, "",
         "libfabric provider for btl/ofi (mpirun --provider): a prov_name such as "
         "tcp;ofi_rxm or its first part (verbs, tcp, shm, sockets); empty: the best present in "
         "the order verbs, efa, cxi, psm3, tcp, shm")
RT_PARAM(p_iface, "OFI_IFACE", RT_PARAM_STRING, "",
         "Network interface, libfabric domain or fabric (subnet) btl/ofi uses (mpirun "
         "--iface); empty: any but virtual bridges and link-local addresses")
RT_PARAM(p_eager, "OFI_EAGER_LIMIT", RT_PARAM_SIZE, "0",
         "Largest pml message (header + payload) btl/ofi sends eagerly; 0: the provider's "
         "default (verbs 8k, tcp 64k, shm 4k). A pair of ranks uses the smaller limit")
RT_PARAM(p_txbufs, "OFI_TX_BUFFERS", RT_PARAM_INT, "64",
         "Registered send buffers of eager-limit size; with all in flight, alloc refuses "
         "and the pml waits")
RT_PARAM(p_rxmem, "OFI_RX_MEMORY", RT_PARAM_SIZE, "1m",
         "Memory pre-posted for incoming eager messages: 4 multi-receive buffers when the "
         "provider offers FI_MULTI_RECV, else buffers of eager-limit size (at least "
         "RDMPI_OFI_WINDOW of them)")
RT_PARAM(p_reads, "OFI_READS", RT_PARAM_INT, "64",
         "RDMA reads and writes btl/ofi keeps in flight; beyond it get and put say -EAGAIN")
RT_PARAM(p_rma_limit, "OFI_RMA_LIMIT", RT_PARAM_SIZE, "0",
         "Largest single RDMA read or write; the pml chunks above it. 0: the provider's "
         "max_msg_size")
RT_PARAM(p_multi, "OFI_MULTI_RECV", RT_PARAM_BOOL, "auto",
         "Post multi-receive buffers (FI_MULTI_RECV) where the provider offers them; auto: "
         "not where libfabric 1.17 breaks them (ofi_rxm, shm, sockets)")
RT_PARAM(p_cqdata, "OFI_CQ_DATA", RT_PARAM_BOOL, "auto",
         "Carry btl/ofi's word (the goodbye at finalize) as remote CQ data; 0: in an 8-byte "
         "prefix of every message instead, as on providers without CQ data (iWARP); auto: CQ "
         "data where the provider offers 4 bytes of it")
RT_PARAM(p_oneway, "OFI_ONE_WAY_CONNECT", RT_PARAM_BOOL, "auto",
         "Open each pair's connection from its lower rank only, the higher sending nothing "
         "until the lower's first message came; auto: where simultaneous connects break the "
         "provider (ofi_rxm over verbs, libfabric 1.17)")
RT_PARAM(p_fence, "OFI_READ_FENCE", RT_PARAM_BOOL, "auto",
         "Hold sends to a peer while RDMA reads from it are in flight; auto: on iWARP, where "
         "a read may complete after sends posted behind it (siw) and libfabric's verbs "
         "provider then loses track of its send queue and crashes")
RT_PARAM(p_rails, "BTL_OFI_RAILS", RT_PARAM_STRING, "",
         "Rails (NICs or ports of the chosen provider) btl/ofi opens, one module each: a "
         "number (at most that many, best first) or a comma list of interface, domain or "
         "fabric names (rail 0 first); empty: every one of the chosen provider's interfaces "
         "like the one selection chose (one when RDMPI_OFI_IFACE names it)")
RT_PARAM(p_rail_bw, "OFI_RAIL_BW", RT_PARAM_STRING, "",
         "Bandwidth in MB/s of each rail, a comma list in rail order, by which the pml "
         "stripes large messages; an empty or missing entry: the link speed libfabric "
         "reports, else the provider's rough figure")
RT_PARAM(p_window, "OFI_WINDOW", RT_PARAM_INT, "32",
         "Messages a peer may have in flight to this rank before they reached its pml (the "
         "pml's message window over ofi; receive buffers are posted for at least that many); "
         "bounds what waits in the provider's unexpected queue (2..16384)")

#define MIN_EAGER    256 /* the largest pml header, RGET with a key per rail, fits */
#define MEMLOCK_WARN (256ul << 20)
#define FLUSH_SECS   10.0

/* This process's rails, made by the component's open. */
static struct btl_ofi_module rails[BTL_OFI_MAX_RAILS];
static int nrails;
/* The rails whose cards this rank published, itself published under
 * RAILS_KEY by every rail's init: peers read only those cards (PMIx
 * waits about 2 s for a key that never comes). */
#define RAILS_KEY BTL_OFI_CARD_KEY "rails"
static uint32_t published;

/* Logs a failed libfabric call with the provider's name. */
void btl_ofi_error(const struct btl_ofi_module *m, const char *what, int rc)
{
    rt_warn("btl/ofi: %s failed on %s%s: %s (%d)", what,
            m && m->info ? m->info->fabric_attr->prov_name : "libfabric",
            m && m->info ? m->info->domain_attr->name : "", fi_strerror(rc < 0 ? -rc : rc), rc);
}

static struct fi_info *hints(uint64_t rma)
{
    struct fi_info *h = fi_allocinfo();

    if (!h)
        return NULL;
    h->ep_attr->type = FI_EP_RDM;
    /* No FI_TAGGED: matching stays in the pml. FI_SOURCE tells us who sent
     * each message, so the wire carries no header of ours. */
    h->caps = FI_MSG | FI_SOURCE | rma;
    /* FI_RX_CQ_DATA costs nothing: only sends carry CQ data. */
    h->mode = FI_CONTEXT | FI_CONTEXT2 | FI_RX_CQ_DATA;
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN; /* the pml serialises calls */
    h->domain_attr->av_type = FI_AV_TABLE;
    /* Matching in send order; completions may still come out of order,
     * which the pml repairs, but rarely when this holds. */
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    return h;
}

/* One tier's entries, or NULL (none, or an error: logged). */
static struct fi_info *tier(uint64_t rma)
{
    struct fi_info *h = hints(rma), *list = NULL;
    int rc;

    if (!h) {
        rt_warn("btl/ofi: out of memory for fi_getinfo hints");
        return NULL;
    }
    rc = fi_getinfo(FI_VERSION(1, 12), NULL, NULL, 0, h, &list);
    fi_freeinfo(h);
    if (rc && rc != -FI_ENODATA)
        btl_ofi_error(NULL, "fi_getinfo", rc);
    return rc ? NULL : list;
}

/* A provider lists only the capabilities asked of it, so one request for
 * read and write would hide a provider that has one or neither. The
 * tiers of btl_ofi_select.h, each without what a richer one found; the
 * write-only request runs only when some entry lacks both. */
struct fi_info *btl_ofi_getinfo(void)
{
    struct fi_info *all = tier(BTL_OFI_RMA_ALL), *none = tier(0), *write, **end = &all;

    if ((none = btl_ofi_drop_known(none, all))) {
        write = btl_ofi_drop_known(tier(BTL_OFI_RMA_WRITE), all);
        none = btl_ofi_drop_known(none, write);
        while (*end)
            end = &(*end)->next;
        *end = write;
    }
    while (*end)
        end = &(*end)->next;
    *end = none;
    return all;
}

/* rxm's default buffer (16 KiB) and 64 bytes for the headers above. */
#define RXM_BUFFER_SIZE "16448"

static void memlock_check(const struct btl_ofi_module *m)
{
    struct rlimit rl;

    if (!m->choice.quirks->pins || getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= MEMLOCK_WARN)
        return;
    if (rt.local_rank == 0)
        rt_warn("btl/ofi: the locked-memory limit is %llu KiB (ulimit -l); %s pins what it "
                "registers, so large messages may fall back to copying. Raise it with "
                "'ulimit -l unlimited' or in /etc/security/limits.conf",
                (unsigned long long)rl.rlim_cur >> 10, m->choice.info->fabric_attr->prov_name);
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);

    return v && *v ? strtol(v, NULL, 0) : dflt;
}

static void set_long(const char *name, long v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "%ld", v);
    setenv(name, buf, 1);
}

/* Sizes rxm's queues to the job and the devices before libfabric reads
 * its variables (at the first fi_getinfo), so no user needs to set
 * FI_UNIVERSE_SIZE: libfabric's default of 256 ranks makes rxm ask rxe
 * for a 196608-entry CQ, and fi_enable fails. A user's settings stand. */
static void size_queues(void)
{
    /* libfabric 1.17's defaults for the verbs queues. */
    long tx = env_long("FI_VERBS_TX_SIZE", 384), rx = env_long("FI_VERBS_RX_SIZE", 384);
    int max_cqe = btl_ofi_host.verbs_max_cqe();
    struct btl_ofi_sizes z;

    if (getenv("FI_UNIVERSE_SIZE"))
        return;
    z = btl_ofi_size_queues(rt.size, max_cqe, tx, rx);
    set_long("FI_UNIVERSE_SIZE", z.universe);
    if (z.verbs_tx && !getenv("FI_VERBS_TX_SIZE"))
        set_long("FI_VERBS_TX_SIZE", z.verbs_tx);
    if (z.verbs_rx && !getenv("FI_VERBS_RX_SIZE"))
        set_long("FI_VERBS_RX_SIZE", z.verbs_rx);
    if (!z.fits && rt.rank == 0)
        rt_warn("btl/ofi: %d ranks need more completion queue entries than the verbs device "
                "allows (max_cqe %d); rxm is sized for %ld peers with 16-deep queues, so its "
                "queue can overrun when more of them talk at once",
                rt.size, max_cqe, z.universe);
    rt_info(2, "btl/ofi: FI_UNIVERSE_SIZE=%ld, verbs queues %ld/%ld (device max_cqe %d)",
            z.universe, z.verbs_tx ? z.verbs_tx : tx, z.verbs_rx ? z.verbs_rx : rx, max_cqe);
}

struct btl_ofi_want btl_ofi_wants(int multi_host)
{
    return (struct btl_ofi_want){rt_param_string(&p_provider), rt_param_string(&p_iface),
                                 multi_host};
}

const char *btl_ofi_rails_spec(void)
{
    return rt_param_string(&p_rails);
}

/* Picks the provider and its rails into ch: their count, 0 when ofi is
 * unavailable and nobody asked for it, or fatal when the user's choice
 * cannot be met. ch[k].info points into *list, which the caller frees. */
static int choose(struct btl_ofi_choice *ch, int max, struct fi_info **list_out)
{
    struct btl_ofi_want want = btl_ofi_wants(rt.num_nodes > 1);
    const char *fip = getenv("FI_PROVIDER");
    struct fi_info *list;
    int rc, n;

    /* ofi_rxm sends a message eagerly only up to its buffer size, 16 KiB
     * by default, and segments anything larger; the pml's header pushed a
     * 16 KiB MPI message just past it (osu_latency over tcp;ofi_rxm, 16
     * KiB: 139 us, with this room 50 us). Read by rxm at its first
     * fi_getinfo, so set before; a user's setting stands. */
    setenv("FI_OFI_RXM_BUFFER_SIZE", RXM_BUFFER_SIZE, 0);
    size_queues();
    list = btl_ofi_getinfo();
    rc = btl_ofi_select(list, &want, &btl_ofi_host, &ch[0]);
    if (rc) {
        if (want.provider[0] || want.iface[0]) {
            /* Every rank of the host finds the same: its first rank says
             * it, the others leave the launcher time to end the job first,
             * so the user reads one line, not one per rank. */
            if (rt.local_rank != 0)
                nanosleep(&(struct timespec){2, 0}, NULL);
            int no_dev = !strncmp(want.provider, "verbs", 5) && !btl_ofi_host.verbs_max_cqe();

            rt_fatal("btl/ofi: %s%s%s%s", ch[0].text,
                     fip ? "; FI_PROVIDER limits libfabric to " : "", fip ? fip : "",
                     no_dev ? "; rdma-core finds no RDMA device on this host (ibv_devices lists "
                              "none): load the driver (rdma_rxe or siw for soft RDMA) or unset "
                              "RDMPI_OFI_PROVIDER"
                            : "");
        }
        rt_info(1, "btl/ofi: not used: %s", ch[0].text);
        fi_freeinfo(list);
        return 0;
    }
    *list_out = list;
    n = btl_ofi_rails(list, &want, &btl_ofi_host, rt_param_string(&p_rails), ch, max);
    if (n < 0) {
        if (rt.local_rank != 0)
            nanosleep(&(struct timespec){2, 0}, NULL);
        rt_fatal("btl/ofi: RDMPI_BTL_OFI_RAILS=%s: %s", rt_param_string(&p_rails), ch[0].text);
    }
    rt_info(rt.local_rank == 0 ? 1 : 2, "btl/ofi: %s", ch[0].text);
    for (int k = 1; k < n; k++)
        rt_info(rt.local_rank == 0 ? 1 : 2, "btl/ofi: rail %d: %s", k, ch[k].text);
    return n;
}

/* Where the provider lets us name the endpoint (shm: its /dev/shm file),
 * the name carries the job, as btl/sm's segments do, so the launcher's
 * sweep of rdmpi-<uid>-<nspace>-* removes what a crashed rank leaves. */
static int name_endpoint(const struct btl_ofi_module *m, struct fi_info *i)
{
    const char *prefix = m->choice.quirks->name_prefix;
    char name[512];
    int n;

    if (!prefix)
        return 0;
    n = snprintf(name, sizeof(name), "%srdmpi-%u-%s-ofi%d.%d", prefix, (unsigned)getuid(),
                 rt.nspace, rt.rank, m->rail);
    for (char *c = name + strlen(prefix); *c; c++)
        if (*c == '/')
            *c = '_';
    free(i->src_addr);
    i->src_addrlen = (size_t)n + 1;
    if (!(i->src_addr = strdup(name))) {
        i->src_addrlen = 0;
        rt_warn("btl/ofi: out of memory naming the endpoint");
        return -ENOMEM;
    }
    return 0;
}

static int open_endpoint(struct btl_ofi_module *m, size_t eager)
{
    struct fi_info *i = m->info;
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)rt.size};
    int rc;

    if ((rc = fi_fabric(i->fabric_attr, &m->fabric, NULL))) {
        btl_ofi_error(m, "fi_fabric", rc);
        return rc;
    }
    if ((rc = fi_domain(m->fabric, i, &m->domain, NULL))) {
        btl_ofi_error(m, "fi_domain", rc);
        return rc;
    }
    if ((rc = fi_cq_open(m->domain, &cq_attr, &m->cq, NULL))) {
        btl_ofi_error(m, "fi_cq_open", rc);
        return rc;
    }
    if ((rc = fi_av_open(m->domain, &av_attr, &m->av, NULL))) {
        btl_ofi_error(m, "fi_av_open", rc);
        return rc;
    }
    if ((rc = name_endpoint(m, i)))
        return rc;
    if ((rc = fi_endpoint(m->domain, i, &m->ep, NULL))) {
        btl_ofi_error(m, "fi_endpoint", rc);
        return rc;
    }
    if ((rc = fi_ep_bind(m->ep, &m->av->fid, 0)) ||
        (rc = fi_ep_bind(m->ep, &m->cq->fid, FI_TRANSMIT | FI_RECV))) {
        btl_ofi_error(m, "fi_ep_bind", rc);
        return rc;
    }
    if ((rc = fi_enable(m->ep))) {
        btl_ofi_error(m, "fi_enable", rc);
        return rc;
    }
    /* A multi-receive buffer is released once less than one eager message
     * fits, so every message lands whole. Set after fi_enable (it applies
     * to receives posted later): shm 1.17 crashes when it comes before. */
    eager += m->prefix;
    if (m->multi_recv && (rc = fi_setopt(&m->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV,
                                         &eager, sizeof(eager)))) {
        btl_ofi_error(m, "fi_setopt(FI_OPT_MIN_MULTI_RECV)", rc);
        return rc;
    }
    return 0;
}

/* One mapping holds the send buffers, the receive buffers and two scratch
 * areas (inject staging, realigning a message), registered once. */
static int make_buffers(struct btl_ofi_module *m, size_t eager)
{
    size_t ntx = (size_t)rt_param_int(&p_txbufs), rxmem = rt_param_size(&p_rxmem);
    size_t nreads = (size_t)rt_param_int(&p_reads), rsize, off;
    int nrx, rc;

    if (ntx < 2 || nreads < 1)
        rt_fatal("RDMPI_OFI_TX_BUFFERS must be at least 2 and RDMPI_OFI_READS at least 1");
    /* Slots hold a whole message as it is on the wire, prefix included. */
    eager = (eager + m->prefix + 63) & ~(size_t)63;
    if (m->multi_recv) {
        nrx = 4;
        rsize = rxmem / 4 > 4 * eager ? rxmem / 4 : 4 * eager;
    } else {
        /* A window's worth at least: one peer's burst of messages (the
         * pml holds it to the window) never spills into the
         * provider's unexpected queue (rxm grows it 16 MiB at a time); at
         * most what the receive queue holds (shm: 1024). */
        size_t want = rxmem / eager > m->window ? rxmem / eager : m->window;
        size_t room = m->info->rx_attr->size;

        nrx = (int)(room && want > room ? room : want);
        rsize = eager;
    }
    m->pool_size = (ntx + 2) * eager + (size_t)nrx * rsize;
    m->pool = mmap(NULL, m->pool_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    m->frags = calloc(ntx, sizeof(*m->frags));
    m->rbufs = calloc((size_t)nrx, sizeof(*m->rbufs));
    m->reads = calloc(nreads, sizeof(*m->reads));
    m->nreads = (int)nreads;
    if (m->pool == MAP_FAILED || !m->frags || !m->rbufs || !m->reads) {
        if (m->pool == MAP_FAILED)
            m->pool = NULL;
        rt_warn("btl/ofi: out of memory for %zu bytes of buffers", m->pool_size);
        return -ENOMEM;
    }
    if ((m->mr_mode & FI_MR_LOCAL) &&
        (rc = btl_ofi_mr_reg(m, m->pool, m->pool_size, FI_SEND | FI_RECV, &m->pool_mr))) {
        char text[400];

        btl_ofi_reg_text(m, text, sizeof(text), m->pool_size, rc);
        rt_warn("btl/ofi: cannot start: %s (its message buffers)", text);
        return btl_ofi_errno(rc);
    }
    m->pool_desc = m->pool_mr ? fi_mr_desc(m->pool_mr) : NULL;
    for (size_t k = 0; k < ntx; k++) {
        struct btl_ofi_frag *f = &m->frags[k];
        f->op.kind = BTL_OFI_SEND;
        f->desc.buf = m->pool + k * eager + m->prefix;
        f->next = m->free_frags;
        m->free_frags = f;
    }
    m->inject_buf = m->pool + ntx * eager + m->prefix;
    m->align_buf = m->pool + (ntx + 1) * eager;
    off = (ntx + 2) * eager;
    for (int k = 0; k < nrx; k++, off += rsize) {
        struct btl_ofi_rbuf *b = &m->rbufs[k];
        b->op.kind = BTL_OFI_RECV;
        b->data = m->pool + off;
        b->size = rsize;
        if ((rc = btl_ofi_post_recv(m, b)))
            return rc;
    }
    m->nrbufs = nrx;
    for (size_t k = 0; k < nreads; k++) {
        m->reads[k].op.kind = BTL_OFI_READ;
        m->reads[k].next = m->free_reads;
        m->free_reads = &m->reads[k];
    }
    return 0;
}

static int publish(struct btl_ofi_module *m)
{
    struct btl_module *btl = &m->base;
    size_t addrlen = 256, room = 0;
    struct btl_ofi_card *c = NULL;
    int rc;

    /* Too small a buffer is answered with the size needed. */
    do {
        free(c);
        room = addrlen;
        if (!(c = calloc(1, sizeof(*c) + room))) {
            rt_warn("btl/ofi: out of memory for the business card");
            return -ENOMEM;
        }
        rc = fi_getname(&m->ep->fid, c->addr, &addrlen);
    } while (rc == -FI_ETOOSMALL && addrlen > room);
    if (rc) {
        btl_ofi_error(m, "fi_getname", rc);
        free(c);
        return rc;
    }
    c->version = BTL_OFI_VERSION;
    c->eager_limit = (uint32_t)btl->eager_limit;
    c->window = m->window;
    c->get = (btl->flags & BTL_CAP_GET) != 0;
    c->put = (btl->flags & BTL_CAP_PUT) != 0;
    c->addrlen = (uint32_t)addrlen;
    snprintf(c->prov, sizeof(c->prov), "%s", m->info->fabric_attr->prov_name);
    snprintf(c->fabric, sizeof(c->fabric), "%s", m->info->fabric_attr->name);
    rc = rt_modex_put(m->card_key, c, sizeof(*c) + addrlen);
    free(c);
    if (!rc)
        published |= 1u << m->rail;
    return rc;
}

/* Closes whatever exists, in reverse order of creation. Closing the
 * endpoint also matters to shm, which leaves /dev/shm files otherwise.
 * A no_close provider's objects and registered buffers stay as they are
 * (the device may still write into posted buffers) until the process
 * exits; this rank's state is cleared all the same, so a later init
 * opens a new endpoint. */
static void teardown(struct btl_ofi_module *m)
{
    struct fid *fids[] = {m->ep ? &m->ep->fid : NULL,         m->pool_mr ? &m->pool_mr->fid : NULL,
                          m->av ? &m->av->fid : NULL,         m->cq ? &m->cq->fid : NULL,
                          m->domain ? &m->domain->fid : NULL, m->fabric ? &m->fabric->fid : NULL};

    /* rxm (1.20) crashes closing an endpoint whose connections died
     * under operations it still holds: a failed rail's stays open too. */
    if (m->ep && (m->choice.quirks->no_close || m->failed)) {
        rt_info(2, "btl/ofi: %s: endpoint left open at finalize, closed by process exit",
                m->info->fabric_attr->prov_name);
    } else {
        for (size_t i = 0; i < sizeof(fids) / sizeof(fids[0]); i++)
            if (fids[i] && fi_close(fids[i]))
                rt_info(2, "btl/ofi: closing a libfabric object failed at finalize");
        if (m->pool)
            munmap(m->pool, m->pool_size);
    }
    free(m->frags);
    free(m->rbufs);
    free(m->reads);
    rt_proc_array_free(m->peers, sizeof(*m->peers));
    rt_proc_array_free(m->rank_of, sizeof(*m->rank_of));
    fi_freeinfo(m->info);
    m->info = NULL;
    memset(&m->fabric, 0, sizeof(*m) - offsetof(struct btl_ofi_module, fabric));
}

/* The user's program may exit() without MPI_Finalize. */
static void at_exit(void)
{
    btl_ofi_health_stop();
    for (int k = 0; k < nrails; k++)
        if (rails[k].ep)
            teardown(&rails[k]);
}

/* libfabric's verbs provider (1.17, and every release since) takes the
 * completion of a send-queue operation to be that of the oldest one
 * outstanding on its connection. A device that completes a read after
 * sends posted behind it (siw completes a send once transmitted, a read
 * once its response is in) leaves that list pointing at freed operations,
 * and a later completion crashes in fi_cq_readfrom. So on such links no
 * send goes to a peer while a read from it is in flight. rxm's verbs
 * connections send credit messages of their own at any time unless they
 * share one receive queue, so ask rxm for that (read when the endpoint
 * opens; a user's setting stands). */
static void read_fence(struct btl_ofi_module *m, int fence)
{
    m->read_fence = fence < 0 ? m->choice.link == BTL_OFI_LINK_IWARP : fence;
    if (m->read_fence && strstr(m->info->fabric_attr->prov_name, "ofi_rxm"))
        setenv("FI_OFI_RXM_USE_SRX", "1", 0);
}

/* Which of this rank's rails on m's network m is (0 for the first): rail
 * pairs are made per network in order of rails. */
static int occurrence(const struct btl_ofi_module *m)
{
    int n = 0;

    for (int k = 0; k < m->rail; k++)
        n += rails[k].info && !strcmp(rails[k].info->fabric_attr->name, m->info->fabric_attr->name);
    return n;
}

/* The rail number both ranks give a region's key on m (btl_module.rail):
 * the same for the rails that pair (the same network, the same
 * occurrence), whatever their indices on either host. */
static uint32_t rail_label(const struct btl_ofi_module *m)
{
    uint32_t h = 2166136261u;

    for (const char *c = m->info->fabric_attr->name; *c; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    return (h & ~(uint32_t)(BTL_OFI_MAX_RAILS - 1)) | (uint32_t)occurrence(m);
}

/* The module's limits from the provider's attributes and our tunables. */
/* Rail k's bandwidth: RDMPI_OFI_RAIL_BW's k-th entry, else the link speed
 * libfabric reports (bits/s), else the provider's figure. */
static uint32_t rail_bandwidth(const struct btl_ofi_module *m)
{
    const char *list = rt_param_string(&p_rail_bw);
    const struct fi_info *i = m->info;

    for (int k = 0; list && *list; k++) {
        char *end;
        unsigned long v = strtoul(list, &end, 10);

        if (end != list && (*end == ',' || !*end) && v && k == m->rail)
            return (uint32_t)v;
        if (end == list && *end != ',')
            rt_fatal("RDMPI_OFI_RAIL_BW=%s: give MB/s per rail, comma-separated",
                     rt_param_string(&p_rail_bw));
        list = strchr(end, ',');
        list = list ? list + 1 : NULL;
    }
    if (i->nic && i->nic->link_attr && i->nic->link_attr->speed >= 8000000)
        return (uint32_t)(i->nic->link_attr->speed / 8000000);
    return m->choice.quirks->bandwidth_mbs;
}

static void set_limits(struct btl_ofi_module *m)
{
    struct btl_module *btl = &m->base;
    const struct fi_info *i = m->info;
    size_t eager = rt_param_size(&p_eager), rma_limit = rt_param_size(&p_rma_limit);
    long window = rt_param_int(&p_window);
    int multi, cq_data;

    if (!eager)
        eager = m->choice.quirks->eager_limit;
    if (eager < MIN_EAGER)
        rt_fatal("RDMPI_OFI_EAGER_LIMIT=%zu is below the minimum of %d bytes", eager, MIN_EAGER);
    /* Our word rides as remote CQ data where there is room for it. */
    cq_data = rt_param_bool(&p_cqdata);
    if (cq_data > 0 && i->domain_attr->cq_data_size < 4)
        rt_fatal("RDMPI_OFI_CQ_DATA=1, but %s offers %zu bytes of remote CQ data, not 4; "
                 "unset it to carry btl/ofi's word in a prefix",
                 i->fabric_attr->prov_name, i->domain_attr->cq_data_size);
    m->prefix = cq_data != 0 && i->domain_attr->cq_data_size >= 4 ? 0 : BTL_OFI_PREFIX;
    if (eager + m->prefix > i->ep_attr->max_msg_size)
        eager = i->ep_attr->max_msg_size - m->prefix;
    if (window < 2 || window > BTL_OFI_MAX_WINDOW)
        rt_fatal("RDMPI_OFI_WINDOW=%ld is outside 2..%d", window, BTL_OFI_MAX_WINDOW);
    m->window = (uint32_t)window;
    m->mr_mode = (uint64_t)i->domain_attr->mr_mode;
    m->key_mask = i->domain_attr->mr_key_size >= 8
                      ? UINT64_MAX
                      : (1ull << (8 * i->domain_attr->mr_key_size)) - 1;
    m->next_key = 1;
    m->inject = i->tx_attr->inject_size > m->prefix ? i->tx_attr->inject_size - m->prefix : 0;
    if (m->inject > eager)
        m->inject = eager;
    multi = rt_param_bool(&p_multi);
    m->multi_recv =
        (i->caps & FI_MULTI_RECV) && (multi < 0 ? !m->choice.quirks->no_multi_recv : multi);
    read_fence(m, rt_param_bool(&p_fence));
    m->deliver = nrails > 1 || m->choice.quirks->write_delivery;
    btl->eager_limit = btl->sendi_limit = eager;
    /* libfabric bounds RMA by max_msg_size (there is no separate
     * max_rma_size); RDMPI_OFI_RMA_LIMIT lowers it, for tests of chunking. */
    btl->get_limit = btl->put_limit = i->ep_attr->max_msg_size;
    if (rma_limit && rma_limit < btl->get_limit)
        btl->get_limit = btl->put_limit = rma_limit;
    btl->latency_ns = m->choice.quirks->latency_ns;
    btl->bandwidth_mbs = rail_bandwidth(m);
    btl->rail = rail_label(m);
    /* Read and write as the entry offers them, and keys travel as 8
     * bytes (btl_ofi_rma_caps). Messages are delivered as the provider
     * completes them (not BTL_CAP_ORDERED). */
    btl->flags = BTL_CAP_SENDI | BTL_CAP_NEED_REG | BTL_CAP_OFFHOST | btl_ofi_rma_caps(i);
    btl->peer_msgs = m->window;
}

static void describe(struct btl_ofi_module *m)
{
    const struct btl_module *btl = &m->base;
    const struct fi_info *i = m->info;
    const char *mon = getenv("FI_MR_CACHE_MONITOR");

    snprintf(m->transport, sizeof(m->transport), "%s on %s (fabric %s, domain %s, %s%s%s)",
             i->fabric_attr->prov_name, m->choice.iface, i->fabric_attr->name, i->domain_attr->name,
             m->choice.link == BTL_OFI_LINK_OTHER ? m->choice.quirks->link
                                                  : btl_ofi_link_name(m->choice.link),
             m->choice.link_detail[0] ? ", " : "", m->choice.link_detail);
    rt_info(
        2,
        "btl/ofi: rail %d: %u MB/s, eager limit %zu, inject %zu, %s receive buffers, window %u, "
        "our word %s, mr_mode %#llx, %s%s%s%s",
        m->rail, btl->bandwidth_mbs, btl->eager_limit, m->inject,
        m->multi_recv ? "multi" : "single", m->window,
        m->prefix ? "in an 8-byte prefix (no remote CQ data)" : "as remote CQ data",
        (unsigned long long)m->mr_mode, btl_ofi_rma_text(i),
        m->read_fence ? " (sends wait for reads from the same peer)" : "",
        m->choice.quirks->pins ? ", registration cache monitor " : "",
        m->choice.quirks->pins ? (mon ? mon : "libfabric's default") : "");
}

static int ofi_init(struct btl_module *btl)
{
    struct btl_ofi_module *m = btl_ofi_of(btl);
    static int registered;
    int rc;

    if (!m->info)
        return 0;
    set_limits(m);
    if (!registered++)
        atexit(at_exit);
    /* The failed step said why. Unless the user asked for this provider
     * or interface, the job goes on without ofi: other BTLs may reach
     * every peer, and if not the pml names the one left out. */
    rc = open_endpoint(m, btl->eager_limit);
    rc = rc ? rc : make_buffers(m, btl->eager_limit);
    rc = rc ? rc : publish(m);
    /* Each rail's init puts the mask again: the last put stands. */
    if (rt_modex_put(RAILS_KEY, &published, sizeof(published)))
        rc = rc ? rc : -EIO;
    if (rc) {
        int asked = rt_param_string(&p_provider)[0] || rt_param_string(&p_iface)[0] ||
                    rt_param_string(&p_rails)[0];
        teardown(m);
        return asked ? rc : 0;
    }
    if (!m->rail)
        memlock_check(m);
    describe(m);
    btl_ofi_health_watch(m);
    return 0;
}

static int has_network(const char *fabric)
{
    for (int k = 0; k < nrails; k++)
        if (rails[k].info && !strcmp(rails[k].info->fabric_attr->name, fabric))
            return 1;
    return 0;
}

/* Rank r's card for rail m, or NULL (m does not reach r): the card of r's
 * rail on m's network (the i-th of r's there for m, the i-th of ours),
 * whatever its index, so hosts that list their interfaces in different
 * orders pair their rails right. Rail 0 with no partner there, when r's
 * rail 0 has none among our networks either, takes r's rail 0 (a routed
 * network, as before), so the pairing is the same seen from either rank.
 * Every card is checked; rail 0 stops the job on a provider mismatch. */
static struct btl_ofi_card *card_for(struct btl_ofi_module *m, int r, size_t *len)
{
    const char *mine = m->info->fabric_attr->prov_name, *net = m->info->fabric_attr->name;
    struct btl_ofi_card *cards[BTL_OFI_MAX_RAILS], *pick = NULL;
    size_t lens[BTL_OFI_MAX_RAILS], mlen;
    int n = 0, seen = 0, occ = occurrence(m);
    char key[sizeof(m->card_key)];
    uint32_t *mask;

    if (rt_modex_get(r, RAILS_KEY, (void **)&mask, &mlen))
        return NULL;
    for (int k = 0; k < BTL_OFI_MAX_RAILS; k++) {
        struct btl_ofi_card *c;

        snprintf(key, sizeof(key), "%s%d", BTL_OFI_CARD_KEY, k);
        if (mlen != sizeof(*mask) || !(*mask & (1u << k)) ||
            rt_modex_get(r, key, (void **)&cards[n], &lens[n]))
            continue;
        c = cards[n];
        if (lens[n] < sizeof(*c) || c->version != BTL_OFI_VERSION ||
            lens[n] != sizeof(*c) + c->addrlen || c->window < 2 || c->window > BTL_OFI_MAX_WINDOW)
            rt_fatal("btl/ofi: rank %d speaks btl/ofi protocol %u (card of %zu bytes), this "
                     "rank %u: every rank must run the same rdmpi build",
                     r, lens[n] >= 4 ? c->version : 0, lens[n], BTL_OFI_VERSION);
        c->prov[sizeof(c->prov) - 1] = 0;
        c->fabric[sizeof(c->fabric) - 1] = 0;
        n++;
    }
    if (n && !m->rail && strcmp(cards[0]->prov, mine))
        rt_fatal("btl/ofi: rank %d uses libfabric provider %s, this rank %s; every rank must "
                 "use the same one: name it with RDMPI_OFI_PROVIDER (mpirun --provider)",
                 r, cards[0]->prov, mine);
    for (int j = 0; j < n && !pick; j++)
        if (!strcmp(cards[j]->prov, mine) &&
            !strncmp(cards[j]->fabric, net, sizeof(cards[j]->fabric) - 1) && seen++ == occ) {
            pick = cards[j];
            *len = lens[j];
        }
    if (!pick && n && !m->rail && !has_network(cards[0]->fabric)) {
        pick = cards[0];
        *len = lens[0];
    }
    if (!pick && n)
        rt_info(1, "btl/ofi: rail %d (%s on fabric %s): rank %d has no rail on that network",
                m->rail, mine, net, r);
    for (int j = 0; j < n; j++)
        if (cards[j] != pick)
            free(cards[j]);
    free(mask);
    return pick;
}

/* Inserts rank r's address from its card; 0, -ENOENT when r runs without
 * ofi or no rail of it is on m's network, or an error. */
static int add_peer(struct btl_ofi_module *m, int r)
{
    struct btl_module *btl = &m->base;
    struct btl_ofi_card *c;
    fi_addr_t fa;
    size_t len;
    int rc;

    if (!(c = card_for(m, r, &len)))
        return -ENOENT;
    rc = fi_av_insert(m->av, c->addr, 1, &fa, 0, NULL);
    if (rc != 1 || fa >= (fi_addr_t)RT_PROC_MAX) {
        rt_warn("btl/ofi: cannot insert rank %d's address into the address vector: %s", r,
                fi_strerror(rc < 0 ? -rc : FI_EINVAL));
        free(c);
        return rc < 0 ? rc : -EINVAL;
    }
    m->rank_of[fa] = r;
    m->peers[r].addr = fa;
    m->peers[r].m = m;
    if (fa >= (fi_addr_t)m->nav)
        m->nav = (int)fa + 1; /* an address removed may be handed out again */
    /* Pairs use the smaller limits: what we send must fit the peer's
     * buffers, and the pml sizes its window by peer_msgs. */
    if (c->eager_limit < btl->eager_limit)
        btl->eager_limit = btl->sendi_limit = c->eager_limit;
    if (c->window < btl->peer_msgs)
        btl->peer_msgs = c->window;
    if (!c->get)
        btl->flags &= ~(uint32_t)BTL_CAP_GET;
    if (!c->put)
        btl->flags &= ~(uint32_t)BTL_CAP_PUT;
    free(c);
    return 0;
}

/* Sets up process r's peer and inserts its address: 1 when reached, 0
 * when not, or an error. */
static int reach_peer(struct btl_ofi_module *m, int r)
{
    struct btl_ofi_peer *p = &m->peers[r];
    int rc;

    *p = (struct btl_ofi_peer){0}; /* a process dropped before starts afresh */
    p->addr = FI_ADDR_NOTAVAIL;
    p->m = m;
    p->world = r;
    p->qtail = &p->qhead;
    if (m->choice.quirks->local_only && !rt_proc_is_local(r))
        return 0;
    if ((rc = add_peer(m, r)) == -ENOENT)
        return 0;
    if (rc)
        return rc;
    /* Each pair connects one way: the lower process's hello (an empty
     * message) opens the connection, and the higher one sends nothing
     * until it came. The hello leaves from progress. Lower by identity, so
     * processes of two namespaces see the same order. */
    if (m->one_way && r != rt.rank) {
        if (rt_proc_cmp(r, rt.rank) < 0) {
            p->await_hello = 1;
        } else {
            p->hello_due = p->due = 1;
            p->next_due = m->due;
            m->due = p;
            btl_ofi_slow(m);
        }
    }
    return 1;
}

static int ofi_add_peers(struct btl_module *btl, int first, int n, uint8_t *reach)
{
    struct btl_ofi_module *m = btl_ofi_of(btl);
    int rc;

    if (!m->ep)
        return 0;
    for (int i = 0; i < n; i++) {
        if ((rc = reach_peer(m, first + i)) < 0)
            return rc;
        reach[i] = (uint8_t)rc;
    }
    return 0;
}

/* Nothing of the pml's is in flight to or from it, but a control
 * message it sent as the last communicator went (eager credits) may still
 * land: its address stays in the vector, so such a message is known and
 * dropped (consume), and it gets no endpoint and no goodbye. */
static void ofi_del_peer(struct btl_module *btl, int peer)
{
    struct btl_ofi_module *m = btl_ofi_of(btl);
    struct btl_ofi_peer *p;

    if (!m->peers || (p = &m->peers[peer])->addr == FI_ADDR_NOTAVAIL)
        return;
    if (p->due || p->qhead)
        rt_info(1, "btl/ofi: rail %d: process %d leaves with a hello or sends still queued",
                m->rail, peer);
    p->gone = 1;
}

static int ofi_connect(struct btl_module *btl, uint8_t *reach)
{
    struct btl_ofi_module *m = btl_ofi_of(btl);
    int n = 0, rc, one_way = rt_param_bool(&p_oneway);

    if (!m->ep)
        return 0;
    if (one_way < 0)
        one_way = m->choice.quirks->one_way_connect;
    m->peers = rt_proc_array(sizeof(*m->peers));
    m->rank_of = rt_proc_array(sizeof(*m->rank_of));
    if (!m->peers || !m->rank_of) {
        rt_warn("btl/ofi: out of memory for %d peers", rt.size);
        return -ENOMEM;
    }
    m->one_way = one_way;
    for (int r = 0; r < rt.size; r++) {
        if ((rc = reach_peer(m, r)) < 0)
            return rc;
        reach[r] = (uint8_t)rc;
        n += rc;
    }
    rt_info(2, "btl/ofi: rail %d reaches %d of %d ranks, eager limit %zu", m->rail, n, rt.size,
            btl->eager_limit);
    return 0;
}

static struct btl_endpoint *ofi_endpoint(struct btl_module *btl, int peer)
{
    struct btl_ofi_module *m = btl_ofi_of(btl);

    if (!m->peers || m->peers[peer].addr == FI_ADDR_NOTAVAIL || m->peers[peer].gone)
        return NULL;
    return (struct btl_endpoint *)&m->peers[peer];
}

/* The last message to every peer this rank exchanged messages with, and
 * the peer's back, each with the count of pml messages sent before it:
 * once the peer's goodbye and that many messages came (the provider may
 * complete the goodbye first), the peer sends nothing more, so no message
 * lands while either endpoint closes. rxm over verbs (libfabric 1.17) does
 * not survive one: closing the endpoint handles the arrival and reposts
 * its buffer to the connection it just closed (SIGSEGV, seen on siw and
 * rxe). Returns how many peers are still missing at the deadline. */
static int say_goodbye(struct btl_ofi_module *m, double end)
{
    for (;;) {
        int missing = 0;

        for (int r = 0; r < rt_proc_count(); r++) {
            struct btl_ofi_peer *p = &m->peers[r];

            if (p->addr == FI_ADDR_NOTAVAIL || !p->used || p->gone)
                continue;
            if (!p->bye_out &&
                !btl_ofi_send_empty(p, BTL_OFI_BYE | (p->tx_msgs & BTL_OFI_COUNT_MASK)))
                p->bye_out = 1;
            missing +=
                !p->bye_out || !p->bye_in || p->bye_count != (p->rx_msgs & BTL_OFI_COUNT_MASK);
        }
        if (!missing || rt_wtime() >= end)
            return missing;
        btl_ofi_progress(&m->base);
    }
}

/* Sends queued or in flight go out, then the goodbyes, before the
 * endpoint closes; bounded, since a peer that already left completes and
 * says nothing. */
static int ofi_flush(struct btl_module *btl)
{
    struct btl_ofi_module *m = btl_ofi_of(btl);
    double end = rt_wtime() + FLUSH_SECS;
    int missing;

    /* A failed rail is never polled again: nothing on it can finish. */
    if (!m->ep || m->failed)
        return 0;
    m->closing = 1;
    while ((m->busy || m->outstanding) && rt_wtime() < end)
        btl_ofi_progress(btl);
    if (m->busy || m->outstanding) {
        rt_warn("btl/ofi: %d operations still in flight after %.0f s at finalize; closing anyway",
                m->outstanding, FLUSH_SECS);
        return -ETIMEDOUT;
    }
    if ((missing = say_goodbye(m, end))) {
        rt_warn("btl/ofi: %d peers did not say goodbye within %.0f s at finalize; closing anyway",
                missing, FLUSH_SECS);
        return -ETIMEDOUT;
    }
    return 0;
}

static int ofi_finalize(struct btl_module *btl)
{
    struct btl_ofi_module *m = btl_ofi_of(btl);

    btl_ofi_health_stop();
    if (m->ep || m->info)
        teardown(m);
    m->transport[0] = 0;
    return 0;
}

const char *btl_ofi_report(const struct btl_module *btl, struct btl_ofi_counters *c)
{
    const struct btl_ofi_module *m = (const struct btl_ofi_module *)btl;

    if (!m->ep)
        return NULL;
    *c = m->count;
    return m->transport;
}

static int ofi_report(struct btl_module *btl, struct btl_report *r)
{
    static const char *const names[] = {"fi_inject", "provider EAGAIN", "rdma errors", "reg errors",
                                        "read fence"};
    _Static_assert(sizeof(names) / sizeof(names[0]) <= BTL_REPORT_EXTRA, "extras fit");
    struct btl_ofi_counters c;
    const char *line = btl_ofi_report(btl, &c);
    const uint64_t v[] = {c.inject_msgs, c.eagain, c.read_errors + c.write_errors, c.reg_errors,
                          c.fenced};

    if (!line)
        return -ENOENT;
    snprintf(r->transport, sizeof(r->transport), "%s", line);
    r->reads = c.reads;
    r->read_bytes = c.read_bytes;
    r->writes = c.writes;
    r->write_bytes = c.write_bytes;
    for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
        r->extra_name[k] = names[k];
        r->extra[k] = v[k];
    }
    return 0;
}

/* Limits here are placeholders until init reads the provider's. */
static const struct btl_module ofi_template = {
    .size = sizeof(struct btl_module),
    .version = BTL_IFACE_VERSION,
    .name = "ofi",
    .eager_limit = 8 << 10,
    .sendi_limit = 8 << 10,
    .get_limit = 1 << 30,
    .put_limit = 1 << 30,
    .alignment = 1,
    .rkey_size = sizeof(struct btl_ofi_rkey),
    .exclusivity = 100,
    .latency_ns = 30000,
    .bandwidth_mbs = 1000,
    .flags = BTL_CAP_SENDI | BTL_CAP_GET | BTL_CAP_PUT | BTL_CAP_NEED_REG | BTL_CAP_OFFHOST,
    .init = ofi_init,
    .connect = ofi_connect,
    .finalize = ofi_finalize,
    .endpoint = ofi_endpoint,
    .add_peers = ofi_add_peers,
    .del_peer = ofi_del_peer,
    .sendi = btl_ofi_sendi,
    .alloc = btl_ofi_alloc,
    .send = btl_ofi_send,
    .get = btl_ofi_get,
    .put = btl_ofi_put,
    .register_mem = btl_ofi_register,
    .deregister_mem = btl_ofi_deregister,
    .progress = btl_ofi_progress,
    .flush = ofi_flush,
    .report = ofi_report,
};

/* One module per rail of the chosen provider (choose, btl_ofi_rails in
 * btl_ofi_select.c); each init opens that rail's own fabric, domain,
 * endpoint and buffers and publishes its card. */
static int ofi_open(struct btl_component *c, struct btl_module **mods, int max)
{
    struct btl_ofi_choice ch[BTL_OFI_MAX_RAILS];
    struct fi_info *list = NULL;
    int n = 0;

    (void)c;
    if (max > BTL_OFI_MAX_RAILS)
        max = BTL_OFI_MAX_RAILS;
    nrails = 0;
    published = 0;
    if (max < 1 || (n = choose(ch, max, &list)) <= 0)
        return n < 0 ? n : 0;
    for (int k = 0; k < n; k++) {
        struct btl_ofi_module *m = &rails[k];

        memset(m, 0, sizeof(*m));
        m->base = ofi_template;
        m->rail = k;
        snprintf(m->card_key, sizeof(m->card_key), "%s%d", BTL_OFI_CARD_KEY, k);
        m->choice = ch[k];
        if (!(m->info = fi_dupinfo(ch[k].info))) {
            rt_warn("btl/ofi: out of memory copying the fi_info");
            break;
        }
        m->choice.info = m->info;
        mods[nrails++] = &m->base;
    }
    fi_freeinfo(list);
    return nrails;
}

/* Normally finalize tore everything down; not when the opener refused
 * a module or stopped before finalize. */
static void ofi_close(struct btl_component *c)
{
    (void)c;
    btl_ofi_health_stop();
    for (int k = 0; k < nrails; k++) {
        if (rails[k].ep || rails[k].info)
            teardown(&rails[k]);
        memset(&rails[k], 0, sizeof(rails[k]));
    }
    nrails = 0;
}

struct btl_component btl_ofi_component = {
    .size = sizeof(struct btl_component),
    .version = BTL_IFACE_VERSION,
    .name = "ofi",
    .flags = BTL_CAP_OFFHOST,
    .open = ofi_open,
    .close = ofi_close,
};
