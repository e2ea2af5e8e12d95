/* The completion family: Wait, Test and their any/some/all forms, request
 * free, cancel and persistent start. They only poll and read the shared
 * request part; owners do the work through rt_req_ops. */
#include "request.h"
#include "errors.h"

#include <stdbool.h>
#include <stdlib.h>

unsigned rt_req_done_count;

struct rdmpi_request *rt_req_check(MPI_Request h, const char *func, int *err)
{
    struct rdmpi_request *r = rt_req_get(h);

    if (!r)
        *err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, func,
                              "the request is not valid (already completed and "
                              "freed, or not a request handle)");
    return r;
}

/* Null and inactive persistent requests complete at once, empty. */
static int is_idle(MPI_Request h)
{
    struct rdmpi_request *r = rt_req_get(h);

    return h == MPI_REQUEST_NULL || (r && r->persistent && !r->active);
}

/* Hands a completed request's status to the user; returns the
 * operation's error code. */
static int status_of(struct rdmpi_request *r, MPI_Status *status)
{
    if (r->ops->query)
        r->ops->query(r);
    if (status != MPI_STATUS_IGNORE)
        rt_status_give(status, &r->status);
    return r->status.MPI_ERROR;
}

/* status_of, then retires the request. */
static int finish(MPI_Request *h, MPI_Status *status)
{
    struct rdmpi_request *r = (struct rdmpi_request *)*h;
    int err = status_of(r, status);

    if (r->persistent) {
        r->active = 0;
    } else {
        r->ops->release(r);
        *h = MPI_REQUEST_NULL;
    }
    return err;
}

static int check_array(int count, MPI_Request *reqs, const char *func, int *err)
{
    if (count < 0) {
        *err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_COUNT, func, "count is %d; it must be >= 0",
                              count);
        return -1;
    }
    if (count && !reqs) {
        *err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, func, "array_of_requests is NULL");
        return -1;
    }
    for (int i = 0; i < count; i++) {
        if (reqs[i] != MPI_REQUEST_NULL && !rt_req_get(reqs[i])) {
            *err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, func,
                                  "array_of_requests[%d] is not a valid request", i);
            return -1;
        }
    }
    return 0;
}

/* On the failed request's communicator, taken before the request was
 * retired; MPI_COMM_SELF's handler if that communicator is gone too. */
static int raise_in(MPI_Comm comm, int code, const char *func)
{
    return rt_err_raise_comm(comm, code, func, "the operation failed; see the status");
}

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Wait";
    struct rdmpi_request *r;
    MPI_Comm comm;
    unsigned spins = 0;
    int err;

    RT_CHECK_INIT(fn);
    if (RT_UNLIKELY(!request))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, fn, "request is NULL");
    if (is_idle(*request)) {
        if (status != MPI_STATUS_IGNORE)
            rt_status_empty(status);
        return MPI_SUCCESS;
    }
    if (RT_UNLIKELY(!(r = rt_req_check(*request, fn, &err))))
        return err;
    while (!__atomic_load_n(&r->complete, __ATOMIC_ACQUIRE)) {
        if (!rt_progress())
            rt_progress_wait(&spins);
    }
    comm = r->comm;
    err = finish(request, status);
    if (RT_UNLIKELY(err))
        return rt_err_raise_comm(comm, err, fn, "the operation failed");
    return MPI_SUCCESS;
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Test";
    struct rdmpi_request *r;
    MPI_Comm comm;
    int err;

    RT_CHECK_INIT(fn);
    if (RT_UNLIKELY(!request || !flag))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "%s is NULL",
                              request ? "flag" : "request");
    if (is_idle(*request)) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            rt_status_empty(status);
        return MPI_SUCCESS;
    }
    if (RT_UNLIKELY(!(r = rt_req_check(*request, fn, &err))))
        return err;
    if (!r->complete)
        rt_progress();
    *flag = __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);
    if (!*flag)
        return MPI_SUCCESS;
    comm = r->comm;
    err = finish(request, status);
    if (RT_UNLIKELY(err))
        return rt_err_raise_comm(comm, err, fn, "the operation failed");
    return MPI_SUCCESS;
}

