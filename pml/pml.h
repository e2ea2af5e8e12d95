/* The pml: MPI matching, ordering and the eager/rendezvous protocols over
 * whatever BTL reaches each peer. Private to the files in pml/; other
 * layers include pml_api.h. */
#ifndef PML_H
#define PML_H

#include "btl.h"
#include "comm.h"
#include "datatype.h"
#include "errors.h"
#include "pml_api.h"
#include "pml_hdr.h"
#include "request.h"
#include "rt.h"

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

/* ---- intrusive doubly linked lists (posted and unexpected queues) ---- */

struct pml_link {
    struct pml_link *next, *prev;
};

static inline void pml_list_init(struct pml_link *l)
{
    l->next = l->prev = l;
}

static inline bool pml_list_empty(const struct pml_link *l)
{
    return l->next == l;
}

static inline void pml_list_append(struct pml_link *l, struct pml_link *e)
{
    e->prev = l->prev;
    e->next = l;
    l->prev->next = e;
    l->prev = e;
}

static inline void pml_list_prepend(struct pml_link *l, struct pml_link *e)
{
    e->next = l->next;
    e->prev = l;
    l->next->prev = e;
    l->next = e;
}

static inline void pml_list_remove(struct pml_link *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->next = e->prev = e;
}

#define pml_container(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* ---- transport report counters (pml_stats.c) ---- */

/* Per BTL, what the pml sent through it (and one count of what arrived
 * by it): plain per-process counters (no atomics: the pml is serialised). */
struct pml_stats {
    uint64_t eager_msgs, eager_bytes; /* MPI messages sent eagerly; payload bytes */
    uint64_t rndv_msgs, rndv_bytes;   /* MPI messages sent by rendezvous */
    uint64_t fb_read;                 /* receives whose RDMA read or write failed: copies */
    uint64_t fb_nordma; /* receiver: rendezvous by copy pipeline, the BTL can neither read
                           (CMA refused or off) nor write, or registration failed */
    uint64_t fb_credit; /* eager-sized sends by rendezvous: out of credits */
    uint64_t ooo_msgs;  /* receiver: arrivals ahead of their sequence number, held
                           until those before them came (MPI_T only, not the report) */
};

/* ---- peers (by world rank) ---- */

/* A module that reaches a peer, and its endpoint there. */
struct pml_route {
    struct btl_module *btl;
    struct btl_endpoint *ep;
};

struct pml_peer {
    struct btl_module *btl; /* routes[0]'s: carries eager and control traffic */
    struct btl_endpoint *ep;
    /* Every module in use that reaches it, by exclusivity then latency
     * (btl_open_all's order); room for one per module (pml_init.c). Those
     * of routes[0]'s kind (pml_rail_like) are its rails: rendezvous data
     * is striped over them (pml_stripe.c). */
    struct pml_route *routes;
    int nroutes;
    struct pml_stats *stats; /* that BTL's counters */
    uint32_t credits;        /* eager credit units we may still spend on it */
    uint32_t owed;           /* units of its eager messages we consumed, not yet returned */
    uint64_t msgs;           /* messages we may still send it (CREDITs aside); UINT64_MAX,
                                never reached, with no window */
    uint32_t msgs_owed;      /* its messages that arrived, places not yet returned */
    uint32_t msg_window;     /* the BTL's peer_msgs, or UINT32_MAX when it sets none */
    bool stalled;            /* it returned no credits within the wait; reset by a CREDIT */
    double credit_until;     /* a queued send waits for its credits until then, 0 = none */
    int npending;            /* sends to it waiting for resources: keep order */
    int rndv_out;            /* our rendezvous sends it may still be reading */
    struct pml_link pending; /* those sends, oldest first (set up on first use) */
    struct pml_link busy;    /* in the list of peers with pending sends */
    bool failed;             /* a BTL reported it lost (pml_fail.c): operations fail */
};

extern struct pml_peer *pml_peers;
/* Peers marked failed: while 0, receives need not look at their peer. */
extern int pml_nfailed;
extern uint32_t pml_credit_window;

/* ---- requests ---- */

