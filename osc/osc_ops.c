/* The communication calls: Put, Get, Accumulate, Get_accumulate,
 * Fetch_and_op, Compare_and_swap and their request forms. Each checks its
 * arguments, that an access epoch to the target is open and that the
 * target range lies in the target's window, then sends a header naming
 * the target data by the target datatype's flattened segments. */
#include "osc.h"

#include <stdlib.h>
#include <string.h>

/* One call's target side and where its errors go. */
struct rma {
    const char *fn;
    MPI_Win win;
    struct osc_win *o;
    int t;
    MPI_Aint disp;
    MPI_Count tcount;
    struct rdmpi_datatype *tdt;
};

static int type_of(struct rma *a, MPI_Count count, MPI_Datatype h, const char *what,
                   struct rdmpi_datatype **dt)
{
    if (count < 0)
        return rdmpi_err_win(a->win, MPI_ERR_COUNT, a->fn, "%s count is %lld; it must be >= 0",
                             what, (long long)count);
    if (!(*dt = rt_dt_get(h)))
        return rdmpi_err_win(a->win, MPI_ERR_TYPE, a->fn, "%s datatype is not valid", what);
    if (!((*dt)->flags & RT_DT_COMMITTED))
        return rdmpi_err_win(a->win, MPI_ERR_TYPE, a->fn,
                             "%s datatype is not committed; "
                             "call MPI_Type_commit first",
                             what);
    return MPI_SUCCESS;
}

static bool in_epoch(const struct osc_win *o, int t, bool passive_only)
{
    if (o->lock_all || o->locked[t])
        return true;
    if (passive_only)
        return false;
    if (o->fence_open)
        return true;
    for (int i = 0; i < o->nstart; i++)
        if (o->start_ranks[i] == t)
            return true;
    return false;
}

/* What every operation checks. 1: nothing to do (MPI_PROC_NULL). */
static int check(struct rma *a, MPI_Datatype tdt, bool passive_only, int *err)
{
    struct osc_win *o;

    *err = MPI_SUCCESS;
    if (!(a->o = o = osc_get(a->win, a->fn, err)))
        return -1;
    if (a->t == MPI_PROC_NULL)
        return 1;
    if (a->t < 0 || a->t >= o->size) {
        *err = rdmpi_err_win(a->win, MPI_ERR_RANK, a->fn,
                             "target_rank %d is not in the "
                             "window (0..%d)",
                             a->t, o->size - 1);
        return -1;
    }
    if ((*err = type_of(a, a->tcount, tdt, "target", &a->tdt)))
        return -1;
    if (!in_epoch(o, a->t, passive_only)) {
        *err = rdmpi_err_win(a->win, MPI_ERR_RMA_SYNC, a->fn,
                             "no %s epoch to rank %d is open; "
                             "call %s first",
                             passive_only ? "passive-target" : "access", a->t,
                             passive_only ? "MPI_Win_lock or MPI_Win_lock_all"
                                          : "MPI_Win_fence, MPI_Win_start or MPI_Win_lock");
        return -1;
    }
    if (!o->dynamic && a->tcount > 0) {
        MPI_Aint lo = a->disp * o->disp_units[a->t] + a->tdt->true_lb;
        MPI_Aint hi = lo + (MPI_Aint)(a->tcount - 1) * a->tdt->extent + a->tdt->true_extent;
        if (a->disp < 0 || lo < 0 || hi > o->sizes[a->t]) {
            *err = rdmpi_err_win(a->win, MPI_ERR_RMA_RANGE, a->fn,
                                 "bytes %lld..%lld of rank "
                                 "%d's window are outside it (%lld bytes)",
                                 (long long)lo, (long long)hi, a->t, (long long)o->sizes[a->t]);
            return -1;
        }
    }
    return 0;
}

static int same_size(struct rma *a, size_t bytes, const char *what)
{
    size_t tb = (size_t)a->tcount * a->tdt->size;

    if (bytes == tb)
        return MPI_SUCCESS;
    return rdmpi_err_win(a->win, MPI_ERR_TYPE, a->fn,
                         "the %s data is %zu bytes and the "
                         "target's %zu; their type signatures must match",
                         what, bytes, tb);
}

/* The header of an operation on a's target data (free it after sending).
 * Contiguous target data is one segment, whatever its count. */
static struct osc_hdr *header(const struct rma *a, int kind, size_t *hlen)
{
    bool contig = rt_dt_contig(a->tdt, (size_t)a->tcount);
    size_t ns = contig ? 1 : a->tdt->nsegs;
    struct osc_hdr *h = calloc(1, sizeof(*h) + ns * sizeof(struct rt_dt_seg));

