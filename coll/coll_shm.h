/* Blocking collectives through a segment the ranks of a communicator
 * share, when they are all on one host: each rank publishes into its own
 * slots and reads the others' directly, with no messages, matching or
 * requests. Small data travels in the slots (coll_shm_ops.c); larger data
 * of some collectives stays in the user's buffers, whose addresses travel
 * in the slots, and the ranks read each other's by the BTL's single-copy
 * get (coll_shm_direct.c). coll_shm.c sets the segment up. */
#ifndef COLL_SHM_H
#define COLL_SHM_H

#include "coll.h"

#include <string.h>

#define COLL_SHM_SLOTS     16 /* collectives a rank may run ahead of the slowest */
#define COLL_SHM_MAX_RANKS 64 /* larger communicators keep messages */
#define COLL_SHM_LINE      64
/* A slot: its sequence word, then the data from this offset, so a small
 * collective's data shares the word's cache line (one line moves between
 * cores, not two); 16 keeps every predefined type aligned. The word
 * between is the barrier's (coll_shm_barrier). */
#define COLL_SHM_DATA 16
/* With a core per rank, allreduces beyond this measured faster by
 * messages (recursive doubling reads half the data a rank reads here),
 * but for two ranks' 4-16 KiB (coll_shm_two.c). */
#define COLL_SHM_REDUCE_MAX 4096
/* Reduces to a root (where only the root reads) go through the slots up
 * to this size even with a core per rank: 2 ranks, 8 KiB 0.55x the time
 * by messages; from 16 KiB the root's direct read wins (0.84x the slots,
 * coll_shm_direct.c). */
#define COLL_SHM_ROOTED_MAX 8192
/* Reductions in pieces go by at most this much at a time, however large
 * the slots: larger pieces pipeline less across the ranks (8 ranks on 2
 * cores, 32 KiB pieces: 16-64 KiB reduces 1.1-1.3x slower)... */
#define COLL_SHM_REDUCE_PIECE 8192
/* ... but from this size, ranks outnumbering cores, in quarters (up to
 * the slot): each piece waits for every rank to be scheduled, and a
 * writer more than COLL_SHM_SLOTS pieces ahead of the root waits for it
 * too (4 and 8 ranks on 2 cores, OSU reduce 128 KiB-1 MiB: 0.17-0.70x
 * the time, allreduce 0.65-0.87x). */
#define COLL_SHM_REDUCE_QUARTERS (128u << 10)
/* Two ranks with a core each: a bcast goes through the slots up to
 * TWO_MAX, in two halves beyond TWO_PIECE (4 KiB: 0.85x the time of one
 * piece; 2 KiB in halves: 1.3x). */
#define COLL_SHM_BCAST_TWO_MAX   4096
#define COLL_SHM_BCAST_TWO_PIECE 2048
/* Two ranks with a core each, more than 4 KiB and up to TWO_WAY_MAX for
 * the reader to take (a bcast, an allgather's or alltoall's block, an
 * allreduce; a reduce from 8 KiB): the
 * slots or the writer's buffer, whichever the reader measures faster
 * (coll_shm_two.c); beyond, the buffer. */
#define COLL_SHM_TWO_WAY_MIN 4096
#define COLL_SHM_TWO_WAY_MAX (16u << 10)
/* ... then up to this size the root writes half into the receiver's
 * buffer while the receiver reads the other half of the root's
 * (coll_shm_direct_bcast); messages beyond, where the split rendezvous
 * does the same (64 KiB: the same time). */
#define COLL_SHM_BCAST_TWO_DIRECT_MAX (32u << 10)
/* ... and allgather and alltoall blocks up to this size read each other's
 * buffers directly, without the handshake of messages (OSU, interleaved
 * medians of 11, the time against messages: 16 KiB 0.93x, 32-128 KiB
 * 0.98-0.99x; alltoall 8-128 KiB 0.84-0.97x; 256 KiB 0.98-1.05x, so
 * messages keep it). */
#define COLL_SHM_DIRECT_TWO_MAX (128u << 10)
/* A slot's sequence word with this bit holds not data but the address
 * of the writer's buffer (coll_shm_two.c). */
#define COLL_SHM_ADDR ((uint64_t)1 << 63)
/* ... or says the writer has put its data straight into the reader's
 * buffer (coll_shm_gatherv). */
#define COLL_SHM_PUT ((uint64_t)1 << 62)
#define COLL_SHM_STRIDE(max)                                                                       \
    (((max) + COLL_SHM_DATA + COLL_SHM_LINE - 1) & ~(size_t)(COLL_SHM_LINE - 1))