enum pml_mode { PML_STANDARD, PML_SYNC, PML_READY, PML_BUFFERED };

enum pml_state {
    PML_S_IDLE,
    PML_S_POSTED,   /* recv: in a posted queue */
    PML_S_PENDING,  /* send: waiting for BTL resources (pending list) */
    PML_S_WAIT_FIN, /* send: rendezvous started, waiting for FIN or CTS */
    PML_S_FRAGS,    /* send: streaming FRAGs; recv: receiving them */
    PML_S_GET,      /* recv: RDMA reads in flight */
    PML_S_PAIR,     /* waiting for others: its halves (Isendrecv, a partitioned
                     * round) or a buffer's messages (iflush) */
    PML_S_DONE,
};

struct pml_comm;
struct pml_req;
struct pml_stripe;

/* A region registered on several rails: each module's handle. */
struct pml_regs {
    int n;
    struct btl_module *btl[PML_MAX_RAILS];
    struct btl_reg *reg[PML_MAX_RAILS];
};
/* Registers [base, base+len) on every rail of wpeer that can take the
 * access in need (BTL_CAP_GET or BTL_CAP_PUT), into regs, and writes the
 * keys block (PML_KEYS_MAX bytes at most) to keys and the address to
 * *raddr; returns the block's bytes, 0 when no rail could register. */
size_t pml_regs_make(int wpeer, uint32_t need, void *base, size_t len, struct pml_regs *regs,
                     void *keys, uint64_t *raddr);
void pml_regs_drop(struct pml_regs *regs);
struct btl_reg *pml_regs_find(const struct pml_regs *regs, const struct btl_module *btl);

/* Registered staging slots of a non-contiguous rendezvous (pml_bounce.c):
 * each slot holds one chunk between its (un)packing and its RDMA. */
struct pml_bounce_slot {
    struct pml_req *r;
    struct pml_bounce_slot *next; /* free list */
    char *buf;
    size_t off, len; /* the chunk of the packed message it holds */
};
struct pml_bounce {
    struct pml_regs regs; /* all slots, one registration per rail */
    char *base;
    size_t chunk;
    struct pml_bounce_slot *free;
    struct pml_bounce_slot slot[];
};

struct pml_req {
    struct rdmpi_request base; /* what the runtime's Wait/Test see */
    uint32_t slot, gen;        /* the wire handle */
    uint8_t send;              /* 1 send, 0 receive */
    uint8_t mode;              /* enum pml_mode */
    uint8_t state;             /* enum pml_state */
    uint8_t internal;          /* no user handle: release at completion */
    uint8_t in_issue;          /* recv GET: inside the issue loop (no recursion) */
    uint8_t detached;          /* send: runs from a private copy (tmp) */
    uint8_t exposed;           /* send: counted in its peer's rndv_out */
    uint8_t cancel_asked;      /* send: a CANCEL for this round is out */
    uint8_t cancel_wanted;     /* send: MPI_Cancel came while it waited in its peer's queue */
    uint8_t rdma_pending;      /* on the list of RDMA work refused with -EAGAIN */
    uint16_t seq;              /* send: the sequence number it was given */
    void *buf;                 /* user buffer */
    size_t count;
    struct rdmpi_datatype *dt;
    size_t len; /* send: message bytes; recv: buffer capacity */
    int peer;   /* comm rank: destination, or source (ANY_SOURCE) */
    int tag;
    struct pml_comm *pc;
    struct pml_req *pair; /* a half (pml_pair_half): the request it reports to */
    struct pml_link link; /* posted queue or pending list */
    uint64_t stamp;       /* posting order, for ANY_SOURCE */

