/* The runtime's shared state and the plumbing every layer uses. */
#ifndef RT_H
#define RT_H

#include "config.h"
#include "mpi.h"

#include <pthread.h>
#include <stdint.h>

#define RT_EXPORT      __attribute__((visibility("default")))
#define RT_LIKELY(x)   __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Process and job facts, filled by MPI_Init from PMIx (or the singleton). */
struct rt_state {
    int rank; /* in MPI_COMM_WORLD; -1 before init */
    int size;
    int local_rank; /* among the ranks on this host */
    int local_size;
    int node_rank;
    int *local_peers; /* world ranks on this host, ascending */
    int nodeid;
    int num_nodes;
    int univ_size;
    int appnum;
    int singleton;
    int oversubscribed; /* more local ranks than cores: blocked ranks yield */
    int ncpus;
    char hostname[MPI_MAX_PROCESSOR_NAME];
    char nspace[256];
    int initialized; /* MPI_Init returned */
    int finalized;   /* MPI_Finalize returned */
    int up;          /* the layers are up: MPI_Init or a session started them */
    int sessions;    /* MPI_Session_init calls not yet finalized */
    int thread_level;
    pthread_t main_thread;
};
extern struct rt_state rt;

/* Every object a user handle points at starts with this header, and objects
 * are recycled in per-kind pools, never freed to libc while the library
 * lives: a stale handle reads a cleared magic instead of freed memory. */
enum rt_kind {
    RT_KIND_COMM = 0x52c0,
    RT_KIND_GROUP,
    RT_KIND_DATATYPE,
    RT_KIND_OP,
    RT_KIND_ERRHANDLER,
    RT_KIND_REQUEST,
    RT_KIND_INFO,
    RT_KIND_WIN,
    RT_KIND_FILE,
    RT_KIND_MESSAGE,
    RT_KIND_SESSION,
};

struct rt_obj {
    uint32_t kind;  /* enum rt_kind while live, 0 once freed */
    int32_t findex; /* Fortran index (MPI_*_c2f) */
};

/* A layer (btl, pml, coll, ...) plugs into init, finalize and progress by
 * registering itself from a constructor; the runtime never names a layer. */
struct rdmpi_comm;
struct rt_comm_services;

struct rt_layer {
    const char *name;
    int order;             /* lower initialises first */
    int (*init)(void);     /* job facts known: publish cards */
    int (*connect)(void);  /* cards exchanged: reach the peers */
    int (*finalize)(void); /* before the last fence */
    /* Per-communicator state in the layer's own slot of struct rdmpi_comm:
     * comm_init runs in layer order on every new communicator (and, before
     * connect, on the predefined ones); a failure undoes the layers before.
     * comm_fini runs in reverse order on every communicator that goes (the
     * predefined ones after finalize) and must accept a slot never made;
     * it returns 1 when the layer keeps the context id and releases it
     * itself later (traffic still in flight), else 0. */
    int (*comm_init)(struct rdmpi_comm *c);
    int (*comm_fini)(struct rdmpi_comm *c);
    int (*progress)(void); /* polled from connect until finalize */
    /* What communicator construction needs from this layer (comm.h): in
     * the runtime's table from connect until finalize. */
    const struct rt_comm_services *services;
    struct rt_layer *next;
};
void rt_layer_register(struct rt_layer *l);
/* Every layer's comm_init on a new communicator (MPI error class on
 * failure, all undone), and every comm_fini: 1 if a layer kept the id. */
int rt_layers_comm_init(struct rdmpi_comm *c);
int rt_layers_comm_fini(struct rdmpi_comm *c);

/* Progress: one function that polls every registered source once and
 * returns how many events it handled. */
typedef int (*rt_progress_fn)(void);
/* Sources a layer adds on first use (osc, idup): registering one twice is
 * a no-op, so none is ever polled twice; rt_down drops them all. */
int rt_progress_register(rt_progress_fn fn);
void rt_progress_unregister(rt_progress_fn fn);
void rt_progress_clear(void);
int rt_progress(void);
/* Nonzero when an idle turn of a blocking loop has work: yield or sleep
 * (RDMPI_YIELD, RDMPI_SLEEP), let MPI_THREAD_MULTIPLE threads in, or
 * print the hang report SIGUSR1 asked for. Otherwise the turn is one test,
 * inline: a rank spinning on a message pays it on every empty poll.
 * Atomic (relaxed) because the SIGUSR1 handler sets it. */
