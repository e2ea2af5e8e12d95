/* MPI_Neighbor_allgather(v) and MPI_Neighbor_alltoall(v, w), with their
 * non-blocking and persistent forms and big counts. Per-neighbour arrays
 * have indegree (receive side) or outdegree (send side) entries.
 * MPI_IN_PLACE has no meaning for these collectives. */
#include "coll_api.h"
#include "coll_neighbor.h"

static int begin(struct coll_call *call, MPI_Comm comm, enum coll_mode mode, MPI_Request *req,
                 const char *fn)
{
    int err;

    if ((err = coll_begin(call, comm, mode, req, fn)))
        return err;
    if (RT_UNLIKELY(!call->c->topo))
        return rdmpi_err_comm(comm, MPI_ERR_TOPOLOGY, fn,
                              "the communicator has no topology; neighbourhood collectives "
                              "need one from MPI_Cart_create, MPI_Graph_create or "
                              "MPI_Dist_graph_create");
    return MPI_SUCCESS;
}

static int no_inplace(const struct coll_call *call, const void *sendbuf)
{
    if (RT_UNLIKELY(sendbuf == MPI_IN_PLACE))
        return rdmpi_err_comm(call->comm, MPI_ERR_BUFFER, call->fn,
                              "sendbuf is MPI_IN_PLACE, which neighbourhood collectives do not "
                              "allow; pass a separate send buffer");
    return MPI_SUCCESS;
}

/* Per-neighbour arrays of one side (n = its degree) through the shared
 * converters. With no neighbours on that side the array is never read, so
 * it may be NULL. */
static int side(struct coll_call *call, int n, const void *counts, const void *displs,
                const MPI_Datatype *types, bool big, bool wdispls, const char *cwhat,
                const char *dwhat, const char *twhat, const MPI_Count **oc, const MPI_Aint **od,
                struct rdmpi_datatype *const **ot)
{
    int err;

    if (!n)
        return MPI_SUCCESS;
    call->nblocks = n;
    if ((err = coll_counts(call, big ? NULL : counts, big ? counts : NULL, cwhat, oc)) ||
        (err = coll_displs(call, big || wdispls ? NULL : displs, big || wdispls ? displs : NULL,
                           dwhat, od)))
        return err;
    return twhat ? coll_types(call, types, twhat, ot) : MPI_SUCCESS;
}

/* Allgather and alltoall: the same count and type for every neighbour. */
static int fixed(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req,
                 enum coll_mode mode, const char *fn, coll_build_fn build)
{
    struct coll_call call;
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.scount = (size_t)sendcount;
    a.rbuf = recvbuf;
    a.rcount = (size_t)recvcount;
    if ((err = begin(&call, comm, mode, req, fn)) || (err = no_inplace(&call, sendbuf)) ||
        (err = coll_check_buf(&call, sendbuf, sendcount, sendtype, &a.sdt)) ||
        (err = coll_check_buf(&call, recvbuf, recvcount, recvtype, &a.rdt)))
        return err;
    return coll_execute(&call, build, &a);
}

static int allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool big,
                     MPI_Request *req, enum coll_mode mode, const char *fn)
{
    (void)big;
    return fixed(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req, mode, fn,
                 coll_neighbor_allgather);
}

static int allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const void *recvcounts, const void *displs,
                      MPI_Datatype recvtype, MPI_Comm comm, bool big, MPI_Request *req,
                      enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.scount = (size_t)sendcount;
    a.rbuf = recvbuf;
    if ((err = begin(&call, comm, mode, req, fn)) || (err = no_inplace(&call, sendbuf)) ||
        (err = coll_check_buf(&call, sendbuf, sendcount, sendtype, &a.sdt)) ||
        (err = coll_check_type(&call, recvtype, &a.rdt)))
        return err;
    if ((err = side(&call, coll_topo(call.c)->indegree, recvcounts, displs, NULL, big, false,
                    "recvcounts", "displs", NULL, &a.rcounts, &a.rdispls, NULL)))
        return coll_abort(&call, err);
    return coll_execute(&call, coll_neighbor_allgather, &a);
}

static int alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool big,
                    MPI_Request *req, enum coll_mode mode, const char *fn)
{
    (void)big;
    return fixed(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req, mode, fn,
                 coll_neighbor_alltoall);
}