    /* Rendezvous, either side. */
    int wpeer;            /* world rank of the other side */
    uint64_t other;       /* the other side's request handle */
    size_t msg_len;       /* recv: bytes the sender has */
    size_t done;          /* bytes moved so far */
    size_t issued;        /* recv GET, send write: bytes handed to the chunk scheduler so far */
    size_t get_end;       /* recv GET: our reads stop here (the sender puts the rest);
                             send write: the bytes to write */
    uint8_t put_wait;     /* recv GET: the sender's part is not written yet */
    uint8_t wrndv;        /* recv: write rendezvous, the sender writes it all */
    int inflight;         /* recv GET, send write: reads or writes outstanding */
    int error;            /* first error seen (MPI class) */
    void *tmp;            /* packed copy for non-contiguous data */
    struct pml_regs regs; /* this side's registration of the message, per rail */
    struct pml_stripe *stripe; /* recv GET, send write: the chunks over the rails */
    struct pml_bounce *bounce; /* non-contiguous over RDMA: staging slots, or NULL */
    uint64_t raddr;
    void *bsend_buf;       /* PML_BUFFERED: the copy in the attached buffer */
    struct pml_part *part; /* a partitioned request's partitions (pml_part.c) */
};

/* A handle naming no request (its slot is beyond any pool). */
#define PML_NO_HANDLE UINT64_MAX

static inline uint64_t pml_req_handle(const struct pml_req *r)
{
    return (uint64_t)r->slot | ((uint64_t)r->gen << 32);
}

/* A request holds a reference on its datatype until it is released. */
static inline void pml_req_set_dt(struct pml_req *r, struct rdmpi_datatype *dt)
{
    if (r->dt == dt)
        return;
    rt_dt_retain(dt);
    if (r->dt)
        rt_dt_release(r->dt);
    r->dt = dt;
}

void pml_req_init(void);
struct pml_req *pml_req_alloc(void);
void pml_req_release(struct pml_req *r);
struct pml_req *pml_req_lookup(uint64_t handle);
void pml_req_complete(struct pml_req *r);
/* Live requests one by one: *slot starts at 0; NULL after the last. */
struct pml_req *pml_req_next(uint32_t *slot);
/* A request completed by internal halves (pml_sendrecv.c): a new half
 * reporting to r, and its report when it finishes. r->inflight counts the
 * halves still running; r completes at zero. */
struct pml_req *pml_pair_half(struct pml_req *r);
void pml_pair_half_done(struct pml_req *half);
int pml_req_cancel(struct rdmpi_request *r);

/* ---- communicators ---- */

/* An arrival that found no receive, or arrived out of order. */
struct pml_frag {
    struct pml_link link;
    int wsrc;                /* sender's world rank */
    size_t len;              /* eager: payload bytes here; RNDV: message bytes */
    struct pml_hdr_rndv hdr; /* envelope (RNDV fields valid for RNDV) */
    size_t klen;             /* PML_F_GET without inline data: bytes of the
                                sender's keys block in data */
    char data[];             /* eager (or inline) payload, or the keys block:
                                sized per message, as a flood queues many */
};

struct pml_comm_peer {
    uint16_t send_seq;          /* next sequence number to this rank */
    uint16_t recv_seq;          /* next expected from this rank */
    struct pml_link posted;     /* receives naming this source */
    struct pml_link unexpected; /* in-order arrivals nobody asked for yet */
    struct pml_link ooo;        /* arrivals ahead of recv_seq, sorted */
};

struct pml_comm {
    uint32_t cid;
    int rank;         /* ours, as peers see it (local group) */
    int size;         /* peers: the remote group of an intercomm */
    const int *world; /* peer rank -> world rank; NULL: identity */
    MPI_Comm handle;
    struct pml_link any_posted; /* ANY_SOURCE receives */
    uint64_t next_stamp;
    int last_probed;               /* ANY_SOURCE scans start after it */
    int holds;                     /* layers above (schedules) still using it */
    int ops;                       /* their operations under way (pml_comm_op_start) */
    bool freed;                    /* its communicator is gone; lingers for requests */
    struct pml_bbuf *bbuf;         /* MPI_Comm_attach_buffer's, or NULL (pml_bsend.c) */
    struct pml_part_seq *part_seq; /* partitioned inits per peer and tag (pml_part.c) */
    struct pml_comm_peer peers[];
};

static inline int pml_world(const struct pml_comm *pc, int r)
{
    return pc->world ? pc->world[r] : r;
}

