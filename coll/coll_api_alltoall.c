/* MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw, with their non-blocking
 * and persistent forms. With MPI_IN_PLACE as sendbuf the receive arguments
 * describe both directions. */
#include "coll_api.h"

RT_PARAM(p_algo, "COLL_ALLTOALL_ALGORITHM", RT_PARAM_STRING, "auto",
         "Alltoall algorithm: auto, bruck, linear or pairwise")
RT_PARAM(p_bruck, "COLL_ALLTOALL_BRUCK", RT_PARAM_SIZE, "256",
         "Alltoalls with blocks of at most this many bytes on at least "
         "RDMPI_COLL_ALLTOALL_BRUCK_RANKS ranks use Bruck's algorithm (not when oversubscribed: "
         "its log2 n rounds then cost more than one round of n messages)")
RT_PARAM(p_bruck_ranks, "COLL_ALLTOALL_BRUCK_RANKS", RT_PARAM_INT, "16",
         "See RDMPI_COLL_ALLTOALL_BRUCK")
RT_PARAM(p_large, "COLL_ALLTOALL_LARGE", RT_PARAM_SIZE, "64k",
         "Alltoalls with blocks of at least this many bytes exchange pairwise, one peer per "
         "step, instead of posting every transfer at once (not when oversubscribed: a step "
         "waits for its peer to be scheduled)")
RT_PARAM(p_valgo, "COLL_ALLTOALLV_ALGORITHM", RT_PARAM_STRING, "auto",
         "Alltoallv algorithm: auto, linear or pairwise")
RT_PARAM(p_walgo, "COLL_ALLTOALLW_ALGORITHM", RT_PARAM_STRING, "auto",
         "Alltoallw algorithm: auto, linear or pairwise")
RT_PARAM(p_vranks, "COLL_ALLTOALLV_PAIRWISE_RANKS", RT_PARAM_INT, "16",
         "Alltoallv and alltoallw on at least this many ranks exchange pairwise; on fewer "
         "they post every transfer at once")

static bool regular(const struct coll_sched *s, const struct coll_args *a)
{
    (void)s;
    return !a->scounts && !a->inplace;
}

static bool not_inplace(const struct coll_sched *s, const struct coll_args *a)
{
    (void)s;
    return !a->inplace;
}

static bool inplace(const struct coll_sched *s, const struct coll_args *a)
{
    (void)s;
    return a->inplace;
}

enum { BRUCK, LINEAR, PAIRWISE, INPLACE };
static const struct coll_algo algos[] = {
    [BRUCK] = {"bruck", coll_alltoall_bruck, regular},
    [LINEAR] = {"linear", coll_alltoall_linear, not_inplace},
    [PAIRWISE] = {"pairwise", coll_alltoall_pairwise, not_inplace},
    [INPLACE] = {"inplace", coll_alltoall_inplace, inplace},
    {NULL, NULL, NULL},
};
enum { V_LINEAR, V_PAIRWISE, V_INPLACE };
static const struct coll_algo valgos[] = {
    [V_LINEAR] = {"linear", coll_alltoall_linear, not_inplace},
    [V_PAIRWISE] = {"pairwise", coll_alltoall_pairwise, not_inplace},
    [V_INPLACE] = {"inplace", coll_alltoall_inplace, inplace},
    {NULL, NULL, NULL},
};
static struct coll_choice choice = {&p_algo, algos, -2};
static struct coll_choice vchoice = {&p_valgo, valgos, -2};
static struct coll_choice wchoice = {&p_walgo, valgos, -2};
static size_t bruck = (size_t)-1, large = (size_t)-1;
static long bruck_ranks = -1, vranks = -1;

static void read_params(void)
{
    if (RT_UNLIKELY(vranks < 0)) {
        bruck_ranks = rt_param_int(&p_bruck_ranks);
        vranks = rt_param_int(&p_vranks);
    }
}

