/* One-sided communication (MPI-4.1 chapter 12) over the pml. Every RMA
 * operation is a header message to the target on the window's hidden
 * communicator, followed by its data when it carries any; the target
 * applies it when its progress runs (any MPI call), in the order the
 * headers arrived, and answers the operations that fetch. Synchronization
 * rides on that order: a FLUSH, UNLOCK or COMPLETE from an origin is
 * handled after every operation that origin sent before it. */
#ifndef OSC_H
#define OSC_H

#include "coll.h"
#include "comm.h"
#include "pml_api.h"
#include "datatype.h"
#include "errors.h"
#include "win.h"

#include <stdbool.h>
#include <stdint.h>

enum osc_kind {
    OSC_PUT,
    OSC_GET,
    OSC_ACC,
    OSC_GACC,
    OSC_CAS, /* operations: counted */
    OSC_LOCK,
    OSC_UNLOCK,
    OSC_FLUSH,
    OSC_POST,
    OSC_COMPLETE,
};

/* Data of at most OSC_INLINE_MAX bytes rides in the header message, packed
 * after the segments (flag OSC_F_INLINE): one message, not two. */
#define OSC_INLINE_MAX 2048
#define OSC_F_INLINE   1
/* An UNLOCK that wants no answer: the origin owes the target nothing. */
#define OSC_F_NOREPLY 2

/* Tags on the hidden communicator; replies use OSC_TAG_REPLY + an id. */
#define OSC_TAG_HDR   1
#define OSC_TAG_DATA  2
#define OSC_TAG_REPLY 16

struct osc_hdr {
    uint8_t kind;   /* enum osc_kind */
    uint8_t lock;   /* MPI_LOCK_* for OSC_LOCK */
    uint16_t flags; /* OSC_F_* */
    uint32_t reply; /* reply tag offset, 0: no reply */
    int64_t op;     /* the (predefined) MPI_Op, accumulates */
    int64_t basic;  /* the target type's predefined element type */
    uint64_t addr;  /* target byte address: window offset, or absolute (dynamic) */
    uint64_t count; /* target datatype elements */
    int64_t extent; /* of the target datatype */
    uint64_t dlen;  /* bytes in the DATA message that follows (0: none) */
    uint64_t nsegs; /* the target datatype's segments follow */
};

/* An operation started at the origin, complete when its requests are
 * (the sends of its data, the receive of its reply); `greq` is the user's
 * request of an Rput/Rget/Raccumulate/Rget_accumulate, completed then. */
struct osc_op {
    MPI_Request req[3];
    void *buf; /* header or packed data to free */
    MPI_Request greq;
    bool settling; /* its caller waits for its answer: not reaped yet */
    struct osc_op *next;
};

/* Operations in the order started: they complete about in that order, so
 * reaping stops at the first one still running (no rescans of long lists). */
struct osc_queue {
    struct osc_op *head, *tail;
};

/* An incoming header, applied when it (and its data) have arrived. */
struct osc_in {
    MPI_Request req, dreq;
    int src;
    void *hdr;
    void *data;    /* a separate DATA message's buffer */
    char *payload; /* the data: in hdr (inline) or data */
    bool data_posted;
    struct osc_in *next;
};

struct osc_lockq {
    int src;
    int type;
    uint32_t reply;
    struct osc_lockq *next;
};

struct osc_region {
    char *base;
    size_t len;
};

struct osc_win {
    struct rdmpi_win *w;
    MPI_Comm comm; /* hidden duplicate: all RMA traffic */
    int rank, size;
    char *mem;       /* the window's memory (offsets are from here) */
    MPI_Aint *sizes; /* per rank, for range checks at the origin */
    int *disp_units;
    uint64_t *bases; /* per rank: its window's address there */
    bool *direct;    /* per rank: reached by direct reads and writes (sm, CMA) */
    bool dynamic;
    struct osc_region *regions; /* dynamic: attached memory */
    int nregions, cap;
    char *shm; /* Win_allocate_shared: the mapping */
    size_t shm_len;
    MPI_Aint *shm_off; /* rank -> offset of its part */
    bool own_mem;      /* Win_allocate: free mem at Win_free */

    /* Origin side. */
    uint32_t next_reply;
    struct osc_queue ops;     /* started, not known complete, oldest first */
    uint64_t *sent;           /* operations sent to each rank, ever */
    bool *unflushed;          /* operations sent to each rank since its last flush and
                               * not known applied (no later answer came back) */
    uint64_t *released;       /* UNLOCKs without an answer sent to each rank, ever */
    uint8_t *locked;          /* MPI_LOCK_* we hold at each rank, or 0 */
    uint8_t *nocheck;         /* that lock was taken with MPI_MODE_NOCHECK */
    int lock_all;             /* MPI_Win_lock_all epoch open (1 + NOCHECK) */
    bool fence_open;          /* an access epoch opened by MPI_Win_fence */
    int *posts;               /* POSTs received from each rank, not yet started */
    int *start_ranks, nstart; /* the access group of MPI_Win_start, or NULL */

    /* Target side. */
    uint64_t processed; /* operations applied, ever */
    uint64_t unlocked;  /* UNLOCKs without an answer taken in, ever */
    struct osc_in *in_head, *in_tail;
    struct osc_in *in_post; /* the first whose data receive is not posted */
    int excl;               /* rank holding the exclusive lock, or -1 */
    int shared;             /* shared locks held */
    struct osc_lockq *waiting;
    int completes; /* COMPLETEs received, not yet waited for */
    int npost;     /* size of the group of MPI_Win_post, or -1 */

    struct osc_win *next; /* every window, for the progress source */
};

/* osc_win.c */
struct osc_win *osc_get(MPI_Win win, const char *fn, int *err);
/* osc_am.c: the progress source, and what origins and targets use. */
int osc_progress(void);
void osc_register(struct osc_win *o);
void osc_unregister(struct osc_win *o);
uint32_t osc_reply_id(struct osc_win *o);
/* Sends a header (and h->dlen bytes of data, dcount of ddt, if any) to
 * rank t; reply is the receive of its answer, posted already, or
 * MPI_REQUEST_NULL. The started operation is returned. */
struct osc_op *osc_send(struct osc_win *o, int t, struct osc_hdr *h, size_t hlen, const void *data,
                        size_t dcount, MPI_Datatype ddt, MPI_Request reply);
/* Completes every started operation (local completion). */
void osc_complete_local(struct osc_win *o);
/* Sends a control message to t, posting the receive of its answer; or
 * sends it and waits for the answer. */
void osc_ask(struct osc_win *o, int t, int kind, int lock, MPI_Request *answer);
void osc_control(struct osc_win *o, int t, int kind, int lock);
/* Ends the lock held at t once its operations are complete locally;
 * *answer is the receive of the target's answer, or MPI_REQUEST_NULL when
 * none is needed. */
void osc_release(struct osc_win *o, int t, MPI_Request *answer);

#endif