struct pml_comm *pml_comm_lookup(uint32_t cid);
/* One past the highest context id the table has room for (freed ids leave gaps). */
uint32_t pml_comm_cid_limit(void);
void pml_comm_park(int wsrc, const void *data, size_t len);
bool pml_comm_park_cancel(int wsrc, uint32_t cid, uint64_t sreq);
/* The pml's rt_layer comm_init and comm_fini: matching state for a new
 * communicator, and its release (1 when deferred until requests still
 * using it complete; the pml then releases the context id). */
int pml_comm_add(struct rdmpi_comm *c);
int pml_comm_remove(struct rdmpi_comm *c);
void pml_comm_finalize(void);
void pml_part_comm_free(struct pml_comm *pc);
/* Whether any live request still uses pc (a freed communicator lingers). */
bool pml_req_using(const struct pml_comm *pc);
/* Whether an operation on pc is under way: a request not yet complete,
 * the user's (even freed) or the library's own (a buffered send's), or a
 * layer's above (pml_comm_op_start). */
bool pml_req_pending(const struct pml_comm *pc);

/* ---- protocol entry points ---- */

/* pml_isend starts a send on r (from pml_req_alloc) and returns
 * MPI_SUCCESS; a failure shows in r's status when r completes.
 * pml_send_now tries to send at once, with no request: a contiguous
 * message, not in synchronous mode, that fits the BTL's sendi limit and
 * the peer's credits, with nothing queued to that peer, goes out and sets
 * *done; otherwise *done is false and the caller takes a slower path
 * (pml_send_detached, pml_isend). It returns 0 either way. */
int pml_isend(const void *buf, size_t count, struct rdmpi_datatype *dt, int dst, int tag,
              struct pml_comm *pc, enum pml_mode mode, struct pml_req *r);
int pml_send_now(const void *buf, size_t count, struct rdmpi_datatype *dt, int dst, int tag,
                 struct pml_comm *pc, enum pml_mode mode, bool *done);
int pml_irecv(struct pml_req *r);

/* Matching of unexpected messages for probe and mprobe. */
struct pml_frag *pml_find_unexpected(struct pml_comm *pc, int src, int tag, bool remove);
void pml_recv_from_frag(struct pml_req *r, struct pml_frag *f);
void pml_status_from_frag(MPI_Status *s, const struct pml_frag *f);

/* Receive callbacks (one per header type). */
void pml_recv_match(int peer, const void *data, size_t len);
/* The same for a message parked before its communicator existed. */
void pml_recv_replay(int peer, const void *data, size_t len);
void pml_recv_cts(int peer, const void *data, size_t len);
void pml_recv_frag(int peer, const void *data, size_t len);
void pml_recv_fin(int peer, const void *data, size_t len);
void pml_recv_credit(int peer, const void *data, size_t len);
void pml_recv_put(int peer, const void *data, size_t len);
void pml_recv_putfin(int peer, const void *data, size_t len);
void pml_recv_wcts(int peer, const void *data, size_t len);
void pml_recv_cancel(int peer, const void *data, size_t len);
void pml_recv_canceled(int peer, const void *data, size_t len);

/* Control messages (FIN, CTS, CREDIT) never fail: queued if the BTL is
 * busy or the message window closed, and retried by progress, in no
 * particular order (a BTL may reorder them anyway). */
void pml_send_ctl(int wpeer, const void *hdr, size_t len);
/* Eager credits count 64-byte units of payload, so a stream of tiny
 * messages does not exhaust a window sized for large ones; a 4 KiB message
 * costs 65, so a window of RDMPI_PML_CREDITS of them fits whole (osu_bw's
 * 64th message of a window went by rendezvous with 64). */
#define PML_CREDIT_PER_4K 65
static inline uint32_t pml_credit_cost(size_t len)
{
    return 1 + (uint32_t)(len >> 6);
}
/* The pml is the one place of flow control per peer. The units bound
 * what a receiver holds unmatched. The message window, sized by the BTL
 * (btl_module.peer_msgs), keeps what is in flight to a peer within the
 * receive buffers its BTL posted for it: every message but a CREDIT takes
 * a place, which the receiver gives back when the message reaches it
 * (pml_credit_arrived). A BTL that states no limit starts the count at
 * UINT64_MAX, which no job spends, so taking a place is one decrement. */
