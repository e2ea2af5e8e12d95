/* MPI_Neighbor_allgather(v) and MPI_Neighbor_alltoall(v, w), with their
 * non-blocking and persistent forms and big counts. Per-neighbour arrays
 * have indegree (receive side) or outdegree (send side) entries, so they
 * are converted here rather than by the communicator-sized helpers of
 * coll_api.c. MPI_IN_PLACE has no meaning for these collectives. */
#include "coll_api.h"
#include "coll_neighbor.h"

#include <stdlib.h>

/* Converted arrays, freed once the schedule is built. */
struct nbr_mem {
    void *p[6];
    int n;
};

static void nbr_free(struct nbr_mem *m)
{
    while (m->n)
        free(m->p[--m->n]);
}

static void *nbr_alloc(struct nbr_mem *m, int n, size_t size)
{
    void *p = malloc((size_t)(n ? n : 1) * size);

    if (p)
        m->p[m->n++] = p;
    return p;
}

static int begin(struct coll_call *call, MPI_Comm comm, enum coll_mode mode, MPI_Request *req,
                 const char *fn, struct nbr_mem *m)
{
    int err;

    m->n = 0;
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

static int oom(const struct coll_call *call)
{
    return rdmpi_err_comm(call->comm, MPI_ERR_NO_MEM, call->fn, "out of memory");
}

/* n counts from v (int) or vc (big), validated, in big form. */
static int counts(const struct coll_call *call, struct nbr_mem *m, int n, const int *v,
                  const MPI_Count *vc, const char *what, const MPI_Count **out)
{
    MPI_Count *o;

    if (RT_UNLIKELY(n && !v && !vc))
        return rdmpi_err_comm(call->comm, MPI_ERR_ARG, call->fn,
                              "%s is NULL; pass an array of %d counts (one per neighbour)", what,
                              n);
    if (!(o = nbr_alloc(m, n, sizeof(*o))))
        return oom(call);
    for (int i = 0; i < n; i++) {
        o[i] = vc ? vc[i] : v[i];
        if (RT_UNLIKELY(o[i] < 0))
            return rdmpi_err_comm(call->comm, MPI_ERR_COUNT, call->fn,
                                  "%s[%d] is %lld; counts must be >= 0", what, i, (long long)o[i]);
    }
    *out = o;
    return MPI_SUCCESS;
}

static int displs(const struct coll_call *call, struct nbr_mem *m, int n, const int *v,
                  const MPI_Aint *vc, const char *what, const MPI_Aint **out)
{
    MPI_Aint *o;

    if (RT_UNLIKELY(n && !v && !vc))
        return rdmpi_err_comm(call->comm, MPI_ERR_ARG, call->fn,
                              "%s is NULL; pass an array of %d displacements (one per "
                              "neighbour)",
                              what, n);
    if (vc) {
        *out = vc;
        return MPI_SUCCESS;
    }
    if (!(o = nbr_alloc(m, n, sizeof(*o))))
        return oom(call);
    for (int i = 0; i < n; i++)
        o[i] = v[i];
    *out = o;
    return MPI_SUCCESS;
}

static int types(const struct coll_call *call, struct nbr_mem *m, int n, const MPI_Datatype *v,
                 const char *what, struct rdmpi_datatype *const **out)
{
    struct rdmpi_datatype **o;
    int err;

    if (RT_UNLIKELY(n && !v))
        return rdmpi_err_comm(call->comm, MPI_ERR_ARG, call->fn,
                              "%s is NULL; pass an array of %d datatypes (one per neighbour)", what,
                              n);
    if (!(o = nbr_alloc(m, n, sizeof(*o))))
        return oom(call);
    for (int i = 0; i < n; i++)
        if (RT_UNLIKELY((err = coll_check_type(call, v[i], &o[i]))))
            return err;
    *out = o;
    return MPI_SUCCESS;
}

/* Builds and runs or posts, then frees the converted arrays. */
static int execute(struct coll_call *call, coll_build_fn build, const struct coll_args *a,
                   struct nbr_mem *m)
{
    int err = coll_execute(call, build, a);

    nbr_free(m);
    return err;
}

static int fail(struct nbr_mem *m, int err)
{
    nbr_free(m);
    return err;
}

static int allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool big,
                     MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct nbr_mem m;
    int err;

    (void)big;
    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.scount = (size_t)sendcount;
    a.rbuf = recvbuf;
    a.rcount = (size_t)recvcount;
    if ((err = begin(&call, comm, mode, req, fn, &m)) || (err = no_inplace(&call, sendbuf)) ||
        (err = coll_check_buf(&call, sendbuf, sendcount, sendtype, &a.sdt)) ||
        (err = coll_check_buf(&call, recvbuf, recvcount, recvtype, &a.rdt)))
        return err;
    return execute(&call, coll_neighbor_allgather, &a, &m);
}

