/* MPI_Bcast on an intercommunicator: the root (MPI_ROOT) sends to rank 0
 * of the other group, which broadcasts down a binomial tree in its group;
 * the root's group mates (MPI_PROC_NULL) do nothing. */
#include "coll_inter.h"

static void build(struct coll_sched *s, const struct coll_args *a)
{
    if (a->root == MPI_PROC_NULL || !coll_bytes(a->rcount, a->rdt))
        return;
    if (a->root == MPI_ROOT) {
        coll_send(s, a->rbuf, a->rcount, a->rdt, 0);
        coll_fence(s);
        return;
    }
    if (s->rank == 0) {
        coll_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
        coll_fence(s);
    }
    coll_inter_bcast_blocks(s, a, 1);
}

int coll_inter_bcast(struct coll_call *call, void *buf, MPI_Count count, MPI_Datatype datatype,
                     int root)
{
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.root = root;
    if (RT_UNLIKELY(err = coll_inter_check_root(call, root)))
        return err;
    if (root != MPI_PROC_NULL) {
        if (RT_UNLIKELY((err = coll_inter_no_inplace(call, buf, "buffer")) ||
                        (err = coll_check_buf(call, buf, count, datatype, &a.rdt))))
            return err;
        a.rbuf = buf;
        a.rcount = (size_t)count;
    }
    return coll_execute(call, build, &a);
}
