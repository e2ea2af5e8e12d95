/* MPI_Bcast and its non-blocking and persistent forms. */
#include "coll_api.h"

RT_PARAM(p_algo, "COLL_BCAST_ALGORITHM", RT_PARAM_STRING, "auto",
         "Broadcast algorithm: auto, binomial or scatter_allgather")
RT_PARAM(p_large, "COLL_BCAST_LARGE", RT_PARAM_SIZE, "256k",
         "Broadcasts of at least this many bytes on more than two ranks scatter the message "
         "and allgather it instead of sending it down a binomial tree")

enum { BINOMIAL, SCATTER_ALLGATHER };
static const struct coll_algo algos[] = {
    [BINOMIAL] = {"binomial", coll_bcast_binomial, NULL},
    [SCATTER_ALLGATHER] = {"scatter_allgather", coll_bcast_scatter_allgather, NULL},
    {NULL, NULL, NULL},
};
static struct coll_choice choice = {&p_algo, algos, -2};
static size_t large = (size_t)-1;

static void build(struct coll_sched *s, const struct coll_args *a)
{
    size_t bytes = a->rcount * a->rdt->size;

    if (!bytes || s->size == 1)
        return;
    coll_choose(&choice, s, a,
                bytes >= coll_threshold(&p_large, &large) && s->size > 2 ? SCATTER_ALLGATHER
                                                                          : BINOMIAL)(s, a);
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