static inline bool pml_window_open(const struct pml_peer *p)
{
    return p->msgs != 0;
}
static inline void pml_window_take(struct pml_peer *p)
{
    p->msgs--;
}
static inline bool pml_credit_fits(const struct pml_peer *p, size_t len)
{
    return p->credits >= pml_credit_cost(len) && pml_window_open(p);
}
static inline void pml_credit_spend(struct pml_peer *p, size_t len)
{
    p->credits -= pml_credit_cost(len);
    pml_window_take(p);
}
void pml_credit_consumed(int wpeer, size_t len);
void pml_credit_return(int wpeer);
/* A message from wpeer (not a CREDIT) reached us: its BTL's receive
 * buffer is free again (an unexpected one is copied), so its place in the
 * message window goes back, in batches of half that window, even before
 * it is matched. Inline: every arrival passes here, and over a BTL
 * without a window (sm, self) it is one test. */
static inline void pml_credit_arrived(int wpeer)
{
    struct pml_peer *p = &pml_peers[wpeer];

    if (RT_UNLIKELY(p->msg_window != UINT32_MAX) && ++p->msgs_owed >= p->msg_window / 2)
        pml_credit_return(wpeer);
}
/* Before we send to wpeer: return a worthwhile amount of owed credits
 * ahead of it, so a sender whose burst we answer (osu_bw's reply after
 * each window) starts its next burst with a full window, not the half
 * that stayed below the batch. An eighth of the window keeps ping-pongs
 * from paying a CREDIT per message. */
static inline void pml_credit_piggyback(int wpeer)
{
    const struct pml_peer *p = &pml_peers[wpeer];

    if (RT_UNLIKELY(p->owed >= pml_credit_window / 8 || p->msgs_owed >= p->msg_window / 4))
        pml_credit_return(wpeer);
}

/* Pending work retried by progress: sends, and RDMA reads (receives) or
 * writes (sends) the BTL refused with -EAGAIN. */
void pml_pending_send(struct pml_req *r);
void pml_pending_get(struct pml_req *r);

/* ---- rails and the chunk scheduler (pml_stripe.c) ---- */

/* Whether module b may carry rendezvous chunks beside a: the same kind of
 * transport (capabilities and key size), so a key block serves both. */
bool pml_rail_like(const struct btl_module *a, const struct btl_module *b);
/* Whether btl still reaches world rank w (a failed rail leaves the list). */
bool pml_route_has(int w, const struct btl_module *btl);
/* The data of r's rendezvous moved by RDMA in chunks over every rail to
 * its peer: reads (receiver, RGET) or writes (sender, write rendezvous)
 * of [0, r->get_end), each chunk keyed on its rail from the keys block,
 * rails weighted by bandwidth_mbs. pml_stripe_open returns false when no
 * rail has a key (or memory ran out); pml_stripe_run issues chunks until
 * the rails are at RDMPI_PML_GET_DEPTH each and finishes r when all are
 * done (pml_get_finish, pml_write_finish). A chunk that fails on a rail
 * that left the peer's list (its error callback, or this failure when
 * other rails remain) goes again on the others. */
bool pml_stripe_open(struct pml_req *r, const void *keys, size_t klen, bool write);
void pml_stripe_run(struct pml_req *r);
void pml_stripe_close(struct pml_req *r);
/* Frees the stripes kept for reuse (finalize). */
void pml_stripe_fini(void);
void pml_get_finish(struct pml_req *r);
void pml_write_finish(struct pml_req *r);

/* Staging slots for r's chunks of up to limit bytes (RDMPI_PML_PACK_CHUNK
 * at most), registered on every rail of r's stripe, for r->get_end bytes;
 * false where the BTL needs no registration, or memory or registration
 * failed (the caller then stages the whole message). Closed when r
 * completes. */
bool pml_bounce_open(struct pml_req *r, size_t limit);
struct pml_bounce_slot *pml_bounce_take(struct pml_req *r);
void pml_bounce_give(struct pml_bounce_slot *s);
void pml_bounce_close(struct pml_req *r);
/* Receiver: offers the sender a write rendezvous of n bytes into r's
 * buffer; false where none is possible (then the copy pipeline). */