/* Finishes every completed request of the array (all of them for the
 * "all" forms), or with retire false only reports their statuses (the
 * Request_get_status forms); returns MPI_ERR_IN_STATUS if any failed. */
static int finish_many(int count, MPI_Request *reqs, MPI_Status *statuses, int *outcount,
                       int *indices, bool retire, const char *fn)
{
    MPI_Comm bad = MPI_COMM_SELF;
    int n = 0, failed = 0;

    for (int i = 0; i < count; i++) {
        struct rdmpi_request *r = rt_req_get(reqs[i]);
        MPI_Status *st;
        int err;

        if (is_idle(reqs[i]) || !r->complete)
            continue;
        st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[indices ? n : i];
        MPI_Comm comm = r->comm;
        if ((err = retire ? finish(&reqs[i], st) : status_of(r, st))) {
            failed = 1;
            bad = comm;
        }
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err;
        if (indices)
            indices[n] = i;
        n++;
    }
    if (outcount)
        *outcount = n;
    if (failed)
        return raise_in(bad, MPI_ERR_IN_STATUS, fn);
    return MPI_SUCCESS;
}

/* The first request from `from` on still running, or count. Completion
 * lasts until the request is finished, so Waitall resumes from there
 * rather than rescanning the done prefix after every progress call
 * (quadratic for 100000 requests completing one per call). */
static int first_running(int from, int count, MPI_Request *reqs)
{
    for (int i = from; i < count; i++) {
        struct rdmpi_request *r = rt_req_get(reqs[i]);
        if (!is_idle(reqs[i]) && !__atomic_load_n(&r->complete, __ATOMIC_ACQUIRE))
            return i;
    }
    return count;
}

static int all_done(int count, MPI_Request *reqs)
{
    return first_running(0, count, reqs) == count;
}

/* -1: every request is null or inactive; else how many have completed. */
static int done_count(int count, MPI_Request *reqs)
{
    int active = 0, done = 0;

    for (int i = 0; i < count; i++) {
        struct rdmpi_request *r = rt_req_get(reqs[i]);
        if (is_idle(reqs[i]))
            continue;
        active++;
        done += __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE) != 0;
    }
    return active ? done : -1;
}

static void empty_statuses(int count, MPI_Request *reqs, MPI_Status *statuses)
{
    if (statuses == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < count; i++)
        if (is_idle(reqs[i]))
            rt_status_empty(&statuses[i]);
}

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request *array_of_requests, MPI_Status *array_of_statuses)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Waitall";
    unsigned spins = 0;
    int err;

    RT_CHECK_INIT(fn);
    if (check_array(count, array_of_requests, fn, &err))
        return err;
    for (int i = 0; (i = first_running(i, count, array_of_requests)) < count;)
        if (!rt_progress())
            rt_progress_wait(&spins);
    empty_statuses(count, array_of_requests, array_of_statuses);
    return finish_many(count, array_of_requests, array_of_statuses, NULL, NULL, true, fn);
}

/* Testall; with retire false, Request_get_status_all. */
static int test_all(int count, MPI_Request *reqs, int *flag, MPI_Status *statuses, bool retire,
                    const char *fn)
{
    int err;

    RT_CHECK_INIT(fn);
    if (check_array(count, reqs, fn, &err))
        return err;
    if (!flag)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "flag is NULL");
    if (!all_done(count, reqs))
        rt_progress();
    *flag = all_done(count, reqs);
    if (!*flag)
        return MPI_SUCCESS;
    empty_statuses(count, reqs, statuses);
    return finish_many(count, reqs, statuses, NULL, NULL, retire, fn);
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request *array_of_requests, int *flag,
                 MPI_Status *array_of_statuses)
{
    RT_API_ENTER();
    return test_all(count, array_of_requests, flag, array_of_statuses, true, "MPI_Testall");
}

/* Finishes the first completed request (with retire false only reports
 * its status); returns its index or -1. */
