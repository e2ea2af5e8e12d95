/* The collectives layer: every collective is a schedule of sends, receives
 * and local steps over the pml, separated by fences. Blocking calls run the
 * schedule to completion in place; non-blocking and persistent ones hand it
 * to the progress engine. Algorithms only append steps, so one builder
 * serves all three forms. */
#ifndef COLL_H
#define COLL_H

#include "pml_api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- reduction operations ---- */

struct rdmpi_op {
    struct rt_obj obj;
    int index; /* predefined: MPI_MAX is 0, ...; user: -1 */
    bool commute;
    bool big;         /* the user function takes MPI_Count lengths */
    void (*fn)(void); /* the user function, cast back by `big` */
    int refs;         /* the user's handle plus each schedule using it */
    const char *name;
};

struct rdmpi_op *coll_op_get(MPI_Op h);
void coll_op_retain(struct rdmpi_op *op);
void coll_op_release(struct rdmpi_op *op);
/* NULL when op may reduce dt, else why not (for an MPI_ERR_OP message). */
const char *coll_op_unsupported(const struct rdmpi_op *op, const struct rdmpi_datatype *dt);
/* inout[i] = in[i] op inout[i] for count elements laid out as dt. */
void coll_op_apply(const struct rdmpi_op *op, const void *in, void *inout, size_t count,
                   struct rdmpi_datatype *dt);

/* The kernel of a predefined op on a predefined type, or NULL. */
typedef void (*coll_kernel_fn)(const void *in, void *inout, size_t n);
coll_kernel_fn coll_kernel(int op_index, int type_index);
/* Whether the standard allows predefined op `op_index` on predefined type
 * `type_index` (the type's class is in the op's list). */
bool coll_kernel_allowed(int op_index, int type_index);

#define COLL_OP_REPLACE 12 /* MPI_REPLACE's index */
#define COLL_OP_NO_OP   13

/* ---- schedules ---- */

enum coll_step_kind { COLL_SEND, COLL_RECV, COLL_COPY, COLL_REDUCE, COLL_FENCE };

/* COLL_REDUCE: which operand holds the lower ranks' contribution; with a
 * non-commutative op, the result must be lower op higher. */
enum { COLL_SRC_LOWER = 0, COLL_SRC_HIGHER = 1 };

struct coll_step {
    uint8_t kind;
    uint8_t order;   /* COLL_REDUCE: COLL_SRC_* */
    uint8_t local;   /* SEND, RECV: on an intercomm's local group, not the remote one */
    int peer;        /* SEND, RECV */
    void *buf;       /* send/recv buffer; copy/reduce destination */
    const void *src; /* copy/reduce source */
    size_t count;    /* elements of dt at buf */
    size_t scount;   /* COPY: elements of sdt at src */
    struct rdmpi_datatype *dt;
    struct rdmpi_datatype *sdt; /* COPY: the source's type */
};

struct coll_mem;

/* A send or receive of the running round, and what its end checks. */
struct coll_pend {
    struct rdmpi_request *req; /* the pml's internal request (pml_api.h) */
    size_t want;               /* receive: the bytes expected */
    int peer;
    bool recv;
    bool local; /* on an intercomm's local group */
};

/* A non-blocking or persistent collective's request: the runtime's generic
 * request, from its object pool (so MPI_Request_c2f and the Wait/Test
 * family work on it), around a heap schedule (coll_req.c). */
struct coll_req {
    struct rdmpi_request base;
    struct coll_sched *sched;
};

#define COLL_INLINE_STEPS   24
#define COLL_INLINE_REQS    16
#define COLL_INLINE_SCRATCH 512

