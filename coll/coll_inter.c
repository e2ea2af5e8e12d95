/* Intercommunicator collectives: argument rules and the local-group
 * phases the builders share. */
#include "coll_inter.h"

int coll_inter_check_root(const struct coll_call *call, int root)
{
    int n = call->c->remote_size;

    if (RT_LIKELY(root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < n)))
        return MPI_SUCCESS;
    return rdmpi_err_comm(call->comm, MPI_ERR_ROOT, call->fn,
                          "root is %d on an intercommunicator; pass MPI_ROOT at the root, "
                          "MPI_PROC_NULL at the other ranks of its group, and the root's rank "
                          "in the remote group (0..%d) in the other group",
                          root, n - 1);
}

int coll_inter_no_inplace(const struct coll_call *call, const void *buf, const char *what)
{
    if (RT_LIKELY(buf != MPI_IN_PLACE))
        return MPI_SUCCESS;
    return rdmpi_err_comm(call->comm, MPI_ERR_BUFFER, call->fn,
                          "%s is MPI_IN_PLACE, which intercommunicators do not allow; pass a "
                          "separate buffer",
                          what);
}

int coll_inter_invalid(const struct coll_call *call)
{
    return rdmpi_err_comm(call->comm, MPI_ERR_COMM, call->fn,
                          "comm is an intercommunicator, where this collective is not defined; "
                          "use an intracommunicator (MPI_Intercomm_merge gives one over both "
                          "groups)");
}

void coll_inter_fanin(struct coll_sched *s)
{
    int n = s->size, v = s->rank, mask = 1;

    coll_on_local(s, true);
    for (; mask < n && !(v & mask); mask <<= 1)
        if (v + mask < n)
            coll_recv(s, NULL, 0, coll_byte, v + mask);
    coll_fence(s);
    if (v)
        coll_send(s, NULL, 0, coll_byte, v - mask);
    coll_fence(s);
    coll_on_local(s, false);
}

void coll_inter_fanout(struct coll_sched *s)
{
    struct coll_args a;

    coll_args_init(&a);
    a.rdt = coll_byte;
    coll_on_local(s, true);
    coll_bcast_binomial(s, &a);
    coll_on_local(s, false);
}

static void move(struct coll_sched *s, void *p, size_t cnt, struct rdmpi_datatype *dt, int peer,
                 bool send)
{
    if (!coll_bytes(cnt, dt))
        return;
    if (send)
        coll_send(s, p, cnt, dt, peer);
    else
        coll_recv(s, p, cnt, dt, peer);
}

/* Sends or receives the blocks of a's receive side to or from peer. */
static void blocks(struct coll_sched *s, const struct coll_args *a, int nblocks, int peer,
                   bool send)
{
    struct rdmpi_datatype *dt;
    size_t cnt;
    void *p;

    if (!a->rcounts) {
        move(s, a->rbuf, (size_t)nblocks * a->rcount, a->rdt, peer, send);
        return;
    }
    for (int i = 0; i < nblocks; i++) {
        coll_rblock(a, i, &p, &cnt, &dt);
        move(s, p, cnt, dt, peer, send);
    }
}

/* The tree of coll_bcast_binomial, rooted at 0, moving all blocks on each
 * edge in one round. */
void coll_inter_bcast_blocks(struct coll_sched *s, const struct coll_args *a, int nblocks)
{
    int n = s->size, v = s->rank, mask = 1;

    if (n == 1)
        return;
    coll_on_local(s, true);
    while (mask < n && !(v & mask))
        mask <<= 1;
    if (v) {
        blocks(s, a, nblocks, v - mask, false);
        coll_fence(s);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            blocks(s, a, nblocks, v + mask, true);
    coll_fence(s);
    coll_on_local(s, false);
}

const void *coll_inter_reduce_local_group(struct coll_sched *s, const void *sbuf, size_t count,
                                          struct rdmpi_datatype *dt)
{
    struct coll_args a;

    if (s->size == 1)
        return sbuf;
    coll_args_init(&a);
    a.sbuf = sbuf;
    a.rcount = count;
    a.rdt = dt;
    a.rbuf = s->rank == 0 ? coll_tmp(s, count, dt) : NULL;
    coll_on_local(s, true);
    coll_reduce_binomial(s, &a);
    coll_on_local(s, false);
    return a.rbuf;
}
