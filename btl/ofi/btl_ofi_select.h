/* btl/ofi provider selection: which fi_info entry to open, and the table
 * of what differs between providers. The choice is a pure function of the
 * fi_info list, the user's wishes and the host facts passed in, so tests
 * can feed it lists built with fi_dupinfo (this host has no RDMA device). */
#ifndef BTL_OFI_SELECT_H
#define BTL_OFI_SELECT_H

#include "btl_ofi_dl.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* What a verbs device is, as rdma-core tells it; listed best first. */
enum btl_ofi_link {
    BTL_OFI_LINK_IB,
    BTL_OFI_LINK_ROCE_V2,
    BTL_OFI_LINK_ROCE_V1,
    BTL_OFI_LINK_IWARP,
    BTL_OFI_LINK_UNKNOWN, /* a verbs device rdma-core could not describe */
    BTL_OFI_LINK_OTHER,   /* not verbs: the quirks row names the link */
};

/* Everything that differs between providers lives in one row of this
 * table, so the data path reads fields and never tests a provider name. */
struct btl_ofi_quirks {
    const char *prov;        /* fabric_attr->prov_name; NULL for the default row */
    int rank;                /* selection order, lower first; 0: only when named */
    size_t eager_limit;      /* default largest message sent eagerly */
    const char *link;        /* what to call the link when it is not verbs */
    const char *name_prefix; /* endpoint names are ours to choose: prefix + name */
    uint32_t latency_ns;     /* rough figures for reports */
    uint32_t bandwidth_mbs;
    unsigned local_only : 1;      /* reaches ranks on this host only */
    unsigned pins : 1;            /* registration pins pages: RLIMIT_MEMLOCK matters */
    unsigned no_multi_recv : 1;   /* FI_MULTI_RECV offered but not to be trusted */
    unsigned one_way_connect : 1; /* simultaneous connects break it: the lower rank
                                     of a pair connects first (btl_ofi_component.c) */
    unsigned no_close : 1;        /* closing crashes its peers: finalize leaves the
                                     endpoint to process exit (btl_ofi_component.c) */
    unsigned write_delivery : 1;  /* a bad write is caught only at its target, which
                                     closes the connection: writes wait for delivery
                                     (btl_ofi_rdma.c) */
};

/* The row for prov_name; unknown providers get a default row of rank 0. */
const struct btl_ofi_quirks *btl_ofi_quirks(const char *prov_name);
const char *btl_ofi_link_name(enum btl_ofi_link link);

/* Host facts the choice depends on; btl_ofi_host.c has the real ones. */
struct btl_ofi_host {
    /* A verbs device ("mlx5_0") as rdma-core sees it, for the entry with
     * address sa (may be NULL); detail gets what identifies the port:
     * InfiniBand LID and rate, the RoCE GID index of sa. */
    enum btl_ofi_link (*verbs_link)(const char *device, const struct sockaddr *sa, char *detail,
                                    size_t len);
    /* The smallest completion queue limit (max_cqe) of the verbs devices
     * here, 0 without any. */
    int (*verbs_max_cqe)(void);
    /* Is the network interface a virtual bridge (docker0, virbr0)? */
    int (*is_bridge)(const char *ifname);
    /* The interface holding address sa: 0 and its name in buf, or -ENOENT. */
    int (*ifname_of)(const struct sockaddr *sa, char *buf, size_t len);
};

struct btl_ofi_want {
    const char *provider; /* RDMPI_OFI_PROVIDER: prov_name or its first part; "" any */
    const char *iface;    /* RDMPI_OFI_IFACE: interface, domain or fabric; "" any */
    int multi_host;       /* ranks on other hosts: no loopback, no host-only provider */
};