    if (!h)
        rt_fatal("osc: out of memory for an RMA header");
    h->kind = (uint8_t)kind;
    h->addr = a->o->dynamic ? (uint64_t)a->disp : (uint64_t)(a->disp * a->o->disp_units[a->t]);
    h->nsegs = ns;
    if (contig) {
        struct rt_dt_seg whole = {a->tdt->lb, 0, (size_t)a->tcount * a->tdt->size, 1};
        h->count = 1;
        memcpy(h + 1, &whole, sizeof(whole));
    } else {
        h->count = (uint64_t)a->tcount;
        h->extent = a->tdt->extent;
        memcpy(h + 1, a->tdt->segs, ns * sizeof(struct rt_dt_seg));
    }
    *hlen = sizeof(*h) + ns * sizeof(struct rt_dt_seg);
    return h;
}

static int greq_query(void *extra, MPI_Status *st)
{
    (void)extra;
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* The request of an R* call: complete once op is (locally). */
static void give_request(struct osc_op *op, MPI_Request *req)
{
    if (!req)
        return;
    PMPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, req);
    if (op)
        op->greq = *req;
    else
        PMPI_Grequest_complete(*req);
}

/* An operation that answers (get, get_accumulate, fetch_and_op,
 * compare_and_swap) sent to this process itself completes before the call
 * returns: its header and answer go through the self BTL's queue, which
 * only this process moves, so waiting costs a few progress passes. The
 * standard lets a program use the result only after the epoch closes, but
 * programs free it at once when the target is themselves (mpi4py's
 * MPI_Compare_and_swap and MPI_Fetch_and_op probes free their result
 * buffer before the fence), and the answer then landed in freed memory at
 * the next fence: the heap corruption of issue 28 item 3. Operations of
 * this origin to itself are applied in order, so the wait also keeps the
 * accumulate ordering. */
static struct osc_op *settle_self(struct rma *a, struct osc_op *op)
{
    unsigned spins = 0;
    int done = 0;

