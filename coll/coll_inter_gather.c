/* Gathers on an intercommunicator. MPI_Gather(v): every rank of the
 * other group sends its block straight to the root (MPI_ROOT), which has
 * all receives posted at once. MPI_Allgather(v): every rank sends its
 * block to rank 0 of the other group, which broadcasts the blocks it
 * collected in its own group; so each rank gets the remote group's data. */
#include "coll_inter.h"

static void build_gather(struct coll_sched *s, const struct coll_args *a)
{
    if (a->root == MPI_PROC_NULL)
        return;
    if (a->root == MPI_ROOT) {
        for (int i = 0; i < coll_inter_rsize(s); i++) {
            struct rdmpi_datatype *dt;
            size_t cnt;
            void *p;

            coll_rblock(a, i, &p, &cnt, &dt);
            if (coll_bytes(cnt, dt))
                coll_recv(s, p, cnt, dt, i);
        }
    } else if (coll_bytes(a->scount, a->sdt)) {
        coll_send(s, a->sbuf, a->scount, a->sdt, a->root);
    }
    coll_fence(s);
}

static void build_allgather(struct coll_sched *s, const struct coll_args *a)
{
    int n = coll_inter_rsize(s);

    if (s->rank == 0)
        for (int i = 0; i < n; i++) {
            struct rdmpi_datatype *dt;
            size_t cnt;
            void *p;

            coll_rblock(a, i, &p, &cnt, &dt);
            if (coll_bytes(cnt, dt))
                coll_recv(s, p, cnt, dt, i);
        }
    if (coll_bytes(a->scount, a->sdt))
        coll_send(s, a->sbuf, a->scount, a->sdt, 0);
    coll_fence(s);
    coll_inter_bcast_blocks(s, a, n);
}

/* The receive side: rcount each (regular) or rcounts and displs (v). */
static int check_recv(struct coll_call *call, enum coll_form form, struct coll_args *a, void *rbuf,
                      MPI_Count rcount, const void *rcounts, const void *displs, MPI_Datatype rdt,
                      bool big)
{
    int err;

    a->rbuf = rbuf;
    if (RT_UNLIKELY(err = coll_inter_no_inplace(call, rbuf, "recvbuf")))
        return err;
    if (form == COLL_REGULAR) {
        a->rcount = (size_t)rcount;
        return coll_check_buf(call, rbuf, rcount, rdt, &a->rdt);
    }
    if (RT_UNLIKELY((err = coll_check_type(call, rdt, &a->rdt)) ||
                    (err = coll_counts(call, big ? NULL : rcounts, big ? rcounts : NULL,
                                       "recvcounts", &a->rcounts)) ||
                    (err = coll_displs(call, big ? NULL : displs, big ? displs : NULL, "displs",
                                       &a->rdispls))))
        return coll_abort(call, err);
    return MPI_SUCCESS;
}

static int check_send(struct coll_call *call, struct coll_args *a, const void *sbuf,
                      MPI_Count scount, MPI_Datatype sdt)
{
    int err;

    a->sbuf = sbuf;
    a->scount = (size_t)scount;
    if (RT_UNLIKELY((err = coll_inter_no_inplace(call, sbuf, "sendbuf")) ||
                    (err = coll_check_buf(call, sbuf, scount, sdt, &a->sdt))))
        return coll_abort(call, err);
    return MPI_SUCCESS;
}

int coll_inter_gather(struct coll_call *call, enum coll_form form, const void *sbuf,
                      MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                      const void *rcounts, const void *displs, MPI_Datatype rdt, int root, bool big)
{
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.root = root;
    if (RT_UNLIKELY(err = coll_inter_check_root(call, root)))
        return err;
    if (root == MPI_ROOT)
        err = check_recv(call, form, &a, rbuf, rcount, rcounts, displs, rdt, big);
    else if (root != MPI_PROC_NULL)
        err = check_send(call, &a, sbuf, scount, sdt);
    if (RT_UNLIKELY(err))
        return err;
    return coll_execute(call, build_gather, &a);
}

int coll_inter_allgather(struct coll_call *call, enum coll_form form, const void *sbuf,
                         MPI_Count scount, MPI_Datatype sdt, void *rbuf, MPI_Count rcount,
                         const void *rcounts, const void *displs, MPI_Datatype rdt, bool big)
{
    struct coll_args a;
    int err;

    coll_args_init(&a);
    if (RT_UNLIKELY((err = check_recv(call, form, &a, rbuf, rcount, rcounts, displs, rdt, big)) ||
                    (err = check_send(call, &a, sbuf, scount, sdt))))
        return err;
    if (form == COLL_REGULAR &&
        RT_UNLIKELY(err = coll_check_alias(call, sbuf, a.scount, a.sdt, rbuf,
                                           (size_t)call->c->remote_size * a.rcount, a.rdt)))
        return err;
    return coll_execute(call, build_allgather, &a);
}
