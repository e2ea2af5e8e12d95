/* Reductions on an intercommunicator: each group's data is reduced, in
 * rank order, to its leader (local rank 0) and the result crosses to the
 * other group. MPI_Reduce: to the root (MPI_ROOT) in the other group.
 * MPI_Allreduce: the leaders swap results, each broadcasts in its group,
 * so every rank gets the reduction of the other group's data.
 * MPI_Reduce_scatter(_block): the leaders swap the full reduced vectors,
 * each scatters the other group's in blocks of its group's recvcounts. */
#include "coll_inter.h"

static void build_reduce(struct coll_sched *s, const struct coll_args *a)
{
    const void *res;

    if (a->root == MPI_PROC_NULL || !a->rcount)
        return;
    if (a->root == MPI_ROOT) {
        coll_recv(s, a->rbuf, a->rcount, a->rdt, 0);
        coll_fence(s);
        return;
    }
    res = coll_inter_reduce_local_group(s, a->sbuf, a->rcount, a->rdt);
    if (s->rank == 0) {
        coll_send(s, res, a->rcount, a->rdt, a->root);
        coll_fence(s);
    }
}

static void build_allreduce(struct coll_sched *s, const struct coll_args *a)
{
    const void *res;

    if (!a->rcount)
        return;
    res = coll_inter_reduce_local_group(s, a->sbuf, a->rcount, a->rdt);
    if (s->rank == 0) {
        coll_recv(s, a->rbuf, a->rcount, a->rdt, 0);
        coll_send(s, res, a->rcount, a->rdt, 0);
        coll_fence(s);
    }
    coll_inter_bcast_blocks(s, a, 1);
}

static void build_reduce_scatter(struct coll_sched *s, const struct coll_args *a)
{
    size_t total = coll_sum(a->rcounts, s->size), off = 0;
    struct rdmpi_datatype *dt = a->rdt;
    const void *res;
    void *in;

    if (!total)
        return;
    res = coll_inter_reduce_local_group(s, a->sbuf, total, dt);
    if (s->rank) {
        coll_on_local(s, true);
        if (a->rcounts[s->rank])
            coll_recv(s, a->rbuf, (size_t)a->rcounts[s->rank], dt, 0);
        coll_fence(s);
        coll_on_local(s, false);
        return;
    }
    in = s->size == 1 ? a->rbuf : coll_tmp(s, total, dt);
    coll_recv(s, in, total, dt, 0);
    coll_send(s, res, total, dt, 0);
    coll_fence(s);
    coll_on_local(s, true);
    for (int i = 0; i < s->size; i++) {
        size_t cnt = (size_t)a->rcounts[i];
        if (!i)
            coll_copy(s, in, cnt, dt, a->rbuf, cnt, dt);
        else if (cnt)
            coll_send(s, coll_at(in, off, dt), cnt, dt, i);
        off += cnt;
    }
    coll_fence(s);
    coll_on_local(s, false);
}

int coll_inter_reduce(struct coll_call *call, const void *sbuf, void *rbuf, MPI_Count count,
                      MPI_Datatype datatype, MPI_Op op, int root)
{
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.root = root;
    a.rcount = (size_t)count;
    if (RT_UNLIKELY(err = coll_inter_check_root(call, root)))
        return err;
    if (root == MPI_ROOT) {
        a.rbuf = rbuf;
        if (RT_UNLIKELY((err = coll_inter_no_inplace(call, rbuf, "recvbuf")) ||
                        (err = coll_check_buf(call, rbuf, count, datatype, &a.rdt))))
            return err;
    } else if (root != MPI_PROC_NULL) {
        a.sbuf = sbuf;
        if (RT_UNLIKELY((err = coll_inter_no_inplace(call, sbuf, "sendbuf")) ||
                        (err = coll_check_buf(call, sbuf, count, datatype, &a.rdt)) ||
                        (err = coll_check_op(call, op, a.rdt))))
            return err;
    }
    return coll_execute(call, build_reduce, &a);
}

int coll_inter_allreduce(struct coll_call *call, const void *sbuf, void *rbuf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Op op)
{
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.sbuf = sbuf;
    a.rbuf = rbuf;
    a.rcount = (size_t)count;
    if (RT_UNLIKELY((err = coll_inter_no_inplace(call, sbuf, "sendbuf")) ||
                    (err = coll_check_buf(call, sbuf, count, datatype, &a.rdt)) ||
                    (err = coll_check_buf(call, rbuf, count, datatype, &a.rdt)) ||
                    (err = coll_check_alias(call, sbuf, a.rcount, a.rdt, rbuf, a.rcount, a.rdt)) ||
                    (err = coll_check_op(call, op, a.rdt))))
        return err;
    return coll_execute(call, build_allreduce, &a);
}

int coll_inter_reduce_scatter(struct coll_call *call, const void *sbuf, void *rbuf,
                              const void *counts, MPI_Count bcount, MPI_Datatype datatype,
                              MPI_Op op, bool big)
{
    struct coll_args a;
    size_t total, mine;
    int err;

    coll_args_init(&a);
    a.sbuf = sbuf;
    a.rbuf = rbuf;
    /* recvcounts describe the local group: it receives the result. */
    call->nblocks = call->c->size;
    if (RT_UNLIKELY((err = coll_check_type(call, datatype, &a.rdt))))
        return err;
    if (counts)
        err = coll_counts(call, big ? NULL : counts, big ? counts : NULL, "recvcounts", &a.rcounts);
    else if (RT_UNLIKELY(bcount < 0))
        err = rdmpi_err_comm(call->comm, MPI_ERR_COUNT, call->fn,
                             "recvcount is %lld; it must be >= 0", (long long)bcount);
    else
        err = coll_counts_same(call, bcount, &a.rcounts);
    if (RT_UNLIKELY(err))
        return coll_abort(call, err);
    total = coll_sum(a.rcounts, call->c->size);
    mine = (size_t)a.rcounts[call->c->rank];
    if (RT_UNLIKELY((err = coll_inter_no_inplace(call, sbuf, "sendbuf")) ||
                    (err = coll_check_buf(call, sbuf, (MPI_Count)total, datatype, &a.rdt)) ||
                    (err = coll_check_buf(call, rbuf, (MPI_Count)mine, datatype, &a.rdt)) ||
                    (err = coll_check_alias(call, sbuf, total, a.rdt, rbuf, mine, a.rdt)) ||
                    (err = coll_check_op(call, op, a.rdt))))
        return coll_abort(call, err);
    return coll_execute(call, build_reduce_scatter, &a);
}
