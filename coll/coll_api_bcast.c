/* MPI_Bcast and its non-blocking and persistent forms. */
#include "coll_api.h"

RT_PARAM(p_algo, "COLL_BCAST_ALGORITHM", RT_PARAM_STRING, "auto",
         "Broadcast algorithm: auto, binomial, scatter_allgather, chain, binary (those two "
         "pipelined in segments) or linear")
RT_PARAM(p_pipe, "COLL_BCAST_PIPELINE", RT_PARAM_SIZE, "128k",
         "Broadcasts of at least this many bytes on more than two ranks (with no more ranks "
         "than cores) go down the pipelined binary tree instead of the binomial one")
RT_PARAM(p_linear, "COLL_BCAST_LINEAR", RT_PARAM_SIZE, "8k",
         "With more ranks than cores, broadcasts of at least this many bytes are sent by the "
         "root to every rank at once (on up to COLL_BCAST_LINEAR_RANKS ranks; binomial "
         "beyond)")
RT_PARAM(p_linear_ranks, "COLL_BCAST_LINEAR_RANKS", RT_PARAM_INT, "8",
         "Largest communicator on which oversubscribed large broadcasts are flat")

enum { BINOMIAL, SCATTER_ALLGATHER, CHAIN, BINARY, LINEAR };
static const struct coll_algo algos[] = {
    [BINOMIAL] = {"binomial", coll_bcast_binomial, NULL},
    [SCATTER_ALLGATHER] = {"scatter_allgather", coll_bcast_scatter_allgather, NULL},
    [CHAIN] = {"chain", coll_bcast_chain, NULL},
    [BINARY] = {"binary", coll_bcast_binary, NULL},
    [LINEAR] = {"linear", coll_bcast_linear, NULL},
    {NULL, NULL, NULL},
};
static struct coll_choice choice = {&p_algo, algos, -2};
static size_t pipe = (size_t)-1, linear = (size_t)-1;
static long linear_ranks;

/* Measured with 4 and 8 ranks on 2 cores (docs/coll.md): every tree level
 * waits for its forwarding rank to be scheduled, so the flat broadcast
 * beat binomial, pipelined and scatter-allgather ones from 8 KiB on 4
 * ranks and tied with binomial on 8 up to 512 KiB, where small pipeline
 * segments lost (a round each); from 1 MiB to 16 MiB it took 0.5-0.8x
 * binomial's time on 4 and 8 ranks. With a core per rank
 * the pipelined binary tree keeps every level copying at once. Two ranks
 * exchange one message whatever the tree. */
static int pick(const struct coll_sched *s, size_t bytes)
{
    if (s->size == 2)
        return BINOMIAL;
    if (coll_oversub(s)) {
        if (RT_UNLIKELY(linear == (size_t)-1)) {
            linear = rt_param_size(&p_linear);
            linear_ranks = rt_param_int(&p_linear_ranks);
        }
        return bytes >= linear && s->size <= linear_ranks ? LINEAR : BINOMIAL;
    }
    if (RT_UNLIKELY(pipe == (size_t)-1))
        pipe = rt_param_size(&p_pipe);
    return bytes >= pipe ? BINARY : BINOMIAL;
}

static void build(struct coll_sched *s, const struct coll_args *a)
{
    size_t bytes = a->rcount * a->rdt->size;

    if (!bytes || s->size == 1)
        return;
    coll_choose(&choice, s, a, pick(s, bytes))(s, a);
}

int coll_bcast_messages(struct coll_call *call, void *buf, size_t count, struct rdmpi_datatype *dt,
                        int root)
{
    struct coll_args a;

    coll_args_init(&a);
    a.rbuf = buf;
    a.rcount = count;
    a.rdt = dt;
    a.root = root;
    return coll_execute(call, build, &a);
}

static int bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 bool big, MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    int err;

    coll_args_init(&a);
    a.rbuf = buffer;
    a.rcount = (size_t)count;
    a.root = root;
    (void)big;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_bcast(&call, buffer, count, datatype, root);
    if (RT_UNLIKELY((err = coll_check_root(&call, root))))
        return err;
    if (RT_UNLIKELY(buffer == MPI_IN_PLACE))
        return rdmpi_err_comm(comm, MPI_ERR_BUFFER, fn,
                              "MPI_IN_PLACE is not allowed here; pass the buffer");
    if (RT_UNLIKELY((err = coll_check_buf(&call, buffer, count, datatype, &a.rdt))))
        return err;
    if ((shm = coll_shm_for(&call)) && coll_shm_bcast(shm, buffer, a.rcount, a.rdt, root))
        return MPI_SUCCESS;
    return coll_execute(&call, build, &a);
}

#define P(CT, AT) void *buffer, CT count, MPI_Datatype datatype, int root, MPI_Comm comm
#define A         buffer, count, datatype, root, comm
#pragma weak MPI_Bcast = PMPI_Bcast
#pragma weak MPI_Bcast_c = PMPI_Bcast_c
#pragma weak MPI_Ibcast = PMPI_Ibcast
#pragma weak MPI_Ibcast_c = PMPI_Ibcast_c
#pragma weak MPI_Bcast_init = PMPI_Bcast_init
#pragma weak MPI_Bcast_init_c = PMPI_Bcast_init_c
COLL_API(Bcast, Ibcast, P, A, bcast)
