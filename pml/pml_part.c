/* Partitioned point-to-point (MPI-4.1 chapter 4): MPI_Psend_init and
 * MPI_Precv_init make persistent requests. Each round the sender's data
 * goes as one message once every partition is marked ready, and is
 * received whole; MPI_Parrived reports a partition once the message is in.
 * The message's tag is the user's moved into the negative range (2^31
 * below it, modulo 2^30), so only partitioned receives match it, and the
 * pml's protocols (eager, split rendezvous, CMA, libfabric) carry it.
 * MPI-4.1 chapter 4 pairs operations by the order of their init calls, not of
 * their starts: the k-th Psend_init to (peer, tag) adds k * 2^20 to that
 * tag, as does the k-th Precv_init from it, so rounds started or readied
 * in any order still meet their own partner. */
#include "pml_check.h"
#include "info.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct pml_part {
    int partitions;
    int tag;         /* the user's */
    int nready;      /* sender: partitions ready this round */
    uint8_t ready[]; /* sender: which */
};

/* Inits made so far on one communicator to or from one peer with one tag. */
struct pml_part_seq {
    struct pml_part_seq *next;
    int peer, tag;
    uint32_t nsend, nrecv;
};

static int part_tag(int tag, uint32_t seq)
{
    return INT_MIN + (int)(((uint32_t)tag + (seq << 20)) & ((1u << 30) - 1));
}

/* The number of earlier inits of this kind with (peer, tag); -1 when out of memory. */
static int64_t part_seq(struct pml_comm *pc, int peer, int tag, bool send)
{
    struct pml_part_seq *q;

    for (q = pc->part_seq; q; q = q->next)
        if (q->peer == peer && q->tag == tag)
            break;
    if (!q) {
        if (!(q = calloc(1, sizeof(*q))))
            return -1;
        q->peer = peer;
        q->tag = tag;
        q->next = pc->part_seq;
        pc->part_seq = q;
    }
    return send ? q->nsend++ : q->nrecv++;
}

void pml_part_comm_free(struct pml_comm *pc)
{
    while (pc->part_seq) {
        struct pml_part_seq *q = pc->part_seq;
        pc->part_seq = q->next;
        free(q);
    }
}

/* Sends the round's data: every partition is ready. */
static int send_round(struct pml_req *r)
{
    struct pml_req *h;

    if (!(h = pml_pair_half(r)))
        return rdmpi_err_comm(r->base.comm, MPI_ERR_NO_MEM, "MPI_Pready", "out of requests");
    return pml_isend(r->buf, r->count, r->dt, r->peer, r->tag, r->pc, PML_STANDARD, h);
}

/* A round: the receiver posts its half at once, the sender when the last
 * partition is ready (Pready), or at once when it has none. */
static int part_start(struct rdmpi_request *br)
{
    struct pml_req *r = (struct pml_req *)br, *h;

    r->base.complete = 0;
    r->base.active = 1;
    r->error = 0;
    r->other = PML_NO_HANDLE;
    r->part->nready = 0;
    memset(r->part->ready, 0, r->send ? (size_t)r->part->partitions : 0);
    rt_status_empty(&r->base.status);
    if (r->peer == MPI_PROC_NULL) {
        pml_status_proc_null(&r->base.status);
        r->state = PML_S_DONE;
        r->base.complete = 1;
        return MPI_SUCCESS;
    }
    r->state = PML_S_PAIR;
    r->inflight = 1;
    if (r->send)
        return r->part->partitions ? MPI_SUCCESS : send_round(r);
    if (!(h = pml_pair_half(r)))
        return MPI_ERR_NO_MEM;
    r->other = pml_req_handle(h);
    pml_recv_setup(h, r->buf, r->count, r->dt, r->peer, r->tag, r->pc);
    return pml_irecv(h);
}

/* The status names the user's tag, not the internal one. */
static int part_query(struct rdmpi_request *br)
{
    struct pml_req *r = (struct pml_req *)br;

    if (r->base.status.MPI_SOURCE != MPI_PROC_NULL)
        r->base.status.MPI_TAG = r->part->tag;
    return MPI_SUCCESS;
}

