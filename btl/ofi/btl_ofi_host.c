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

/* RoCE v2 if the port carries any RoCE v2 GID (routable, UDP), else v1. */
static enum btl_ofi_link roce_version(struct ibv_context *ctx, int ngids)
{
    struct ibv_gid_entry *g = calloc((size_t)ngids, sizeof(*g));
    enum btl_ofi_link link = BTL_OFI_LINK_ROCE_V1;
    ssize_t n;

    if (!g)
        return link;
    n = ibv_query_gid_table(ctx, g, (size_t)ngids, 0);
    for (ssize_t i = 0; i < n; i++)
        if (g[i].port_num == 1 && g[i].gid_type == IBV_GID_TYPE_ROCE_V2)
            link = BTL_OFI_LINK_ROCE_V2;
    free(g);
    return link;
}

static enum btl_ofi_link port_link(struct ibv_device *dev)
{
    enum btl_ofi_link link = BTL_OFI_LINK_UNKNOWN;
    struct ibv_context *ctx;
    struct ibv_port_attr pa;

    if (dev->node_type == IBV_NODE_RNIC)
        return BTL_OFI_LINK_IWARP;
    if (!(ctx = ibv_open_device(dev)))
        return link;
    if (!ibv_query_port(ctx, 1, &pa)) {
        if (pa.link_layer == IBV_LINK_LAYER_ETHERNET)
            link = roce_version(ctx, pa.gid_tbl_len);
        else
            link = BTL_OFI_LINK_IB; /* UNSPECIFIED is what old IB drivers say */
    }
    ibv_close_device(ctx);
    return link;
}

/* The verbs provider names domains after devices, with "-xrc" or
 * "-dgram" appended for those variants. */
static enum btl_ofi_link verbs_link(const char *domain)
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
            link = port_link(devs[i]);
    ibv_free_device_list(devs);
    return link;
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
    .is_bridge = is_bridge,
    .ifname_of = ifname_of,
};
