/* Requests: the part every request shares (completion, status, persistence)
 * and the operations its owner (pml, coll, generalized) supplies. */
#ifndef RT_REQUEST_H
#define RT_REQUEST_H

#include "rt.h"

struct rdmpi_request;

struct rt_req_ops {
    int (*start)(struct rdmpi_request *r);      /* persistent: begin one round */
    int (*cancel)(struct rdmpi_request *r);     /* 0, or the request is done */
    void (*release)(struct rdmpi_request *r);   /* back to its owner's pool */
    int (*query)(struct rdmpi_request *r);      /* optional: fill status at completion */
    int (*free_check)(struct rdmpi_request *r); /* optional: raises and returns an
                                                    error when MPI_Request_free must refuse */
};

enum rt_req_type { RT_REQ_SEND, RT_REQ_RECV, RT_REQ_COLL, RT_REQ_GREQ };

struct rdmpi_request {
    struct rt_obj obj;
    volatile int complete; /* set last, once status is filled */
    uint8_t type;          /* enum rt_req_type */
    uint8_t persistent;    /* MPI_*_init: survives completion */
    uint8_t active;        /* started and not yet waited for */
    uint8_t freed;         /* MPI_Request_free came before completion */
    MPI_Status status;
    MPI_Comm comm; /* whose handler sees completion errors */
    const struct rt_req_ops *ops;
};

static inline struct rdmpi_request *rt_req_get(MPI_Request h)
{
    struct rdmpi_request *r = (struct rdmpi_request *)h;

    return ((uintptr_t)h >= RDMPI_PREDEF_LIMIT && r->obj.kind == RT_KIND_REQUEST) ? r : NULL;
}

/* Completions so far. Transports stop a burst of deliveries once this
 * moves, so a waiter sees its request done before later arrivals are
 * queued as unexpected (and copied twice). A hint: relaxed, not exact. */
extern unsigned rt_req_done_count;

/* Owners call this when an operation finishes; it releases requests the
 * user already freed. */
static inline void rt_req_complete(struct rdmpi_request *r)
{
    __atomic_store_n(&rt_req_done_count, __atomic_load_n(&rt_req_done_count, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    if (r->freed)
        r->ops->release(r);
}

/* Fills a user's status from an operation's: every field but MPI_ERROR,
 * which only the calls that return several statuses set (MPI-4.1 3.2.5). */
static inline void rt_status_give(MPI_Status *to, const MPI_Status *from)
{
    int keep = to->MPI_ERROR;

    *to = *from;
    to->MPI_ERROR = keep;
}

/* A status for "nothing happened": MPI_PROC_NULL or an inactive request. */
static inline void rt_status_empty(MPI_Status *s)
{
    s->MPI_SOURCE = MPI_ANY_SOURCE;
    s->MPI_TAG = MPI_ANY_TAG;
    s->MPI_ERROR = MPI_SUCCESS;
    s->rdmpi_cancelled = 0;
    s->rdmpi_count = 0;
}

/* The request with this Fortran index; set by the pml, which owns them. */
extern struct rdmpi_request *(*rt_req_by_findex)(int findex);

/* Error-checked lookup for the API: NULL after raising on `func`. */
struct rdmpi_request *rt_req_check(MPI_Request h, const char *func, int *err);

#endif