static void part_release(struct rdmpi_request *br)
{
    struct pml_req *r = (struct pml_req *)br;

    free(r->part);
    r->part = NULL;
    pml_req_release(r);
}

/* MPI-4.1 chapter 4: canceling an active partitioned request that is not
 * complete is erroneous; say so rather than leave a Wait that never ends. */
static int part_cancel(struct rdmpi_request *br)
{
    return rdmpi_err_comm(br->comm, MPI_ERR_REQUEST, "MPI_Cancel",
                          "the partitioned request "
                          "is active and not complete; canceling it is erroneous (MPI-4.1 "
                          "chapter 4)");
}

/* Freeing one is erroneous too (same rule): the round could never end,
 * and a later init would wait for it to be paired. */
static int part_free_check(struct rdmpi_request *br)
{
    if (!br->active || br->complete)
        return MPI_SUCCESS;
    return rdmpi_err_comm(br->comm, MPI_ERR_REQUEST, "MPI_Request_free",
                          "the partitioned "
                          "request is active and not complete; freeing it is erroneous "
                          "(MPI-4.1 chapter 4)");
}

static const struct rt_req_ops part_ops = {.start = part_start,
                                           .cancel = part_cancel,
                                           .release = part_release,
                                           .query = part_query,
                                           .free_check = part_free_check};

static int part_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int peer,
                     int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request, bool send,
                     const char *fn)
{
    struct rdmpi_comm *c;
    struct rdmpi_datatype *dt;
    struct pml_req *r;
    int64_t seq = 0;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = pml_check_comm(comm, fn, &c)) || (err = pml_check_reqp(comm, request, fn)))
        return err;
    if (partitions < 0)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "partitions is %d; pass 0 or more",
                              partitions);
    if (count >= 0 && (MPI_Count)partitions > LLONG_MAX / (count ? count : 1))
        return rdmpi_err_comm(comm, MPI_ERR_COUNT, fn,
                              "%d partitions of %lld elements "
                              "overflow",
                              partitions, (long long)count);
    if ((err = pml_check_buf(comm, buf, count * partitions, datatype, fn, &dt)) ||
        (err = send ? pml_check_dest(comm, c, peer, tag, fn)
                    : pml_check_source(comm, c, peer, tag, fn)))
        return err;
    if (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)
        return rdmpi_err_comm(comm, peer == MPI_ANY_SOURCE ? MPI_ERR_RANK : MPI_ERR_TAG, fn,
                              "%s is not allowed in partitioned receives; name the sender "
                              "and the tag",
                              peer == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE" : "MPI_ANY_TAG");
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        return rdmpi_err_comm(comm, MPI_ERR_INFO, fn,
                              "info is not a valid info object; pass one or MPI_INFO_NULL");
    if (peer != MPI_PROC_NULL && (seq = part_seq(c->pml, peer, tag, send)) < 0)
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    if (!(r = pml_req_alloc()))
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of requests");
    if (!(r->part = calloc(1, sizeof(*r->part) + (send ? (size_t)partitions : 0)))) {
        pml_req_release(r);
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    r->part->partitions = partitions;
    r->part->tag = tag;
    pml_recv_setup(r, buf, (size_t)(count * partitions), dt, peer, part_tag(tag, (uint32_t)seq),
                   c->pml);
    r->send = send;
    r->base.type = send ? RT_REQ_SEND : RT_REQ_RECV;
    r->base.comm = comm;
    r->base.persistent = 1;
    r->base.ops = &part_ops;
    r->mode = PML_STANDARD;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Psend_init = PMPI_Psend_init
int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RT_API_ENTER();
    return part_init((void *)buf, partitions, count, datatype, dest, tag, comm, info, request, true,
                     "MPI_Psend_init");
}

#pragma weak MPI_Precv_init = PMPI_Precv_init
int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                    int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    RT_API_ENTER();
    return part_init(buf, partitions, count, datatype, source, tag, comm, info, request, false,
                     "MPI_Precv_init");
}

/* The active partitioned request behind a handle (a send one for Pready),
 * or NULL after raising. */