struct coll_shm {
    char *base; /* the mapping: n "done" lines, then n x SLOTS slots */
    size_t size;
    size_t max;        /* the largest collective it carries, agreed at setup */
    size_t piece_max;  /* bcast, allgather, alltoall go in pieces of `max` up to this */
    size_t reduce_max; /* reduce and allreduce up to this */
    int n, me;
    uint64_t op;         /* collectives run through it so far */
    uint64_t min_done;   /* the lowest "done" seen on any rank (a cache) */
    uint64_t barrier_op; /* the number of our last barrier through it */
    bool direct;         /* every rank reads every other's memory by the BTL's get */
    uint64_t want;       /* the ways we ask for, as in our "done" line (coll_shm_two.c) */
    struct coll_shm_way {
        uint32_t est[2]; /* a call's time by the slot and by a read (0: not yet known) */
        uint32_t low[2]; /* the least of the timed calls of the window under way */
        uint8_t n[2];    /* timed calls in that window */
        uint8_t trying;  /* 1 + the slower way, asked for again to re-time it; else 0 */
        uint32_t calls;
    } way[5];    /* up to 8 KiB, beyond, reduces, allreduces up to 8 KiB and beyond */
    int world[]; /* world ranks of the communicator's ranks */
};

static inline uint64_t *coll_shm_done_line(const struct coll_shm *s, int r)
{
    return (uint64_t *)(s->base + (size_t)r * COLL_SHM_LINE);
}

/* Rank r's slot for collective number op. */
static inline uint64_t *coll_shm_slot(const struct coll_shm *s, int r, uint64_t op)
{
    size_t i = (size_t)r * COLL_SHM_SLOTS + op % COLL_SHM_SLOTS;

    return (uint64_t *)(s->base + (size_t)s->n * COLL_SHM_LINE + i * COLL_SHM_STRIDE(s->max));
}

static inline char *coll_shm_data(uint64_t *slot)
{
    return (char *)slot + COLL_SHM_DATA;
}

static inline void coll_shm_publish(uint64_t *slot, uint64_t op)
{
    __atomic_store_n(slot, op, __ATOMIC_RELEASE);
}

/* Publishes address `at` in slot sl for collective op (COLL_SHM_ADDR in
 * the sequence word), for a single-copy read. */
static inline void coll_shm_publish_addr(uint64_t *slot, uint64_t op, const void *at)
{
    ((uint64_t *)coll_shm_data(slot))[0] = (uint64_t)(uintptr_t)at;
    coll_shm_publish(slot, op | COLL_SHM_ADDR);
}

/* The address published in a slot. */
static inline uint64_t coll_shm_addr_in(uint64_t *slot)
{
    return ((const uint64_t *)coll_shm_data(slot))[0];
}

/* We have read everything of collective op. */
static inline void coll_shm_finish(struct coll_shm *s, uint64_t op)
{
    __atomic_store_n(coll_shm_done_line(s, s->me), op, __ATOMIC_RELEASE);
    rt_moved++;
}

/* Data moves through slots packed, so ranks may use different layouts
 * of one type signature: bytes [off, off + len) of the packed form. */
static inline void coll_shm_put_part(char *to, const void *buf, size_t count,
                                     struct rdmpi_datatype *dt, size_t off, size_t len)
{
    if (rt_dt_contig(dt, count))
        memcpy(to, (const char *)buf + dt->lb + off, len);
    else
        rt_dt_pack(dt, buf, count, off, to, len);
}

static inline void coll_shm_get_part(void *buf, size_t count, struct rdmpi_datatype *dt,
                                     const char *from, size_t off, size_t len)
{
    if (rt_dt_contig(dt, count))
        memcpy((char *)buf + dt->lb + off, from, len);
    else
        rt_dt_unpack(dt, buf, count, off, from, len);
}

/* Waits (keeping the library moving) until *word == want. */
void coll_shm_await(const uint64_t *word, uint64_t want);
/* Waits until *word is op, with COLL_SHM_ADDR or not; returns it. */
uint64_t coll_shm_await_op(const uint64_t *word, uint64_t op);
/* Waits until every rank is done with collective `op`. */
void coll_shm_await_done(struct coll_shm *s, uint64_t op);
/* Waits until a rank not yet in got[] (ours is) has published
 * collective op, trying the ranks after r in turn; marks and returns it,
 * with its sequence word in *w. With ranks outnumbering cores they come
 * in any order. */
int coll_shm_await_next(struct coll_shm *s, uint64_t op, bool *got, int r, uint64_t *w);
/* Waits until our slot for `op` may be written. */
void coll_shm_await_slot(struct coll_shm *s, uint64_t op);

/* The communicator's segment, or NULL: the first COLL_SHM_AFTER blocking
 * barrier, bcast, reduce, allreduce, allgather, allgatherv, alltoall(v,w),
 * gather(v), scatter(v) and reduce_scatter calls on it go by messages,
 * the next one
 * sets the segment up (every rank counts the same calls, so they all set
 * up in the same call). */
struct coll_shm *coll_shm_get(struct rdmpi_comm *c);
/* Unmaps a communicator's segment (from the layer's comm_fini). */
void coll_comm_release(struct rdmpi_comm *c);

