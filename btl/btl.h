/* The byte transfer layer interface: what every transport (self, sm, ofi)
 * offers the pml. A BTL moves bytes to one peer; it knows nothing of MPI
 * matching, and the pml never learns which BTL or provider it talks to.
 *
 * Each BTL is a component (struct btl_component, static: open and close)
 * whose open queries its devices and creates one module (struct
 * btl_module) per usable device or rail: the instance that carries its own
 * limits, capability flags and operations. self and sm make one module;
 * ofi one per rail (NIC or port) of its chosen provider. A BTL need not deliver in send
 * order (BTL_CAP_ORDERED says it does): MPI's order and flow control per
 * peer are the pml's alone. */
#ifndef BTL_H
#define BTL_H

#include <stddef.h>
#include <stdint.h>

/* Version 2: components and module instances, put_limit, alignment, the
 * DIRECT/ORDERED/ATOMIC capabilities and the error callback. Version 3:
 * peers are process indices (runtime/proc.h), and add_peers/del_peer
 * reach processes added after connect. */
#define BTL_IFACE_VERSION 3

/* Capability flags: the pml tests these, never the function pointers. */
enum {
    BTL_CAP_SENDI = 1u << 0,    /* sendi can deliver header + small data now */
    BTL_CAP_GET = 1u << 1,      /* get() reads a peer's registered memory */
    BTL_CAP_PUT = 1u << 2,      /* put() writes a peer's registered memory */
    BTL_CAP_NEED_REG = 1u << 3, /* get/put need register_mem on both sides */
    BTL_CAP_OFFHOST = 1u << 4,  /* reaches other hosts: not opened by default
                                   when the whole job is on this host */
    BTL_CAP_WAIT = 1u << 5,     /* wait() sleeps until a peer sends, and senders
                                   wake such sleepers */
    BTL_CAP_DIRECT = 1u << 6,   /* get/put copy once between the two processes'
                                   own memory (the kernel's cross-memory attach, or
                                   memcpy within the process), with no registration:
                                   the layers above may read and write peers' memory */
    BTL_CAP_ORDERED = 1u << 7,  /* delivers each peer's messages in send order */
    BTL_CAP_ATOMIC = 1u << 8,   /* offers network atomics (no BTL does yet) */
};

/* Header types the pml registers receive callbacks for (one byte on the
 * wire, the first byte of every pml header). */
#define BTL_MAX_TAGS 16
/* Reserved for test/btl, which drives the BTLs without the pml. */
#define BTL_TAG_TEST (BTL_MAX_TAGS - 1)

struct btl_module;
struct btl_endpoint;

/* A send buffer from alloc(): the pml writes header and payload into
 * buf[0..len) and hands it to send(), which takes ownership. */
struct btl_desc {
    void *buf;
    size_t len; /* bytes the pml will send (<= the size asked of alloc) */
};

/* Receive callback: `data` holds the header and payload, valid only during
 * the call. `peer` is the sender's process index (runtime/proc.h: its
 * world rank for MPI_COMM_WORLD's ranks). Every `peer` below is one. */
typedef void (*btl_recv_fn)(int peer, const void *data, size_t len);

/* Completion of a get/put: status 0 or a negative errno. */
typedef void (*btl_rdma_fn)(void *ctx, int status);

/* Error callback, installed by the pml on every module before init: the
 * module `btl` could not carry an operation to world rank `peer` (-1: to
 * no particular peer), for the negative errno `err`; `what` is the full
 * message a user should see (function, peer, operation and cause). The
 * BTL calls it from the data path instead of ending the job, then carries
 * on or returns the error; the pml decides what happens to the requests
 * involved. */
typedef void (*btl_error_fn)(struct btl_module *btl, int peer, int err, const char *what);

/* Registration: opaque to the pml, `reg_size` bytes that the pml copies
 * into rendezvous headers as the remote key. */
struct btl_reg;

/* What one BTL tells the transport report (RDMPI_REPORT): the pml adds its
 * own per-BTL counts (eager, rendezvous, fallbacks) and rank 0 prints the
 * job's sums. */
#define BTL_REPORT_TEXT  160
#define BTL_REPORT_EXTRA 8
struct btl_report {
    char transport[BTL_REPORT_TEXT];          /* what carries the bytes: provider, fabric,
                                                 domain and link, or the mechanism */
    uint64_t reads, read_bytes;               /* get() operations started, and their bytes */
    uint64_t writes, write_bytes;             /* put() operations started, and their bytes */
    const char *extra_name[BTL_REPORT_EXTRA]; /* BTL-specific counts, NULL-ended */
    uint64_t extra[BTL_REPORT_EXTRA];
};

/* A module: one instance of a BTL, made by its component's open. */
struct btl_module {
    size_t size;      /* sizeof(struct btl_module) of the builder; btl_open_all
                         refuses a module whose size or version differ */
    uint32_t version; /* BTL_IFACE_VERSION */
    const char *name; /* for reports only: the pml never tests it */

    /* Limits. */
    size_t eager_limit;  /* largest header + payload send/sendi takes */
    size_t sendi_limit;  /* largest header + payload sendi may take */
    size_t get_limit;    /* largest single get; chunk above it */
    size_t put_limit;    /* largest single put; chunk above it */
    size_t alignment;    /* get/put offsets and lengths are multiples of this */
    size_t rkey_size;    /* bytes of remote key shipped per region */
    int exclusivity;     /* per peer, the highest reaching BTL wins */
    uint32_t latency_ns; /* rough figures: ties of exclusivity, and reports */
    uint32_t bandwidth_mbs;
    uint32_t flags; /* BTL_CAP_* */
    /* Messages one peer may have in flight to it, not yet delivered (what
     * its posted receive buffers absorb per peer): the pml's message
     * window to a peer this BTL reaches. 0: no limit. */
    uint32_t peer_msgs;
    /* Which rail of its component it is (btl/ofi: one per NIC or port; 0
     * for the others), as a number that is the same on the rails of two
     * processes that talk to each other (btl/ofi: a label of the rail's
     * network), so a remote key made on one is used on the other. */
    uint32_t rail;