    if (a->t != a->o->rank)
        return op;
    op->settling = true; /* progress reaps: keep op until we are done */
    while (PMPI_Request_get_status(op->req[2], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        if (!rt_progress())
            rt_progress_idle(&spins);
    op->settling = false;
    return op;
}

/* check(), answering an MPI_PROC_NULL call at once: -1 an error (in
 * *err), 1 nothing more to do, 0 go on. */
static int begin(struct rma *a, MPI_Datatype tdt, MPI_Request *req, int *err)
{
    int rc = check(a, tdt, req != NULL, err);

    if (rc > 0)
        give_request(NULL, req);
    return rc;
}

/* An origin or result buffer: valid, and as large as the target data. */
static int buffer_of(struct rma *a, MPI_Count count, MPI_Datatype h, const char *what,
                     struct rdmpi_datatype **dt)
{
    int err = type_of(a, count, h, what, dt);

    return err ? err : same_size(a, (size_t)count * (*dt)->size, what);
}

/* Contiguous target data on a rank reached directly (osc_win.c) moves
 * now, by a copy into or out of a shared window, or the BTL's read or
 * write: done at the target when this returns, with no message for it to
 * serve. False leaves the operation to a message. */
static bool direct(struct rma *a, void *obuf, MPI_Count ocount, struct rdmpi_datatype *od,
                   bool write)
{
    struct osc_win *o = a->o;
    size_t len = (size_t)a->tcount * a->tdt->size;
    uint64_t off = (uint64_t)(a->disp * o->disp_units[a->t] + a->tdt->lb);
    char *local, *tmp = NULL;
    int rc = 0;

    if (!o->direct[a->t] || !rt_dt_contig(a->tdt, (size_t)a->tcount))
        return false;
    if (!len)
        return true;
    if (rt_dt_contig(od, (size_t)ocount)) {
        local = (char *)obuf + od->lb;
    } else {
        if (!(local = tmp = malloc(len)))
            return false;
        if (write)
            rt_dt_pack(od, obuf, (size_t)ocount, 0, tmp, len);
    }
    if (o->shm || a->t == o->rank) {
        char *p = (o->shm ? o->shm + o->shm_off[a->t] : o->mem) + off;
        memcpy(write ? p : local, write ? local : p, len);
    } else {
        rc = pml_rdma(rt_comm_world_rank(rt_comm_get(o->comm), a->t), local, o->bases[a->t] + off,
                      len, write);
        o->direct[a->t] = rc == 0; /* refused (ptrace rules): messages from now on */
    }
    if (!rc && !write && tmp)
        rt_dt_unpack(od, obuf, (size_t)ocount, 0, tmp, len);
    free(tmp);
    return rc == 0;
}

static int put(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, int t, MPI_Aint disp,
               MPI_Count tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *req, const char *fn)
{
    struct rma a = {fn, win, NULL, t, disp, tcount, NULL};
    struct rdmpi_datatype *od;
    struct osc_hdr *h;
    size_t hlen;
    int err, rc;

    if ((rc = begin(&a, tdt, req, &err)) || (err = buffer_of(&a, ocount, odt, "origin", &od)))
        return rc > 0 ? MPI_SUCCESS : err;
    if (direct(&a, (void *)oaddr, ocount, od, true)) {
        give_request(NULL, req);
        return MPI_SUCCESS;
    }
    h = header(&a, OSC_PUT, &hlen);
    h->dlen = (size_t)ocount * od->size;
    give_request(osc_send(a.o, t, h, hlen, oaddr, (size_t)ocount, odt, MPI_REQUEST_NULL), req);
    free(h);
    return MPI_SUCCESS;
}

static int get(void *oaddr, MPI_Count ocount, MPI_Datatype odt, int t, MPI_Aint disp,
               MPI_Count tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *req, const char *fn)
{
    struct rma a = {fn, win, NULL, t, disp, tcount, NULL};
    struct rdmpi_datatype *od;
    struct osc_hdr *h;
    MPI_Request r;
    size_t hlen;
    int err, rc;

    if ((rc = begin(&a, tdt, req, &err)) || (err = buffer_of(&a, ocount, odt, "origin", &od)))
        return rc > 0 ? MPI_SUCCESS : err;
    if (direct(&a, oaddr, ocount, od, false)) {
        give_request(NULL, req);
        return MPI_SUCCESS;
    }
    h = header(&a, OSC_GET, &hlen);
    h->reply = osc_reply_id(a.o);
    PMPI_Irecv_c(oaddr, ocount, odt, t, OSC_TAG_REPLY + (int)h->reply, a.o->comm, &r);
    give_request(settle_self(&a, osc_send(a.o, t, h, hlen, NULL, 0, MPI_BYTE, r)), req);
    free(h);
    return MPI_SUCCESS;
}

/* The op and the element type shared by origin and target of an
 * accumulate; MPI_ERR_OP or MPI_ERR_TYPE when the standard forbids them.
 * An accumulate that moves nothing needs only a valid op: *none is then
 * set, and the call is complete at once. */
static int acc_check(struct rma *a, MPI_Op op, struct rdmpi_datatype *od, struct osc_hdr *h,
                     bool fetch, bool *none)
{
    const struct rdmpi_op *p = coll_op_get(op);
    struct rdmpi_datatype *basic = a->tdt->basic;
    const char *why;

    if (!p || p->index < 0 || (p->index == COLL_OP_NO_OP && !fetch))
        return rdmpi_err_win(a->win, MPI_ERR_OP, a->fn,
                             "op must be a predefined operation "
                             "(MPI_NO_OP only in the fetching forms); user operations cannot "
                             "be used in RMA");
    if ((*none = !a->tcount || !a->tdt->size))
        return MPI_SUCCESS;
    if (!basic || (od && od->size && od->basic != basic))
        return rdmpi_err_win(a->win, MPI_ERR_TYPE, a->fn,
                             "origin and target data must be "
                             "made of one and the same predefined type");
    if (p->index < COLL_OP_REPLACE && (why = coll_op_unsupported(p, basic)))
        return rdmpi_err_win(a->win, MPI_ERR_OP, a->fn, "%s", why);
    h->op = (int64_t)(intptr_t)op;
    h->basic = (int64_t)(intptr_t)rt_dt_handle(basic);
    return MPI_SUCCESS;
}

static int accumulate(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, int t, MPI_Aint disp,
                      MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win, MPI_Request *req,
                      const char *fn)
{
    struct rma a = {fn, win, NULL, t, disp, tcount, NULL};
    struct rdmpi_datatype *od;
    struct osc_hdr *h;
    bool none;
    size_t hlen;
    int err, rc;

    if ((rc = begin(&a, tdt, req, &err)) || (err = buffer_of(&a, ocount, odt, "origin", &od)))
        return rc > 0 ? MPI_SUCCESS : err;
    h = header(&a, OSC_ACC, &hlen);
    if ((err = acc_check(&a, op, od, h, false, &none)) || none) {
        free(h);
        if (!err)
            give_request(NULL, req);
        return err;
    }
    h->dlen = (size_t)ocount * od->size;
    give_request(osc_send(a.o, t, h, hlen, oaddr, (size_t)ocount, odt, MPI_REQUEST_NULL), req);
    free(h);
    return MPI_SUCCESS;
}

static int get_accumulate(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, void *raddr,
                          MPI_Count rcount, MPI_Datatype rdt, int t, MPI_Aint disp,
                          MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win,
                          MPI_Request *req, const char *fn)
{
    struct rma a = {fn, win, NULL, t, disp, tcount, NULL};
    struct rdmpi_datatype *od = NULL, *rd;
    bool no_op = op == MPI_NO_OP, none;
    struct osc_hdr *h;
    MPI_Request r;
    size_t hlen;
    int err, rc;

    if ((rc = begin(&a, tdt, req, &err)) ||
        (!no_op && (err = buffer_of(&a, ocount, odt, "origin", &od))) ||
        (err = buffer_of(&a, rcount, rdt, "result", &rd)))
        return rc > 0 ? MPI_SUCCESS : err;
    h = header(&a, OSC_GACC, &hlen);
    if ((err = acc_check(&a, op, od, h, true, &none)) || none) {
        free(h);
        if (!err)
            give_request(NULL, req);
        return err;
    }
    h->dlen = no_op ? 0 : (size_t)ocount * od->size;
    h->reply = osc_reply_id(a.o);
    PMPI_Irecv_c(raddr, rcount, rdt, t, OSC_TAG_REPLY + (int)h->reply, a.o->comm, &r);
    give_request(settle_self(&a, osc_send(a.o, t, h, hlen, oaddr, (size_t)ocount, odt, r)), req);
    free(h);
    return MPI_SUCCESS;
}

#define PUT_API(NAME, CT)                                                                          \
    int PMPI_##NAME(const void *origin_addr, CT origin_count, MPI_Datatype origin_datatype,        \
                    int target_rank, MPI_Aint target_disp, CT target_count,                        \
                    MPI_Datatype target_datatype, MPI_Win win)                                     \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,           \
                   target_count, target_datatype, win, NULL, "MPI_" #NAME);                        \
    }