static int alltoallv(const void *sendbuf, const void *sendcounts, const void *sdispls,
                     MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                     const void *rdispls, MPI_Datatype recvtype, MPI_Comm comm, bool big,
                     MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.rbuf = recvbuf;
    if ((err = begin(&call, comm, mode, req, fn)) || (err = no_inplace(&call, sendbuf)) ||
        (err = coll_check_type(&call, sendtype, &a.sdt)) ||
        (err = coll_check_type(&call, recvtype, &a.rdt)))
        return err;
    if ((err = side(&call, coll_topo(call.c)->outdegree, sendcounts, sdispls, NULL, big, false,
                    "sendcounts", "sdispls", NULL, &a.scounts, &a.sdispls, NULL)) ||
        (err = side(&call, coll_topo(call.c)->indegree, recvcounts, rdispls, NULL, big, false,
                    "recvcounts", "rdispls", NULL, &a.rcounts, &a.rdispls, NULL)))
        return coll_abort(&call, err);
    return coll_execute(&call, coll_neighbor_alltoall, &a);
}

/* Displacements are bytes (MPI_Aint) in both count forms. */
static int alltoallw(const void *sendbuf, const void *sendcounts, const MPI_Aint *sdispls,
                     const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
                     const MPI_Aint *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm,
                     bool big, MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.rbuf = recvbuf;
    if ((err = begin(&call, comm, mode, req, fn)) || (err = no_inplace(&call, sendbuf)))
        return err;
    if ((err = side(&call, coll_topo(call.c)->outdegree, sendcounts, sdispls, sendtypes, big, true,
                    "sendcounts", "sdispls", "sendtypes", &a.scounts, &a.sdispls, &a.sdts)) ||
        (err = side(&call, coll_topo(call.c)->indegree, recvcounts, rdispls, recvtypes, big, true,
                    "recvcounts", "rdispls", "recvtypes", &a.rcounts, &a.rdispls, &a.rdts)))
        return coll_abort(&call, err);
    return coll_execute(&call, coll_neighbor_alltoall, &a);
}

#define P(CT, AT)                                                                                  \
    const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, CT recvcount,         \
        MPI_Datatype recvtype, MPI_Comm comm
#define A sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
#pragma weak MPI_Neighbor_allgather_c = PMPI_Neighbor_allgather_c
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
#pragma weak MPI_Ineighbor_allgather_c = PMPI_Ineighbor_allgather_c
#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init
#pragma weak MPI_Neighbor_allgather_init_c = PMPI_Neighbor_allgather_init_c
COLL_API(Neighbor_allgather, Ineighbor_allgather, P, A, allgather)
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
#pragma weak MPI_Neighbor_alltoall_c = PMPI_Neighbor_alltoall_c
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
#pragma weak MPI_Ineighbor_alltoall_c = PMPI_Ineighbor_alltoall_c
#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init
#pragma weak MPI_Neighbor_alltoall_init_c = PMPI_Neighbor_alltoall_init_c
COLL_API(Neighbor_alltoall, Ineighbor_alltoall, P, A, alltoall)
#undef P
#undef A

#define P(CT, AT)                                                                                  \
    const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, const CT *recvcounts, \
        const AT *displs, MPI_Datatype recvtype, MPI_Comm comm
#define A sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c
#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init
#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c
COLL_API(Neighbor_allgatherv, Ineighbor_allgatherv, P, A, allgatherv)
#undef P
#undef A

#define P(CT, AT)                                                                                  \
    const void *sendbuf, const CT *sendcounts, const AT *sdispls, MPI_Datatype sendtype,           \
        void *recvbuf, const CT *recvcounts, const AT *rdispls, MPI_Datatype recvtype,             \
        MPI_Comm comm
#define A sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c
#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init
#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c
COLL_API(Neighbor_alltoallv, Ineighbor_alltoallv, P, A, alltoallv)
#undef P
#undef A

/* The w form's displacements are MPI_Aint in both count forms. */
#define P(CT, AT)                                                                                  \
    const void *sendbuf, const CT *sendcounts, const MPI_Aint *sdispls,                            \
        const MPI_Datatype *sendtypes, void *recvbuf, const CT *recvcounts,                        \
        const MPI_Aint *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm
#define A sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c
#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init
#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c
COLL_API(Neighbor_alltoallw, Ineighbor_alltoallw, P, A, alltoallw)
#undef P
#undef A
