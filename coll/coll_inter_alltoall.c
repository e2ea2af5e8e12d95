/* MPI_Alltoall(v,w) on an intercommunicator: block i of the send buffer
 * goes to rank i of the other group, block j of the receive buffer comes
 * from its rank j. Every transfer is posted at once, receives first; the
 * sends start at our own rank's index so the remote ranks are not all
 * addressed in the same order. */
#include "coll_inter.h"

static void build(struct coll_sched *s, const struct coll_args *a)
{
    int n = coll_inter_rsize(s);

    for (int i = 0; i < n; i++) {
        struct rdmpi_datatype *dt;
        size_t cnt;
        void *p;

        coll_rblock(a, i, &p, &cnt, &dt);
        if (coll_bytes(cnt, dt))
            coll_recv(s, p, cnt, dt, i);
    }
    for (int k = 0; k < n; k++) {
        int i = (s->rank + k) % n;
        struct rdmpi_datatype *dt;
        const void *p;
        size_t cnt;

        coll_sblock(a, i, &p, &cnt, &dt);
        if (coll_bytes(cnt, dt))
            coll_send(s, p, cnt, dt, i);
    }
    coll_fence(s);
}

/* One side's arguments: count and dt (regular), counts, displs and dt (v)
 * or counts, displs and dts (w). */
static int check_side(struct coll_call *call, enum coll_form form, const void *buf, MPI_Count count,
                      const void *counts, const void *displs, MPI_Datatype dt,
                      const MPI_Datatype *dts, bool big, bool send, struct coll_args *a)
{
    const char *cn = send ? "sendcounts" : "recvcounts", *dn = send ? "sdispls" : "rdispls";
    const MPI_Count **cp = send ? &a->scounts : &a->rcounts;
    const MPI_Aint **dp = send ? &a->sdispls : &a->rdispls;
    int err;

    if (RT_UNLIKELY(err = coll_inter_no_inplace(call, buf, send ? "sendbuf" : "recvbuf")))
        return err;
    if (form == COLL_REGULAR) {
        if (send)
            a->scount = (size_t)count;
        else
            a->rcount = (size_t)count;
        return coll_check_buf(call, buf, count, dt, send ? &a->sdt : &a->rdt);
    }
    if (form == COLL_W)
        err = coll_types(call, dts, send ? "sendtypes" : "recvtypes", send ? &a->sdts : &a->rdts);
    else
        err = coll_check_type(call, dt, send ? &a->sdt : &a->rdt);
    if (RT_UNLIKELY(err))
        return err;
    if (RT_UNLIKELY(err = coll_counts(call, big ? NULL : counts, big ? counts : NULL, cn, cp)))
        return err;
    return coll_displs(call, big ? NULL : displs, big ? displs : NULL, dn, dp);
}

int coll_inter_alltoall(struct coll_call *call, enum coll_form form, const void *sbuf,
                        MPI_Count scount, const void *scounts, const void *sdispls,
                        MPI_Datatype sdt, const MPI_Datatype *sdts, void *rbuf, MPI_Count rcount,
                        const void *rcounts, const void *rdispls, MPI_Datatype rdt,
                        const MPI_Datatype *rdts, bool big)
{
    size_t n = (size_t)call->c->remote_size;
    struct coll_args a;
    int err;

    coll_args_init(&a);
    a.sbuf = sbuf;
    a.rbuf = rbuf;
    if (RT_UNLIKELY((err = check_side(call, form, rbuf, rcount, rcounts, rdispls, rdt, rdts, big,
                                      false, &a)) ||
                    (err = check_side(call, form, sbuf, scount, scounts, sdispls, sdt, sdts, big,
                                      true, &a))))
        return coll_abort(call, err);
    if (form == COLL_REGULAR && RT_UNLIKELY(err = coll_check_alias(call, sbuf, n * a.scount, a.sdt,
                                                                   rbuf, n * a.rcount, a.rdt)))
        return err;
    return coll_execute(call, build, &a);
}
