/* btl/sm: ranks on one host, through per-pair rings in shared memory, made
 * when a pair first talks, and single-copy reads by cross-memory attach.
 * docs/btl-sm.md has the design. */
#ifndef BTL_SM_H
#define BTL_SM_H

#include "btl.h"

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

extern struct btl_component btl_sm_component;
/* The one module, made by the component's open (internal to btl/sm). */
extern struct btl_module btl_sm_module;

#define BTL_SM_VERSION 4
#define BTL_SM_MAGIC   0x314d5349504d4452ull /* "RDMPISM1" little-endian */
#define BTL_SM_LINE    64

/* The first line of each process's segment. Then the doorbell (one bit
 * per local peer, 512 to a line), one control line per peer (struct
 * btl_sm_ctl), and padding to a page. The rings are not in it: each is an
 * object of its own, made by its writer on the pair's first message
 * (btl_sm_pair.c). */
struct btl_sm_seg {
    uint64_t magic;         /* BTL_SM_MAGIC, checked by every peer that attaches */
    uint64_t nonce;         /* random; the CMA probe must read it through the owner's pid */
    uint32_t version;       /* BTL_SM_VERSION */
    uint32_t nrings;        /* one per other local rank, by the sender's local index */
    uint32_t ring_bytes;    /* size of each ring the owner writes, a power of two */
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
 * entries, poll it", and its first rise says "ring i exists, map it". A
 * sender sets its bit after publishing, unless it is set already; the
 * receiver clears it only after the ring stayed empty for BTL_SM_LINGER
 * polls, then looks at the ring once more. So an idle poll reads the
 * bitmap (one line up to 512 local ranks) and the rings of peers that
 * talked lately, never those of silent peers. The bit is a hint, not a
 * guarantee (see btl_sm_notify): every BTL_SM_SWEEP polls, and before it
 * sleeps, the receiver also looks at every ring it has mapped. */
#define BTL_SM_BELL_BITS 64
#define BTL_SM_LINGER    512
#define BTL_SM_SWEEP     256

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
    uint32_t ring_bytes;     /* the size of each ring this rank writes */
    uint32_t nrings;         /* local ranks - 1 */
    char name[NAME_MAX + 1]; /* shm_open name of the segment; its rings are
                              * this name and ".<reader's world rank>" */
};
_Static_assert(sizeof(struct btl_sm_card) == 32 + NAME_MAX + 1, "card has no holes");

/* Sending to one local peer: our ring to it, which it maps too. This is
 * the struct btl_endpoint the pml holds; the fast-path fields come first.
 * Until the first message the ring is NULL and rcache says "full", so the
 * first claim takes the slow path, which makes the ring. */
struct btl_sm_out {
    uint8_t *ring;        /* slot 0 of the ring; NULL until the first message */
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
    int world;            /* the peer's process index (its world rank for the world's) */
    pid_t pid;            /* the peer's pid, for CMA */
    void *seg;            /* our mapping of the peer's segment */
    size_t seg_size;
    int late;        /* a process added after connect: its ring is the late
                      * segment it made for us (btl_sm_late.c) */
    char *late_name; /* that segment's name, until the first message maps it */
};

/* Receiving from one local peer: its ring, mapped when its doorbell bit
 * first comes up; our read index is in our segment. */
struct btl_sm_in {
    uint8_t *ring;   /* slot 0 of the ring; NULL until the writer made it */
    uint32_t *rpub;  /* where we publish `r` for the writer */
    uint32_t r;      /* slots consumed */
    uint32_t rlast;  /* the value last published */
    uint32_t idle;   /* polls that found the ring empty since its last entry */
    uint32_t nslots; /* the writer's ring size in slots, from its card */
    int world;       /* the writer's world rank */
    int lost;        /* its ring could not be mapped (btl_sm_pair_attach) */
    char *seg_name;  /* the writer's segment name, its rings' prefix */
};

/* Process-wide state; peers are indexed by local rank with ourselves
 * left out, which is also the ring index in our segment. */
