/* Neighbourhood collectives as one round: every receive, then every send,
 * then a fence. MPI_PROC_NULL neighbours (edges of a non-periodic grid)
 * keep their buffer blocks but move no data.
 *
 * Which block meets which: all traffic of a run shares one tag, so
 * messages between two processes match in the order they are posted.
 * Graphs list their edges in a user-defined order and the k-th edge to a
 * process meets the k-th edge from it, which posting in list order gives.
 * A Cartesian grid pairs block s of the sender with block s^1 of the
 * receiver (MPI-4.1 §8.6: what a process sends to its +1 neighbour
 * arrives in that neighbour's -1 block); when both neighbours along a
 * dimension are one process (periodic extent 1 or 2), posting each
 * dimension's +1 block before its -1 block makes the peer's first receive
 * (its -1 block) meet our +1 block. */
#include "coll_neighbor.h"

static void recv_all(struct coll_sched *s, const struct coll_args *a, const struct rt_topo *t)
{
    struct rdmpi_datatype *dt;
    size_t n;
    void *p;

    for (int i = 0; i < t->indegree; i++) {
        if (t->in[i] == MPI_PROC_NULL)
            continue;
        coll_rblock(a, i, &p, &n, &dt);
        if (coll_bytes(n, dt))
            coll_recv(s, p, n, dt, t->in[i]);
    }
}

/* The block sent k-th. */
static int send_block(const struct rt_topo *t, int k)
{
    return t->kind == MPI_CART ? k ^ 1 : k;
}

void coll_neighbor_allgather(struct coll_sched *s, const struct coll_args *a)
{
    const struct rt_topo *t = coll_topo(s->comm);

    recv_all(s, a, t);
    if (coll_bytes(a->scount, a->sdt))
        for (int k = 0; k < t->outdegree; k++) {
            int to = t->out[send_block(t, k)];
            if (to != MPI_PROC_NULL)
                coll_send(s, a->sbuf, a->scount, a->sdt, to);
        }
    coll_fence(s);
}

void coll_neighbor_alltoall(struct coll_sched *s, const struct coll_args *a)
{
    const struct rt_topo *t = coll_topo(s->comm);
    struct rdmpi_datatype *dt;
    const void *p;
    size_t n;

    recv_all(s, a, t);
    for (int k = 0; k < t->outdegree; k++) {
        int j = send_block(t, k), to = t->out[j];

        if (to == MPI_PROC_NULL)
            continue;
        coll_sblock(a, j, &p, &n, &dt);
        if (coll_bytes(n, dt))
            coll_send(s, p, n, dt, to);
    }
    coll_fence(s);
}
