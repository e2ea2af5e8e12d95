/* What the MPI entry points share: argument checks that raise the right
 * class with a message naming the argument, conversion of int arrays to the
 * big-count form the builders take, and one driver for the blocking,
 * non-blocking and persistent forms. */
#ifndef COLL_API_H
#define COLL_API_H

#include "coll.h"
#include "coll_shm.h"
#include "param.h"

enum coll_mode { COLL_BLOCKING, COLL_NONBLOCKING, COLL_PERSISTENT };

struct coll_call {
    MPI_Comm comm;
    struct rdmpi_comm *c;
    const char *fn;
    enum coll_mode mode;
    MPI_Request *req;
    struct rdmpi_op *op; /* reductions */
    int nblocks;         /* entries of per-rank arrays: the remote group's size */
    /* Converted arrays live here until the schedule is built. */
    _Alignas(16) char small[1024];
    size_t used;
    void *heap[8];
    int nheap;
};

/* Checks initialisation, the communicator and (non-blocking, persistent)
 * the request pointer. */
int coll_begin(struct coll_call *call, MPI_Comm comm, enum coll_mode mode, MPI_Request *req,
               const char *fn);
/* Builds the schedule with `build`, then runs or posts it; frees the call's
 * arrays either way. */
int coll_execute(struct coll_call *call, coll_build_fn build, const struct coll_args *a);
/* A blocking collective whose messages are empty: the standard's matching
 * rules make the size the same on every rank, so every rank skips it. */
static inline bool coll_nothing(const struct coll_call *call, size_t bytes)
{
    return call->mode == COLL_BLOCKING && !bytes;
}
/* A blocking call's shared segment, if its communicator has one (see
 * coll_shm.h; non-blocking and persistent calls stay on schedules). */
static inline struct coll_shm *coll_shm_for(const struct coll_call *call)
{
    return call->mode == COLL_BLOCKING ? coll_shm_get(call->c) : NULL;
}
/* A blocking call's bcast of a checked buffer by messages (an allreduce
 * sends its result from the rank it was reduced to). */
int coll_bcast_messages(struct coll_call *call, void *buf, size_t count, struct rdmpi_datatype *dt,
                        int root);
/* Frees the call's arrays after a failed check. */
int coll_abort(struct coll_call *call, int err);

int coll_check_root(const struct coll_call *call, int root);
int coll_check_buf(const struct coll_call *call, const void *buf, MPI_Count count,
                   MPI_Datatype datatype, struct rdmpi_datatype **dt);
int coll_check_type(const struct coll_call *call, MPI_Datatype datatype,
                    struct rdmpi_datatype **dt);
int coll_check_op(struct coll_call *call, MPI_Op op, const struct rdmpi_datatype *dt);
/* Send and receive buffers may not overlap; MPI_IN_PLACE is the way. */
int coll_check_alias(const struct coll_call *call, const void *sbuf, size_t scount,
                     const struct rdmpi_datatype *sdt, const void *rbuf, size_t rcount,
                     const struct rdmpi_datatype *rdt);
/* The same rule for the v and w forms: every non-empty block of the send
 * side (a->scounts set, else the single sbuf) against every block of the
 * receive side (a->rcounts set, else rbuf). Skips MPI_IN_PLACE calls. */
int coll_check_alias_blocks(const struct coll_call *call, const struct coll_args *a);

/* Per-rank arrays: validated (>= 0, not NULL) and in big-count form. */
int coll_counts(struct coll_call *call, const int *v, const MPI_Count *vc, const char *what,
                const MPI_Count **out);
/* n copies of count, for the block forms. */
int coll_counts_same(struct coll_call *call, MPI_Count count, const MPI_Count **out);
int coll_displs(struct coll_call *call, const int *v, const MPI_Aint *vc, const char *what,
                const MPI_Aint **out);
int coll_types(struct coll_call *call, const MPI_Datatype *v, const char *what,
               struct rdmpi_datatype *const **out);
/* The sum of a per-rank count array. */
size_t coll_sum(const MPI_Count *v, int n);

/* ---- intercommunicators (coll_inter_*.c) ----
 * Entry points called right after coll_begin when call->c is an
 * intercommunicator: each checks its arguments by the intercomm rules (a
 * root is MPI_ROOT, MPI_PROC_NULL or a remote rank; MPI_IN_PLACE is never
 * allowed) and runs the collective between the two groups. `big`: the
 * arrays hold MPI_Count/MPI_Aint, else int; `form` says which of the
 * regular, v and w forms was called (its arrays may be NULL: an error). */
