/* btl/sm: ranks on one host, through per-pair rings in shared memory and
 * single-copy reads by cross-memory attach. docs/btl-sm.md has the design. */
#ifndef BTL_SM_H
#define BTL_SM_H

#include "btl.h"

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

extern struct btl_component btl_sm_component;
/* The one module, made by the component's open (internal to btl/sm). */
extern struct btl_module btl_sm_module;

#define BTL_SM_VERSION 3
#define BTL_SM_MAGIC   0x314d5349504d4452ull /* "RDMPISM1" little-endian */
#define BTL_SM_LINE    64

/* The first line of each process's segment. Then the doorbell (one bit
 * per ring, 512 to a line), one control line per ring (struct btl_sm_ctl),
 * padding to a page, and the rings. */
struct btl_sm_seg {
    uint64_t magic;         /* BTL_SM_MAGIC, checked by every peer that attaches */
    uint64_t nonce;         /* random; the CMA probe must read it through the owner's pid */
    uint32_t version;       /* BTL_SM_VERSION */
    uint32_t nrings;        /* one per other local rank, by the sender's local index */
    uint32_t ring_bytes;    /* size of each ring, a power of two */
    uint32_t attach_target; /* local peers that will be done with the name */
    uint32_t attached;      /* peers done with the name; whoever makes it
                             * attach_target unlinks the segment */
    uint32_t sleeping;      /* the owner sleeps on `wake` (btl_sm_wait): a writer
                             * that publishes an entry wakes it */
    uint32_t wake;          /* futex word, bumped by every such wake-up */
    uint32_t pad[5];
};
_Static_assert(sizeof(struct btl_sm_seg) == BTL_SM_LINE, "segment header is one line");

/* Written only by the ring's reader (the segment owner), read by its one
 * writer: how many slots the reader has consumed. A line of its own, so
 * the writer's rare reads never disturb the reader's hot lines. */
struct btl_sm_ctl {
    uint32_t read;
    uint32_t pad[15];
};
_Static_assert(sizeof(struct btl_sm_ctl) == BTL_SM_LINE, "control block is one line");

/* The doorbell: bit i of the receiver's bitmap says "ring i may hold
 * entries, poll it". A sender sets its bit after publishing, unless it is
 * set already; the receiver clears it only after the ring stayed empty for
 * BTL_SM_LINGER polls, then looks at the ring once more. So an idle poll
 * reads the bitmap (one line up to 512 local ranks) and the rings of peers
 * that talked lately, never those of silent peers. */
#define BTL_SM_BELL_BITS 64
#define BTL_SM_LINGER    512

static inline uint32_t btl_sm_bell_words(uint32_t nrings)
{
    /* Whole lines, so the bitmap shares its lines with nothing else. */
    uint32_t per_line = BTL_SM_LINE / sizeof(uint64_t);
    return (nrings + BTL_SM_BELL_BITS * per_line - 1) / (BTL_SM_BELL_BITS * per_line) * per_line;
}

/* Business card, published under BTL_SM_CARD_KEY. */
#define BTL_SM_CARD_KEY "rdmpi.btl.sm"
struct btl_sm_card {
    uint32_t version;        /* BTL_SM_VERSION; a mismatch is fatal */
    uint32_t pid;            /* owner's pid, for process_vm_readv */
    uint64_t seg_size;       /* bytes to map */
    uint64_t seg_addr;       /* where the owner mapped its segment: the CMA probe reads there */
    uint32_t ring_bytes;     /* each ring's size */
    uint32_t nrings;         /* local ranks - 1 */
    char name[NAME_MAX + 1]; /* shm_open name of the segment */
};
_Static_assert(sizeof(struct btl_sm_card) == 32 + NAME_MAX + 1, "card has no holes");

/* Sending to one local peer: our ring in its segment. This is the
 * struct btl_endpoint the pml holds; the fast-path fields come first. */
struct btl_sm_out {
    uint8_t *ring;        /* slot 0 of the ring */
    const uint32_t *rpub; /* the peer's published read index (its ctl line) */
    uint64_t *bell;       /* our doorbell word in the peer's segment */
    uint64_t bell_bit;    /* our bit in it */
    uint32_t w;           /* slots claimed; private, there is one producer */
    uint32_t zeroed;      /* a free slot zeroed ahead of need (see btl_sm_ring.h) */
    uint32_t rcache;      /* the last *rpub we read */
    uint32_t nslots;      /* ring size in slots, a power of two */
    size_t max_len;       /* largest message an entry can carry (half a ring) */
    uint32_t alloc_at;    /* first slot of the unsent alloc() */
    uint32_t alloc_n;     /* its slots; 0 when no alloc() is outstanding */
    struct btl_desc desc; /* what alloc() hands out */
    int world;            /* the peer's world rank */
    pid_t pid;            /* the peer's pid, for CMA */
    void *seg;            /* our mapping of the peer's segment */
    size_t seg_size;
};

