/* btl/ofi provider selection on fi_info lists built with fi_dupinfo: the
 * order (verbs by link type, efa, cxi, psm3, tcp, shm; the rest by name),
 * RDMPI_OFI_PROVIDER and RDMPI_OFI_IFACE, skipping bridges, link-local
 * and (across hosts) loopback, the error and report texts, the quirks
 * table, and the real host probes as far as this machine allows. */
#include "config.h"

#include "btl_ofi.h"
#include "tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

/* ---- a fake host: three verbs devices and a few interfaces ---- */

static enum btl_ofi_link fake_link(const char *dev, const struct sockaddr *sa, char *detail,
                                   size_t len)
{
    (void)sa;
    if (!strcmp(dev, "mlx5_0")) {
        snprintf(detail, len, "LID 0x7, 4X HDR, 200 Gb/s");
        return BTL_OFI_LINK_IB;
    }
    if (!strcmp(dev, "mlx5_1")) {
        snprintf(detail, len, "GID index 3");
        return BTL_OFI_LINK_ROCE_V2;
    }
    if (!strcmp(dev, "mlx4_0"))
        return BTL_OFI_LINK_ROCE_V1;
    if (!strcmp(dev, "cxgb4_0"))
        return BTL_OFI_LINK_IWARP;
    return BTL_OFI_LINK_UNKNOWN;
}

static int fake_bridge(const char *ifname)
{
    return !strcmp(ifname, "docker0") || !strcmp(ifname, "virbr0");
}

static const struct {
    const char *addr, *ifname;
} ifaces[] = {
    {"10.0.0.1", "ib0"},       {"10.1.0.1", "ens1f0"},  {"10.2.0.1", "ens2f0"},
    {"10.3.0.1", "ens3f0"},    {"192.0.2.2", "eth0"},   {"127.0.0.1", "lo"},
    {"172.17.0.1", "docker0"}, {"169.254.3.4", "eth1"}, {"fe80::1", "eth0"},
    {"198.51.100.1", "eth2"},
};

static int fake_ifname(const struct sockaddr *sa, char *buf, size_t len)
{
    char text[INET6_ADDRSTRLEN];
    const void *a = sa->sa_family == AF_INET
                        ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                        : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

    inet_ntop(sa->sa_family, a, text, sizeof(text));
    for (size_t i = 0; i < sizeof(ifaces) / sizeof(ifaces[0]); i++)
        if (!strcmp(ifaces[i].addr, text)) {
            snprintf(buf, len, "%s", ifaces[i].ifname);
            return 0;
        }
    return -ENOENT;
}

static int fake_max_cqe(void)
{
    return 32767;
}

static const struct btl_ofi_host host = {fake_link, fake_max_cqe, fake_bridge, fake_ifname};

/* ---- fi_info entries ---- */

/* An RDM entry as a provider would return it; addr may be NULL. */
static struct fi_info *entry(const char *prov, const char *fabric, const char *domain,
                             const char *addr)
{
    struct fi_info *e = fi_dupinfo(NULL);

    if (!e)
        bail_out("fi_dupinfo failed");
    e->ep_attr->type = FI_EP_RDM;
    e->caps = FI_MSG | FI_SOURCE | BTL_OFI_RMA_ALL;
    e->fabric_attr->prov_name = strdup(prov);
    e->fabric_attr->name = strdup(fabric);
    e->domain_attr->name = strdup(domain);
    e->domain_attr->cq_data_size = 8;
    if (addr && strchr(addr, ':')) {
        struct sockaddr_in6 *s = calloc(1, sizeof(*s));
        s->sin6_family = AF_INET6;
        inet_pton(AF_INET6, addr, &s->sin6_addr);
        e->src_addr = s;
        e->src_addrlen = sizeof(*s);
        e->addr_format = FI_SOCKADDR_IN6;
    } else if (addr) {
        struct sockaddr_in *s = calloc(1, sizeof(*s));
        s->sin_family = AF_INET;
        inet_pton(AF_INET, addr, &s->sin_addr);
        e->src_addr = s;
        e->src_addrlen = sizeof(*s);
        e->addr_format = FI_SOCKADDR_IN;
    }
    return e;
}

/* Entries by short name, so each test writes its list in one line; a
 * trailing ! takes away remote CQ data, /w leaves RDMA write alone (as
 * the write-only tier of btl_ofi_getinfo returns it), /n no RDMA, /k a
 * 16-byte key. */
