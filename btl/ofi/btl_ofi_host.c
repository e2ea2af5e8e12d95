/* The host facts provider selection needs: what rdma-core says a verbs
 * device is, which interface holds an address, and which interfaces are
 * virtual bridges. Kept apart so btl_ofi_select.c stays pure. */
#include "config.h"

#include "btl_ofi.h"

#include <errno.h>
#include <ifaddrs.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Does GID g carry address sa (IPv4 as ::ffff:a.b.c.d)? */
static int gid_holds(const union ibv_gid *g, const struct sockaddr *sa)
{
    static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

    if (sa->sa_family == AF_INET)
        return !memcmp(g->raw, v4mapped, 12) &&
               !memcmp(g->raw + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    return sa->sa_family == AF_INET6 &&
           !memcmp(g->raw, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

/* RoCE v2 when the GID of the entry's address has a v2 entry (rdma_cm
 * uses v2 when both exist), or, without an address, when the port has
 * any; detail names the GID index used. */
static enum btl_ofi_link roce_version(struct ibv_context *ctx, int ngids, const struct sockaddr *sa,
                                      char *detail, size_t len)
{
    struct ibv_gid_entry *g = calloc((size_t)ngids, sizeof(*g));
    enum btl_ofi_link link = BTL_OFI_LINK_ROCE_V1;
    int index = -1;
    ssize_t n;

    if (!g)
        return link;
    n = ibv_query_gid_table(ctx, g, (size_t)ngids, 0);
    for (ssize_t i = 0; i < n; i++) {
        if (g[i].port_num != 1 || (sa && !gid_holds(&g[i].gid, sa)))
            continue;
        if (g[i].gid_type == IBV_GID_TYPE_ROCE_V2 && link != BTL_OFI_LINK_ROCE_V2) {
            link = BTL_OFI_LINK_ROCE_V2;
            index = (int)g[i].gid_index;
        } else if (index < 0) {
            index = (int)g[i].gid_index;
        }
    }
    free(g);
    if (index >= 0 && sa)
        snprintf(detail, len, "GID index %d", index);
    return link;
}

/* "4X EDR, 100 Gb/s" from the port's width and lane speed. */
static void ib_rate(const struct ibv_port_attr *pa, char *buf, size_t len)
{
    static const struct {
        int code;
        const char *name;
        double gbps;
    } speeds[] = {{1, "SDR", 2.5}, {2, "DDR", 5},   {4, "QDR", 10},  {8, "FDR10", 10},
                  {16, "FDR", 14}, {32, "EDR", 25}, {64, "HDR", 50}, {128, "NDR", 100}};
    int width = pa->active_width == 1   ? 1
                : pa->active_width == 2 ? 4
                : pa->active_width == 4 ? 8
                : pa->active_width == 8 ? 12
                                        : 2;

    for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
        if (speeds[i].code == pa->active_speed) {
            snprintf(buf, len, "LID %#x, %dX %s, %.0f Gb/s", pa->lid, width, speeds[i].name,
                     width * speeds[i].gbps);
            return;
        }
    snprintf(buf, len, "LID %#x", pa->lid);
}

static enum btl_ofi_link port_link(struct ibv_device *dev, const struct sockaddr *sa, char *detail,
                                   size_t len)
{
    enum btl_ofi_link link = BTL_OFI_LINK_UNKNOWN;
    struct ibv_context *ctx;
    struct ibv_port_attr pa;

    if (dev->node_type == IBV_NODE_RNIC)
        return BTL_OFI_LINK_IWARP;
    if (!(ctx = ibv_open_device(dev)))
        return link;
    if (!ibv_query_port(ctx, 1, &pa)) {
        if (pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
            link = roce_version(ctx, pa.gid_tbl_len, sa, detail, len);
        } else {
            link = BTL_OFI_LINK_IB; /* UNSPECIFIED is what old IB drivers say */
            ib_rate(&pa, detail, len);
        }
    }
    ibv_close_device(ctx);
    return link;
}

/* The verbs provider names domains after devices, with "-xrc" or
 * "-dgram" appended for those variants. */
static enum btl_ofi_link verbs_link(const char *domain, const struct sockaddr *sa, char *detail,
                                    size_t len)
{
    enum btl_ofi_link link = BTL_OFI_LINK_UNKNOWN;
    struct ibv_device **devs;
    char name[64];
    int n;

    snprintf(name, sizeof(name), "%s", domain);
    name[strcspn(name, "-")] = 0;
    if (!(devs = ibv_get_device_list(&n)))
        return link;
    for (int i = 0; i < n; i++)
        if (!strcmp(ibv_get_device_name(devs[i]), name))
            link = port_link(devs[i], sa, detail, len);
    ibv_free_device_list(devs);
    return link;
}

static int verbs_max_cqe(void)
{
    struct ibv_device **devs;
    int n, min = 0;

    if (!(devs = ibv_get_device_list(&n)))
        return 0;
    for (int i = 0; i < n; i++) {
        struct ibv_context *ctx = ibv_open_device(devs[i]);
        struct ibv_device_attr a;

        if (ctx && !ibv_query_device(ctx, &a) && a.max_cqe > 0 && (!min || a.max_cqe < min))
            min = a.max_cqe;
        if (ctx)
            ibv_close_device(ctx);
    }
    ibv_free_device_list(devs);
    return min;
}

static int is_bridge(const char *ifname)
{
    char path[128];

    snprintf(path, sizeof(path), "/sys/class/net/%s/bridge", ifname);
    return access(path, F_OK) == 0;
}

static int same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
    if (a->sa_family != b->sa_family)
        return 0;
    if (a->sa_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                   &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

static int ifname_of(const struct sockaddr *sa, char *buf, size_t len)
{
    struct ifaddrs *list, *i;
    int rc = -ENOENT;

    if (getifaddrs(&list))
        return -errno;
    for (i = list; i; i = i->ifa_next)
        if (i->ifa_addr && same_addr(i->ifa_addr, sa)) {
            snprintf(buf, len, "%s", i->ifa_name);
            rc = 0;
            break;
        }
    freeifaddrs(list);
    return rc;
}

const struct btl_ofi_host btl_ofi_host = {
    .verbs_link = verbs_link,
    .verbs_max_cqe = verbs_max_cqe,
    .is_bridge = is_bridge,
    .ifname_of = ifname_of,
};
