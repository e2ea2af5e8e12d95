/* btl/ofi: any libfabric provider with reliable datagrams, messages and
 * RDMA read and write (verbs;ofi_rxm, efa, cxi, psm3, tcp;ofi_rxm, shm; others when
 * named).
 * docs/btl-ofi.md has the design, btl/ofi/README.md the known problems. */
#ifndef BTL_OFI_H
#define BTL_OFI_H

#include "btl.h"
#include "btl_ofi_select.h"

#include <errno.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>
#include <stdint.h>

extern struct btl_component btl_ofi_component;
struct btl_ofi_module;

/* What the transport report shows for btl/ofi; all counts since init. */
struct btl_ofi_counters {
    uint64_t eager_msgs; /* messages sent by sendi and send */
    uint64_t eager_bytes;
    uint64_t inject_msgs; /* of those, sent by fi_inject (no completion) */
    uint64_t recv_msgs;   /* messages delivered to the pml */
    uint64_t recv_bytes;
    uint64_t reads; /* fi_read operations issued (rendezvous data) */
    uint64_t read_bytes;
    uint64_t writes; /* fi_write operations issued (write rendezvous, split puts) */
    uint64_t write_bytes;
    uint64_t read_errors;  /* reads that failed: the pml fell back to copying */
    uint64_t write_errors; /* writes that failed: the same */
    uint64_t reg_errors;   /* registrations that failed: copy pipeline instead */
    uint64_t eagain;       /* provider refusals, queued or handed back to the pml */
    uint64_t fenced;       /* send attempts held back behind a read from the same peer */
};

/* A module's counters, and its provider line (provider, interface, fabric,
 * domain, link), or NULL when that rail is not running. For the report at
 * finalize and for tests. */
const char *btl_ofi_report(const struct btl_module *btl, struct btl_ofi_counters *c);

/* ---- internal to btl/ofi ---- */

#define BTL_OFI_VERSION 2
/* Rail k's card goes under "rdmpi.btl.ofi.<k>"; rail 0 is the entry
 * selection chose, the others the same provider's further NICs or ports. */
#define BTL_OFI_CARD_KEY  "rdmpi.btl.ofi."
#define BTL_OFI_MAX_RAILS 8

/* Business card of one rail. Rail k of two ranks connect when both
 * opened a rail k on the same fabric (subnet, or IB subnet prefix). */
struct btl_ofi_card {
    uint32_t version;     /* BTL_OFI_VERSION; a mismatch is fatal */
    uint32_t eager_limit; /* largest message it sends and can receive; pairs use the minimum */
    uint32_t window;      /* messages per peer its receive buffers absorb */
    uint32_t get;         /* 1: peers may fi_read its registrations */
    uint32_t addrlen;     /* bytes of addr */
    uint32_t put;         /* 1: peers may fi_write its registrations */
    char prov[32];        /* prov_name: every rank must run the same provider */
    char fabric[64];      /* fabric_attr->name of the rail */
    uint8_t addr[];       /* fi_getname of its endpoint */
};
_Static_assert(sizeof(struct btl_ofi_card) == 120, "card header has no holes");

/* Each message carries one word of ours. It travels as 4 bytes of remote
 * CQ data where the provider offers them, else (iWARP has no immediate
 * data) as an 8-byte prefix ahead of the pml's header, which keeps that
 * header 8-byte aligned. Order and flow control are the pml's (its
 * sequence numbers and credits); the word only says, on an empty message
 * that is not handed to the pml, that it is a pair's last (BTL_OFI_BYE)
 * and how many pml messages came before it, since the provider may
 * complete them after it. Every other message carries 0. */
#define BTL_OFI_MAX_WINDOW 16384 /* RDMPI_OFI_WINDOW at most */
#define BTL_OFI_PREFIX     8
#define BTL_OFI_BYE        0x80000000u /* finalize: btl_ofi_component.c, ofi_flush */
#define BTL_OFI_COUNT_MASK 0x7fffffffu

/* A libfabric return code as a negative errno: its own codes (FI_ETRUNC
 * and up) are no errno values. */
static inline int btl_ofi_errno(ssize_t rc)
{
    return -rc < FI_ERRNO_OFFSET ? (int)rc : -EIO;
}

/* The remote key register_mem hands the pml (rkey_size bytes). */
struct btl_ofi_rkey {
    uint64_t key;  /* fi_mr_key */
    uint64_t base; /* the registered address without FI_MR_VIRT_ADDR (reads
                    * then address offsets into the region), else 0 */
};

enum btl_ofi_kind { BTL_OFI_SEND, BTL_OFI_RECV, BTL_OFI_READ, BTL_OFI_WRITE };

/* Every operation handed to the provider starts with this: FI_CONTEXT and
 * FI_CONTEXT2 providers keep their state in ctx, and a completion's
 * op_context leads back to the operation. */