enum coll_form { COLL_REGULAR, COLL_V, COLL_W };
int coll_inter_barrier(struct coll_call *call);
int coll_inter_bcast(struct coll_call *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                     int root);
int coll_inter_reduce(struct coll_call *call, const void *sbuf, void *rbuf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, int root);
int coll_inter_allreduce(struct coll_call *call, const void *sbuf, void *rbuf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Op op);
/* counts NULL: the block form, bcount for every rank. */
int coll_inter_reduce_scatter(struct coll_call *call, const void *sbuf, void *rbuf,
                              const void *counts, MPI_Count bcount, MPI_Datatype datatype,
                              MPI_Op op, bool big);
int coll_inter_gather(struct coll_call *call, enum coll_form form, const void *sbuf,
                      MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                      const void *rcounts, const void *displs, MPI_Datatype rdt, int root,
                      bool big);
int coll_inter_scatter(struct coll_call *call, enum coll_form form, const void *sbuf,
                       MPI_Count scount, const void *scounts, const void *displs, MPI_Datatype sdt,
                       void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root, bool big);
int coll_inter_allgather(struct coll_call *call, enum coll_form form, const void *sbuf,
                         MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                         const void *rcounts, const void *displs, MPI_Datatype rdt, bool big);
int coll_inter_alltoall(struct coll_call *call, enum coll_form form, const void *sbuf,
                        MPI_Count scount, const void *scounts, const void *sdispls,
                        MPI_Datatype sdt, const MPI_Datatype *sdts, void *rbuf, MPI_Count rcount,
                        const void *rcounts, const void *rdispls, MPI_Datatype rdt,
                        const MPI_Datatype *rdts, bool big);
/* Scan and Exscan: MPI_ERR_COMM, they are not defined on intercomms. */
int coll_inter_invalid(const struct coll_call *call);

/* Shared by the intercomm entry points (coll_inter.c). */
int coll_inter_check_root(const struct coll_call *call, int root);
int coll_inter_no_inplace(const struct coll_call *call, const void *buf, const char *what);

/* A size tunable, read once. */
static inline size_t coll_size_param(const struct rt_param *p, size_t *cache)
{
    if (RT_UNLIKELY(*cache == (size_t)-1))
        *cache = rt_param_size(p);
    return *cache;
}

/* A size above which an algorithm with more rounds but fewer bytes per
 * rank wins, read once. When ranks outnumber cores every round costs a
 * context switch, so there it is scaled by
 * RDMPI_COLL_OVERSUBSCRIBED_SCALE. */
size_t coll_threshold(const struct coll_sched *s, const struct rt_param *p, size_t *cache);

/* The six entry points of a collective: blocking, non-blocking (Name and
 * IName) and persistent, each with int and big (_c) counts. P(CT, AT) is
 * the parameter list with count type CT and displacement type AT, A the
 * argument list; core(A, big, request, mode, name) does the work. The
 * `#pragma weak` lines stay in the source, where the stub generator sees
 * them. */
#define COLL_API(Name, IName, P, A, core)                                                          \
    int PMPI_##Name(P(int, int))                                                                   \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return core(A, false, NULL, COLL_BLOCKING, "MPI_" #Name);                                  \
    }                                                                                              \
    int PMPI_##Name##_c(P(MPI_Count, MPI_Aint))                                                    \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return core(A, true, NULL, COLL_BLOCKING, "MPI_" #Name "_c");                              \
    }                                                                                              \
    int PMPI_##IName(P(int, int), MPI_Request *request)                                            \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return core(A, false, request, COLL_NONBLOCKING, "MPI_" #IName);                           \
    }                                                                                              \
    int PMPI_##IName##_c(P(MPI_Count, MPI_Aint), MPI_Request *request)                             \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return core(A, true, request, COLL_NONBLOCKING, "MPI_" #IName "_c");                       \
    }                                                                                              \
    int PMPI_##Name##_init(P(int, int), MPI_Info info, MPI_Request *request)                       \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        (void)info;                                                                                \
        return core(A, false, request, COLL_PERSISTENT, "MPI_" #Name "_init");                     \
    }                                                                                              \
    int PMPI_##Name##_init_c(P(MPI_Count, MPI_Aint), MPI_Info info, MPI_Request *request)          \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        (void)info;                                                                                \
        return core(A, true, request, COLL_PERSISTENT, "MPI_" #Name "_init_c");                    \
    }

#endif
