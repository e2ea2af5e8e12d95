/* btl/ofi provider selection and the provider quirks table. Everything here
 * is pure: the host facts come in through struct btl_ofi_host, and the
 * verdict, good or bad, goes out as text for the caller to print. */
#include "config.h"

#include "btl_ofi_select.h"

#include "btl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ranks follow the order: hardware first, then tcp, then the
 * host-only shm. Rank 0 rows and providers not listed run only when the
 * user names them: sockets 1.17 drops FI_SOURCE on some completions and
 * stops completing sends here, so it is no default. Multi-receive is off
 * where libfabric 1.17 breaks it (measured here): ofi_rxm corrupts
 * messages past ~32 KiB in multi-receive buffers, and shm fails to take a
 * buffer back (-FI_ENOMEM, for good) once three or more ranks stream.
 * shm names its /dev/shm file after the endpoint name, which we choose so
 * the launcher's sweep of the job's files removes it after a crash.
 * rxm over verbs (1.17) tears down the good connection when two ranks
 * connect to each other at once, and the data already on it then crashes
 * the receiver in fi_cq_readfrom (libfabric issue 7396): there the lower
 * rank connects first. Its peers crash the same way, in progress or in
 * their own fi_close, when a rank closes its endpoint (the disconnect
 * flushes receives that rxm reposts to the connection it closed; seen
 * here on siw and rxe in one run in three at 2-4 ranks): its endpoint is
 * left open at finalize, for process exit to tear down. tcp (1.17) checks
 * an RDMA write's key and range only at the target, which then closes the
 * connection; the writer's write has completed well by then (completion
 * at transmit), so its writes wait for delivery, which fails instead. shm
 * must not: its delivered writes go through the target, which drops a bad
 * one without an answer, while its plain ones fail at the writer. */
static const struct btl_ofi_quirks table[] = {
    /* prov, rank, eager, link, name_prefix, latency_ns, bandwidth_mbs,
     * local_only, pins, no_multi_recv, one_way_connect, no_close, write_delivery */
    {"verbs;ofi_rxm", 1, 8 << 10, NULL, NULL, 2000, 10000, 0, 1, 1, 1, 1, 0},
    {"efa", 2, 8 << 10, "EFA", NULL, 15000, 10000, 0, 1, 0, 0, 0, 0},
    {"cxi", 3, 8 << 10, "Slingshot", NULL, 2000, 20000, 0, 1, 0, 0, 0, 0},
    {"psm3", 4, 8 << 10, "Ethernet (PSM3)", NULL, 3000, 10000, 0, 1, 0, 0, 0, 0},
    {"tcp;ofi_rxm", 5, 64 << 10, "Ethernet (TCP)", NULL, 30000, 1000, 0, 0, 1, 0, 0, 1},
    {"tcp", 5, 64 << 10, "Ethernet (TCP)", NULL, 30000, 1000, 0, 0, 0, 0, 0, 1},
    {"shm", 6, 4 << 10, "shared memory", "fi_shm://", 1000, 5000, 1, 0, 1, 0, 0, 0},
    {"sockets", 0, 64 << 10, "Ethernet (sockets)", NULL, 50000, 300, 0, 0, 1, 0, 0, 0},
};
static const struct btl_ofi_quirks other = {NULL, 0, 8 << 10, "unknown", NULL, 50000, 100,
                                            0,    0, 0,       0,         0,    0};

#define ORDER_TEXT "verbs, efa, cxi, psm3, tcp, shm"

const struct btl_ofi_quirks *btl_ofi_quirks(const char *prov_name)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (prov_name && !strcmp(table[i].prov, prov_name))
            return &table[i];
    return &other;
}

const char *btl_ofi_link_name(enum btl_ofi_link link)
{
    static const char *const names[] = {"InfiniBand",          "RoCE v2", "RoCE v1", "iWARP",
                                        "verbs, link unknown", "other"};

    return names[link];
}