struct coll_sched {
    struct rdmpi_comm *comm;
    struct pml_comm *pc;  /* the peers: an intercomm's remote group */
    struct pml_comm *lpc; /* an intercomm's local group (else pc) */
    bool build_local;     /* sends and receives being added go to lpc */
    int rank, size;
    const char *fn;      /* the MPI function, for messages */
    struct rdmpi_op *op; /* reductions: held until the schedule dies */
    struct coll_step *steps;
    int nsteps, cap;
    int comm_steps;         /* sends/receives since the last fence */
    int next;               /* next step to issue */
    struct coll_pend *reqs; /* in flight: this round's sends and receives */
    int nreqs, reqcap, reaped;
    int tag; /* this run's internal tag (a persistent one's, for all its runs) */
    int err; /* first error class, 0 if none */
    int err_peer;
    bool err_local; /* err_peer is in an intercomm's local group */
    size_t err_got, err_want;
    bool oom;             /* building ran out of memory */
    struct coll_mem *mem; /* scratch blocks beyond the inline space */
    size_t scratch_used;
    bool now;                         /* blocking: each step runs as it is built (coll_sched_now) */
    bool posted;                      /* now: a send or receive went out */
    struct coll_req *req;             /* the user's request, if not blocking */
    bool held;                        /* holds pc and lpc (see coll_sched_post) */
    struct coll_sched *anext, *aprev; /* the engine's active list */
    struct coll_step step_space[COLL_INLINE_STEPS];
    struct coll_pend req_space[COLL_INLINE_REQS];
    _Alignas(16) char scratch[COLL_INLINE_SCRATCH];
};

void coll_sched_init(struct coll_sched *s, struct rdmpi_comm *c, const char *fn);
void coll_sched_fini(struct coll_sched *s);

/* Builders append steps; a failed allocation is remembered in s->oom and
 * turns the rest into no-ops. */
void coll_send(struct coll_sched *s, const void *buf, size_t count, struct rdmpi_datatype *dt,
               int peer);
void coll_recv(struct coll_sched *s, void *buf, size_t count, struct rdmpi_datatype *dt, int peer);
void coll_copy(struct coll_sched *s, const void *src, size_t scount, struct rdmpi_datatype *sdt,
               void *dst, size_t dcount, struct rdmpi_datatype *ddt);
/* dst = src op dst (COLL_SRC_LOWER) or dst op src (COLL_SRC_HIGHER; with a
 * non-commutative op src is clobbered, so it must be scratch). */
void coll_reduce(struct coll_sched *s, const void *src, void *dst, size_t count,
                 struct rdmpi_datatype *dt, int order);
/* Intercommunicators: sends and receives added after coll_on_local(s, true)
 * address the local group (s->rank and s->size are already the local
 * group's, so intracomm algorithms build local phases unchanged), after
 * coll_on_local(s, false) the remote group. Both use the schedule's tag:
 * the hidden local communicator carries no other collective traffic. */
static inline void coll_on_local(struct coll_sched *s, bool local)
{
    s->build_local = local;
}
/* Later steps wait until every send and receive before the fence is done. */
void coll_fence(struct coll_sched *s);
/* Scratch for count elements of dt in dt's own layout, freed with s. */
void *coll_tmp(struct coll_sched *s, size_t count, const struct rdmpi_datatype *dt);
void *coll_tmp_bytes(struct coll_sched *s, size_t bytes);

/* Blocking collectives skip the recording: after coll_sched_now(s) (which
 * takes the tag) each builder call runs its step at once and each fence
 * waits, in the order a recorded schedule would run them; coll_sched_wait
 * ends it and returns its error. A failed allocation after a send or
 * receive went out is fatal: the peers could not be told. */
void coll_sched_now(struct coll_sched *s);
int coll_sched_wait(struct coll_sched *s);
/* Data that came from rank peer other than by a message of s was `got`
 * bytes where this rank expected `want`: the error a message would raise. */
void coll_sched_mismatch(struct coll_sched *s, int peer, size_t got, size_t want);

/* Runs: start takes a fresh tag (a persistent schedule keeps the one it
 * took when posted); advance issues what it can and returns
 * true once the whole schedule is done; run does both, blocking. */
void coll_sched_start(struct coll_sched *s);
bool coll_sched_advance(struct coll_sched *s);
int coll_sched_run(struct coll_sched *s);

/* Non-blocking and persistent requests around heap schedules, advanced by
 * coll_progress (the layer's progress source). */
struct coll_sched *coll_sched_new(struct rdmpi_comm *c, const char *fn);
void coll_sched_free(struct coll_sched *s);
int coll_sched_post(struct coll_sched *s, MPI_Request *request, bool persistent);
int coll_progress(void);

/* The layer's slot of a communicator (rdmpi_comm.coll), made by its
 * comm_init and dropped by its comm_fini (coll_comm.c). */