struct btl_ofi_op {
    struct fi_context2 ctx;
    enum btl_ofi_kind kind;
};

struct btl_ofi_peer;
struct btl_ofi_module;

/* A registered send buffer; desc is what alloc() hands out, its buf
 * the module's prefix bytes into the buffer. */
struct btl_ofi_frag {
    struct btl_ofi_op op;
    struct btl_desc desc;
    struct btl_ofi_peer *peer;
    struct btl_ofi_frag *next; /* free list, or the peer's queue */
};

/* A posted receive buffer (multi-receive: many messages per posting). */
struct btl_ofi_rbuf {
    struct btl_ofi_op op;
    uint8_t *data;
    size_t size;
    struct btl_ofi_rbuf *next; /* waiting to be posted again */
};

/* An RDMA read or write in flight; op.kind says which. Both share one
 * pool of RDMPI_OFI_READS slots. */
struct btl_ofi_read {
    struct btl_ofi_op op;
    btl_rdma_fn cb;
    void *cbctx;
    struct fid_mr *lmr; /* FI_MR_LOCAL: our registration of the local buffer */
    size_t len;
    struct btl_ofi_peer *peer;
    struct btl_ofi_read *next; /* free list */
};

/* The pml's opaque registration handle. */
struct btl_reg {
    struct fid_mr *mr;
};

/* One peer: the struct btl_endpoint the pml holds.
 * Messages reach the pml in the order the provider completes them, which
 * need not be send order (rxm completes a message above its eager size
 * after small ones sent behind it): the pml restores MPI's order. Its
 * message window, sized by btl_module.peer_msgs (our window), keeps what
 * a peer has in flight to us within the receive buffers posted for it;
 * what exceeds them (many peers at once) waits in the provider's
 * unexpected queue (rxm keeps it in receive buffers of its own, allocated
 * as needed). */
struct btl_ofi_peer {
    struct btl_ofi_module *m; /* the rail it is reached by */
    fi_addr_t addr;
    int world;
    uint32_t tx_msgs;        /* pml messages the provider took for it */
    uint32_t rx_msgs;        /* pml messages it delivered from it */
    uint32_t bye_count;      /* its goodbye: pml messages it sent before it */
    int due;                 /* on the list of peers owed a hello */
    uint8_t used;            /* a message went either way */
    uint8_t await_hello;     /* one_way_connect: a lower rank; send nothing
                                until its first message came */
    uint8_t hello_due;       /* one_way_connect: a higher rank; say hello */
    uint8_t bye_out, bye_in; /* finalize: our last message sent, its received */
    /* A read from it or a write to it failed. rxm (tcp, verbs) closes the connection then,
     * and fi_inject into a closed one loses the message without a word,
     * so its messages go by fi_senddata: a dead connection then fails a
     * send completion and ends the job instead of hanging it. */
    int suspect;
    int gone;                            /* dropped (del_peer): what it still sends is dropped */
    uint32_t reads;                      /* our RDMA reads from it in flight */
    struct btl_ofi_frag *qhead, **qtail; /* sends held back, in order */
    struct btl_ofi_peer *next_busy;      /* on the list of peers with a queue */
    struct btl_ofi_peer *next_due;       /* on the list of peers owed a hello */
};

/* One rail: a NIC or port of the chosen provider, with its own fabric,
 * domain, endpoint, queues, buffers, peers and counters. Every operation
 * finds it from its module or endpoint. */
struct btl_ofi_module {
    struct btl_module base; /* first: the pml's handle is this */
    int rail;               /* its index; its card is BTL_OFI_CARD_KEY<rail> */
    char card_key[32];
    char transport[200]; /* the report's provider line */
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct btl_ofi_choice choice;
    uint64_t mr_mode;  /* the provider's FI_MR_* bits */
    uint64_t next_key; /* requested keys, unique per domain (no FI_MR_PROV_KEY) */
    uint64_t key_mask; /* keys fit mr_key_size bytes */
    size_t prefix;     /* 0: our word is CQ data; BTL_OFI_PREFIX: it leads each message */
    size_t inject;     /* largest pml message fi_inject takes (0: none) */
    int multi_recv;    /* receive buffers take many messages each */
    int read_fence;    /* no send to a peer while a read from it is in flight */
    int deliver;       /* writes complete once delivered (FI_DELIVERY_COMPLETE): tcp
                          checks keys only at the target, and with several rails
                          the pml's FIN may go on another connection */
    uint32_t window;   /* messages per peer our receive buffers absorb */

    struct btl_ofi_peer *peers; /* by world rank; addr FI_ADDR_NOTAVAIL: not reached */
    int *rank_of;               /* world rank by fi_addr */
    int nav;                    /* fi_addr bound: the highest inserted + 1 */
    int one_way;                /* pairs connect one way (one_way_connect) */

