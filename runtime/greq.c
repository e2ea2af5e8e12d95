/* Generalized requests (MPI-4.1 13.2): the user's operation completes when
 * it calls MPI_Grequest_complete; Wait and Test then ask query_fn for the
 * status, and free_fn runs when the request goes. */
#include "errors.h"
#include "obj.h"
#include "request.h"

struct greq {
    struct rdmpi_request base;
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
};

static int greq_query(struct rdmpi_request *r)
{
    struct greq *g = (struct greq *)r;
    int cancelled = r->status.rdmpi_cancelled, err;

    rt_status_empty(&r->status);
    r->status.rdmpi_cancelled = cancelled;
    err = g->query_fn ? g->query_fn(g->extra_state, &r->status) : MPI_SUCCESS;
    r->status.MPI_ERROR = err;
    return err;
}

static int greq_cancel(struct rdmpi_request *r)
{
    struct greq *g = (struct greq *)r;

    return g->cancel_fn ? g->cancel_fn(g->extra_state, r->complete) : MPI_SUCCESS;
}

static void greq_release(struct rdmpi_request *r)
{
    struct greq *g = (struct greq *)r;

    if (g->free_fn)
        g->free_fn(g->extra_state);
    rt_obj_delete(g);
}

static const struct rt_req_ops greq_ops = {
    .cancel = greq_cancel,
    .release = greq_release,
    .query = greq_query,
};

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Grequest_start";
    struct greq *g;

    RT_CHECK_INIT(fn);
    if (!request)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "request is NULL; pass the address of an MPI_Request");
    if (!(g = rt_obj_new(RT_KIND_REQUEST, sizeof(*g))))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "out of memory");
    g->base.type = RT_REQ_GREQ;
    g->base.comm = MPI_COMM_SELF;
    g->base.ops = &greq_ops;
    rt_status_empty(&g->base.status);
    g->query_fn = query_fn;
    g->free_fn = free_fn;
    g->cancel_fn = cancel_fn;
    g->extra_state = extra_state;
    *request = (MPI_Request)g;
    return MPI_SUCCESS;
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Grequest_complete";
    struct rdmpi_request *r = rt_req_get(request);

    RT_CHECK_INIT(fn);
    if (!r || r->type != RT_REQ_GREQ)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, fn,
                              "request is not a generalized request from "
                              "MPI_Grequest_start");
    if (r->complete)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, fn,
                              "the generalized request was already completed");
    rt_req_complete(r);
    return MPI_SUCCESS;
}