static void build(struct coll_sched *s, const struct coll_args *a)
{
    size_t bs = a->rcount * a->rdt->size;
    int pick = PAIRWISE;

    read_params();
    if (a->inplace)
        pick = INPLACE;
    else if (bs <= coll_size_param(&p_bruck, &bruck) && s->size >= bruck_ranks && !coll_oversub(s))
        pick = BRUCK;
    else if (bs < coll_threshold(s, &p_large, &large) || coll_oversub(s))
        pick = LINEAR;
    coll_choose(&choice, s, a, pick)(s, a);
}

/* v and w: counts differ by rank, so only the size of the communicator
 * may choose (every rank must pick the same algorithm). */
static int vpick(const struct coll_sched *s, const struct coll_args *a)
{
    read_params();
    return a->inplace ? V_INPLACE : s->size >= vranks ? V_PAIRWISE : V_LINEAR;
}

static void vbuild(struct coll_sched *s, const struct coll_args *a)
{
    coll_choose(&vchoice, s, a, vpick(s, a))(s, a);
}

static void wbuild(struct coll_sched *s, const struct coll_args *a)
{
    coll_choose(&wchoice, s, a, vpick(s, a))(s, a);
}

/* Blocking v and w forms on a shared segment (not in place: a block could
 * be overwritten before it is sent; every rank passes MPI_IN_PLACE or
 * none). */
static void shm_build(struct coll_sched *s, const struct coll_args *a)
{
    coll_shm_alltoallv(coll_comm(s->comm)->shm, s, a);
}

static int alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool big,
                    MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    int err;

    coll_args_init(&a);
    a.rbuf = recvbuf;
    a.rcount = (size_t)recvcount;
    (void)big;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_alltoall(&call, COLL_REGULAR, sendbuf, sendcount, NULL, NULL, sendtype,
                                   NULL, recvbuf, recvcount, NULL, NULL, recvtype, NULL, big);
    if (RT_UNLIKELY((err = coll_check_buf(&call, recvbuf, recvcount, recvtype, &a.rdt))))
        return err;
    if (sendbuf == MPI_IN_PLACE) {
        a.inplace = true;
    } else {
        a.sbuf = sendbuf;
        a.scount = (size_t)sendcount;
        if (RT_UNLIKELY(
                (err = coll_check_buf(&call, sendbuf, sendcount, sendtype, &a.sdt)) ||
                (err = coll_check_alias(&call, sendbuf, (size_t)call.c->size * a.scount, a.sdt,
                                        recvbuf, (size_t)call.c->size * a.rcount, a.rdt))))
            return err;
    }
    if (coll_nothing(&call, coll_bytes(a.rcount, a.rdt)))
        return MPI_SUCCESS;
    if ((shm = coll_shm_for(&call)) && coll_shm_allgather(shm, &a, true))
        return MPI_SUCCESS;
    return coll_execute(&call, build, &a);
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
    a.rbuf = recvbuf;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_alltoall(&call, COLL_V, sendbuf, 0, sendcounts, sdispls, sendtype, NULL,
                                   recvbuf, 0, recvcounts, rdispls, recvtype, NULL, big);
    if (RT_UNLIKELY((err = coll_check_type(&call, recvtype, &a.rdt))))
        return err;
    if (RT_UNLIKELY((err = coll_counts(&call, big ? NULL : recvcounts, big ? recvcounts : NULL,
                                       "recvcounts", &a.rcounts)) ||
                    (err = coll_displs(&call, big ? NULL : rdispls, big ? rdispls : NULL, "rdispls",
                                       &a.rdispls))))
        return coll_abort(&call, err);
    if (sendbuf == MPI_IN_PLACE) {
        a.inplace = true;
    } else {
        a.sbuf = sendbuf;
        if (RT_UNLIKELY((err = coll_check_type(&call, sendtype, &a.sdt)) ||
                        (err = coll_counts(&call, big ? NULL : sendcounts, big ? sendcounts : NULL,
                                           "sendcounts", &a.scounts)) ||
                        (err = coll_displs(&call, big ? NULL : sdispls, big ? sdispls : NULL,
                                           "sdispls", &a.sdispls)) ||
                        (err = coll_check_alias_blocks(&call, &a))))
            return coll_abort(&call, err);
    }
    if (!a.inplace && coll_shm_for(&call))
        return coll_execute(&call, shm_build, &a);
    return coll_execute(&call, vbuild, &a);
}

