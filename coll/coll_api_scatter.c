/* MPI_Scatter and MPI_Scatterv, with their non-blocking and persistent
 * forms. Only the root's send arguments matter, and only the root may
 * pass MPI_IN_PLACE as recvbuf (its block then stays where it is). */
#include "coll_api.h"

RT_PARAM(p_algo, "COLL_SCATTER_ALGORITHM", RT_PARAM_STRING, "auto",
         "Scatter algorithm: auto, binomial or linear")
RT_PARAM(p_large, "COLL_SCATTER_LARGE", RT_PARAM_SIZE, "1k",
         "Scatters whose blocks are at least this many bytes go straight from the root "
         "(linear) instead of down a binomial tree")

enum { BINOMIAL, LINEAR };
static const struct coll_algo algos[] = {
    [BINOMIAL] = {"binomial", coll_scatter_binomial, NULL},
    [LINEAR] = {"linear", coll_scatter_linear, NULL},
    {NULL, NULL, NULL},
};
static struct coll_choice choice = {&p_algo, algos, -2};
static size_t large = (size_t)-1;

static void build(struct coll_sched *s, const struct coll_args *a)
{
    size_t bs = s->rank == a->root ? a->scount * a->sdt->size : a->rcount * a->rdt->size;

    coll_choose(&choice, s, a, bs >= coll_size_param(&p_large, &large) ? LINEAR : BINOMIAL)(s, a);
}

static int check_recv(struct coll_call *call, struct coll_args *a, void *recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, int root)
{
    if (recvbuf == MPI_IN_PLACE) {
        if (call->c->rank != root)
            return rdmpi_err_comm(call->comm, MPI_ERR_BUFFER, call->fn,
                                  "only the root may pass MPI_IN_PLACE as recvbuf");
        a->inplace = true;
        return MPI_SUCCESS;
    }
    a->rbuf = recvbuf;
    a->rcount = (size_t)recvcount;
    return coll_check_buf(call, recvbuf, recvcount, recvtype, &a->rdt);
}

static int scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, bool big,
                   MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    int err;

    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.scount = (size_t)sendcount;
    a.root = root;
    (void)big;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_scatter(&call, COLL_REGULAR, sendbuf, sendcount, NULL, NULL, sendtype,
                                  recvbuf, recvcount, recvtype, root, big);
    if (RT_UNLIKELY((err = coll_check_root(&call, root)) ||
                    (err = check_recv(&call, &a, recvbuf, recvcount, recvtype, root))))
        return err;
    if (call.c->rank == root) {
        if (RT_UNLIKELY((err = coll_check_buf(&call, sendbuf, sendcount, sendtype, &a.sdt))))
            return err;
        if (!a.inplace &&
            RT_UNLIKELY((err = coll_check_alias(&call, sendbuf, (size_t)call.c->size * a.scount,
                                                a.sdt, a.rbuf, a.rcount, a.rdt))))
            return err;
    } else {
        a.sdt = coll_byte;
        a.scount = 0;
    }
    if ((shm = coll_shm_for(&call)) &&
        coll_shm_scatter(shm, &a,
                         call.c->rank == root ? a.scount * a.sdt->size : a.rcount * a.rdt->size))
        return MPI_SUCCESS;
    return coll_execute(&call, build, &a);
}

static int scatterv(const void *sendbuf, const void *sendcounts, const void *displs,
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, bool big, MPI_Request *req,
                    enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    int err;

    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.root = root;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_scatter(&call, COLL_V, sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                                  recvcount, recvtype, root, big);
    if (RT_UNLIKELY((err = coll_check_root(&call, root)) ||
                    (err = check_recv(&call, &a, recvbuf, recvcount, recvtype, root))))
        return err;
    if (call.c->rank == root &&
        RT_UNLIKELY((err = coll_check_type(&call, sendtype, &a.sdt)) ||
                    (err = coll_counts(&call, big ? NULL : sendcounts, big ? sendcounts : NULL,
                                       "sendcounts", &a.scounts)) ||
                    (err = coll_displs(&call, big ? NULL : displs, big ? displs : NULL, "displs",
                                       &a.sdispls)) ||
                    (err = coll_check_alias_blocks(&call, &a))))
        return coll_abort(&call, err);
    /* coll_abort frees the arrays converted above. */
    if ((shm = coll_shm_for(&call)) && coll_shm_scatterv(shm, &a))
        return coll_abort(&call, MPI_SUCCESS);
    return coll_execute(&call, coll_scatter_linear, &a);
}

#define P(CT, AT)                                                                                  \
    const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, CT recvcount,         \
        MPI_Datatype recvtype, int root, MPI_Comm comm
#define A sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
#pragma weak MPI_Scatter = PMPI_Scatter
#pragma weak MPI_Scatter_c = PMPI_Scatter_c
#pragma weak MPI_Iscatter = PMPI_Iscatter
#pragma weak MPI_Iscatter_c = PMPI_Iscatter_c
#pragma weak MPI_Scatter_init = PMPI_Scatter_init
#pragma weak MPI_Scatter_init_c = PMPI_Scatter_init_c
COLL_API(Scatter, Iscatter, P, A, scatter)
#undef P
#undef A

#define P(CT, AT)                                                                                  \
    const void *sendbuf, const CT *sendcounts, const AT *displs, MPI_Datatype sendtype,            \
        void *recvbuf, CT recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm
#define A sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm
#pragma weak MPI_Scatterv = PMPI_Scatterv
#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c
#pragma weak MPI_Iscatterv = PMPI_Iscatterv
#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c
#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init
#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c
COLL_API(Scatterv, Iscatterv, P, A, scatterv)