static struct fi_info *make(const char *name)
{
    size_t n = strlen(name);
    const char *slash = strchr(name, '/');

    if (slash) {
        char base[32];
        struct fi_info *e;

        snprintf(base, sizeof(base), "%.*s", (int)(slash - name), name);
        e = make(base);
        if (slash[1] == 'w')
            e->caps = FI_MSG | FI_SOURCE | BTL_OFI_RMA_WRITE;
        else if (slash[1] == 'n')
            e->caps = FI_MSG | FI_SOURCE;
        else
            e->domain_attr->mr_key_size = 16;
        return e;
    }

    if (n > 1 && name[n - 1] == '!') {
        char base[32];
        struct fi_info *e;

        snprintf(base, sizeof(base), "%.*s", (int)(n - 1), name);
        e = make(base);
        e->domain_attr->cq_data_size = 0;
        return e;
    }
    static const struct {
        const char *name, *prov, *fabric, *domain, *addr;
    } kinds[] = {
        {"ib", "verbs;ofi_rxm", "IB-0xfe80000000000000", "mlx5_0", "10.0.0.1"},
        {"roce2", "verbs;ofi_rxm", "10.1.0.0/16", "mlx5_1", "10.1.0.1"},
        {"roce1", "verbs;ofi_rxm", "10.3.0.0/16", "mlx4_0", "10.3.0.1"},
        {"iwarp", "verbs;ofi_rxm", "10.2.0.0/16", "cxgb4_0", "10.2.0.1"},
        {"verbs?", "verbs;ofi_rxm", "10.9.0.0/16", "qedr0", NULL},
        {"rxd", "verbs;ofi_rxd", "IB-0xfe80000000000000", "mlx5_0-dgram", "10.0.0.1"},
        {"efa", "efa", "efa", "rdmap0s31-rdm", NULL},
        {"cxi", "cxi", "cxi", "cxi0", NULL},
        {"psm3", "psm3", "RoCE-192.0.2.0/24", "eth0", NULL},
        {"tcp", "tcp;ofi_rxm", "192.0.2.0/24", "eth0", "192.0.2.2"},
        {"tcp2", "tcp;ofi_rxm", "198.51.100.0/24", "eth2", "198.51.100.1"},
        {"tcp6ll", "tcp;ofi_rxm", "fe80::/64", "eth0", "fe80::1"},
        {"tcpll", "tcp;ofi_rxm", "169.254.0.0/16", "eth1", "169.254.3.4"},
        {"tcplo", "tcp;ofi_rxm", "127.0.0.1/32", "lo", "127.0.0.1"},
        {"tcpbr", "tcp;ofi_rxm", "172.17.0.0/16", "docker0", "172.17.0.1"},
        {"shm", "shm", "shm", "shm", NULL},
        {"sockets", "sockets", "192.0.2.0/24", "eth0", "192.0.2.2"},
        {"udp", "udp;ofi_rxd", "192.0.2.0/24", "eth0", "192.0.2.2"},
        {"net", "net", "192.0.2.0/24", "eth0", "192.0.2.2"},
    };

    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(kinds[i].name, name))
            return entry(kinds[i].prov, kinds[i].fabric, kinds[i].domain, kinds[i].addr);
    bail_out("no entry kind %s", name);
}

/* A list from space-separated kinds, in that order. */
static struct fi_info *list_of(const char *kinds)
{
    char copy[256], *save = NULL, *tok;
    struct fi_info *head = NULL, **tail = &head;

    snprintf(copy, sizeof(copy), "%s", kinds);
    for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        *tail = make(tok);
        tail = &(*tail)->next;
    }
    return head;
}

static struct btl_ofi_choice ch;
static uint32_t ch_rma; /* btl_ofi_rma_caps of the entry chosen */

