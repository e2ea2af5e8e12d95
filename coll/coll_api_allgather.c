/* MPI_Allgather and MPI_Allgatherv, with their non-blocking and
 * persistent forms. MPI_IN_PLACE as sendbuf: each rank's block is already
 * in its place in recvbuf. */
#include "coll_api.h"

RT_PARAM(p_algo, "COLL_ALLGATHER_ALGORITHM", RT_PARAM_STRING, "auto",
         "Allgather algorithm: auto, recursive_doubling (powers of two), bruck, ring or linear")
RT_PARAM(p_large, "COLL_ALLGATHER_LARGE", RT_PARAM_SIZE, "256k",
         "Allgathers of at least this many bytes in all use the ring; smaller ones recursive "
         "doubling (powers of two) or Bruck (when oversubscribed, linear at every size)")
RT_PARAM(p_valgo, "COLL_ALLGATHERV_ALGORITHM", RT_PARAM_STRING, "auto",
         "Allgatherv algorithm: auto, ring or linear")
RT_PARAM(p_vsmall, "COLL_ALLGATHERV_SMALL", RT_PARAM_SIZE, "16k",
         "Allgathervs of less than this many bytes in all post every transfer at once "
         "(linear) instead of using the ring")

static bool pow2(const struct coll_sched *s, const struct coll_args *a)
{
    (void)a;
    return !(s->size & (s->size - 1));
}

enum { RECURSIVE_DOUBLING, BRUCK, RING, LINEAR };
static const struct coll_algo algos[] = {
    [RECURSIVE_DOUBLING] = {"recursive_doubling", coll_allgather_recursive_doubling, pow2},
    [BRUCK] = {"bruck", coll_allgather_bruck, NULL},
    [RING] = {"ring", coll_allgather_ring, NULL},
    [LINEAR] = {"linear", coll_allgather_linear, NULL},
    {NULL, NULL, NULL},
};
static struct coll_choice choice = {&p_algo, algos, -2};
static size_t large = (size_t)-1;

enum { V_RING, V_LINEAR };
static const struct coll_algo valgos[] = {
    [V_RING] = {"ring", coll_allgather_ring, NULL},
    [V_LINEAR] = {"linear", coll_allgather_linear, NULL},
    {NULL, NULL, NULL},
};
static struct coll_choice vchoice = {&p_valgo, valgos, -2};
static size_t vsmall = (size_t)-1;

/* Oversubscribed, one round of everything at once (linear) beats the
 * log2 n rounds of recursive doubling or Bruck, and the n - 1 of the
 * ring: each round waits for peers to be scheduled, while with every
 * transfer posted a running rank copies for whichever are ready (4 ranks
 * on 2 cores, 256 KiB-1 MiB: 0.7-0.8x the ring's time). */
static void build(struct coll_sched *s, const struct coll_args *a)
{
    size_t total = (size_t)s->size * a->rcount * a->rdt->size;
    int pick = RING;

    if (coll_oversub(s))
        pick = LINEAR;
    else if (total < coll_threshold(s, &p_large, &large))
        pick = pow2(s, a) ? RECURSIVE_DOUBLING : BRUCK;
    coll_choose(&choice, s, a, pick)(s, a);
}

static void vbuild(struct coll_sched *s, const struct coll_args *a)
{
    size_t total = coll_sum(a->rcounts, s->size) * a->rdt->size;

    coll_choose(&vchoice, s, a,
                total < coll_threshold(s, &p_vsmall, &vsmall) ? V_LINEAR : V_RING)(s, a);
}

static int check_send(struct coll_call *call, struct coll_args *a, const void *sendbuf,
                      MPI_Count sendcount, MPI_Datatype sendtype)
{
    if (sendbuf == MPI_IN_PLACE) {
        a->inplace = true;
        return MPI_SUCCESS;
    }
    a->sbuf = sendbuf;
    a->scount = (size_t)sendcount;
    return coll_check_buf(call, sendbuf, sendcount, sendtype, &a->sdt);
}

static int allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
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
        return coll_inter_allgather(&call, COLL_REGULAR, sendbuf, sendcount, sendtype, recvbuf,
                                    recvcount, NULL, NULL, recvtype, big);
    if (RT_UNLIKELY((err = check_send(&call, &a, sendbuf, sendcount, sendtype)) ||
                    (err = coll_check_buf(&call, recvbuf, recvcount, recvtype, &a.rdt))))
        return err;
    if (!a.inplace && RT_UNLIKELY((err = coll_check_alias(&call, a.sbuf, a.scount, a.sdt, recvbuf,
                                                          (size_t)call.c->size * a.rcount, a.rdt))))
        return err;
    if (coll_nothing(&call, coll_bytes(a.rcount, a.rdt)))
        return MPI_SUCCESS;
    if ((shm = coll_shm_for(&call)) && coll_shm_allgather(shm, &a, false))
        return MPI_SUCCESS;
    return coll_execute(&call, build, &a);
}

static int allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const void *recvcounts, const void *displs,
                      MPI_Datatype recvtype, MPI_Comm comm, bool big, MPI_Request *req,
                      enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    int err;

    coll_args_init(&a);
    a.rbuf = recvbuf;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_allgather(&call, COLL_V, sendbuf, sendcount, sendtype, recvbuf, 0,
                                    recvcounts, displs, recvtype, big);
    if (RT_UNLIKELY((err = check_send(&call, &a, sendbuf, sendcount, sendtype)) ||
                    (err = coll_check_type(&call, recvtype, &a.rdt))))
        return err;
    if (RT_UNLIKELY((err = coll_counts(&call, big ? NULL : recvcounts, big ? recvcounts : NULL,
                                       "recvcounts", &a.rcounts)) ||
                    (err = coll_displs(&call, big ? NULL : displs, big ? displs : NULL, "displs",
                                       &a.rdispls)) ||
                    (err = coll_check_alias_blocks(&call, &a))))
        return coll_abort(&call, err);
    /* coll_abort frees the arrays converted above. */
    if ((shm = coll_shm_for(&call)) && coll_shm_allgatherv(shm, &a))
        return coll_abort(&call, MPI_SUCCESS);
    return coll_execute(&call, vbuild, &a);
}

#define P(CT, AT)                                                                                  \
    const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, CT recvcount,         \
        MPI_Datatype recvtype, MPI_Comm comm
#define A sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
#pragma weak MPI_Allgather = PMPI_Allgather
#pragma weak MPI_Allgather_c = PMPI_Allgather_c
#pragma weak MPI_Iallgather = PMPI_Iallgather
#pragma weak MPI_Iallgather_c = PMPI_Iallgather_c
#pragma weak MPI_Allgather_init = PMPI_Allgather_init
#pragma weak MPI_Allgather_init_c = PMPI_Allgather_init_c
COLL_API(Allgather, Iallgather, P, A, allgather)
#undef P
#undef A

#define P(CT, AT)                                                                                  \
    const void *sendbuf, CT sendcount, MPI_Datatype sendtype, void *recvbuf, const CT *recvcounts, \
        const AT *displs, MPI_Datatype recvtype, MPI_Comm comm
#define A sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c
#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init
#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c
COLL_API(Allgatherv, Iallgatherv, P, A, allgatherv)
