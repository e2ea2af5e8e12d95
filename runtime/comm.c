#include "comm.h"

#include <stdio.h>
#include <string.h>

static struct rdmpi_comm comm_world, comm_self;
struct rdmpi_comm *rt_comm_predef[RT_COMM_NPREDEF] = {&comm_world, &comm_self};

static const int *self_world;

int rt_comm_init(void)
{
    static int self_rank;
    struct rdmpi_errhandler *fatal = rt_errh_get(MPI_ERRORS_ARE_FATAL);

    rt_group_init();
    comm_world.obj.kind = RT_KIND_COMM;
    comm_world.obj.findex = 0;
    comm_world.cid = 0;
    comm_world.rank = rt.rank;
    comm_world.size = rt.size;
    comm_world.remote_size = rt.size;
    comm_world.info = MPI_INFO_NULL;
    comm_world.errh = fatal;
    comm_world.handle = MPI_COMM_WORLD;
    snprintf(comm_world.name, sizeof(comm_world.name), "MPI_COMM_WORLD");

    self_rank = rt.rank;
    self_world = &self_rank;
    comm_self.obj.kind = RT_KIND_COMM;
    comm_self.obj.findex = 1;
    comm_self.cid = 1;
    comm_self.rank = 0;
    comm_self.size = 1;
    comm_self.world = self_world;
    comm_self.remote_size = 1;
    comm_self.remote_world = self_world;
    comm_self.info = MPI_INFO_NULL;
    comm_self.errh = fatal;
    comm_self.handle = MPI_COMM_SELF;
    snprintf(comm_self.name, sizeof(comm_self.name), "MPI_COMM_SELF");
    return 0;
}

void rt_comm_finalize(void)
{
    comm_world.obj.kind = 0;
    comm_self.obj.kind = 0;
}

struct rdmpi_comm *rt_comm_check(MPI_Comm comm, const char *func, int *err)
{
    struct rdmpi_comm *c = rt_comm_get(comm);

    if (RT_LIKELY(c != NULL))
        return c;
    if (comm == MPI_COMM_NULL)
        *err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_COMM, func,
                              "the communicator is MPI_COMM_NULL; pass a valid "
                              "communicator such as MPI_COMM_WORLD");
    else
        *err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_COMM, func,
                              "the communicator is not valid (freed, or not a "
                              "communicator handle)");
    return NULL;
}

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_rank";
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    if (!rank)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "rank is NULL; pass the address of an int");
    *rank = c->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_size";
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    if (!size)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "size is NULL; pass the address of an int");
    *size = c->size;
    return MPI_SUCCESS;
}

const char *rt_comm_describe(const struct rdmpi_comm *c, char *buf, size_t len)
{
    const char *kind = c->inter ? "intercommunicator" : "communicator";
    const char *s = c->size == 1 ? "" : "s";

    if (c->name[0])
        return c->name;
    if (c->from[0])
        snprintf(buf, len, "%s %s of %d rank%s, %s %s", c->inter ? "an" : "a", kind, c->size, s,
                 c->dup ? "dup of" : "derived from", c->from);
    else
        snprintf(buf, len, "an unnamed %s of %d rank%s", kind, c->size, s);
    return buf;
}