struct coll_comm {
    uint32_t seq;         /* collectives started: internal tag source */
    uint32_t idup_seq;    /* MPI_Comm_idup calls: their internal tags */
    struct coll_shm *shm; /* the collectives' shared segment, or NULL */
    uint32_t shm_calls;   /* calls that count towards setting it up */
    bool mixed;           /* it holds processes of other jobs (coll_oversub) */
};

static inline struct coll_comm *coll_comm(const struct rdmpi_comm *c)
{
    return c->coll;
}

int coll_comm_init(struct rdmpi_comm *c);
int coll_comm_fini(struct rdmpi_comm *c);
/* Communicator construction's collectives, for the runtime's table. */
extern const struct rt_comm_services coll_comm_services;

/* The tag of a communicator's next collective: every rank starts
 * collectives on a communicator in the same order, so counting them keeps
 * concurrent ones apart. */
int coll_comm_next_tag(struct rdmpi_comm *c);

/* ---- arguments shared by the builders ---- */

struct coll_args {
    const void *sbuf;
    void *rbuf;
    size_t scount, rcount;
    struct rdmpi_datatype *sdt, *rdt;
    /* v and w forms; NULL for the regular ones */
    const MPI_Count *scounts, *rcounts;
    const MPI_Aint *sdispls, *rdispls; /* elements (v) or bytes (w) */
    struct rdmpi_datatype *const *sdts, *const *rdts;
    int root;
    bool inplace;
};

/* Field by field: `= {0}` on this struct compiles to a `rep stos`, whose
 * start-up is a measurable share of a small collective. */
static inline void coll_args_init(struct coll_args *a)
{
    a->sbuf = NULL;
    a->rbuf = NULL;
    a->scount = a->rcount = 0;
    a->sdt = a->rdt = NULL;
    a->scounts = a->rcounts = NULL;
    a->sdispls = a->rdispls = NULL;
    a->sdts = a->rdts = NULL;
    a->root = 0;
    a->inplace = false;
}

extern struct rdmpi_datatype *coll_byte;

/* Bytes of data in count elements of dt. */
static inline size_t coll_bytes(size_t count, const struct rdmpi_datatype *dt)
{
    return count * dt->size;
}

/* Address of element i of (buf, dt). */
static inline void *coll_at(const void *buf, size_t i, const struct rdmpi_datatype *dt)
{
    return (char *)buf + (MPI_Aint)i * dt->extent;
}

/* Per-peer blocks of alltoall/v/w and allgatherv. */
static inline void coll_sblock(const struct coll_args *a, int i, const void **p, size_t *n,
                               struct rdmpi_datatype **dt)
{
    if (a->sdts) {
        *dt = a->sdts[i];
        *n = (size_t)a->scounts[i];
        *p = (const char *)a->sbuf + a->sdispls[i];
    } else if (a->scounts) {
        *dt = a->sdt;
        *n = (size_t)a->scounts[i];
        *p = coll_at(a->sbuf, (size_t)a->sdispls[i], a->sdt);
    } else {
        *dt = a->sdt;
        *n = a->scount;
        *p = coll_at(a->sbuf, (size_t)i * a->scount, a->sdt);
    }
}

static inline void coll_rblock(const struct coll_args *a, int i, void **p, size_t *n,
                               struct rdmpi_datatype **dt)
{
    if (a->rdts) {
        *dt = a->rdts[i];
        *n = (size_t)a->rcounts[i];
        *p = (char *)a->rbuf + a->rdispls[i];
    } else if (a->rcounts) {
        *dt = a->rdt;
        *n = (size_t)a->rcounts[i];
        *p = coll_at(a->rbuf, (size_t)a->rdispls[i], a->rdt);
    } else {
        *dt = a->rdt;
        *n = a->rcount;
        *p = coll_at(a->rbuf, (size_t)i * a->rcount, a->rdt);
    }
}

/* ---- algorithms (one file each) ---- */

typedef void (*coll_build_fn)(struct coll_sched *s, const struct coll_args *a);