bool pml_write_offer(struct pml_req *r, size_t n);
void pml_send_continue(struct pml_req *r);
void pml_get_start(struct pml_req *r);
/* The copy pipeline: FRAGs until the BTL is out of buffers (pml_rndv.c). */
void pml_frags_stream(struct pml_req *r);
int pml_progress(void);
/* Chunks in flight and registrations a peer may read or write (requests
 * holding pml_regs): while there are any, every module is polled at every
 * pml_progress; otherwise modules that are no peer's first (further
 * rails, only for rendezvous chunks) are polled at every 16th. */
extern unsigned pml_rdma_out;
/* Sorts the modules into those two kinds; after the routes change. */
void pml_progress_routes(void);
/* True when nothing waits for resources: finalize drains to this. */
bool pml_idle(void);
/* The runtime's sleep hook (rt_progress_set_sleep): 1 slept, 0 yield. */
int pml_sleep(unsigned timeout_us);
void pml_dump(FILE *out);

/* The transport report: counters bound to peers once BTLs are chosen (and
 * at verbosity 1 the rank class's choice said); at finalize, when
 * RDMPI_REPORT is set, rank 0 gathers and prints the job's table. */
void pml_stats_publish(void);
void pml_stats_connect(void);
void pml_stats_report(void);

/* A blocking send out of eager credits completes from a private copy, so
 * programs that count on small sends being buffered still run; the bytes
 * so held are bounded by RDMPI_PML_DETACH_LIMIT. */
bool pml_send_detached(const void *buf, size_t count, struct rdmpi_datatype *dt, int dst, int tag,
                       struct pml_comm *pc);
extern size_t pml_detached_bytes;

/* Buffered sends: the attached buffer's region goes back on completion. */
void pml_bsend_done(struct pml_req *r);
/* A communicator's or session's send buffer goes with it, once the
 * messages sent from it are complete (pml_bsend.c). */
void pml_bsend_comm_free(struct pml_comm *pc);
void pml_bsend_session_free(void *bbuf);

/* Blocking helpers. */
void pml_wait(struct pml_req *r);
int pml_barrier(struct pml_comm *pc);

/* The BTLs' error callback (pml_fail.c), and the completion in error of
 * a request that can no longer reach its failed peer. */
void pml_btl_error(struct btl_module *btl, int peer, int err, const char *what);
/* Takes module m off world rank r's list of modules (pml_init.c); when it
 * was the first, the next carries r's traffic. */
void pml_peer_unlist(int r, const struct btl_module *m);
/* The eager credits process r's card states (pml_init.c). */
uint32_t pml_peer_credits(int r);
/* Routes each peer has room for: the modules opened (pml_init.c). */
extern int pml_route_width;
struct pml_route *pml_routes_of(int r);
/* Modules that reached no peer at connect, after pml_btls[pml_nbtls]:
 * unpolled until an added process needs one. */
extern int pml_nparked;
/* Processes added to the process table (pml_procs.c): rt_proc's hooks. */
int pml_procs_add(int first, int n);
void pml_proc_drop(int idx);
/* r's counters follow its first module (pml_stats.c). */
void pml_stats_rebind(int r);
void pml_fail_req(struct pml_req *r);

/* The BTLs in use, chosen at init (pml_init.c), polled by progress. */
extern struct btl_module **pml_btls;
extern int pml_nbtls;

/* What communicator construction needs from the pml (pml_service.c). */
extern const struct rt_comm_services pml_comm_services;

/* The rendezvous parameters, read once at init (pml_rndv.c). */
void pml_rndv_params(void);
extern size_t pml_get_chunk;
extern int pml_get_depth;
extern size_t pml_pack_chunk;
/* RDMPI_PML_RNDV: how rendezvous data moves over a BTL that needs
 * registration (btl/ofi): the receiver reads, the sender writes, or auto
 * (read where the sender offers a readable region, else write). */
enum pml_rndv_mode { PML_RNDV_AUTO, PML_RNDV_READ, PML_RNDV_WRITE };
extern enum pml_rndv_mode pml_rndv_mode;

#endif