#define RPUT_API(NAME, CT)                                                                         \
    int PMPI_##NAME(const void *origin_addr, CT origin_count, MPI_Datatype origin_datatype,        \
                    int target_rank, MPI_Aint target_disp, CT target_count,                        \
                    MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)               \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        if (!request)                                                                              \
            return rdmpi_err_win(win, MPI_ERR_ARG, "MPI_" #NAME, "request is NULL");               \
        return put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,           \
                   target_count, target_datatype, win, request, "MPI_" #NAME);                     \
    }
#define GET_API(NAME, CT)                                                                          \
    int PMPI_##NAME(void *origin_addr, CT origin_count, MPI_Datatype origin_datatype,              \
                    int target_rank, MPI_Aint target_disp, CT target_count,                        \
                    MPI_Datatype target_datatype, MPI_Win win)                                     \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,           \
                   target_count, target_datatype, win, NULL, "MPI_" #NAME);                        \
    }
#define RGET_API(NAME, CT)                                                                         \
    int PMPI_##NAME(void *origin_addr, CT origin_count, MPI_Datatype origin_datatype,              \
                    int target_rank, MPI_Aint target_disp, CT target_count,                        \
                    MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)               \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        if (!request)                                                                              \
            return rdmpi_err_win(win, MPI_ERR_ARG, "MPI_" #NAME, "request is NULL");               \
        return get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,           \
                   target_count, target_datatype, win, request, "MPI_" #NAME);                     \
    }
#define ACC_API(NAME, CT)                                                                          \
    int PMPI_##NAME(const void *origin_addr, CT origin_count, MPI_Datatype origin_datatype,        \
                    int target_rank, MPI_Aint target_disp, CT target_count,                        \
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)                          \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,    \
                          target_count, target_datatype, op, win, NULL, "MPI_" #NAME);             \
    }
#define RACC_API(NAME, CT)                                                                         \
    int PMPI_##NAME(const void *origin_addr, CT origin_count, MPI_Datatype origin_datatype,        \
                    int target_rank, MPI_Aint target_disp, CT target_count,                        \
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)    \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        if (!request)                                                                              \
            return rdmpi_err_win(win, MPI_ERR_ARG, "MPI_" #NAME, "request is NULL");               \
        return accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,    \
                          target_count, target_datatype, op, win, request, "MPI_" #NAME);          \
    }