/* Receiving from one local peer: its ring in our segment. */
struct btl_sm_in {
    uint8_t *ring;  /* slot 0 of the ring */
    uint32_t *rpub; /* where we publish `r` for the writer */
    uint32_t r;     /* slots consumed */
    uint32_t rlast; /* the value last published */
    uint32_t idle;  /* polls that found the ring empty since its last entry */
    int world;      /* the writer's world rank */
};

/* Process-wide state; peers are indexed by local rank with ourselves
 * left out, which is also the ring index in our segment. */
struct btl_sm_state {
    struct btl_sm_in *in;
    uint64_t *bell;  /* our doorbell: bit i set, ring i may hold entries */
    uint32_t nbell;  /* its words */
    uint32_t nslots; /* our rings' size in slots */
    int npeers;
    struct btl_sm_out *out;
    int cma;                /* process_vm_readv works with every peer */
    int cma_off;            /* why not: 1 RDMPI_SM_CMA=0, else the probe's -errno */
    struct btl_sm_seg *seg; /* our segment */
    size_t seg_size;
    char name[NAME_MAX + 1];
    /* For the transport report; off the fast path. */
    uint64_t reads, read_bytes;   /* process_vm_readv gets */
    uint64_t writes, write_bytes; /* process_vm_writev puts */
    uint64_t ring_full;           /* sends refused because a ring was full */
    struct btl_sm_put *puts;      /* puts over put_limit, oldest first (btl_sm_cma.c) */
    struct btl_sm_put *puts_tail;
    int wake;               /* blocked ranks sleep (rt_progress_sleeps): writers
                             * check whether their reader does */
    uint64_t sleeps, wakes; /* times we slept; times we woke a peer */
};
extern struct btl_sm_state btl_sm;

int btl_sm_sendi(struct btl_endpoint *ep, const void *hdr, size_t hlen, const void *data,
                 size_t dlen);
struct btl_desc *btl_sm_alloc(struct btl_endpoint *ep, size_t len);
void btl_sm_send(struct btl_endpoint *ep, struct btl_desc *d);
int btl_sm_progress(struct btl_module *btl);
int btl_sm_wait(struct btl_module *btl, unsigned timeout_us);
void btl_sm_wake_slow(struct btl_sm_seg *peer);

/* After publishing to o's reader: ring its doorbell and wake it if it
 * sleeps.
 *
 * Doorbell ordering. We store the entry's header word, then (seq_cst
 * fence) load the bell; the reader clears the bit with a seq_cst RMW, then
 * (seq_cst fence) loads the header word. That is the store-buffering
 * pattern: with both fences at least one side sees the other's store, so
 * either we see the bit clear and set it again, or the reader's second
 * look finds our entry. When we do set it, the release RMW makes the entry
 * visible to a reader whose acquire load sees the bit. The load before the
 * RMW keeps the line shared while the bit is up (the common case in a
 * stream): only a peer's first message after a quiet spell writes it.
 *
 * Wake-up: the fence orders our bell (or entry) before the load of the
 * sleeping flag, as the reader orders setting the flag before its last
 * look at the bell and rings (btl_sm_wait), so one of the two sees the
 * other. */
static inline void btl_sm_notify(struct btl_sm_out *o)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!(__atomic_load_n(o->bell, __ATOMIC_RELAXED) & o->bell_bit))
        __atomic_fetch_or(o->bell, o->bell_bit, __ATOMIC_SEQ_CST);
    if (__builtin_expect(btl_sm.wake, 0)) {
        struct btl_sm_seg *s = (struct btl_sm_seg *)o->seg;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (__atomic_load_n(&s->sleeping, __ATOMIC_RELAXED))
            btl_sm_wake_slow(s);
    }
}

int btl_sm_cma_probe(const struct btl_sm_out *o, uint64_t seg_addr);
int btl_sm_get(struct btl_endpoint *ep, void *local, struct btl_reg *lreg, uint64_t raddr,
               const void *rkey, size_t len, btl_rdma_fn cb, void *ctx);
int btl_sm_put(struct btl_endpoint *ep, const void *local, struct btl_reg *lreg, uint64_t raddr,
               const void *rkey, size_t len, btl_rdma_fn cb, void *ctx);
int btl_sm_put_progress(void);
int btl_sm_register(struct btl_module *btl, void *base, size_t len, struct btl_reg **reg,
                    void *rkey, uint64_t *raddr);
void btl_sm_deregister(struct btl_module *btl, struct btl_reg *reg);

#endif
