/* The communicator services: what building communicators and topologies
 * needs from the pml and from coll, called through a table the layers fill
 * at connect and empty at finalize, so the runtime names neither. */
#include "comm.h"
#include "log.h"
#include "mpit.h"

#include <errno.h>

static struct rt_comm_services svc;

/* Every entry of the table, for adding, removing and counting. */
#define SVC_ENTRIES(X) X(sendrecv) X(allgather) X(alltoall) X(alltoallv)

int rt_comm_services_add(const struct rt_comm_services *s)
{
#define CLASH(f)                                                                                   \
    if (s->f && svc.f)                                                                             \
        return -EEXIST;
#define TAKE(f)                                                                                    \
    if (s->f)                                                                                      \
        svc.f = s->f;
    SVC_ENTRIES(CLASH)
    SVC_ENTRIES(TAKE)
    return 0;
}

void rt_comm_services_remove(const struct rt_comm_services *s)
{
#define DROP(f)                                                                                    \
    if (s->f && svc.f == s->f)                                                                     \
        svc.f = NULL;
    SVC_ENTRIES(DROP)
}

/* 0 whenever the layers are down, and the same after every start-up
 * however many cycles ran (tests). */
static uint64_t read_nservices(const struct rt_pvar *v)
{
    uint64_t n = 0;

    (void)v;
#define COUNT(f) n += svc.f != NULL;
    SVC_ENTRIES(COUNT)
    return n;
}
RT_PVAR(pv_services, "rdmpi_comm_services", "rdmpi_runtime", MPI_T_PVAR_CLASS_LEVEL, read_nservices,
        0,
        "Communicator services the layers provide now (exchange, allgather, alltoall, "
        "alltoallv while up; 0 otherwise)")

static int missing(const char *what)
{
    rt_warn("communicator construction needs %s, which no layer provides now "
            "(the library is not initialised)",
            what);
    return MPI_ERR_INTERN;
}

int rt_comm_sendrecv(struct rdmpi_comm *c, const void *sbuf, size_t slen, int dst, void *rbuf,
                     size_t rlen, int src, int tag)
{
    if (RT_UNLIKELY(!svc.sendrecv))
        return missing("a point-to-point exchange");
    return svc.sendrecv(c, sbuf, slen, dst, rbuf, rlen, src, tag);
}

int rt_comm_allgather(struct rdmpi_comm *c, const void *sbuf, int scount, MPI_Datatype sdt,
                      void *rbuf, int rcount, MPI_Datatype rdt)
{
    if (RT_UNLIKELY(!svc.allgather))
        return missing("an allgather");
    return svc.allgather(c, sbuf, scount, sdt, rbuf, rcount, rdt);
}

int rt_comm_alltoall(struct rdmpi_comm *c, const void *sbuf, int scount, MPI_Datatype sdt,
                     void *rbuf, int rcount, MPI_Datatype rdt)
{
    if (RT_UNLIKELY(!svc.alltoall))
        return missing("an alltoall");
    return svc.alltoall(c, sbuf, scount, sdt, rbuf, rcount, rdt);
}

int rt_comm_alltoallv(struct rdmpi_comm *c, const void *sbuf, const int *scounts,
                      const int *sdispls, MPI_Datatype sdt, void *rbuf, const int *rcounts,
                      const int *rdispls, MPI_Datatype rdt)
{
    if (RT_UNLIKELY(!svc.alltoallv))
        return missing("an alltoallv");
    return svc.alltoallv(c, sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt);
}
