/* For rdmpi_info, without starting MPI: what libfabric offers on this host,
 * what the BTLs would choose for peers on this host and on others, and the
 * RDMA devices rdma-core sees. Each fact goes to emit(key, value). */
#include "config.h"

#include "btl_ofi.h"
#include "btl_ofi_info.h"
#include "btl.h"

#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

/* Appends each distinct provider name of list to buf, comma-separated. */
static void provider_names(const struct fi_info *list, char *buf, size_t len)
{
    buf[0] = 0;
    for (const struct fi_info *i = list; i; i = i->next) {
        const char *p = i->fabric_attr->prov_name;
        size_t n = strlen(buf), pl = strlen(p);
        int seen = 0;

        for (const char *at = buf; (at = strstr(at, p)); at += pl)
            seen |= (at == buf || at[-1] == ',') && (at[pl] == ',' || !at[pl]);
        if (!seen)
            snprintf(buf + n, len - n, "%s%s", n ? "," : "", p);
    }
}

/* What MPI_Init's selection would pick from usable for peers on this host
 * (remote 0) or on others (1), or why nothing. */
static void ofi_choice(struct fi_info *usable, int remote, char *buf, size_t len)
{
    struct btl_ofi_want want = btl_ofi_wants(remote);
    struct btl_ofi_choice choice;

    if (btl_ofi_select(usable, &want, &btl_ofi_host, &choice))
        snprintf(buf, len, "none: %s", choice.text);
    else
        snprintf(buf, len, "ofi: %s", choice.text);
}

/* The rails MPI_Init would open for peers on other hosts (RDMPI_BTL_OFI_RAILS
 * and the default rules), one "k: interface (fabric)" each, or why none. */
static void ofi_rails(struct fi_info *usable, char *buf, size_t len)
{
    struct btl_ofi_want want = btl_ofi_wants(1);
    struct btl_ofi_choice ch[BTL_OFI_MAX_RAILS];
    const char *spec = btl_ofi_rails_spec();
    size_t at = 0;
    int n;

    if (btl_ofi_select(usable, &want, &btl_ofi_host, &ch[0])) {
        snprintf(buf, len, "none: no provider for peers on other hosts");
        return;
    }
    n = btl_ofi_rails(usable, &want, &btl_ofi_host, spec, ch, BTL_OFI_MAX_RAILS);
    if (n < 0) {
        snprintf(buf, len, "none: RDMPI_BTL_OFI_RAILS=%s: %s", spec, ch[0].text);
        return;
    }
    buf[0] = 0;
    for (int k = 0; k < n && at < len; k++) {
        const struct fi_info *i = ch[k].info;

        at += (size_t)snprintf(buf + at, len - at, "%s%d: %s (fabric %s)", k ? "; " : "", k,
                               ch[k].iface[0] ? ch[k].iface : i->domain_attr->name,
                               i->fabric_attr->name);
    }
}

static void ofi_facts(rdmpi_info_emit *emit, void *arg)
{
    struct fi_info *all = NULL, *usable;
    char buf[1024];
    int sm = btl_enabled("sm"), ofi = btl_enabled("ofi");

    if (btl_ofi_dl_open()) {
        emit("transport.libfabric", "cannot be loaded (see the warning above)", arg);
        emit("transport.intra_host", sm ? "sm" : "none: RDMPI_BTL leaves out sm", arg);
        emit("transport.inter_host", "none: libfabric cannot be loaded", arg);
        return;
    }
    snprintf(buf, sizeof(buf), "%u.%u", FI_MAJOR(fi_version()), FI_MINOR(fi_version()));
    emit("transport.libfabric", buf, arg);
    fi_getinfo(FI_VERSION(1, 12), NULL, NULL, 0, NULL, &all);
    provider_names(all, buf, sizeof(buf));
    emit("transport.providers", buf[0] ? buf : "none", arg);
    usable = btl_ofi_getinfo();
    provider_names(usable, buf, sizeof(buf));
    emit("transport.providers_usable", buf[0] ? buf : "none", arg);

    /* Peers on this host: sm wins them when open (highest exclusivity). */
    if (sm)
        snprintf(buf, sizeof(buf), "sm (shared memory)");
    else if (!ofi)
        snprintf(buf, sizeof(buf), "none: RDMPI_BTL leaves out sm and ofi");
    else
        ofi_choice(usable, 0, buf, sizeof(buf));
    emit("transport.intra_host", buf, arg);
    if (!ofi)
        snprintf(buf, sizeof(buf), "none: RDMPI_BTL leaves out ofi");
    else
        ofi_choice(usable, 1, buf, sizeof(buf));
    emit("transport.inter_host", buf, arg);
    if (ofi) {
        ofi_rails(usable, buf, sizeof(buf));
        emit("transport.inter_host_rails", buf, arg);
    }
    fi_freeinfo(usable);
    fi_freeinfo(all);
}

static const char *link_layer(uint8_t l)
{
    switch (l) {
    case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
    case IBV_LINK_LAYER_ETHERNET: return "Ethernet (RoCE or iWARP)";
    default: return "unspecified";
    }
}

/* Every port of every device: its link layer and state. */
static void verbs_facts(rdmpi_info_emit *emit, void *arg)
{
    int n = 0;
    struct ibv_device **devs = ibv_get_device_list(&n);
    char key[128], val[256];

    if (!devs || n == 0) {
        emit("transport.verbs", "no RDMA device (rdma-core lists none)", arg);
        if (devs)
            ibv_free_device_list(devs);
        return;
    }
    for (int d = 0; d < n; d++) {
        struct ibv_context *ctx = ibv_open_device(devs[d]);
        struct ibv_device_attr a;

        if (!ctx || ibv_query_device(ctx, &a)) {
            snprintf(key, sizeof(key), "transport.verbs.%s", ibv_get_device_name(devs[d]));
            emit(key, "cannot be opened", arg);
            if (ctx)
                ibv_close_device(ctx);
            continue;
        }
        for (int p = 1; p <= a.phys_port_cnt; p++) {
            struct ibv_port_attr pa;

            snprintf(key, sizeof(key), "transport.verbs.%s.port%d", ibv_get_device_name(devs[d]),
                     p);
            if (ibv_query_port(ctx, (uint8_t)p, &pa))
                snprintf(val, sizeof(val), "cannot be queried");
            else
                snprintf(val, sizeof(val), "%s, %s", link_layer(pa.link_layer),
                         ibv_port_state_str(pa.state));
            emit(key, val, arg);
        }
        ibv_close_device(ctx);
    }
    ibv_free_device_list(devs);
}

void rdmpi_info_transports(rdmpi_info_emit *emit, void *arg)
{
    ofi_facts(emit, arg);
    verbs_facts(emit, arg);
}