static struct pml_req *active_part(MPI_Request request, bool send, const char *fn, int *err)
{
    struct rdmpi_request *br = rt_req_check(request, fn, err);
    struct pml_req *r = (struct pml_req *)br;

    if (!br)
        return NULL;
    if (br->ops != &part_ops || r->send != send) {
        *err = rdmpi_err_comm(br->comm, MPI_ERR_REQUEST, fn,
                              "request is not a partitioned "
                              "%s request (from MPI_P%s_init)",
                              send ? "send" : "receive", send ? "send" : "recv");
        return NULL;
    }
    if (!br->active) {
        *err = rdmpi_err_comm(br->comm, MPI_ERR_REQUEST, fn,
                              "request is not active; MPI_Start it first");
        return NULL;
    }
    return r;
}

static int check_partition(struct pml_req *r, int p, const char *fn)
{
    if (p < 0 || p >= r->part->partitions)
        return rdmpi_err_comm(r->base.comm, MPI_ERR_ARG, fn,
                              "partition %d is out of range "
                              "(0..%d)",
                              p, r->part->partitions - 1);
    return MPI_SUCCESS;
}

/* Marks partition p ready; the last one sends the whole message. */
static int ready(struct pml_req *r, int p, const char *fn)
{
    struct pml_part *pt = r->part;
    int err;

    if ((err = check_partition(r, p, fn)))
        return err;
    if (r->peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (pt->ready[p])
        return rdmpi_err_comm(r->base.comm, MPI_ERR_ARG, fn,
                              "partition %d is ready already "
                              "in this round; mark each partition once per MPI_Start",
                              p);
    pt->ready[p] = 1;
    if (++pt->nready < pt->partitions)
        return MPI_SUCCESS;
    return send_round(r);
}

#pragma weak MPI_Pready = PMPI_Pready
int PMPI_Pready(int partition, MPI_Request request)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Pready";
    struct pml_req *r;
    int err;

    RT_CHECK_INIT(fn);
    if (!(r = active_part(request, true, fn, &err)))
        return err;
    return ready(r, partition, fn);
}

#pragma weak MPI_Pready_range = PMPI_Pready_range
int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Pready_range";
    struct pml_req *r;
    int err;

    RT_CHECK_INIT(fn);
    if (!(r = active_part(request, true, fn, &err)))
        return err;
    if ((err = check_partition(r, partition_low, fn)) ||
        (err = check_partition(r, partition_high, fn)))
        return err;
    for (int p = partition_low; p <= partition_high; p++)
        if ((err = ready(r, p, fn)))
            return err;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pready_list = PMPI_Pready_list
int PMPI_Pready_list(int length, const int *array_of_partitions, MPI_Request request)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Pready_list";
    struct pml_req *r;
    int err;

    RT_CHECK_INIT(fn);
    if (!(r = active_part(request, true, fn, &err)))
        return err;
    if (length < 0 || (length && !array_of_partitions))
        return rdmpi_err_comm(r->base.comm, MPI_ERR_ARG, fn, "%s",
                              length < 0 ? "length is negative" : "array_of_partitions is NULL");
    for (int i = 0; i < length; i++)
        if ((err = ready(r, array_of_partitions[i], fn)))
            return err;
    return MPI_SUCCESS;
}

#pragma weak MPI_Parrived = PMPI_Parrived
int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Parrived";
    struct rdmpi_request *br;
    struct pml_req *r;
    int err;

    RT_CHECK_INIT(fn);
    if (!flag)
        return rdmpi_err_comm(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                              "flag is NULL; pass the address of an int");
    /* A null or inactive partitioned receive has nothing pending; other
     * inactive requests still get the error below. */
    br = rt_req_get(request);
    if (request == MPI_REQUEST_NULL ||
        (br && br->ops == &part_ops && !((struct pml_req *)br)->send && !br->active)) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!(r = active_part(request, false, fn, &err)))
        return err;
    if ((err = check_partition(r, partition, fn)))
        return err;
    if (!r->base.complete)
        rt_progress();
    *flag = __atomic_load_n(&r->base.complete, __ATOMIC_ACQUIRE);
    return MPI_SUCCESS;
}
