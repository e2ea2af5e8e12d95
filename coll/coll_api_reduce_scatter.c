/* MPI_Reduce_scatter and MPI_Reduce_scatter_block, with their
 * non-blocking and persistent forms: the block form is the general one
 * with equal counts. MPI_IN_PLACE: the input vector is in recvbuf. */
#include "coll_api.h"

#define ALGOS "halving, pairwise (commutative ops only) or reduce (reduce, then scatterv)"
RT_PARAM(p_algo, "COLL_REDUCE_SCATTER_ALGORITHM", RT_PARAM_STRING, "auto",
         "Reduce_scatter algorithm: auto, " ALGOS)
RT_PARAM(p_balgo, "COLL_REDUCE_SCATTER_BLOCK_ALGORITHM", RT_PARAM_STRING, "auto",
         "Reduce_scatter_block algorithm: auto, " ALGOS)
RT_PARAM(p_large, "COLL_REDUCE_SCATTER_LARGE", RT_PARAM_SIZE, "64k",
         "Reduce-scatters of at least this many bytes in all exchange pairwise instead of by "
         "recursive halving (commutative ops; others reduce then scatter)")

static bool commutative(const struct coll_sched *s, const struct coll_args *a)
{
    (void)a;
    return s->op->commute;
}

enum { HALVING, PAIRWISE, REDUCE };
static const struct coll_algo algos[] = {
    [HALVING] = {"halving", coll_reduce_scatter_halving, commutative},
    [PAIRWISE] = {"pairwise", coll_reduce_scatter_pairwise, commutative},
    [REDUCE] = {"reduce", coll_reduce_scatter_reduce, NULL},
    {NULL, NULL, NULL},
};
static struct coll_choice choice = {&p_algo, algos, -2};
static struct coll_choice bchoice = {&p_balgo, algos, -2};
static size_t large = (size_t)-1;

static void build_with(struct coll_choice *c, struct coll_sched *s, const struct coll_args *a)
{
    size_t bytes = coll_sum(a->rcounts, s->size) * a->rdt->size;
    int pick = REDUCE;

    if (!bytes)
        return;
    if (s->op->commute)
        pick = bytes < coll_threshold(s, &p_large, &large) ? HALVING : PAIRWISE;
    coll_choose(c, s, a, pick)(s, a);
}

static void build(struct coll_sched *s, const struct coll_args *a)
{
    build_with(&choice, s, a);
}

static void bbuild(struct coll_sched *s, const struct coll_args *a)
{
    build_with(&bchoice, s, a);
}

/* counts: the per-rank counts (block: NULL, and bcount for every rank). */
static int reduce_scatter(const void *sendbuf, void *recvbuf, const void *counts, MPI_Count bcount,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool big,
                          MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    size_t total, mine;
    int err;

    coll_args_init(&a);
    a.rbuf = recvbuf;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_reduce_scatter(&call, sendbuf, recvbuf, counts, bcount, datatype, op,
                                         big);
    if (RT_UNLIKELY((err = coll_check_type(&call, datatype, &a.rdt))))
        return err;
    if (counts) {
        err =
            coll_counts(&call, big ? NULL : counts, big ? counts : NULL, "recvcounts", &a.rcounts);
    } else if (RT_UNLIKELY(bcount < 0)) {
        err = rdmpi_err_comm(comm, MPI_ERR_COUNT, fn, "recvcount is %lld; it must be >= 0",
                             (long long)bcount);
    } else {
        err = coll_counts_same(&call, bcount, &a.rcounts);
    }
    if (RT_UNLIKELY(err))
        return coll_abort(&call, err);
    total = coll_sum(a.rcounts, call.c->size);
    mine = (size_t)a.rcounts[call.c->rank];
    if (sendbuf == MPI_IN_PLACE) {
        a.inplace = true;
        err = coll_check_buf(&call, recvbuf, (MPI_Count)total, datatype, &a.rdt);
    } else {
        a.sbuf = sendbuf;
        if (!(err = coll_check_buf(&call, sendbuf, (MPI_Count)total, datatype, &a.rdt)) &&
            !(err = coll_check_buf(&call, recvbuf, (MPI_Count)mine, datatype, &a.rdt)))
            err = coll_check_alias(&call, sendbuf, total, a.rdt, recvbuf, mine, a.rdt);
    }
    if (RT_UNLIKELY(err || (err = coll_check_op(&call, op, a.rdt))))
        return coll_abort(&call, err);
    /* coll_abort frees the counts converted above. */
    if ((shm = coll_shm_for(&call)) && coll_shm_reduce_scatter(shm, &a, call.op))
        return coll_abort(&call, MPI_SUCCESS);
    return coll_execute(&call, counts ? build : bbuild, &a);
}

static int rs(const void *sendbuf, void *recvbuf, const void *recvcounts, MPI_Datatype datatype,
              MPI_Op op, MPI_Comm comm, bool big, MPI_Request *req, enum coll_mode mode,
              const char *fn)
{
    return reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, big, req, mode, fn);
}

static int rsb(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm, bool big, MPI_Request *req, enum coll_mode mode,
               const char *fn)
{
    return reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, big, req, mode,
                          fn);
}

#define P(CT, AT)                                                                                  \
    const void *sendbuf, void *recvbuf, const CT *recvcounts, MPI_Datatype datatype, MPI_Op op,    \
        MPI_Comm comm
#define A sendbuf, recvbuf, recvcounts, datatype, op, comm
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c
#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init
#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c
COLL_API(Reduce_scatter, Ireduce_scatter, P, A, rs)
#undef P
#undef A

#define P(CT, AT)                                                                                  \
    const void *sendbuf, void *recvbuf, CT recvcount, MPI_Datatype datatype, MPI_Op op,            \
        MPI_Comm comm
#define A sendbuf, recvbuf, recvcount, datatype, op, comm
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c
#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init
#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c
COLL_API(Reduce_scatter_block, Ireduce_scatter_block, P, A, rsb)
