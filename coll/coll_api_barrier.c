/* MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init. */
#include "coll_api.h"

RT_PARAM(p_algo, "COLL_BARRIER_ALGORITHM", RT_PARAM_STRING, "auto",
         "Barrier algorithm: auto or dissemination")

static const struct coll_algo algos[] = {
    {"dissemination", coll_barrier_dissemination, NULL},
    {NULL, NULL, NULL},
};
static struct coll_choice choice = {&p_algo, algos, -2};

static void build(struct coll_sched *s, const struct coll_args *a)
{
    coll_choose(&choice, s, a, 0)(s, a);
}

static int barrier(MPI_Comm comm, MPI_Request *req, enum coll_mode mode, const char *fn)
{
    struct coll_call call;
    struct coll_args a;
    struct coll_shm *shm;
    int err;

    coll_args_init(&a);
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_barrier(&call);
    if ((shm = coll_shm_for(&call))) {
        coll_shm_barrier(shm);
        return MPI_SUCCESS;
    }
    return coll_execute(&call, build, &a);
}

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    RT_API_ENTER();
    return barrier(comm, NULL, COLL_BLOCKING, "MPI_Barrier");
}

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    RT_API_ENTER();
    return barrier(comm, request, COLL_NONBLOCKING, "MPI_Ibarrier");
}

#pragma weak MPI_Barrier_init = PMPI_Barrier_init
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RT_API_ENTER();
    (void)info;
    return barrier(comm, request, COLL_PERSISTENT, "MPI_Barrier_init");
}