/* Each returns true if it ran the collective, false to leave it to the
 * schedules (too large, or a type the segment cannot carry). */
bool coll_shm_bcast(struct coll_shm *s, void *buf, size_t count, struct rdmpi_datatype *dt,
                    int root);
bool coll_shm_reduce(struct coll_shm *s, const void *sbuf, void *rbuf, size_t count,
                     struct rdmpi_datatype *dt, const struct rdmpi_op *op, int root);
/* Reduces a large allreduce to rank 0 and returns true if the caller is
 * to broadcast the result from there by messages. */
bool coll_shm_reduce_to_bcast(struct coll_shm *s, const void *sbuf, void *rbuf, size_t count,
                              struct rdmpi_datatype *dt, const struct rdmpi_op *op);
/* Reduce_scatter (a->rcounts per rank) and its block form. */
bool coll_shm_reduce_scatter(struct coll_shm *s, const struct coll_args *a,
                             const struct rdmpi_op *op);
void coll_shm_barrier(struct coll_shm *s);
/* Allgather, or alltoall (all_to_all), of the regular (block) forms. */
bool coll_shm_allgather(struct coll_shm *s, const struct coll_args *a, bool all_to_all);

/* Gather and scatter of the regular forms; `block` is a rank's bytes. */
bool coll_shm_gather(struct coll_shm *s, const struct coll_args *a, size_t block);
bool coll_shm_scatter(struct coll_shm *s, const struct coll_args *a, size_t block);
/* The v forms: a->rcounts and a->rdispls (gatherv at the root,
 * allgatherv), a->scounts and a->sdispls (scatterv at the root). */
bool coll_shm_gatherv(struct coll_shm *s, const struct coll_args *a);
bool coll_shm_scatterv(struct coll_shm *s, const struct coll_args *a);
bool coll_shm_allgatherv(struct coll_shm *s, const struct coll_args *a);
/* Alltoallv and alltoallw (a->scounts and a->rcounts, not in place):
 * the blocks that fit go through the slots, the others by messages on m,
 * a blocking schedule (coll_sched_now) whose caller waits for them. */
void coll_shm_alltoallv(struct coll_shm *s, struct coll_sched *m, const struct coll_args *a);

/* Two ranks, 4-16 KiB: by the slots or single-copy reads, as measured. */
void coll_shm_two_bcast(struct coll_shm *s, void *buf, size_t count, struct rdmpi_datatype *dt,
                        int root);
void coll_shm_two_allgather(struct coll_shm *s, const struct coll_args *a, bool all_to_all);
/* Runs a reduce (commutative op) by a read and returns true, or returns
 * false to leave it to the slots, with *t0 for coll_shm_two_reduced. */
bool coll_shm_two_reduce(struct coll_shm *s, const char *src, void *rbuf, size_t count,
                         struct rdmpi_datatype *dt, const struct rdmpi_op *op, int root,
                         uint64_t *t0);
void coll_shm_two_reduced(struct coll_shm *s, uint64_t t0);
void coll_shm_two_allreduce(struct coll_shm *s, const void *sbuf, void *rbuf, size_t count,
                            struct rdmpi_datatype *dt, const struct rdmpi_op *op);

/* The same by single-copy reads of the user's buffers (s->direct), for
 * what the slots do not carry. */
bool coll_shm_direct_allgather(struct coll_shm *s, const struct coll_args *a, bool all_to_all);
bool coll_shm_direct_allreduce(struct coll_shm *s, const void *sbuf, void *rbuf, size_t count,
                               struct rdmpi_datatype *dt, const struct rdmpi_op *op);
/* Two ranks only. */
bool coll_shm_direct_bcast(struct coll_shm *s, void *buf, size_t count, struct rdmpi_datatype *dt,
                           int root);
/* Our `len` packed bytes of (buf, count, dt) as one run others can read:
 * the buffer itself, or *tmp (freed by the caller) packed from it. */
const char *coll_shm_readable(const void *buf, size_t count, struct rdmpi_datatype *dt, size_t len,
                              void **tmp);
/* Reads len bytes at raddr in rank r's memory into local. */
void coll_shm_read_peer(struct coll_shm *s, int r, void *local, uint64_t raddr, size_t len);
/* Writes len bytes from local to raddr in rank r's memory. */
void coll_shm_write_peer(struct coll_shm *s, int r, const void *local, uint64_t raddr, size_t len);
/* Reads rank r's packed bytes at raddr into (buf, count, dt). */
void coll_shm_read_into(struct coll_shm *s, int r, uint64_t raddr, void *buf, size_t count,
                        struct rdmpi_datatype *dt, size_t len);
bool coll_shm_direct_reduce(struct coll_shm *s, const void *sbuf, void *rbuf, size_t count,
                            struct rdmpi_datatype *dt, const struct rdmpi_op *op, int root);

#endif