void coll_barrier_dissemination(struct coll_sched *s, const struct coll_args *a);
void coll_bcast_binomial(struct coll_sched *s, const struct coll_args *a);
void coll_bcast_scatter_allgather(struct coll_sched *s, const struct coll_args *a);
void coll_reduce_binomial(struct coll_sched *s, const struct coll_args *a);
void coll_allreduce_recursive_doubling(struct coll_sched *s, const struct coll_args *a);
void coll_allreduce_rabenseifner(struct coll_sched *s, const struct coll_args *a);
void coll_allreduce_ring(struct coll_sched *s, const struct coll_args *a);
void coll_gather_binomial(struct coll_sched *s, const struct coll_args *a);
void coll_gather_linear(struct coll_sched *s, const struct coll_args *a);
void coll_scatter_binomial(struct coll_sched *s, const struct coll_args *a);
void coll_scatter_linear(struct coll_sched *s, const struct coll_args *a);
void coll_allgather_recursive_doubling(struct coll_sched *s, const struct coll_args *a);
void coll_allgather_bruck(struct coll_sched *s, const struct coll_args *a);
void coll_allgather_ring(struct coll_sched *s, const struct coll_args *a);
void coll_allgather_linear(struct coll_sched *s, const struct coll_args *a);
void coll_alltoall_bruck(struct coll_sched *s, const struct coll_args *a);
void coll_alltoall_linear(struct coll_sched *s, const struct coll_args *a);
void coll_alltoall_pairwise(struct coll_sched *s, const struct coll_args *a);
void coll_alltoall_inplace(struct coll_sched *s, const struct coll_args *a);
void coll_reduce_scatter_halving(struct coll_sched *s, const struct coll_args *a);
void coll_reduce_scatter_pairwise(struct coll_sched *s, const struct coll_args *a);
void coll_reduce_scatter_reduce(struct coll_sched *s, const struct coll_args *a);
void coll_scan_recursive_doubling(struct coll_sched *s, const struct coll_args *a);
void coll_exscan_recursive_doubling(struct coll_sched *s, const struct coll_args *a);
void coll_scan_linear(struct coll_sched *s, const struct coll_args *a);
void coll_exscan_linear(struct coll_sched *s, const struct coll_args *a);
/* Segmented pipelines (coll_bcast_pipeline.c, coll_reduce_pipeline.c) and
 * the flat broadcast (coll_bcast_linear.c). */
void coll_bcast_chain(struct coll_sched *s, const struct coll_args *a);
void coll_bcast_linear(struct coll_sched *s, const struct coll_args *a);
void coll_bcast_binary(struct coll_sched *s, const struct coll_args *a);
void coll_reduce_chain(struct coll_sched *s, const struct coll_args *a);
void coll_reduce_binary(struct coll_sched *s, const struct coll_args *a);

/* Largest power of two <= n (n >= 1). */
static inline int coll_pow2_floor(int n)
{
    int p = 1;

    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* ---- algorithm choice ---- */

/* Some host of the job runs more ranks than it has cores. Agreed by all
 * ranks at start-up, since algorithm choices that depend on it must be
 * the same everywhere. */
extern bool coll_oversubscribed;
/* What a schedule's choices take it as: on a communicator with processes
 * of other jobs (spawned, connected: docs/dynamic.md), whose starts agreed
 * on it apart, always true, so every member chooses alike. */
static inline bool coll_oversub(const struct coll_sched *s)
{
    return coll_oversubscribed || coll_comm(s->comm)->mixed;
}

/* A collective's algorithms by name, forced by RDMPI_COLL_<NAME>_ALGORITHM
 * or chosen by `pick` from sizes; a forced one that cannot run these
 * arguments (say recursive doubling on 6 ranks) falls back to `pick`. */
struct coll_algo {
    const char *name;
    coll_build_fn build;
    /* NULL: always usable; else whether it can run these arguments */
    bool (*usable)(const struct coll_sched *s, const struct coll_args *a);
};

struct coll_choice {
    const struct rt_param *param;
    const struct coll_algo *algos; /* NULL-terminated by name */
    int forced;                    /* -2: not read yet, -1: auto */
};

/* The algorithm to build: the forced one if usable, else algos[auto_idx]. */
coll_build_fn coll_choose(struct coll_choice *c, const struct coll_sched *s,
                          const struct coll_args *a, int auto_idx);

#endif
