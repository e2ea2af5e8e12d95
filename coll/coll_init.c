/* The layer's start-up: plug the progress source in, and agree across the
 * job on the facts that algorithm choices depend on. */
#include "coll_shm.h"

bool coll_oversubscribed;

/* One allreduce (MAX) of rt.oversubscribed over MPI_COMM_WORLD. */
static int agree_oversubscribed(void)
{
    int mine = rt.oversubscribed, all = 0, err;
    struct coll_sched s;
    struct coll_args a;

    coll_sched_init(&s, rt_comm_predef[0], "MPI_Init");
    s.op = coll_op_get(MPI_MAX);
    coll_args_init(&a);
    a.sbuf = &mine;
    a.rbuf = &all;
    a.rcount = 1;
    a.rdt = rt_dt_get(MPI_INT);
    coll_allreduce_recursive_doubling(&s, &a);
    err = coll_sched_run(&s);
    coll_sched_fini(&s);
    coll_oversubscribed = all;
    return err ? -1 : 0;
}

static int coll_connect(void)
{
    coll_byte = rt_dt_get(MPI_BYTE);
    return agree_oversubscribed();
}

static struct rt_layer coll_layer = {.name = "coll",
                                     .order = 20,
                                     .connect = coll_connect,
                                     .comm_init = coll_comm_init,
                                     .comm_fini = coll_comm_fini,
                                     .progress = coll_progress,
                                     .services = &coll_comm_services};

__attribute__((constructor)) static void coll_register(void)
{
    rt_layer_register(&coll_layer);
}
