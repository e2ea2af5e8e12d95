/* The byte transfer layer interface: what every transport (self, sm, ofi)
 * offers the pml. A BTL moves bytes to one peer; it knows nothing of MPI
 * matching, and the pml never learns which BTL or provider it talks to. */
#ifndef BTL_H
#define BTL_H

#include <stddef.h>
#include <stdint.h>

#define BTL_IFACE_VERSION 1

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
 * the call. `peer` is the sender's world rank. */
typedef void (*btl_recv_fn)(int peer, const void *data, size_t len);

/* Completion of a get/put: status 0 or a negative errno. */
typedef void (*btl_rdma_fn)(void *ctx, int status);

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

struct btl_module {
    size_t size;      /* sizeof(struct btl_module) of the builder */
    uint32_t version; /* BTL_IFACE_VERSION */
    const char *name; /* for reports only: the pml never tests it */

    /* Limits. */
    size_t eager_limit;  /* largest header + payload send/sendi takes */
    size_t sendi_limit;  /* largest header + payload sendi may take */
    size_t get_limit;    /* largest single get; chunk above it */
    size_t put_limit;    /* largest single put; chunk above it */
    size_t get_align;    /* get offsets/lengths multiple of this */
    size_t rkey_size;    /* bytes of remote key shipped per region */
    int exclusivity;     /* per peer, the highest reaching BTL wins */
    uint32_t latency_ns; /* rough figures, for reports */
    uint32_t bandwidth_mbs;
    uint32_t flags; /* BTL_CAP_* */

    /* Lifecycle: init publishes the business card; connect reads peers'
     * cards and reports which world ranks this BTL reaches (reach[r] = 1).
     * finalize runs after flush. */
    int (*init)(struct btl_module *btl);
    int (*connect)(struct btl_module *btl, uint8_t *reach);
    int (*finalize)(struct btl_module *btl);
    struct btl_endpoint *(*endpoint)(struct btl_module *btl, int peer);

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

    /* Operations added after the first version; test with BTL_HAS. */

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

/* The table is size-prefixed: a module built against an older btl.h is
 * shorter and lacks the later operations. */
#define BTL_HAS(m, op)                                                                             \
    ((m)->size >= offsetof(struct btl_module, op) + sizeof((m)->op) && (m)->op != NULL)

/* Receive callbacks, set by the pml before any BTL is initialised. */
extern btl_recv_fn btl_recv_table[BTL_MAX_TAGS];

static inline void btl_deliver(int peer, const void *data, size_t len)
{
    btl_recv_table[*(const uint8_t *)data & (BTL_MAX_TAGS - 1)](peer, data, len);
}

/* Whether RDMPI_BTL lets the BTL of that name open (a bad list is fatal). */
int btl_enabled(const char *name);

/* The BTLs that want to run in this process, by exclusivity (highest
 * first), after RDMPI_BTL filtering. */
int btl_open_all(struct btl_module ***mods, int *n);

#endif