    /* Set by btl_open_all before init: the data path reports failures
     * here (btl_error) rather than ending the job. */
    btl_error_fn error;

    /* Lifecycle: init publishes the business card; connect reads peers'
     * cards and reports which world ranks this BTL reaches (reach[r] = 1).
     * finalize runs after flush. */
    int (*init)(struct btl_module *btl);
    int (*connect)(struct btl_module *btl, uint8_t *reach);
    int (*finalize)(struct btl_module *btl);
    struct btl_endpoint *(*endpoint)(struct btl_module *btl, int peer);
    /* After connect: processes first..first+n-1 were added (their cards
     * come from rt_modex_get); sets reach[i] for process first+i when this
     * module reaches it, and endpoint() answers for it from then on. 0 or
     * a negative errno (reaching none of them is no error). */
    int (*add_peers)(struct btl_module *btl, int first, int n, uint8_t *reach);
    /* Forgets a process add_peers reached: nothing is in flight to or from
     * it (MPI_Comm_disconnect waited), and its endpoint is gone after. */
    void (*del_peer)(struct btl_module *btl, int peer);

    /* Eager path. sendi: header + data now, or -EAGAIN. alloc/send: a
     * buffer in the BTL's memory; send never fails once alloc succeeded
     * (the BTL queues internally). alloc returns NULL when out of buffers. */
    int (*sendi)(struct btl_endpoint *ep, const void *hdr, size_t hlen, const void *data,
                 size_t dlen);
    struct btl_desc *(*alloc)(struct btl_endpoint *ep, size_t len);
    void (*send)(struct btl_endpoint *ep, struct btl_desc *d);

    /* RDMA. get reads len bytes at the peer's raddr (described by rkey)
     * into local; cb runs once from progress (or before get returns).
     * Returns 0, or -EAGAIN when out of resources (retry later), or an
     * error. */
    int (*get)(struct btl_endpoint *ep, void *local, struct btl_reg *lreg, uint64_t raddr,
               const void *rkey, size_t len, btl_rdma_fn cb, void *ctx);
    int (*put)(struct btl_endpoint *ep, const void *local, struct btl_reg *lreg, uint64_t raddr,
               const void *rkey, size_t len, btl_rdma_fn cb, void *ctx);
    /* Registers [base, base+len) for remote access; fills rkey (rkey_size
     * bytes) and *raddr, the address a peer passes to get/put. */
    int (*register_mem)(struct btl_module *btl, void *base, size_t len, struct btl_reg **reg,
                        void *rkey, uint64_t *raddr);
    void (*deregister_mem)(struct btl_module *btl, struct btl_reg *reg);

    /* Polls once; returns the number of events handled. */
    int (*progress)(struct btl_module *btl);
    /* Completes everything this BTL owes its peers (finalize). */
    int (*flush)(struct btl_module *btl);

    /* Optional operations (NULL when absent); test with BTL_HAS. */

    /* Fills *r (zeroed by the caller) for the transport report; between
     * connect and flush. */
    int (*report)(struct btl_module *btl, struct btl_report *r);

    /* BTL_CAP_WAIT: sleeps up to timeout_us until a peer sends this
     * process something through this BTL, and returns at once when
     * something is there already; 0 after a sleep, 1 when it did not
     * sleep. A BTL nothing outside this process sends through (self) just
     * says whether it holds anything. Called by a rank with nothing else
     * to do when ranks outnumber cores (RDMPI_SLEEP). */
    int (*wait)(struct btl_module *btl, unsigned timeout_us);
};

#define BTL_HAS(m, op) ((m)->op != NULL)

/* Reports a data-path failure through the module's error callback and
 * hands back err, for `return btl_error(...)`. */
int btl_error(struct btl_module *btl, int peer, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A transport. open queries its devices and creates one module per usable
 * one (0 when none is usable here), at most `max`, into mods; it returns
 * the count or a negative errno. close, after every module's finalize,
 * releases what open made: the modules are unusable after it (NULL when
 * open made nothing the modules' finalize does not release). */
struct btl_component {
    size_t size;      /* sizeof(struct btl_component) of the builder */
    uint32_t version; /* BTL_IFACE_VERSION */
    const char *name; /* what RDMPI_BTL names */
    uint32_t flags;   /* BTL_CAP_OFFHOST when its modules reach other hosts */
    int (*open)(struct btl_component *c, struct btl_module **mods, int max);
    void (*close)(struct btl_component *c);
};

/* Modules one btl_open_all may return in all. */
#define BTL_MAX_MODULES 16

/* Receive callbacks, set by the pml before any BTL is initialised. */
extern btl_recv_fn btl_recv_table[BTL_MAX_TAGS];

static inline void btl_deliver(int peer, const void *data, size_t len)
{
    btl_recv_table[*(const uint8_t *)data & (BTL_MAX_TAGS - 1)](peer, data, len);
}

/* Whether RDMPI_BTL lets the BTL of that name open (a bad list is fatal). */
int btl_enabled(const char *name);

/* Opens the components RDMPI_BTL allows and returns their modules, by
 * exclusivity (highest first) then latency (lowest first), each with
 * `error` installed. Components whose version or struct size differ from
 * this build's, and such modules, are refused with a warning. */
int btl_open_all(struct btl_module ***mods, int *n, btl_error_fn error);
/* After every module's finalize: closes the components opened. */
void btl_close_all(void);

#endif
