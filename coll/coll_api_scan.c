/* MPI_Scan and MPI_Exscan, with their non-blocking and persistent forms.
 * MPI_IN_PLACE: the input is in recvbuf. Exscan leaves rank 0's recvbuf
 * untouched, as the standard leaves it undefined. */
#include "coll_api.h"

RT_PARAM(p_algo, "COLL_SCAN_ALGORITHM", RT_PARAM_STRING, "auto",
         "Scan algorithm: auto, recursive_doubling or linear")
RT_PARAM(p_ealgo, "COLL_EXSCAN_ALGORITHM", RT_PARAM_STRING, "auto",
         "Exscan algorithm: auto, recursive_doubling or linear")

static const struct coll_algo algos[] = {
    {"recursive_doubling", coll_scan_recursive_doubling, NULL},
    {"linear", coll_scan_linear, NULL},
    {NULL, NULL, NULL},
};
static const struct coll_algo ealgos[] = {
    {"recursive_doubling", coll_exscan_recursive_doubling, NULL},
    {"linear", coll_exscan_linear, NULL},
    {NULL, NULL, NULL},
};
static struct coll_choice choice = {&p_algo, algos, -2};
static struct coll_choice echoice = {&p_ealgo, ealgos, -2};

static void build(struct coll_sched *s, const struct coll_args *a)
{
    if (a->rcount)
        coll_choose(&choice, s, a, 0)(s, a);
}

static void ebuild(struct coll_sched *s, const struct coll_args *a)
{
    if (a->rcount)
        coll_choose(&echoice, s, a, 0)(s, a);
}

static int scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, bool big, MPI_Request *req, enum coll_mode mode,
                const char *fn, coll_build_fn b)
{
    struct coll_call call;
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.rbuf = recvbuf;
    a.rcount = (size_t)count;
    a.sbuf = sendbuf;
    (void)big;
    if (RT_UNLIKELY((err = coll_begin(&call, comm, mode, req, fn))))
        return err;
    if (RT_UNLIKELY(call.c->inter))
        return coll_inter_invalid(&call);
    if (RT_UNLIKELY((err = coll_check_buf(&call, recvbuf, count, datatype, &a.rdt))))
        return err;
    if (sendbuf == MPI_IN_PLACE)
        a.inplace = true;
    else if (RT_UNLIKELY((err = coll_check_buf(&call, sendbuf, count, datatype, &a.rdt)) ||
                         (err = coll_check_alias(&call, sendbuf, a.rcount, a.rdt, recvbuf, a.rcount,
                                                 a.rdt))))
        return err;
    if (RT_UNLIKELY((err = coll_check_op(&call, op, a.rdt))))
        return err;
    return coll_execute(&call, b, &a);
}

static int iscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, bool big, MPI_Request *req, enum coll_mode mode,
                 const char *fn)
{
    return scan(sendbuf, recvbuf, count, datatype, op, comm, big, req, mode, fn, build);
}

static int exscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, bool big, MPI_Request *req, enum coll_mode mode,
                  const char *fn)
{
    return scan(sendbuf, recvbuf, count, datatype, op, comm, big, req, mode, fn, ebuild);
}

#define P(CT, AT)                                                                                  \
    const void *sendbuf, void *recvbuf, CT count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm
#define A sendbuf, recvbuf, count, datatype, op, comm
#pragma weak MPI_Scan = PMPI_Scan
#pragma weak MPI_Scan_c = PMPI_Scan_c
#pragma weak MPI_Iscan = PMPI_Iscan
#pragma weak MPI_Iscan_c = PMPI_Iscan_c
#pragma weak MPI_Scan_init = PMPI_Scan_init
#pragma weak MPI_Scan_init_c = PMPI_Scan_init_c
COLL_API(Scan, Iscan, P, A, iscan)
#pragma weak MPI_Exscan = PMPI_Exscan
#pragma weak MPI_Exscan_c = PMPI_Exscan_c
#pragma weak MPI_Iexscan = PMPI_Iexscan
#pragma weak MPI_Iexscan_c = PMPI_Iexscan_c
#pragma weak MPI_Exscan_init = PMPI_Exscan_init
#pragma weak MPI_Exscan_init_c = PMPI_Exscan_init_c
COLL_API(Exscan, Iexscan, P, A, exscan)