static int allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const void *recvcounts, const void *rdispls,
                      MPI_Datatype recvtype, MPI_Comm comm, bool big, MPI_Request *req,
                      enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct nbr_mem m;
    int err, in;

    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.scount = (size_t)sendcount;
    a.rbuf = recvbuf;
    if ((err = begin(&call, comm, mode, req, fn, &m)) || (err = no_inplace(&call, sendbuf)) ||
        (err = coll_check_buf(&call, sendbuf, sendcount, sendtype, &a.sdt)) ||
        (err = coll_check_type(&call, recvtype, &a.rdt)))
        return err;
    in = call.c->topo->indegree;
    if ((err = counts(&call, &m, in, big ? NULL : recvcounts, big ? recvcounts : NULL, "recvcounts",
                      &a.rcounts)) ||
        (err = displs(&call, &m, in, big ? NULL : rdispls, big ? rdispls : NULL, "displs",
                      &a.rdispls)))
        return fail(&m, err);
    return execute(&call, coll_neighbor_allgather, &a, &m);
}

static int alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool big,
                    MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct nbr_mem m;
    int err;

    (void)big;
    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.scount = (size_t)sendcount;
    a.rbuf = recvbuf;
    a.rcount = (size_t)recvcount;
    if ((err = begin(&call, comm, mode, req, fn, &m)) || (err = no_inplace(&call, sendbuf)) ||
        (err = coll_check_buf(&call, sendbuf, sendcount, sendtype, &a.sdt)) ||
        (err = coll_check_buf(&call, recvbuf, recvcount, recvtype, &a.rdt)))
        return err;
    return execute(&call, coll_neighbor_alltoall, &a, &m);
}

static int alltoallv(const void *sendbuf, const void *sendcounts, const void *sdispls,
                     MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
                     const void *rdispls, MPI_Datatype recvtype, MPI_Comm comm, bool big,
                     MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct nbr_mem m;
    int err, in, out;

    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.rbuf = recvbuf;
    if ((err = begin(&call, comm, mode, req, fn, &m)) || (err = no_inplace(&call, sendbuf)) ||
        (err = coll_check_type(&call, sendtype, &a.sdt)) ||
        (err = coll_check_type(&call, recvtype, &a.rdt)))
        return err;
    in = call.c->topo->indegree;
    out = call.c->topo->outdegree;
    if ((err = counts(&call, &m, out, big ? NULL : sendcounts, big ? sendcounts : NULL,
                      "sendcounts", &a.scounts)) ||
        (err = displs(&call, &m, out, big ? NULL : sdispls, big ? sdispls : NULL, "sdispls",
                      &a.sdispls)) ||
        (err = counts(&call, &m, in, big ? NULL : recvcounts, big ? recvcounts : NULL, "recvcounts",
                      &a.rcounts)) ||
        (err = displs(&call, &m, in, big ? NULL : rdispls, big ? rdispls : NULL, "rdispls",
                      &a.rdispls)))
        return fail(&m, err);
    return execute(&call, coll_neighbor_alltoall, &a, &m);
}

/* Displacements are bytes (MPI_Aint) in both count forms. */
static int alltoallw(const void *sendbuf, const void *sendcounts, const MPI_Aint *sdispls,
                     const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
                     const MPI_Aint *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm,
                     bool big, MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct nbr_mem m;
    int err, in, out;

    coll_args_init(&a);
    a.sbuf = sendbuf;
    a.rbuf = recvbuf;
    if ((err = begin(&call, comm, mode, req, fn, &m)) || (err = no_inplace(&call, sendbuf)))
        return err;
    in = call.c->topo->indegree;
    out = call.c->topo->outdegree;
    if ((err = types(&call, &m, out, sendtypes, "sendtypes", &a.sdts)) ||
        (err = counts(&call, &m, out, big ? NULL : sendcounts, big ? sendcounts : NULL,
                      "sendcounts", &a.scounts)) ||
        (err = displs(&call, &m, out, NULL, sdispls, "sdispls", &a.sdispls)) ||
        (err = types(&call, &m, in, recvtypes, "recvtypes", &a.rdts)) ||
        (err = counts(&call, &m, in, big ? NULL : recvcounts, big ? recvcounts : NULL, "recvcounts",
                      &a.rcounts)) ||
        (err = displs(&call, &m, in, NULL, rdispls, "rdispls", &a.rdispls)))
        return fail(&m, err);
    return execute(&call, coll_neighbor_alltoall, &a, &m);
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