static int alltoallw(const void *sendbuf, const void *sendcounts, const void *sdispls,
                     const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
                     const void *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm, bool big,
                     MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.rbuf = recvbuf;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_alltoall(&call, COLL_W, sendbuf, 0, sendcounts, sdispls,
                                   MPI_DATATYPE_NULL, sendtypes, recvbuf, 0, recvcounts, rdispls,
                                   MPI_DATATYPE_NULL, recvtypes, big);
    if (RT_UNLIKELY((err = coll_types(&call, recvtypes, "recvtypes", &a.rdts)) ||
                    (err = coll_counts(&call, big ? NULL : recvcounts, big ? recvcounts : NULL,
                                       "recvcounts", &a.rcounts)) ||
                    (err = coll_displs(&call, big ? NULL : rdispls, big ? rdispls : NULL, "rdispls",
                                       &a.rdispls))))
        return coll_abort(&call, err);
    if (sendbuf == MPI_IN_PLACE) {
        a.inplace = true;
    } else {
        a.sbuf = sendbuf;
        if (RT_UNLIKELY((err = coll_types(&call, sendtypes, "sendtypes", &a.sdts)) ||
                        (err = coll_counts(&call, big ? NULL : sendcounts, big ? sendcounts : NULL,
                                           "sendcounts", &a.scounts)) ||
                        (err = coll_displs(&call, big ? NULL : sdispls, big ? sdispls : NULL,
                                           "sdispls", &a.sdispls)) ||
                        (err = coll_check_alias_blocks(&call, &a))))
            return coll_abort(&call, err);
    }
    if (!a.inplace && coll_shm_for(&call))
        return coll_execute(&call, shm_build, &a);
    return coll_execute(&call, wbuild, &a);
}

#define P(CT, AT)                                                                                  \
    const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, CT recvcount,         \
        MPI_Datatype recvtype, MPI_Comm comm
#define A sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
#pragma weak MPI_Alltoall = PMPI_Alltoall
#pragma weak MPI_Alltoall_c = PMPI_Alltoall_c
#pragma weak MPI_Ialltoall = PMPI_Ialltoall
#pragma weak MPI_Ialltoall_c = PMPI_Ialltoall_c
#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init
#pragma weak MPI_Alltoall_init_c = PMPI_Alltoall_init_c
COLL_API(Alltoall, Ialltoall, P, A, alltoall)
#undef P
#undef A

#define P(CT, AT)                                                                                  \
    const void *sendbuf, const CT *sendcounts, const AT *sdispls, MPI_Datatype sendtype,           \
        void *recvbuf, const CT *recvcounts, const AT *rdispls, MPI_Datatype recvtype,             \
        MPI_Comm comm
#define A sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
#pragma weak MPI_Alltoallv = PMPI_Alltoallv
#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c
#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init
#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c
COLL_API(Alltoallv, Ialltoallv, P, A, alltoallv)
#undef P
#undef A

#define P(CT, AT)                                                                                  \
    const void *sendbuf, const CT *sendcounts, const AT *sdispls, const MPI_Datatype *sendtypes,   \
        void *recvbuf, const CT *recvcounts, const AT *rdispls, const MPI_Datatype *recvtypes,     \
        MPI_Comm comm
#define A sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm
#pragma weak MPI_Alltoallw = PMPI_Alltoallw
#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c
#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init
#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c
COLL_API(Alltoallw, Ialltoallw, P, A, alltoallw)