/* Runs the selection; returns its code, with `ch` describing the result. */
static int pick(const char *kinds, const char *prov, const char *iface, int multi_host)
{
    struct btl_ofi_want want = {prov, iface, multi_host};
    struct fi_info *l = list_of(kinds);
    static char dom[64], pname[64];
    int rc = btl_ofi_select(l, &want, &host, &ch);

    /* The list dies here; keep what the checks read. */
    snprintf(dom, sizeof(dom), "%s", ch.info ? ch.info->domain_attr->name : "");
    snprintf(pname, sizeof(pname), "%s", ch.info ? ch.info->fabric_attr->prov_name : "");
    ch_rma = ch.info ? btl_ofi_rma_caps(ch.info) : 0;
    fi_freeinfo(l);
    ch.info = NULL;
    diag("%s%s%s -> %d: %s", kinds, prov[0] ? " provider=" : "", prov, rc, ch.text);
    return rc ? rc : (strcmp(dom, "") ? 0 : -1);
}

static int chose(const char *kinds, const char *prov, const char *iface, int multi,
                 const char *want_prov, const char *want_iface)
{
    char expect[160];

    if (pick(kinds, prov, iface, multi))
        return 0;
    snprintf(expect, sizeof(expect), "%s on %s ", want_prov, want_iface);
    return !strncmp(ch.text, expect, strlen(expect));
}

static int says(const char *needle)
{
    return strstr(ch.text, needle) != NULL && !strchr(ch.text, '\n');
}

/* The rails for spec: their count (or the error), their interfaces in
 * order, space-separated, in *names. */
static int rails(const char *kinds, const char *prov, const char *spec, int multi, char *names,
                 size_t len)
{
    struct btl_ofi_want want = {prov, "", multi};
    struct fi_info *l = list_of(kinds);
    struct btl_ofi_choice out[4];
    int n = btl_ofi_select(l, &want, &host, &out[0]);

    names[0] = 0;
    if (!n)
        n = btl_ofi_rails(l, &want, &host, spec, out, 4);
    for (int k = 0; k < n; k++)
        snprintf(names + strlen(names), len - strlen(names), "%s%s", k ? " " : "", out[k].iface);
    diag("rails of %s, spec '%s' -> %d: %s (%s)", kinds, spec, n, names, out[0].text);
    fi_freeinfo(l);
    return n;
}

static void test_rails(void)
{
    const char *tcps = "tcp tcp6ll tcplo tcpbr tcp2 shm";
    char got[160];

    CHECK_ALL ("every interface of the chosen provider and family: %s", got) {
        CHECK_EQ_INT(rails(tcps, "", "", 1, got, sizeof(got)), 2);
        CHECK_EQ_STR(got, "eth0 eth2");
    }
    CHECK_ALL ("RDMPI_BTL_OFI_RAILS=1: the chosen one: %s", got) {
        CHECK_EQ_INT(rails(tcps, "", "1", 1, got, sizeof(got)), 1);
        CHECK_EQ_STR(got, "eth0");
    }
    CHECK_ALL ("a list names them in its order: %s", got) {
        CHECK_EQ_INT(rails(tcps, "", "eth2,eth0", 1, got, sizeof(got)), 2);
        CHECK_EQ_STR(got, "eth2 eth0");
    }
    CHECK_EQ_INT(rails(tcps, "", "eth0,eth9", 1, got, sizeof(got)), -ENOENT,
                 "a name that matches nothing is an error");
    CHECK_ALL ("one interface: one rail, as before: %s", got) {
        CHECK_EQ_INT(rails("tcp tcplo shm", "", "", 0, got, sizeof(got)), 1);
        CHECK_EQ_STR(got, "eth0");
    }
    CHECK_ALL ("two verbs devices: a rail each: %s", got) {
        CHECK_EQ_INT(rails("ib roce2 tcp", "", "", 1, got, sizeof(got)), 2);
    }
}