    uint8_t *pool; /* send buffers, receive buffers, scratch */
    size_t pool_size;
    struct fid_mr *pool_mr; /* FI_MR_LOCAL only */
    void *pool_desc;
    struct btl_ofi_frag *frags, *free_frags;
    struct btl_ofi_rbuf *rbufs, *repost;
    int nrbufs;
    struct btl_ofi_read *reads, *free_reads;
    int nreads;          /* slots in reads */
    uint8_t *inject_buf; /* sendi stages header + data here for fi_inject (after the prefix) */
    uint8_t *align_buf;  /* a message the provider placed misaligned is copied here */

    struct btl_ofi_peer *busy; /* peers with queued sends */
    struct btl_ofi_peer *due;  /* peers owed a hello (one_way_connect) */
    /* Nonzero when progress has more to do than read the CQ: a repost,
     * queued sends, hellos, a health flag. One test on the empty poll;
     * the watcher thread sets it too, so it is accessed atomically. */
    int slow;
    unsigned health;                /* btl_ofi_health.c's flags, set by its thread */
    int outstanding;                /* sends and reads awaiting a completion */
    int in_progress;                /* holds on progress: it is on the stack (no re-entry), or
                                       the rail failed (never polled again) */
    int closing;                    /* flush began: send errors are expected */
    int failed;                     /* the rail is down (btl_ofi_health.c) */
    unsigned ifindex;               /* its network interface, watched for link changes; 0: none */
    int link_down;                  /* its interface went down (watcher thread only) */
    uint64_t reaped;                /* completions read from the CQ */
    uint64_t stall_reaped;          /* reaped at the start of the current stall */
    double stall_since, last_probe; /* the stall check's clock */
    struct btl_ofi_counters count;
};
extern const struct btl_ofi_host btl_ofi_host;

static inline struct btl_ofi_module *btl_ofi_of(struct btl_module *btl)
{
    return (struct btl_ofi_module *)btl;
}

/* The entries fi_getinfo offers the BTL, tier by tier (btl_ofi_select.h;
 * NULL: none), and the user's provider and interface wishes; rdmpi_info
 * uses them too. */
struct fi_info *btl_ofi_getinfo(void);
struct btl_ofi_want btl_ofi_wants(int multi_host);
const char *btl_ofi_rails_spec(void); /* RDMPI_BTL_OFI_RAILS */

/* fi_mr_reg with our keys and FI_MR_ENDPOINT binding; a libfabric code. */
int btl_ofi_mr_reg(struct btl_ofi_module *m, void *buf, size_t len, uint64_t access,
                   struct fid_mr **mr);
/* Why registering len bytes failed, with the locked-memory limit's fix. */
void btl_ofi_reg_text(const struct btl_ofi_module *m, char *buf, size_t size, size_t len, int rc);
void btl_ofi_error(const struct btl_ofi_module *m, const char *what, int rc);

int btl_ofi_post_recv(struct btl_ofi_module *m, struct btl_ofi_rbuf *b);
int btl_ofi_progress(struct btl_module *btl);
/* progress has slow work: the next call does it. */
static inline void btl_ofi_slow(struct btl_ofi_module *m)
{
    __atomic_store_n(&m->slow, 1, __ATOMIC_RELAXED);
}

/* Rail health (btl_ofi_health.c): watch m's interface and stalls from a
 * thread; act on what it found (from progress: 1 if the rail failed). */
void btl_ofi_health_watch(struct btl_ofi_module *m);
void btl_ofi_health_stop(void);
int btl_ofi_health(struct btl_ofi_module *m);

int btl_ofi_sendi(struct btl_endpoint *ep, const void *hdr, size_t hlen, const void *data,
                  size_t dlen);
struct btl_desc *btl_ofi_alloc(struct btl_endpoint *ep, size_t len);
void btl_ofi_send(struct btl_endpoint *ep, struct btl_desc *d);
int btl_ofi_retry_sends(struct btl_ofi_module *m);
const char *btl_ofi_cause(const struct btl_ofi_peer *p, int err, char *buf, size_t len);
int btl_ofi_send_empty(struct btl_ofi_peer *p, uint32_t word);
void btl_ofi_send_done(struct btl_ofi_frag *f);

int btl_ofi_get(struct btl_endpoint *ep, void *local, struct btl_reg *lreg, uint64_t raddr,
                const void *rkey, size_t len, btl_rdma_fn cb, void *ctx);
int btl_ofi_put(struct btl_endpoint *ep, const void *local, struct btl_reg *lreg, uint64_t raddr,
                const void *rkey, size_t len, btl_rdma_fn cb, void *ctx);
void btl_ofi_rma_done(struct btl_ofi_read *r, int status);
int btl_ofi_register(struct btl_module *btl, void *base, size_t len, struct btl_reg **reg,
                     void *rkey, uint64_t *raddr);
void btl_ofi_deregister(struct btl_module *btl, struct btl_reg *reg);

#endif