static int finish_any(int count, MPI_Request *reqs, MPI_Status *status, int *err, bool retire,
                      const char *fn)
{
    for (int i = 0; i < count; i++) {
        struct rdmpi_request *r = rt_req_get(reqs[i]);
        if (is_idle(reqs[i]) || !__atomic_load_n(&r->complete, __ATOMIC_ACQUIRE))
            continue;
        MPI_Comm comm = r->comm;
        *err = retire ? finish(&reqs[i], status) : status_of(r, status);
        if (*err)
            *err = rt_err_raise_comm(comm, *err, fn, "the operation failed");
        return i;
    }
    return -1;
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request *array_of_requests, int *indx, MPI_Status *status)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Waitany";
    unsigned spins = 0;
    int err = MPI_SUCCESS, i;

    RT_CHECK_INIT(fn);
    if (check_array(count, array_of_requests, fn, &err))
        return err;
    if (!indx)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "indx is NULL");
    if (done_count(count, array_of_requests) < 0) {
        *indx = MPI_UNDEFINED;
        if (status != MPI_STATUS_IGNORE)
            rt_status_empty(status);
        return MPI_SUCCESS;
    }
    while ((i = finish_any(count, array_of_requests, status, &err, true, fn)) < 0) {
        if (!rt_progress())
            rt_progress_wait(&spins);
    }
    *indx = i;
    return err;
}

/* Testany; with retire false, Request_get_status_any. */
static int test_any(int count, MPI_Request *reqs, int *indx, int *flag, MPI_Status *status,
                    bool retire, const char *fn)
{
    int err = MPI_SUCCESS, i;

    RT_CHECK_INIT(fn);
    if (check_array(count, reqs, fn, &err))
        return err;
    if (!indx || !flag)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "%s is NULL", indx ? "flag" : "indx");
    if (done_count(count, reqs) < 0) {
        *indx = MPI_UNDEFINED;
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            rt_status_empty(status);
        return MPI_SUCCESS;
    }
    i = finish_any(count, reqs, status, &err, retire, fn);
    if (i < 0) {
        rt_progress();
        i = finish_any(count, reqs, status, &err, retire, fn);
    }
    *flag = i >= 0;
    *indx = i >= 0 ? i : MPI_UNDEFINED;
    return err;
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request *array_of_requests, int *indx, int *flag,
                 MPI_Status *status)
{
    RT_API_ENTER();
    return test_any(count, array_of_requests, indx, flag, status, true, "MPI_Testany");
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request *array_of_requests, int *outcount, int *array_of_indices,
                  MPI_Status *array_of_statuses)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Waitsome";
    unsigned spins = 0;
    int err, n;

    RT_CHECK_INIT(fn);
    if (check_array(incount, array_of_requests, fn, &err))
        return err;
    if (!outcount || (incount && !array_of_indices))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "%s is NULL",
                              outcount ? "array_of_indices" : "outcount");
    while ((n = done_count(incount, array_of_requests)) == 0) {
        if (!rt_progress())
            rt_progress_wait(&spins);
    }
    if (n < 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    return finish_many(incount, array_of_requests, array_of_statuses, outcount, array_of_indices,
                       true, fn);
}

/* Testsome; with retire false, Request_get_status_some. */
static int test_some(int incount, MPI_Request *reqs, int *outcount, int *indices,
                     MPI_Status *statuses, bool retire, const char *fn)
{
    int err, n;

    RT_CHECK_INIT(fn);
    if (check_array(incount, reqs, fn, &err))
        return err;
    if (!outcount || (incount && !indices))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "%s is NULL",
                              outcount ? "array_of_indices" : "outcount");
    if ((n = done_count(incount, reqs)) == 0) {
        rt_progress();
        n = done_count(incount, reqs);
    }
    if (n < 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    return finish_many(incount, reqs, statuses, outcount, indices, retire, fn);
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request *array_of_requests, int *outcount, int *array_of_indices,
                  MPI_Status *array_of_statuses)
{
    RT_API_ENTER();
    return test_some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses,
                     true, "MPI_Testsome");
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Request_get_status";
    struct rdmpi_request *r;
    int err;

    RT_CHECK_INIT(fn);
    if (!flag)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "flag is NULL");
    if (is_idle(request)) {
        *flag = 1;
        if (status != MPI_STATUS_IGNORE)
            rt_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!(r = rt_req_check(request, fn, &err)))
        return err;
    if (!r->complete)
        rt_progress();
    *flag = __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);
    if (*flag && r->ops->query)
        r->ops->query(r);
    if (*flag && status != MPI_STATUS_IGNORE)
        *status = r->status;
    return MPI_SUCCESS;
}

