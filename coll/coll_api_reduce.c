/* MPI_Reduce and MPI_Allreduce, with their non-blocking and persistent
 * forms, and MPI_Reduce_local. */
#include "coll_api.h"

RT_PARAM(p_ralgo, "COLL_REDUCE_ALGORITHM", RT_PARAM_STRING, "auto",
         "Reduce algorithm: auto, binomial, chain or binary (the last two pipelined in "
         "segments)")
RT_PARAM(p_rpipe, "COLL_REDUCE_PIPELINE", RT_PARAM_SIZE, "8k",
         "Reduces of at least this many bytes on more than two ranks go up the pipelined "
         "binary tree instead of the binomial one")
RT_PARAM(p_rpipe2, "COLL_REDUCE_PIPELINE_TWO", RT_PARAM_SIZE, "256k",
         "Reduces of at least this many bytes on two ranks send the vector in segments "
         "(COLL_REDUCE_SEGMENT), folded as they arrive")
RT_PARAM(p_rwhole2, "COLL_REDUCE_WHOLE_TWO", RT_PARAM_SIZE, "512k",
         "Reduces of at least this many bytes on two ranks send the vector whole again (the "
         "pml's split rendezvous then copies it on both cores)")
RT_PARAM(p_algo, "COLL_ALLREDUCE_ALGORITHM", RT_PARAM_STRING, "auto",
         "Allreduce algorithm: auto, recursive_doubling, rabenseifner or ring (commutative "
         "ops only)")
RT_PARAM(p_large, "COLL_ALLREDUCE_LARGE", RT_PARAM_SIZE, "16k",
         "Allreduces of at least this many bytes on more than two ranks reduce-scatter then "
         "allgather (Rabenseifner on powers of two, else the ring for commutative ops) instead "
         "of exchanging whole vectors by recursive doubling")

enum { RBINOMIAL, RCHAIN, RBINARY };
static const struct coll_algo ralgos[] = {
    [RBINOMIAL] = {"binomial", coll_reduce_binomial, NULL},
    [RCHAIN] = {"chain", coll_reduce_chain, NULL},
    [RBINARY] = {"binary", coll_reduce_binary, NULL},
    {NULL, NULL, NULL},
};
static struct coll_choice rchoice = {&p_ralgo, ralgos, -2};
static size_t rpipe = (size_t)-1, rpipe2 = (size_t)-1, rwhole2 = (size_t)-1;

/* Measured (docs/coll.md): on more than two ranks the pipelined binary
 * tree takes in two children's segments per round and beat the binomial
 * tree from 8 KiB; on two ranks segments fold in cache, which won at
 * 256 KiB, while from 512 KiB the pml's split rendezvous (two cores
 * copying one whole message) wins. */
static int rpick(const struct coll_sched *s, size_t bytes)
{
    if (RT_UNLIKELY(rpipe == (size_t)-1)) {
        rpipe = rt_param_size(&p_rpipe);
        rpipe2 = rt_param_size(&p_rpipe2);
        rwhole2 = rt_param_size(&p_rwhole2);
    }
    if (s->size > 2)
        return bytes >= rpipe ? RBINARY : RBINOMIAL;
    return bytes >= rpipe2 && bytes < rwhole2 ? RCHAIN : RBINOMIAL;
}

static bool commutative(const struct coll_sched *s, const struct coll_args *a)
{
    (void)a;
    return s->op->commute;
}

enum { RECURSIVE_DOUBLING, RABENSEIFNER, RING };
static const struct coll_algo algos[] = {
    [RECURSIVE_DOUBLING] = {"recursive_doubling", coll_allreduce_recursive_doubling, NULL},
    [RABENSEIFNER] = {"rabenseifner", coll_allreduce_rabenseifner, NULL},
    [RING] = {"ring", coll_allreduce_ring, commutative},
    {NULL, NULL, NULL},
};
static struct coll_choice choice = {&p_algo, algos, -2};
static size_t large = (size_t)-1;

static void rbuild(struct coll_sched *s, const struct coll_args *a)
{
    if (a->rcount)
        coll_choose(&rchoice, s, a, rpick(s, a->rcount * a->rdt->size))(s, a);
}

static void build(struct coll_sched *s, const struct coll_args *a)
{
    size_t bytes = a->rcount * a->rdt->size;
    int n = s->size, p = coll_pow2_floor(n), pick = RECURSIVE_DOUBLING;

    if (!a->rcount)
        return;
    /* On two ranks Rabenseifner only halves the folding work, for a second
     * round trip: one exchange of whole vectors measured faster at every
     * size up to 1 MiB. */
    if (n > 2 && bytes >= coll_threshold(s, &p_large, &large) && a->rcount >= (size_t)n)
        pick = p != n && s->op->commute ? RING : RABENSEIFNER;
    coll_choose(&choice, s, a, pick)(s, a);
}

/* The send side: the buffer, or MPI_IN_PLACE where allowed. */
static int check_send(struct coll_call *call, struct coll_args *a, const void *sendbuf,
                      MPI_Count count, MPI_Datatype datatype, bool inplace_ok)
{
    if (sendbuf == MPI_IN_PLACE) {
        if (!inplace_ok)
            return rdmpi_err_comm(call->comm, MPI_ERR_BUFFER, call->fn,
                                  "only the root may pass MPI_IN_PLACE as sendbuf");
        a->inplace = true;
        return MPI_SUCCESS;
    }
    a->sbuf = sendbuf;
    return coll_check_buf(call, sendbuf, count, datatype, &a->rdt);
}