/* Appends to a fixed buffer; output past its end is dropped. */
struct text {
    char *buf;
    size_t size, len;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (t->len >= t->size)
        return;
    va_start(ap, fmt);
    n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->len += (size_t)n;
}

static const struct sockaddr *ip_addr(const struct fi_info *e)
{
    const struct sockaddr *sa = e->src_addr;

    if (!sa || e->src_addrlen < sizeof(struct sockaddr_in))
        return NULL;
    if (sa->sa_family == AF_INET)
        return sa;
    if (sa->sa_family == AF_INET6 && e->src_addrlen >= sizeof(struct sockaddr_in6))
        return sa;
    return NULL;
}

static int link_local(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 16) == 0xa9fe;
    return IN6_IS_ADDR_LINKLOCAL(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

static int loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

static const char *prov_of(const struct fi_info *e)
{
    return e->fabric_attr && e->fabric_attr->prov_name ? e->fabric_attr->prov_name : "?";
}

static const char *fabric_of(const struct fi_info *e)
{
    return e->fabric_attr && e->fabric_attr->name ? e->fabric_attr->name : "?";
}

static const char *domain_of(const struct fi_info *e)
{
    return e->domain_attr && e->domain_attr->name ? e->domain_attr->name : "?";
}

/* "tcp" names "tcp;ofi_rxm" too: users think of the core provider. */
static int named(const char *prov, const char *want)
{
    size_t n = strlen(want);

    return !strcmp(prov, want) || (!strncmp(prov, want, n) && prov[n] == ';');
}

static int is_verbs(const char *prov)
{
    return named(prov, "verbs");
}

/* The interface an entry sends from: the one holding its address, else
 * the domain name (tcp and sockets name domains after interfaces). */
static void iface_of(const struct fi_info *e, const struct btl_ofi_host *host, char *buf,
                     size_t len)
{
    const struct sockaddr *sa = ip_addr(e);

    if (!sa || host->ifname_of(sa, buf, len))
        snprintf(buf, len, "%s", domain_of(e));
}

/* Why the default rules pass over an entry, or NULL. */
static const char *skip_reason(const struct fi_info *e, const char *ifname,
                               const struct btl_ofi_quirks *q, const struct btl_ofi_want *want,
                               const struct btl_ofi_host *host)
{
    const struct sockaddr *sa = ip_addr(e);

    if (want->multi_host && q->local_only)
        return "this host only, the job spans hosts";
    if (want->iface[0])
        return NULL;
    if (sa && link_local(sa))
        return "link-local";
    if (sa && want->multi_host && loopback(sa))
        return "loopback, the job spans hosts";
    if (ifname[0] && host->is_bridge(ifname))
        return "virtual bridge";
    return NULL;
}

/* Unique provider names of the list, in its order. */
static void list_providers(const struct fi_info *list, struct text *t)
{
    int n = 0;

    for (const struct fi_info *e = list; e; e = e->next) {
        const struct fi_info *f = list;

        while (f != e && strcmp(prov_of(f), prov_of(e)))
            f = f->next;
        if (f == e)
            put(t, "%s%s", n++ ? ", " : "", prov_of(e));
    }
    if (!n)
        put(t, "none");
}

/* Unique interfaces among the entries of the wanted provider. */
static void list_ifaces(const struct fi_info *list, const struct btl_ofi_want *want,
                        const struct btl_ofi_host *host, struct text *t)
{
    char seen[512] = ",", name[64];
    int n = 0;

    for (const struct fi_info *e = list; e; e = e->next) {
        char key[68];

        if (want->provider[0] && !named(prov_of(e), want->provider))
            continue;
        iface_of(e, host, name, sizeof(name));
        snprintf(key, sizeof(key), ",%s,", name);
        if (strstr(seen, key))
            continue;
        if (strlen(seen) + strlen(name) + 2 < sizeof(seen))
            strcat(strcat(seen, name), ",");
        put(t, "%s%s", n++ ? ", " : "", name);
    }
    if (!n)
        put(t, "none");
}

uint32_t btl_ofi_rma_caps(const struct fi_info *e)
{
    const uint64_t rd = FI_READ | FI_REMOTE_READ, wr = FI_WRITE | FI_REMOTE_WRITE;
    uint64_t c = e->caps;
    uint32_t f = 0;

    if (!(c & FI_RMA) || !e->domain_attr || e->domain_attr->mr_key_size > 8)
        return 0;
    if (!(c & (rd | wr)))
        c |= rd | wr;
    if ((c & rd) == rd)
        f |= BTL_CAP_GET;
    if ((c & wr) == wr)
        f |= BTL_CAP_PUT;
    return f;
}

const char *btl_ofi_rma_text(const struct fi_info *e)
{
    switch (btl_ofi_rma_caps(e)) {
    case BTL_CAP_GET | BTL_CAP_PUT: return "RDMA read and write";
    case BTL_CAP_PUT: return "RDMA write only: rendezvous by the receiver's write";
    case BTL_CAP_GET: return "RDMA read only";
    }
    if ((e->caps & FI_RMA) && e->domain_attr && e->domain_attr->mr_key_size > 8)
        return "no RDMA (key wider than 8 bytes): rendezvous by copies";
    return "no RDMA read or write: rendezvous by copies";
}

static int same_place(const struct fi_info *a, const struct fi_info *b)
{
    return !strcmp(prov_of(a), prov_of(b)) && !strcmp(fabric_of(a), fabric_of(b)) &&
           !strcmp(domain_of(a), domain_of(b));
}

struct fi_info *btl_ofi_drop_known(struct fi_info *list, const struct fi_info *known)
{
    struct fi_info **at = &list;

    while (*at) {
        struct fi_info *e = *at;
        const struct fi_info *k = known;

        while (k && !same_place(k, e))
            k = k->next;
        if (!k) {
            at = &e->next;
            continue;
        }
        *at = e->next;
        e->next = NULL;
        fi_freeinfo(e);
    }
    return list;
}

/* Lower is better: the provider's rank, then the verbs link type, then
 * RDMA read and write before write alone before neither, then the list's
 * own order (kept because the scan takes the first minimum). */
static int score(const struct btl_ofi_quirks *q, enum btl_ofi_link link, const struct fi_info *e)
{
    uint32_t rma = btl_ofi_rma_caps(e);

    return ((q->rank ? q->rank : 100) * 16 + (int)link) * 4 + !(rma & BTL_CAP_PUT) * 2 +
           !(rma & BTL_CAP_GET);
}

int btl_ofi_select(const struct fi_info *list, const struct btl_ofi_want *want,
                   const struct btl_ofi_host *host, struct btl_ofi_choice *out)
{
    struct text t = {out->text, sizeof(out->text), 0};
    char skipped[320] = "", ifname[64], detail[64];
    struct text s = {skipped, sizeof(skipped), 0};
    int best = -1, usable = 0, wanted = 0, nskipped = 0;

    out->info = NULL;
    out->text[0] = 0;
    for (const struct fi_info *e = list; e; e = e->next) {
        const char *prov = prov_of(e), *why;
        const struct btl_ofi_quirks *q = btl_ofi_quirks(prov);
        enum btl_ofi_link link;

        if (want->provider[0] ? !named(prov, want->provider) : !q->rank)
            continue;
        wanted++;
        iface_of(e, host, ifname, sizeof(ifname));
        if (want->iface[0] && strcmp(want->iface, ifname) && strcmp(want->iface, domain_of(e)) &&
            strcmp(want->iface, fabric_of(e)))
            continue;
        if ((why = skip_reason(e, ifname, q, want, host))) {
            char note[160];

            /* libfabric lists an entry once per capability set: say it once. */
            snprintf(note, sizeof(note), "%s %s %s (%s)", prov, ifname, fabric_of(e), why);
            if (!strstr(skipped, note) && nskipped++ < 4)
                put(&s, "%s%s", nskipped > 1 ? ", " : "", note);
            continue;
        }
        usable++;
        detail[0] = 0;
        link = is_verbs(prov) ? host->verbs_link(domain_of(e), ip_addr(e), detail, sizeof(detail))
                              : BTL_OFI_LINK_OTHER;
        if (best < 0 || score(q, link, e) < best) {
            best = score(q, link, e);
            out->info = e;
            out->quirks = q;
            out->link = link;
            snprintf(out->iface, sizeof(out->iface), "%s", ifname);
            snprintf(out->link_detail, sizeof(out->link_detail), "%s", detail);
        }
    }
    if (nskipped > 4)
        put(&s, " and %d more", nskipped - 4);

    if (!list) {
        put(&t, "libfabric offers no provider with reliable datagrams (FI_EP_RDM) and "
                "messages on this host");
    } else if (want->provider[0] && !wanted) {
        put(&t, "RDMPI_OFI_PROVIDER=%s: no such provider here; available: ", want->provider);
        list_providers(list, &t);
    } else if (!wanted) {
        put(&t, "none of the providers rdmpi uses by default (" ORDER_TEXT ") is here; "
                "available: ");
        list_providers(list, &t);
        put(&t, "; name one with RDMPI_OFI_PROVIDER (mpirun --provider)");
    } else if (want->iface[0] && !usable && !nskipped) {
        put(&t, "RDMPI_OFI_IFACE=%s: no %s entry uses that interface; interfaces: ", want->iface,
            want->provider[0] ? want->provider : "provider");
        list_ifaces(list, want, host, &t);
    } else if (!usable) {
        put(&t,
            "no usable provider entry: skipped %s; name an interface with RDMPI_OFI_IFACE "
            "(mpirun --iface) or a provider with RDMPI_OFI_PROVIDER",
            skipped);
    }
    if (!out->info)
        return -ENOENT;

    put(&t, "%s on %s (fabric %s, domain %s, %s%s%s): ", prov_of(out->info),
        out->iface[0] ? out->iface : "-", fabric_of(out->info), domain_of(out->info),
        out->link == BTL_OFI_LINK_OTHER ? out->quirks->link : btl_ofi_link_name(out->link),
        out->link_detail[0] ? ", " : "", out->link_detail);
    if (want->provider[0])
        put(&t, "RDMPI_OFI_PROVIDER=%s", want->provider);
    else
        put(&t, "best of %d usable %s in the order " ORDER_TEXT, usable,
            usable == 1 ? "entry" : "entries");
    if (want->iface[0])
        put(&t, "; RDMPI_OFI_IFACE=%s", want->iface);
    if (btl_ofi_rma_caps(out->info) != (BTL_CAP_GET | BTL_CAP_PUT))
        put(&t, "; %s", btl_ofi_rma_text(out->info));
    if (nskipped)
        put(&t, "; skipped %s", skipped);
    return 0;
}

/* Fills c for entry e as btl_ofi_select does for its choice. */
static void rail_choice(const struct fi_info *e, const struct btl_ofi_host *host,
                        struct btl_ofi_choice *c)
{
    const char *prov = prov_of(e);
    struct text t = {c->text, sizeof(c->text), 0};

    c->info = e;
    c->quirks = btl_ofi_quirks(prov);
    c->link_detail[0] = 0;
    c->link = is_verbs(prov) ? host->verbs_link(domain_of(e), ip_addr(e), c->link_detail,
                                                sizeof(c->link_detail))
                             : BTL_OFI_LINK_OTHER;
    iface_of(e, host, c->iface, sizeof(c->iface));
    c->text[0] = 0;
    put(&t, "%s on %s (fabric %s, domain %s, %s%s%s)", prov, c->iface[0] ? c->iface : "-",
        fabric_of(e), domain_of(e),
        c->link == BTL_OFI_LINK_OTHER ? c->quirks->link : btl_ofi_link_name(c->link),
        c->link_detail[0] ? ", " : "", c->link_detail);
}

static int family_of(const struct fi_info *e)
{
    const struct sockaddr *sa = ip_addr(e);

    return sa ? sa->sa_family : AF_UNSPEC;
}

/* Is e's interface or domain one of out[0..n)'s? */
static int taken(const struct fi_info *e, const struct btl_ofi_host *host,
                 const struct btl_ofi_choice *out, int n)
{
    char ifname[64];

    iface_of(e, host, ifname, sizeof(ifname));
    for (int k = 0; k < n; k++)
        if (!strcmp(out[k].iface, ifname) || !strcmp(domain_of(out[k].info), domain_of(e)))
            return 1;
    return 0;
}

int btl_ofi_rails(const struct fi_info *list, const struct btl_ofi_want *want,
                  const struct btl_ofi_host *host, const char *spec, struct btl_ofi_choice *out,
                  int max)
{
    const char *prov = prov_of(out[0].info);
    const struct sockaddr *sa0 = ip_addr(out[0].info);
    int n = 1, lo0 = sa0 && loopback(sa0), fam0 = family_of(out[0].info);
    char *end;
    long limit = strtol(spec, &end, 10);

    if (*spec && *end) {
        /* A list: each name's first entry of this provider, in its order. */
        char names[256], *save = NULL;

        snprintf(names, sizeof(names), "%s", spec);
        n = 0;
        for (char *tok = strtok_r(names, ",", &save); tok && n < max;
             tok = strtok_r(NULL, ",", &save)) {
            const struct fi_info *best = NULL;
            char ifname[64];

            for (const struct fi_info *e = list; e; e = e->next) {
                if (strcmp(prov_of(e), prov) || taken(e, host, out, n))
                    continue;
                iface_of(e, host, ifname, sizeof(ifname));
                if (strcmp(tok, ifname) && strcmp(tok, domain_of(e)) && strcmp(tok, fabric_of(e)))
                    continue;
                if (!best || (family_of(best) != fam0 && family_of(e) == fam0))
                    best = e;
            }
            if (!best) {
                struct text t = {out[0].text, sizeof(out[0].text), 0};

                out[0].text[0] = 0;
                put(&t, "no %s entry on %s; interfaces: ", prov, tok);
                list_ifaces(list, &(struct btl_ofi_want){prov, "", want->multi_host}, host, &t);
                return -ENOENT;
            }
            rail_choice(best, host, &out[n++]);
        }
        return n;
    }
    if (*spec && limit > 0 && limit < max)
        max = (int)limit;
    if (want->iface[0])
        return 1;
    for (const struct fi_info *e = list; e && n < max; e = e->next) {
        const struct sockaddr *sa = ip_addr(e);
        char ifname[64];

        if (strcmp(prov_of(e), prov) || family_of(e) != fam0 || (sa && loopback(sa)) != lo0 ||
            taken(e, host, out, n))
            continue;
        iface_of(e, host, ifname, sizeof(ifname));
        if (skip_reason(e, ifname, btl_ofi_quirks(prov), want, host))
            continue;
        rail_choice(e, host, &out[n++]);
    }
    return n;
}

struct btl_ofi_sizes btl_ofi_size_queues(long ranks, long max_cqe, long tx, long rx)
{
    struct btl_ofi_sizes z = {ranks < 2 ? 2 : ranks, 0, 0, 1};
    long depth;

    if (max_cqe <= 0 || (tx + rx) * z.universe <= max_cqe)
        return z;
    /* Shallower queues, equal for both directions, down to 16 entries:
     * fewer messages in flight per connection, but every rank connects. */
    depth = max_cqe / (2 * z.universe);
    if (depth < 16) {
        depth = 16;
        z.universe = max_cqe / (2 * depth);
        z.fits = 0;
    }
    z.verbs_tx = depth < tx ? depth : tx;
    z.verbs_rx = depth < rx ? depth : rx;
    return z;
}
