/* Non-blocking and persistent collectives: a heap schedule behind a
 * request, advanced by the progress engine. The request is coll's own
 * (struct coll_req) in the runtime's object pool, so MPI_Request_c2f/f2c
 * and the runtime's Wait/Test family work on it unchanged. */
#include "coll.h"
#include "obj.h"

#include <stdlib.h>

static struct coll_sched *active;
static bool in_progress;

static void unlink_active(struct coll_sched *s)
{
    if (s->aprev)
        s->aprev->anext = s->anext;
    else
        active = s->anext;
    if (s->anext)
        s->anext->aprev = s->aprev;
    s->anext = s->aprev = NULL;
}

static void finish(struct coll_sched *s)
{
    struct coll_req *r = s->req;

    pml_comm_op_done(s->pc);
    rt_status_empty(&r->base.status);
    r->base.status.MPI_ERROR = s->err;
    if (s->err)
        rt_info(1, "%s: a non-blocking collective on %s failed (%s, rank %d)", s->fn, s->comm->name,
                rt_err_class_name(s->err), s->err_peer);
    rt_req_complete(&r->base);
}

static int advance_all(void);

/* Runs from rt_progress(): every blocking loop and MPI_Test drive it, so
 * the usual case, nothing active, is one test and no register saves. */
int coll_progress(void)
{
    return RT_LIKELY(!active) ? 0 : advance_all();
}

/* A user reduction function that calls MPI could bring us back here. */
static __attribute__((noinline)) int advance_all(void)
{
    struct coll_sched *s, *next;
    int n = 0;

    if (in_progress)
        return 0;
    in_progress = true;
    for (s = active; s; s = next) {
        next = s->anext;
        if (coll_sched_advance(s)) {
            unlink_active(s);
            finish(s);
            n++;
        }
    }
    in_progress = false;
    return n;
}

/* A run is an operation on the communicator that MPI_Comm_disconnect
 * waits for, from here to finish(). */
static void launch(struct coll_sched *s)
{
    pml_comm_op_start(s->pc);
    coll_sched_start(s);
    if (coll_sched_advance(s)) {
        finish(s);
        return;
    }
    s->anext = active;
    if (active)
        active->aprev = s;
    active = s;
}

static int req_start(struct rdmpi_request *br)
{
    br->complete = 0;
    br->active = 1;
    launch(((struct coll_req *)br)->sched);
    return MPI_SUCCESS;
}

static void req_release(struct rdmpi_request *br)
{
    coll_sched_free(((struct coll_req *)br)->sched);
    rt_obj_delete(br);
}

/* Cancelling a collective is erroneous (MPI 4.1 sec. 6.12); no cancel op. */
static const struct rt_req_ops req_ops = {.start = req_start, .release = req_release};

struct coll_sched *coll_sched_new(struct rdmpi_comm *c, const char *fn)
{
    struct coll_sched *s = malloc(sizeof(*s));

    if (s)
        coll_sched_init(s, c, fn);
    return s;
}

void coll_sched_free(struct coll_sched *s)
{
    if (s->held) {
        pml_comm_unhold(s->pc);
        if (s->lpc != s->pc)
            pml_comm_unhold(s->lpc);
    }
    coll_sched_fini(s);
    free(s);
}

/* A schedule posts its later rounds after MPI_Comm_free may have run, so it
 * holds the matching state of the communicator (and of an intercomm's
 * local group) until it is freed. */
int coll_sched_post(struct coll_sched *s, MPI_Request *request, bool persistent)
{
    struct coll_req *r = rt_obj_new(RT_KIND_REQUEST, sizeof(*r));

    if (!r)
        return MPI_ERR_NO_MEM;
    pml_comm_hold(s->pc);
    if (s->lpc != s->pc)
        pml_comm_hold(s->lpc);
    s->held = true;
    r->base.type = RT_REQ_COLL;
    r->base.comm = s->comm->handle;
    r->base.ops = &req_ops;
    r->base.persistent = persistent;
    r->sched = s;
    s->req = r;
    *request = (MPI_Request)r;
    /* Ranks may start persistent collectives in different orders (MPI 4.1
     * sec. 6.13) but initialise them in one order: the tag is taken now and
     * kept for every start. It repeats 2^20 collectives later on the
     * communicator (coll_comm.c); one of those running at the same time as
     * a start of this request could take its messages. */
    if (persistent)
        s->tag = coll_comm_next_tag(s->comm);
    else
        req_start(&r->base);
    return MPI_SUCCESS;
}