struct btl_ofi_choice {
    const struct fi_info *info;          /* the chosen entry, in the list */
    const struct btl_ofi_quirks *quirks; /* its row */
    enum btl_ofi_link link;
    char link_detail[64]; /* verbs: LID and rate, or GID index; else "" */
    char iface[64];       /* its network interface, or "" */
    char text[640];       /* why it was chosen, or why none was */
};

/* Picks an entry: the user's provider and interface if named, else the
 * first in the order verbs (InfiniBand, RoCE v2, RoCE v1, iWARP), efa,
 * cxi, psm3, tcp, shm, skipping virtual bridges and link-local addresses
 * (and loopback when the job spans hosts). Returns 0, or -ENOENT with
 * out->text saying what is missing and what there is. */
int btl_ofi_select(const struct fi_info *list, const struct btl_ofi_want *want,
                   const struct btl_ofi_host *host, struct btl_ofi_choice *out);

/* The rails: out[0] is btl_ofi_select's choice on entry; fills out[0..n)
 * and returns n (at most max). spec is RDMPI_BTL_OFI_RAILS: "" or a number
 * N takes out[0] and then, up to N, the same provider's entries on other
 * interfaces or domains that the default rules accept, of out[0]'s address
 * family, loopback only if out[0] is (one rail when want->iface names
 * one); a comma list takes the first entry of that provider matching each
 * name (interface, domain or fabric) in its order. -ENOENT, with out[0].text
 * saying why, when a listed name matches nothing. */
int btl_ofi_rails(const struct fi_info *list, const struct btl_ofi_want *want,
                  const struct btl_ofi_host *host, const char *spec, struct btl_ofi_choice *out,
                  int max);

/* What the BTL asks fi_getinfo for, in tiers: RDMA read and write, then
 * (only for providers or domains the first tier lacks) write alone, then
 * neither (messages, with the pml's copy pipeline). Each tier is the caps
 * added to FI_MSG | FI_SOURCE. */
#define BTL_OFI_RMA_ALL   (FI_RMA | FI_READ | FI_REMOTE_READ | FI_WRITE | FI_REMOTE_WRITE)
#define BTL_OFI_RMA_WRITE (FI_RMA | FI_WRITE | FI_REMOTE_WRITE)

/* BTL_CAP_GET and BTL_CAP_PUT as an entry's caps allow: reads need
 * FI_READ and FI_REMOTE_READ, writes FI_WRITE and FI_REMOTE_WRITE (FI_RMA
 * alone means all four), and keys travel as 8 bytes, so a wider key
 * means neither. */
uint32_t btl_ofi_rma_caps(const struct fi_info *e);
/* What those capabilities mean for the pml's rendezvous, for messages. */
const char *btl_ofi_rma_text(const struct fi_info *e);

/* Removes from list (and frees) the entries whose provider, fabric and
 * domain some entry of known has: a poorer tier's copies of what a
 * richer one offers. Returns what is left of list. */
struct fi_info *btl_ofi_drop_known(struct fi_info *list, const struct fi_info *known);

/* Queue sizes for ofi_rxm over verbs, set through libfabric's variables
 * before its first fi_getinfo: rxm opens one device CQ of (tx + rx) *
 * universe entries, which must fit the device's max_cqe (rxe: 32767;
 * libfabric's defaults ask 2 * 384 * 256). A setting of 0 is left alone. */
struct btl_ofi_sizes {
    long universe; /* FI_UNIVERSE_SIZE: the job's ranks */
    long verbs_tx; /* FI_VERBS_TX_SIZE, lowered only when the CQ would not fit */
    long verbs_rx; /* FI_VERBS_RX_SIZE */
    int fits;      /* 0: 16-deep queues for every rank overflow max_cqe, so the
                      universe is cut: the CQ can overrun when more peers talk at once */
};

/* From the job size, the device limit (0: no verbs device, nothing to
 * set) and the queue depths in force (libfabric's defaults or the user's). */
struct btl_ofi_sizes btl_ofi_size_queues(long ranks, long max_cqe, long tx, long rx);

#endif
