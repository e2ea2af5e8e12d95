/* MPI_Scatter(v) on an intercommunicator: the root (MPI_ROOT) sends block
 * i straight from its place in the send buffer to rank i of the other
 * group; the root's group mates (MPI_PROC_NULL) do nothing. */
#include "coll_inter.h"

static void build(struct coll_sched *s, const struct coll_args *a)
{
    if (a->root == MPI_PROC_NULL)
        return;
    if (a->root == MPI_ROOT) {
        for (int i = 0; i < coll_inter_rsize(s); i++) {
            struct rdmpi_datatype *dt;
            const void *p;
            size_t cnt;

            coll_sblock(a, i, &p, &cnt, &dt);
            if (coll_bytes(cnt, dt))
                coll_send(s, p, cnt, dt, i);
        }
    } else if (coll_bytes(a->rcount, a->rdt)) {
        coll_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
    }
    coll_fence(s);
}

/* The root's send side: scount each (regular) or scounts and displs (v). */
static int check_send(struct coll_call *call, enum coll_form form, struct coll_args *a,
                      const void *sbuf, MPI_Count scount, const void *scounts, const void *displs,
                      MPI_Datatype sdt, bool big)
{
    int err;

    a->sbuf = sbuf;
    if (RT_UNLIKELY(err = coll_inter_no_inplace(call, sbuf, "sendbuf")))
        return err;
    if (form == COLL_REGULAR) {
        a->scount = (size_t)scount;
        return coll_check_buf(call, sbuf, scount, sdt, &a->sdt);
    }
    if (RT_UNLIKELY((err = coll_check_type(call, sdt, &a->sdt)) ||
                    (err = coll_counts(call, big ? NULL : scounts, big ? scounts : NULL,
                                       "sendcounts", &a->scounts)) ||
                    (err = coll_displs(call, big ? NULL : displs, big ? displs : NULL, "displs",
                                       &a->sdispls))))
        return coll_abort(call, err);
    return MPI_SUCCESS;
}

int coll_inter_scatter(struct coll_call *call, enum coll_form form, const void *sbuf,
                       MPI_Count scount, const void *scounts, const void *displs, MPI_Datatype sdt,
                       void *rbuf, MPI_Count rcount, MPI_Datatype rdt, int root, bool big)
{
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.root = root;
    if (RT_UNLIKELY(err = coll_inter_check_root(call, root)))
        return err;
    if (root == MPI_ROOT) {
        err = check_send(call, form, &a, sbuf, scount, scounts, displs, sdt, big);
    } else if (root != MPI_PROC_NULL) {
        a.rbuf = rbuf;
        a.rcount = (size_t)rcount;
        if (!(err = coll_inter_no_inplace(call, rbuf, "recvbuf")))
            err = coll_check_buf(call, rbuf, rcount, rdt, &a.rdt);
    }
    if (RT_UNLIKELY(err))
        return err;
    return coll_execute(call, build, &a);
}