/* The MPI-4.1 array forms of Request_get_status: Testall, Testany and
 * Testsome that leave every request as it is. */
#pragma weak MPI_Request_get_status_all = PMPI_Request_get_status_all
int PMPI_Request_get_status_all(int count, MPI_Request *array_of_requests, int *flag,
                                MPI_Status *array_of_statuses)
{
    RT_API_ENTER();
    return test_all(count, array_of_requests, flag, array_of_statuses, false,
                    "MPI_Request_get_status_all");
}

#pragma weak MPI_Request_get_status_any = PMPI_Request_get_status_any
int PMPI_Request_get_status_any(int count, MPI_Request *array_of_requests, int *indx, int *flag,
                                MPI_Status *status)
{
    RT_API_ENTER();
    return test_any(count, array_of_requests, indx, flag, status, false,
                    "MPI_Request_get_status_any");
}

#pragma weak MPI_Request_get_status_some = PMPI_Request_get_status_some
int PMPI_Request_get_status_some(int incount, MPI_Request *array_of_requests, int *outcount,
                                 int *array_of_indices, MPI_Status *array_of_statuses)
{
    RT_API_ENTER();
    return test_some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses,
                     false, "MPI_Request_get_status_some");
}

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request *request)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Request_free";
    struct rdmpi_request *r;
    int err;

    RT_CHECK_INIT(fn);
    if (!request || !(r = rt_req_check(*request, fn, &err)))
        return request ? err
                       : rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, fn, "request is NULL");
    if (r->ops->free_check && (err = r->ops->free_check(r)))
        return err;
    *request = MPI_REQUEST_NULL;
    /* An inactive persistent request or a finished one goes now; a busy
     * one when its operation ends. */
    if ((r->persistent && !r->active) || r->complete)
        r->ops->release(r);
    else
        r->freed = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request *request)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Cancel";
    struct rdmpi_request *r;
    int err;

    RT_CHECK_INIT(fn);
    if (!request || !(r = rt_req_check(*request, fn, &err)))
        return request ? err
                       : rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, fn, "request is NULL");
    if (r->persistent && !r->active)
        return rdmpi_err_comm(r->comm, MPI_ERR_REQUEST, fn,
                              "the persistent request is not active; MPI_Start it first");
    /* A generalized request's cancel_fn hears about completed ones too. */
    if ((r->complete && r->type != RT_REQ_GREQ) || !r->ops->cancel)
        return MPI_SUCCESS;
    return r->ops->cancel(r);
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request *request)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Start";
    struct rdmpi_request *r;
    int err;

    RT_CHECK_INIT(fn);
    if (!request || !(r = rt_req_check(*request, fn, &err)))
        return request ? err
                       : rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_REQUEST, fn, "request is NULL");
    if (!r->persistent || !r->ops->start)
        return rdmpi_err_comm(
            r->comm, MPI_ERR_REQUEST, fn,
            "the request is not persistent; only MPI_*_init requests can be started");
    if (r->active)
        return rdmpi_err_comm(r->comm, MPI_ERR_REQUEST, fn,
                              "the request is already active; complete it before starting again");
    return r->ops->start(r);
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request *array_of_requests)
{
    RT_API_ENTER();
    int err;

    RT_CHECK_INIT("MPI_Startall");
    if (check_array(count, array_of_requests, "MPI_Startall", &err))
        return err;
    for (int i = 0; i < count; i++)
        if ((err = PMPI_Start(&array_of_requests[i])))
            return err;
    return MPI_SUCCESS;
}