static int reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, bool big, MPI_Request *req,
                  enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    bool at_root;
    int err;

    coll_args_init(&a);
    a.rbuf = recvbuf;
    a.rcount = (size_t)count;
    a.root = root;
    (void)big;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_reduce(&call, sendbuf, recvbuf, count, datatype, op, root);
    if (RT_UNLIKELY((err = coll_check_root(&call, root))))
        return err;
    at_root = call.c->rank == root;
    if (RT_UNLIKELY((err = check_send(&call, &a, sendbuf, count, datatype, at_root))))
        return err;
    if (at_root &&
        RT_UNLIKELY((err = coll_check_buf(&call, recvbuf, count, datatype, &a.rdt)) ||
                    (!a.inplace && (err = coll_check_alias(&call, sendbuf, a.rcount, a.rdt, recvbuf,
                                                           a.rcount, a.rdt)))))
        return err;
    if (RT_UNLIKELY((err = coll_check_op(&call, op, a.rdt))))
        return err;
    if ((shm = coll_shm_for(&call)) &&
        coll_shm_reduce(shm, sendbuf, recvbuf, a.rcount, a.rdt, call.op, root))
        return MPI_SUCCESS;
    return coll_execute(&call, rbuild, &a);
}

static int allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, bool big, MPI_Request *req, enum coll_mode mode,
                     const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    int err;

    coll_args_init(&a);
    a.rbuf = recvbuf;
    a.rcount = (size_t)count;
    (void)big;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_allreduce(&call, sendbuf, recvbuf, count, datatype, op);
    if (RT_UNLIKELY((err = check_send(&call, &a, sendbuf, count, datatype, true)) ||
                    (err = coll_check_buf(&call, recvbuf, count, datatype, &a.rdt)) ||
                    (!a.inplace && (err = coll_check_alias(&call, sendbuf, a.rcount, a.rdt, recvbuf,
                                                           a.rcount, a.rdt))) ||
                    (err = coll_check_op(&call, op, a.rdt))))
        return err;
    if (coll_nothing(&call, coll_bytes(a.rcount, a.rdt)))
        return MPI_SUCCESS;
    if ((shm = coll_shm_for(&call))) {
        if (coll_shm_reduce(shm, sendbuf, recvbuf, a.rcount, a.rdt, call.op, -1))
            return MPI_SUCCESS;
        if (coll_shm_reduce_to_bcast(shm, sendbuf, recvbuf, a.rcount, a.rdt, call.op))
            return coll_bcast_messages(&call, recvbuf, a.rcount, a.rdt, 0);
    }
    return coll_execute(&call, build, &a);
}

#define P(CT, AT)                                                                                  \
    const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype, MPI_Op op, int root,      \
        MPI_Comm comm
#define A sendbuf, recvbuf, count, datatype, op, root, comm
#pragma weak MPI_Reduce = PMPI_Reduce
#pragma weak MPI_Reduce_c = PMPI_Reduce_c
#pragma weak MPI_Ireduce = PMPI_Ireduce
#pragma weak MPI_Ireduce_c = PMPI_Ireduce_c
#pragma weak MPI_Reduce_init = PMPI_Reduce_init
#pragma weak MPI_Reduce_init_c = PMPI_Reduce_init_c
COLL_API(Reduce, Ireduce, P, A, reduce)
#undef P
#undef A

#define P(CT, AT)                                                                                  \
    const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm
#define A sendbuf, recvbuf, count, datatype, op, comm
#pragma weak MPI_Allreduce = PMPI_Allreduce
#pragma weak MPI_Allreduce_c = PMPI_Allreduce_c
#pragma weak MPI_Iallreduce = PMPI_Iallreduce
#pragma weak MPI_Iallreduce_c = PMPI_Iallreduce_c
#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init
#pragma weak MPI_Allreduce_init_c = PMPI_Allreduce_init_c
COLL_API(Allreduce, Iallreduce, P, A, allreduce)

static int reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op, const char *fn)
{
    struct coll_call call;
    struct rdmpi_datatype *dt;
    int err;

    if (RT_UNLIKELY((err = coll_begin(&call, MPI_COMM_SELF, COLL_BLOCKING, NULL, fn))))
        return err;
    if (RT_UNLIKELY(inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_BUFFER, fn,
                              "MPI_IN_PLACE is not allowed here; pass both buffers");
    if (RT_UNLIKELY((err = coll_check_buf(&call, inbuf, count, datatype, &dt)) ||
                    (err = coll_check_buf(&call, inoutbuf, count, datatype, &dt)) ||
                    (err = coll_check_alias(&call, inbuf, (size_t)count, dt, inoutbuf,
                                            (size_t)count, dt)) ||
                    (err = coll_check_op(&call, op, dt))))
        return err;
    coll_op_apply(call.op, inbuf, inoutbuf, (size_t)count, dt);
    return MPI_SUCCESS;
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    RT_API_ENTER();
    return reduce_local(inbuf, inoutbuf, count, datatype, op, "MPI_Reduce_local");
}

#pragma weak MPI_Reduce_local_c = PMPI_Reduce_local_c
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    RT_API_ENTER();
    return reduce_local(inbuf, inoutbuf, count, datatype, op, "MPI_Reduce_local_c");
}