#define GACC_API(NAME, CT)                                                                         \
    int PMPI_##NAME(const void *origin_addr, CT origin_count, MPI_Datatype origin_datatype,        \
                    void *result_addr, CT result_count, MPI_Datatype result_datatype,              \
                    int target_rank, MPI_Aint target_disp, CT target_count,                        \
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)                          \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,             \
                              result_count, result_datatype, target_rank, target_disp,             \
                              target_count, target_datatype, op, win, NULL, "MPI_" #NAME);         \
    }
#define RGACC_API(NAME, CT)                                                                        \
    int PMPI_##NAME(const void *origin_addr, CT origin_count, MPI_Datatype origin_datatype,        \
                    void *result_addr, CT result_count, MPI_Datatype result_datatype,              \
                    int target_rank, MPI_Aint target_disp, CT target_count,                        \
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)    \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        if (!request)                                                                              \
            return rdmpi_err_win(win, MPI_ERR_ARG, "MPI_" #NAME, "request is NULL");               \
        return get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,             \
                              result_count, result_datatype, target_rank, target_disp,             \
                              target_count, target_datatype, op, win, request, "MPI_" #NAME);      \
    }

#pragma weak MPI_Put = PMPI_Put
PUT_API(Put, int)
#pragma weak MPI_Put_c = PMPI_Put_c
PUT_API(Put_c, MPI_Count)
#pragma weak MPI_Rput = PMPI_Rput
RPUT_API(Rput, int)
#pragma weak MPI_Rput_c = PMPI_Rput_c
RPUT_API(Rput_c, MPI_Count)
#pragma weak MPI_Get = PMPI_Get
GET_API(Get, int)
#pragma weak MPI_Get_c = PMPI_Get_c
GET_API(Get_c, MPI_Count)
#pragma weak MPI_Rget = PMPI_Rget
RGET_API(Rget, int)
#pragma weak MPI_Rget_c = PMPI_Rget_c
RGET_API(Rget_c, MPI_Count)
#pragma weak MPI_Accumulate = PMPI_Accumulate
ACC_API(Accumulate, int)
#pragma weak MPI_Accumulate_c = PMPI_Accumulate_c
ACC_API(Accumulate_c, MPI_Count)
#pragma weak MPI_Raccumulate = PMPI_Raccumulate
RACC_API(Raccumulate, int)
#pragma weak MPI_Raccumulate_c = PMPI_Raccumulate_c
RACC_API(Raccumulate_c, MPI_Count)
#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
GACC_API(Get_accumulate, int)
#pragma weak MPI_Get_accumulate_c = PMPI_Get_accumulate_c
GACC_API(Get_accumulate_c, MPI_Count)
#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
RGACC_API(Rget_accumulate, int)
#pragma weak MPI_Rget_accumulate_c = PMPI_Rget_accumulate_c
RGACC_API(Rget_accumulate_c, MPI_Count)

#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    RT_API_ENTER();
    return get_accumulate(origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                          target_disp, 1, datatype, op, win, NULL, "MPI_Fetch_and_op");
}

#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    RT_API_ENTER();
    struct rma a = {"MPI_Compare_and_swap", win, NULL, target_rank, target_disp, 1, NULL};
    struct osc_hdr *h;
    struct osc_op *op;
    MPI_Request r;
    size_t hlen, n;
    char *data;
    int err, rc = check(&a, datatype, false, &err);

    if (rc)
        return rc < 0 ? err : MPI_SUCCESS;
    /* MPI 4.1 sec. 12.3.4 names integer, logical, multi-language and byte
     * types. Floating types are taken too and compared bit for bit, as
     * Open MPI does: OSU's osu_cas_latency offers MPI_FLOAT (-T). */
    if (!(a.tdt->flags & RT_DT_PREDEF) || !(a.tdt->flags & RT_DT_CONTIG))
        return rdmpi_err_win(win, MPI_ERR_TYPE, a.fn,
                             "datatype must be a predefined integer, "
                             "logical, byte or floating type, not a derived one");
    n = a.tdt->size;
    if (!(data = malloc(2 * n + 1)))
        return rdmpi_err_win(win, MPI_ERR_NO_MEM, a.fn, "out of memory");
    memcpy(data, compare_addr, n);
    memcpy(data + n, origin_addr, n);
    h = header(&a, OSC_CAS, &hlen);
    h->dlen = 2 * n;
    h->reply = osc_reply_id(a.o);
    PMPI_Irecv(result_addr, 1, datatype, target_rank, OSC_TAG_REPLY + (int)h->reply, a.o->comm, &r);
    op = osc_send(a.o, target_rank, h, hlen, data, 2 * n, MPI_BYTE, r);
    op->buf = data;
    settle_self(&a, op);
    free(h);
    return MPI_SUCCESS;
}