int main(void)
{
    const char *all = "tcp tcplo shm sockets iwarp roce1 roce2 ib udp efa cxi psm3";
    char name[64];
    struct sockaddr_in lo = {.sin_family = AF_INET};

    plan(70);
    test_rails();

    /* Order across providers, and verbs by link type. */
    CHECK_TRUE(chose(all, "", "", 0, "verbs;ofi_rxm", "ib0") && says("InfiniBand, LID 0x7, 4X HDR"),
               "InfiniBand verbs first of everything");
    CHECK_TRUE(chose("tcp shm iwarp roce1 roce2 efa", "", "", 0, "verbs;ofi_rxm", "ens1f0") &&
                   says("RoCE v2"),
               "RoCE v2 next, ahead of RoCE v1, iWARP and efa");
    CHECK_TRUE(chose("tcp iwarp roce1", "", "", 0, "verbs;ofi_rxm", "ens3f0") && says("RoCE v1"),
               "RoCE v1 ahead of iWARP");
    CHECK_TRUE(chose("sockets shm tcp iwarp", "", "", 0, "verbs;ofi_rxm", "ens2f0") &&
                   says("iWARP"),
               "iWARP is still verbs, ahead of tcp");
    CHECK_TRUE(chose("tcp verbs?", "", "", 0, "verbs;ofi_rxm", "qedr0") &&
                   says("verbs, link unknown"),
               "a verbs device rdma-core cannot describe is still verbs");
    CHECK_TRUE(chose("tcp psm3 cxi efa", "", "", 0, "efa", "rdmap0s31-rdm"),
               "efa before cxi and psm3");
    CHECK_TRUE(chose("tcp psm3 cxi", "", "", 0, "cxi", "cxi0"), "cxi before psm3");
    CHECK_TRUE(chose("sockets shm tcp psm3", "", "", 0, "psm3", "eth0"), "psm3 before tcp");
    CHECK_TRUE(chose("sockets shm udp tcp", "", "", 0, "tcp;ofi_rxm", "eth0"), "tcp before shm");
    CHECK_TRUE(chose("sockets udp shm", "", "", 0, "shm", "shm"), "shm last of the defaults");
    CHECK_ALL ("sockets only when named") {
        CHECK_EQ_INT(pick("udp sockets net", "", "", 0), -ENOENT);
        CHECK_TRUE(chose("udp sockets net", "sockets", "", 0, "sockets", "eth0"));
    }
    CHECK_TRUE(chose("tcp tcp2", "", "", 0, "tcp;ofi_rxm", "eth0") &&
                   chose("tcp2 tcp", "", "", 0, "tcp;ofi_rxm", "eth2"),
               "among equals, libfabric's order");
    CHECK_TRUE(chose("tcp iwarp!", "", "", 0, "verbs;ofi_rxm", "ens2f0") && !says("skipped"),
               "an entry without remote CQ data (iWARP) is used: the word goes in a prefix");
    CHECK_ALL ("providers outside the order run only when named") {
        CHECK_EQ_INT(pick("udp net rxd", "", "", 0), -ENOENT);
        CHECK_TRUE(says("none of the providers rdmpi uses by default"));
        CHECK_TRUE(says("available: udp;ofi_rxd, net, verbs;ofi_rxd"));
    }

    /* Interfaces. */
    CHECK_TRUE(chose("tcpbr tcp6ll tcpll tcp", "", "", 0, "tcp;ofi_rxm", "eth0") &&
                   says("(virtual bridge)") && says("(link-local)") && says("fe80::/64"),
               "bridges and link-local addresses skipped, and said so");
    CHECK_ALL ("nothing but bridges and link-local: error naming RDMPI_OFI_IFACE") {
        CHECK_EQ_INT(pick("tcpbr tcp6ll tcpll", "", "", 0), -ENOENT);
        CHECK_TRUE(says("no usable provider entry"));
        CHECK_TRUE(says("RDMPI_OFI_IFACE"));
    }
    CHECK_TRUE(chose("tcp tcplo", "", "lo", 0, "tcp;ofi_rxm", "lo"), "RDMPI_OFI_IFACE=lo");
    CHECK_TRUE(chose("tcp tcpbr", "", "docker0", 0, "tcp;ofi_rxm", "docker0"),
               "a bridge named by RDMPI_OFI_IFACE is used");
    CHECK_TRUE(chose("tcplo tcp2 tcp", "", "192.0.2.0/24", 0, "tcp;ofi_rxm", "eth0"),
               "RDMPI_OFI_IFACE may name the fabric (subnet)");
    CHECK_TRUE(chose("tcplo tcp2 ib", "", "mlx5_0", 0, "verbs;ofi_rxm", "ib0"),
               "RDMPI_OFI_IFACE may name the verbs device");
    CHECK_TRUE(chose("tcp ib", "", "eth0", 0, "tcp;ofi_rxm", "eth0"),
               "RDMPI_OFI_IFACE=eth0 passes over InfiniBand elsewhere");
    CHECK_ALL ("an interface that is not there: error listing those that are") {
        CHECK_EQ_INT(pick("tcp tcplo shm", "tcp", "wlan0", 0), -ENOENT);
        CHECK_TRUE(
            says("RDMPI_OFI_IFACE=wlan0: no tcp entry uses that interface; interfaces: eth0, lo"));
    }
    CHECK_TRUE(chose("tcplo tcp", "", "", 0, "tcp;ofi_rxm", "lo") &&
                   chose("tcplo shm", "", "", 0, "tcp;ofi_rxm", "lo"),
               "on one host loopback is fine, in libfabric's order");
    CHECK_TRUE(chose("tcplo shm tcp", "", "", 1, "tcp;ofi_rxm", "eth0"),
               "across hosts loopback and shm are passed over");
    CHECK_ALL ("across hosts with only loopback and shm: error saying why") {
        CHECK_EQ_INT(pick("tcplo shm", "", "", 1), -ENOENT);
        CHECK_TRUE(says("loopback, the job spans hosts"));
        CHECK_TRUE(says("this host only"));
    }

    /* RDMPI_OFI_PROVIDER. */
    CHECK_TRUE(chose(all, "shm", "", 0, "shm", "shm") && says("RDMPI_OFI_PROVIDER=shm"),
               "RDMPI_OFI_PROVIDER=shm over the hardware");
    CHECK_TRUE(chose(all, "tcp", "", 0, "tcp;ofi_rxm", "eth0"), "tcp names tcp;ofi_rxm");
    CHECK_TRUE(chose(all, "tcp;ofi_rxm", "", 0, "tcp;ofi_rxm", "eth0"), "the full prov_name works");
    CHECK_TRUE(chose("rxd roce2 ib", "verbs", "", 0, "verbs;ofi_rxm", "ib0"),
               "verbs names verbs;ofi_rxm before verbs;ofi_rxd");
    CHECK_TRUE(chose(all, "udp", "", 0, "udp;ofi_rxd", "eth0"),
               "a provider outside the order runs when named");
    CHECK_ALL ("a missing provider: one line listing those present") {
        CHECK_EQ_INT(pick(all, "psm2", "", 0), -ENOENT);
        CHECK_TRUE(
            says("RDMPI_OFI_PROVIDER=psm2: no such provider here; available: tcp;ofi_rxm, shm, "
                 "sockets, verbs;ofi_rxm, udp;ofi_rxd, efa, cxi, psm3"));
    }
    CHECK_EQ_INT(pick("tcp", "tc", "", 0), -ENOENT, "a prefix is no provider name");
    CHECK_ALL ("an empty list says libfabric offers nothing") {
        CHECK_EQ_INT(pick("", "", "", 0), -ENOENT);
        CHECK_TRUE(says("libfabric offers no provider"));
    }

    /* The report text, whole. */
    CHECK_ALL ("the verbosity-1 report, word for word") {
        CHECK_TRUE(!pick("tcpbr tcp tcplo", "", "", 0));
        CHECK_EQ_STR(ch.text, "tcp;ofi_rxm on eth0 (fabric 192.0.2.0/24, domain eth0, Ethernet "
                              "(TCP)): best of 2 usable entries in the order verbs, efa, cxi, "
                              "psm3, tcp, shm; skipped tcp;ofi_rxm docker0 "
                              "172.17.0.0/16 (virtual bridge)");
    }

    /* RDMA read and write as each entry has them (btl_ofi_getinfo's tiers). */
    {
        struct fi_info *e = make("tcp");

        CHECK_ALL ("BTL_CAP_GET/PUT from the entry's caps and key size") {
            CHECK_EQ_INT(btl_ofi_rma_caps(e), BTL_CAP_GET | BTL_CAP_PUT);
            e->caps = FI_MSG | FI_RMA;
            CHECK_EQ_INT(btl_ofi_rma_caps(e), BTL_CAP_GET | BTL_CAP_PUT,
                         "FI_RMA alone is all four");
            e->caps = FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ;
            CHECK_EQ_INT(btl_ofi_rma_caps(e), BTL_CAP_GET);
            e->caps = FI_MSG | FI_RMA | FI_READ | FI_REMOTE_WRITE;
            CHECK_EQ_INT(btl_ofi_rma_caps(e), 0, "one side of each is neither");
            e->caps = FI_MSG | BTL_OFI_RMA_WRITE;
            CHECK_EQ_INT(btl_ofi_rma_caps(e), BTL_CAP_PUT);
            e->caps = FI_MSG | FI_READ | FI_REMOTE_READ;
            CHECK_EQ_INT(btl_ofi_rma_caps(e), 0, "no FI_RMA, no RDMA");
            e->caps = FI_MSG | BTL_OFI_RMA_ALL;
            e->domain_attr->mr_key_size = 16;
            CHECK_EQ_INT(btl_ofi_rma_caps(e), 0, "a 16-byte key");
        }
        fi_freeinfo(e);
    }
    CHECK_ALL ("a provider with RDMA write alone is selected, and says so") {
        CHECK_TRUE(chose("shm efa/w tcp", "", "", 0, "efa", "rdmap0s31-rdm"));
        CHECK_EQ_INT(ch_rma, BTL_CAP_PUT);
        CHECK_TRUE(says("; RDMA write only: rendezvous by the receiver's write"));
    }
    CHECK_ALL ("a provider without RDMA is selected, rendezvous by copies") {
        CHECK_TRUE(chose("tcp/n shm", "", "", 0, "tcp;ofi_rxm", "eth0"));
        CHECK_EQ_INT(ch_rma, 0);
        CHECK_TRUE(says("; no RDMA read or write: rendezvous by copies"));
    }
    CHECK_ALL ("a key wider than 8 bytes: selected without RDMA, said why") {
        CHECK_TRUE(chose("tcp/k", "", "", 0, "tcp;ofi_rxm", "eth0"));
        CHECK_EQ_INT(ch_rma, 0);
        CHECK_TRUE(says("no RDMA (key wider than 8 bytes)"));
    }
    CHECK_ALL ("one place in several tiers: the richest entry, in any list order") {
        CHECK_TRUE(chose("tcp/n tcp/w tcp", "", "", 0, "tcp;ofi_rxm", "eth0"));
        CHECK_EQ_INT(ch_rma, BTL_CAP_GET | BTL_CAP_PUT);
        CHECK_TRUE(!says("RDMA"), "a provider with both says nothing of it");
        CHECK_TRUE(chose("tcp/n tcp/w", "", "", 0, "tcp;ofi_rxm", "eth0"));
        CHECK_EQ_INT(ch_rma, BTL_CAP_PUT);
    }
    CHECK_TRUE(chose("tcp ib/n", "", "", 0, "verbs;ofi_rxm", "ib0") && ch_rma == 0,
               "the provider order comes first: verbs without RDMA before tcp with it");
    {
        struct fi_info *all2 = list_of("tcp shm"), *none = list_of("tcp/n efa/n shm/n tcp2/n");
        const char *left[] = {"rdmap0s31-rdm", "eth2"};
        int n = 0, right = 1;

        none = btl_ofi_drop_known(none, all2);
        for (const struct fi_info *e = none; e; e = e->next, n++)
            right &= n < 2 && !strcmp(e->domain_attr->name, left[n]);
        CHECK_ALL ("a poorer tier keeps only the places a richer one lacks (%d left)", n) {
            CHECK_EQ_INT(n, 2);
            CHECK_TRUE(right, "efa and tcp on eth2, in their order");
            CHECK_TRUE(btl_ofi_drop_known(NULL, all2) == NULL);
            fi_freeinfo(all2);
            all2 = list_of("tcp2 efa");
            none = btl_ofi_drop_known(none, all2);
            CHECK_TRUE(none == NULL, "against a list of the same places: nothing left");
        }
        fi_freeinfo(all2);
    }

    /* The quirks table. */
    CHECK_ALL ("writes wait for delivery over tcp only (it checks keys at the target)") {
        CHECK_TRUE(btl_ofi_quirks("tcp;ofi_rxm")->write_delivery);
        CHECK_TRUE(btl_ofi_quirks("tcp")->write_delivery);
        CHECK_TRUE(!btl_ofi_quirks("shm")->write_delivery);
        CHECK_TRUE(!btl_ofi_quirks("verbs;ofi_rxm")->write_delivery);
        CHECK_TRUE(!btl_ofi_quirks(NULL)->write_delivery);
    }
    CHECK_ALL ("eager limits: verbs 8 KiB, tcp 64 KiB, shm 4 KiB") {
        CHECK_EQ_LONG(btl_ofi_quirks("verbs;ofi_rxm")->eager_limit, 8192);
        CHECK_EQ_LONG(btl_ofi_quirks("tcp;ofi_rxm")->eager_limit, 65536);
        CHECK_EQ_LONG(btl_ofi_quirks("shm")->eager_limit, 4096);
    }
    CHECK_TRUE(btl_ofi_quirks("shm")->local_only && !btl_ofi_quirks("tcp;ofi_rxm")->local_only &&
                   btl_ofi_quirks("verbs;ofi_rxm")->pins && !btl_ofi_quirks("tcp;ofi_rxm")->pins,
               "shm reaches this host only; verbs pins memory, tcp does not");
    CHECK_ALL ("unknown providers get the named-only default row") {
        CHECK_EQ_INT(btl_ofi_quirks("net")->rank, 0);
        CHECK_EQ_INT(btl_ofi_quirks(NULL)->rank, 0);
    }
    CHECK_ALL ("shm endpoints are named by us; rxm and shm post one buffer per message") {
        CHECK_EQ_STR(btl_ofi_quirks("shm")->name_prefix, "fi_shm://");
        CHECK_TRUE(btl_ofi_quirks("shm")->no_multi_recv);
        CHECK_TRUE(btl_ofi_quirks("tcp;ofi_rxm")->no_multi_recv);
        CHECK_TRUE(!btl_ofi_quirks("efa")->no_multi_recv);
    }
    CHECK_TRUE(btl_ofi_quirks("verbs;ofi_rxm")->one_way_connect &&
                   btl_ofi_quirks("verbs;ofi_rxm")->no_close &&
                   !btl_ofi_quirks("tcp;ofi_rxm")->one_way_connect &&
                   !btl_ofi_quirks("shm")->no_close,
               "rxm over verbs connects one way and is left open at finalize; tcp and shm are not");

    /* The real host probes, as far as this machine goes. */
    lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK_ALL ("127.0.0.1 belongs to lo (got %s)", name) {
        CHECK_EQ_INT(btl_ofi_host.ifname_of((struct sockaddr *)&lo, name, sizeof(name)), 0);
        CHECK_EQ_STR(name, "lo");
    }
    CHECK_TRUE(!btl_ofi_host.is_bridge("lo"), "lo is no bridge");
    name[0] = 0;
    CHECK_ALL ("a verbs device that does not exist: link unknown, no detail") {
        CHECK_EQ_INT(btl_ofi_host.verbs_link("rdmpi_nodev0-xrc", NULL, name, sizeof(name)),
                     BTL_OFI_LINK_UNKNOWN);
        CHECK_TRUE(!name[0]);
    }
    CHECK_GE_LONG(btl_ofi_host.verbs_max_cqe(), 0, "the device limit probe runs (%d)",
                  btl_ofi_host.verbs_max_cqe());

    /* Queue sizes for rxm over verbs. */
    {
        struct btl_ofi_sizes z = btl_ofi_size_queues(4, 32767, 384, 384);
        CHECK_EQ_LONG(z.universe, 4L);
        CHECK_EQ_LONG(z.verbs_tx, 0L);
        z = btl_ofi_size_queues(1, 0, 384, 384);
        CHECK_EQ_LONG(z.universe, 2L);
        CHECK_EQ_LONG(z.verbs_rx, 0L);
        z = btl_ofi_size_queues(64, 32767, 384, 384); /* 64 * 768 > 32767: 255-deep */
        CHECK_EQ_LONG(z.universe, 64L);
        CHECK_EQ_LONG(z.verbs_tx, 255L);
        CHECK_EQ_LONG(z.verbs_rx, 255L);
        CHECK_EQ_INT(z.fits, 1);
        CHECK_LE_LONG((z.verbs_tx + z.verbs_rx) * z.universe, 32767, "64 ranks fit rxe's CQ");
        z = btl_ofi_size_queues(4096, 32767, 384, 384); /* even 16-deep does not fit */
        CHECK_EQ_LONG(z.verbs_tx, 16L);
        CHECK_EQ_INT(z.fits, 0);
        CHECK_ALL ("4096 ranks: universe cut to %ld", z.universe) {
            CHECK_LE_LONG(32 * z.universe, 32767);
            CHECK_EQ_LONG(z.universe, 1023);
        }
        z = btl_ofi_size_queues(1024, 4194303, 384, 384); /* mlx5: no change */
        CHECK_EQ_LONG(z.verbs_tx, 0L);
    }
    return tap_failed != 0;
}