extern int rt_idle_work;
/* Recomputes rt_idle_work; call after rt_mt changes. */
void rt_progress_update(void);
void rt_progress_idle_slow(unsigned *spins);
void rt_progress_wait_slow(unsigned *spins);
/* Called by every blocking loop between polls: yields the CPU after a
 * short spin when ranks outnumber cores, and under MPI_THREAD_MULTIPLE
 * lets threads waiting for the library lock in. */
static inline void rt_progress_idle(unsigned *spins)
{
    if (RT_UNLIKELY(__atomic_load_n(&rt_idle_work, __ATOMIC_RELAXED)))
        rt_progress_idle_slow(spins);
}
/* The same for a wait that only a message from a peer can end (a request,
 * a probe): when ranks outnumber cores it may sleep until one arrives
 * (RDMPI_SLEEP) rather than yield. */
static inline void rt_progress_wait(unsigned *spins)
{
    if (RT_UNLIKELY(__atomic_load_n(&rt_idle_work, __ATOMIC_RELAXED)))
        rt_progress_wait_slow(spins);
}
/* Whether blocked ranks sleep: senders must then wake them (btl/sm). */
int rt_progress_sleeps(void);
/* Idle turns yield while a blocking dynamic-process call runs (+1 as it
 * starts, -1 as it ends), and for good once this host holds more than
 * its cores in processes, added ones included (rt_progress_crowd). */
void rt_progress_patience(int delta);
/* Installs the SIGUSR1 hang-report handler (at init, before the launcher
 * is reached; rt_progress_set_dump installs it too). */
void rt_progress_catch_dump(void);
void rt_progress_crowd(int local_procs);
/* The pml's sleep: blocks up to timeout_us until a peer may have sent
 * something; returns 0 without sleeping when other work is pending. */
void rt_progress_set_sleep(int (*fn)(unsigned timeout_us));
/* RDMPI_NOISE: random pauses at points where scheduling delays could
 * reveal races (tests and debugging only). */
extern int rt_noise_permille;
void rt_noise_pause(void);
static inline void rt_noise(void)
{
    if (RT_UNLIKELY(rt_noise_permille))
        rt_noise_pause();
}

/* MPI_THREAD_MULTIPLE (thread.c): one lock around the library. Every API
 * function opens with RT_API_ENTER(), which takes it (counting nested
 * calls) and releases it when the function returns; without MULTIPLE it
 * costs a test of rt_mt. */
extern int rt_mt;
extern __thread int rt_api_depth;
void rt_api_acquire(void);
void rt_api_release(void);
/* Lets a thread blocked on the lock in while this one idles. */
void rt_api_yield(void);

static inline int rt_api_lock(void)
{
    if (RT_LIKELY(!rt_mt))
        return 0;
    if (rt_api_depth++ == 0)
        rt_api_acquire();
    return 1;
}

static inline void rt_api_unlock(const int *held)
{
    if (*held && --rt_api_depth == 0)
        rt_api_release();
}

#define RT_API_ENTER()                                                                             \
    int rt_api_held_ __attribute__((cleanup(rt_api_unlock), unused)) = rt_api_lock()
void rt_progress_setup(void);
/* What a stuck rank prints on SIGUSR1 (its pending operations). */
#include <stdio.h>
void rt_progress_set_dump(void (*fn)(FILE *out));
/* Events that show this rank moving: what its progress sources handled,
 * and collectives it finished without them (the shared segment). The hang
 * report prints it first, so two reports tell a slow job (it grew) from a
 * stuck one (it did not). */
extern uint64_t rt_moved;

/* Ends the whole job: prints msg (if any) and asks the launcher to kill
 * every rank; exits with status if there is no launcher. */
_Noreturn void rt_abort_job(int status, const char *msg);
/* The layers (init.c): up for MPI_Init or the first session, down once
 * neither needs them. */
void rt_up(int required, const char *fn);
void rt_down(void);

double rt_wtime(void);

#endif