struct btl_sm_state {
    struct btl_sm_in *in;
    uint64_t *bell;  /* our doorbell: bit i set, ring i may hold entries */
    uint32_t nbell;  /* its words */
    uint32_t nbusy;  /* the words that hold peers' bits: an idle poll reads only these */
    uint32_t nslots; /* the size in slots of the rings we write */
    int npeers;
    int *active; /* peers whose rings we mapped, in that order */
    int nactive;
    unsigned sweep; /* polls since the last look at every active ring */
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
    uint64_t timeouts;      /* sleeps that ran out their time, nobody woke us */
    uint64_t ring_bytes;    /* of rings mapped now, ours and our peers' */
    /* Processes added after connect (btl_sm_late.c), by process index;
     * `late` lists those reached, which progress polls directly. */
    struct btl_sm_out *late_out;
    struct btl_sm_in *late_in;
    int *late;
    int nlate;
    int late_cap;
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
 * Doorbell, without a fence. We store the entry's header word (release),
 * then load the bell word; if our bit is down we raise it with a release
 * RMW, so a reader whose acquire load sees the bit sees the entry (and,
 * on the first message, the ring: it was made before). While the bit is
 * up the line stays shared in our cache: streams and ping-pong pay one
 * cached load. The load may be ordered before the entry's store (x86
 * lets a load pass an earlier store), so it can see the bit up just as
 * the reader cools the ring (clears the bit, then finds the ring empty,
 * our store still in our store buffer): the entry then sits in a ring
 * whose bit is down. It is not lost, only late: the reader looks at every
 * ring it has mapped every BTL_SM_SWEEP polls (btl_sm_progress), and a
 * store becomes visible in finite time, so the sweep finds it. That costs
 * the reader (rings that ever talked) / BTL_SM_SWEEP loads per poll, and
 * nothing for silent peers, whose rings are not mapped. A fence here
 * would close the window, for every message, to save a rare delay of at
 * most BTL_SM_SWEEP polls; the reader's cooling is rare (after 512 empty
 * polls), so the window almost never opens.
 *
 * Wake-up, with a fence, only when ranks sleep (btl_sm.wake). A sleeping
 * reader has nothing to sweep with, so a missed entry would cost it a
 * whole RDMPI_SLEEP_MAX, or hang it if no timeout came. So here it is the
 * store-buffering pattern with both fences: we store the entry (and maybe
 * the bit), fence, load `sleeping`; the reader (btl_sm_wait) stores
 * `sleeping`, fences, then loads the header word of every mapped ring and
 * the bits of unmapped ones. At least one side sees the other's store:
 * either we see the flag and wake the reader, or its last look finds our
 * entry (or our first bit) and it does not sleep. Neither side relies on
 * the other's bit, so a bit the doorbell race left down does not matter
 * here. `wake`, read by the reader before it sets the flag, makes a
 * wake-up between its last look and its futex call return at once. */
static inline void btl_sm_notify(struct btl_sm_out *o)
{
    if (!(__atomic_load_n(o->bell, __ATOMIC_RELAXED) & o->bell_bit))
        __atomic_fetch_or(o->bell, o->bell_bit, __ATOMIC_RELEASE);
    if (__builtin_expect(btl_sm.wake, 0)) {
        struct btl_sm_seg *s = (struct btl_sm_seg *)o->seg;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (__atomic_load_n(&s->sleeping, __ATOMIC_RELAXED))
            btl_sm_wake_slow(s);
    }
}

/* Pairs made on first use (btl_sm_pair.c). */
int btl_sm_pair_create(struct btl_sm_out *o);
void btl_sm_pair_attach(int i);
void btl_sm_pair_sweep(void);
void btl_sm_pair_close(void);

/* Late peers (btl_sm_late.c): processes of other namespaces on this host. */
int btl_sm_late_add(struct btl_module *btl, int first, int n, uint8_t *reach);
void btl_sm_late_del(int peer);
int btl_sm_late_attach(struct btl_sm_out *o);
int btl_sm_late_poll(void);
void btl_sm_late_close(void);
/* Ring size of a late segment, and the largest entry of a ring (component). */
#define BTL_SM_LATE_RING (256u << 10)

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
