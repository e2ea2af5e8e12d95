/* MPI_Gather and MPI_Gatherv, with their non-blocking and persistent
 * forms. Only the root's receive arguments matter, and only the root may
 * pass MPI_IN_PLACE (its block is then already in place). */
#include "coll_api.h"

RT_PARAM(p_algo, "COLL_GATHER_ALGORITHM", RT_PARAM_STRING, "auto",
         "Gather algorithm: auto, binomial or linear")
RT_PARAM(p_large, "COLL_GATHER_LARGE", RT_PARAM_SIZE, "1k",
         "Gathers whose blocks are at least this many bytes go straight to the root (linear) "
         "instead of up a binomial tree")

enum { BINOMIAL, LINEAR };
static const struct coll_algo algos[] = {
    [BINOMIAL] = {"binomial", coll_gather_binomial, NULL},
    [LINEAR] = {"linear", coll_gather_linear, NULL},
    {NULL, NULL, NULL},
};
static struct coll_choice choice = {&p_algo, algos, -2};
static size_t large = (size_t)-1;

static void build(struct coll_sched *s, const struct coll_args *a)
{
    size_t bs = s->rank == a->root ? a->rcount * a->rdt->size : a->scount * a->sdt->size;

    coll_choose(&choice, s, a, bs >= coll_size_param(&p_large, &large) ? LINEAR : BINOMIAL)(s, a);
}

/* Checks the send side (non-roots, and roots without MPI_IN_PLACE). */
static int check_send(struct coll_call *call, struct coll_args *a, const void *sendbuf,
                      MPI_Count sendcount, MPI_Datatype sendtype, int root)
{
    if (sendbuf == MPI_IN_PLACE) {
        if (call->c->rank != root)
            return rdmpi_err_comm(call->comm, MPI_ERR_BUFFER, call->fn,
                                  "only the root may pass MPI_IN_PLACE as sendbuf");
        a->inplace = true;
        return MPI_SUCCESS;
    }
    a->sbuf = sendbuf;
    a->scount = (size_t)sendcount;
    return coll_check_buf(call, sendbuf, sendcount, sendtype, &a->sdt);
}

static int gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, bool big,
                  MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    int err;

    coll_args_init(&a);
    a.rbuf = recvbuf;
    a.rcount = (size_t)recvcount;
    a.root = root;
    (void)big;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_gather(&call, COLL_REGULAR, sendbuf, sendcount, sendtype, recvbuf,
                                 recvcount, NULL, NULL, recvtype, root, big);
    if (RT_UNLIKELY((err = coll_check_root(&call, root)) ||
                    (err = check_send(&call, &a, sendbuf, sendcount, sendtype, root))))
        return err;
    if (call.c->rank == root) {
        if (RT_UNLIKELY((err = coll_check_buf(&call, recvbuf, recvcount, recvtype, &a.rdt))))
            return err;
        if (!a.inplace &&
            RT_UNLIKELY((err = coll_check_alias(&call, a.sbuf, a.scount, a.sdt, recvbuf,
                                                (size_t)call.c->size * a.rcount, a.rdt))))
            return err;
    } else {
        a.rdt = coll_byte;
        a.rcount = 0;
    }
    if ((shm = coll_shm_for(&call)) &&
        coll_shm_gather(shm, &a,
                        call.c->rank == root ? a.rcount * a.rdt->size : a.scount * a.sdt->size))
        return MPI_SUCCESS;
    return coll_execute(&call, build, &a);
}

static int gatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const void *recvcounts, const void *displs, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, bool big, MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    int err;

    coll_args_init(&a);
    a.rbuf = recvbuf;
    a.root = root;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_gather(&call, COLL_V, sendbuf, sendcount, sendtype, recvbuf, 0,
                                 recvcounts, displs, recvtype, root, big);
    if (RT_UNLIKELY((err = coll_check_root(&call, root)) ||
                    (err = check_send(&call, &a, sendbuf, sendcount, sendtype, root))))
        return err;
    if (call.c->rank == root &&
        RT_UNLIKELY((err = coll_check_type(&call, recvtype, &a.rdt)) ||
                    (err = coll_counts(&call, big ? NULL : recvcounts, big ? recvcounts : NULL,
                                       "recvcounts", &a.rcounts)) ||
                    (err = coll_displs(&call, big ? NULL : displs, big ? displs : NULL, "displs",
                                       &a.rdispls)) ||
                    (err = coll_check_alias_blocks(&call, &a))))
        return coll_abort(&call, err);
    /* coll_abort frees the arrays converted above. */
    if ((shm = coll_shm_for(&call)) && coll_shm_gatherv(shm, &a))
        return coll_abort(&call, MPI_SUCCESS);
    return coll_execute(&call, coll_gather_linear, &a);
}

#define P(CT, AT)                                                                                  \
    const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, CT recvcount,         \
        MPI_Datatype recvtype, int root, MPI_Comm comm
#define A sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
#pragma weak MPI_Gather = PMPI_Gather
#pragma weak MPI_Gather_c = PMPI_Gather_c
#pragma weak MPI_Igather = PMPI_Igather
#pragma weak MPI_Igather_c = PMPI_Igather_c
#pragma weak MPI_Gather_init = PMPI_Gather_init
#pragma weak MPI_Gather_init_c = PMPI_Gather_init_c
COLL_API(Gather, Igather, P, A, gather)
#undef P
#undef A

#define P(CT, AT)                                                                                  \
    const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, const CT *recvcounts, \
        const AT *displs, MPI_Datatype recvtype, int root, MPI_Comm comm
#define A sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm
#pragma weak MPI_Gatherv = PMPI_Gatherv
#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c
#pragma weak MPI_Igatherv = PMPI_Igatherv
#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c
#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init
#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c
COLL_API(Gatherv, Igatherv, P, A, gatherv)
