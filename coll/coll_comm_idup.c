/* MPI_Comm_idup: the context-id agreement of runtime/comm_cid.c as a
 * state machine the progress engine advances, so ranks that start several
 * duplications in different orders, or start one and go on communicating,
 * never wait for each other. Each step is a small schedule on the tag of
 * this duplication: the members' free ids gathered at the first member, the
 * leaders' exchange for an intercommunicator, the choice sent back; then
 * the same for "still free here?". An intercommunicator first agrees on
 * the id of its hidden local communicator, over the local group alone. */
#include "coll.h"
#include "errors.h"
#include "obj.h"
#include "request.h"

#include <stdlib.h>

#define NW (RT_CID_WORDS + 1)

enum phase { GATHER_FREE, SWAP_FREE, SEND_CHOICE, GATHER_HELD, SWAP_HELD, SEND_VERDICT };

struct idup {
    struct rdmpi_request base;
    struct idup *next;         /* the running ones */
    struct rdmpi_comm *c;      /* the communicator being duplicated */
    struct rdmpi_comm *over;   /* the members' intracommunicator */
    struct rdmpi_comm *bridge; /* c when its leaders must agree too, else NULL */
    MPI_Info info;             /* hints replacing c's, or MPI_INFO_NULL */
    MPI_Comm *newcomm;
    int tag;
    enum phase phase;
    int attempt, held;
    int built; /* rt_comm_dup_finish ran (it owns the ids then) */
    unsigned seed;
    uint32_t c_id, lcid, got_lcid; /* the choice; the local id once agreed */
    uint32_t mask[NW], theirs[NW];
    uint32_t *all; /* first member: everyone's masks or answers */
    struct coll_sched s;
};

static struct idup *running;

static struct rdmpi_datatype *bytes(void)
{
    return rt_dt_get(MPI_BYTE);
}

/* Starts this phase's schedule on our own tag (not the collectives'
 * sequence: the phases start at different times on different ranks). */
static void start(struct idup *d)
{
    struct coll_sched *s = &d->s;
    int n = d->over->size, me = d->over->rank;

    coll_sched_init(s, d->phase == SWAP_FREE || d->phase == SWAP_HELD ? d->bridge : d->over,
                    "MPI_Comm_idup");
    switch (d->phase) {
    case GATHER_FREE:
    case GATHER_HELD: {
        size_t len = d->phase == GATHER_FREE ? sizeof(d->mask) : sizeof(uint32_t);

        if (me)
            coll_send(s, d->mask, len, bytes(), 0);
        for (int r = 1; !me && r < n; r++)
            coll_recv(s, d->all + (size_t)r * NW, len, bytes(), r);
        break;
    }
    case SWAP_FREE:
    case SWAP_HELD: {
        size_t len = d->phase == SWAP_FREE ? sizeof(d->mask) : sizeof(uint32_t);

        coll_send(s, d->mask, len, bytes(), 0);
        coll_recv(s, d->theirs, len, bytes(), 0);
        break;
    }
    case SEND_CHOICE:
    case SEND_VERDICT:
        for (int r = 1; !me && r < n; r++)
            coll_send(s, &d->mask[0], sizeof(uint32_t), bytes(), r);
        if (me)
            coll_recv(s, &d->mask[0], sizeof(uint32_t), bytes(), 0);
        break;
    }
    s->tag = d->tag;
    s->next = 0;
    s->nreqs = s->reaped = 0;
    s->err = 0;
}

static void begin_attempt(struct idup *d)
{
    rt_cid_free_mask(d->mask);
    d->phase = GATHER_FREE;
    start(d);
}

/* The agreement on the local id (intercommunicators) or the final one. */
static void begin_agreement(struct idup *d)
{
    d->bridge = d->c->inter && d->got_lcid ? d->c : NULL;
    d->attempt = 0;
    begin_attempt(d);
}

static void fold(struct idup *d, size_t words)
{
    for (int r = 1; r < d->over->size; r++)
        for (size_t w = 0; w < words; w++)
            d->mask[w] &= d->all[(size_t)r * NW + w];
}

/* A phase ended on every rank that took part here; 1 when the whole
 * duplication is over (d->base.status.MPI_ERROR tells how). */
static int next_phase(struct idup *d)
{
    int me = d->over->rank;

    switch (d->phase) {
    case GATHER_FREE:
        if (!me)
            fold(d, RT_CID_WORDS);
        d->phase = !me && d->bridge ? SWAP_FREE : SEND_CHOICE;
        if (!me && d->phase == SEND_CHOICE)
            d->mask[0] = rt_cid_pick(d->mask, d->attempt && !d->bridge, &d->seed);
        break;
    case SWAP_FREE:
        for (int w = 0; w < RT_CID_WORDS; w++)
            d->mask[w] &= d->theirs[w];
        d->mask[0] = rt_cid_pick(d->mask, 0, &d->seed);
        d->phase = SEND_CHOICE;
        break;
    case SEND_CHOICE:
        d->c_id = d->mask[0];
        if (d->c_id == UINT32_MAX) {
            d->base.status.MPI_ERROR = MPI_ERR_INTERN;
            return 1;
        }
        d->held = rt_cid_hold(d->c_id);
        d->mask[0] = (uint32_t)d->held;
        d->phase = GATHER_HELD;
        break;
    case GATHER_HELD:
        if (!me)
            fold(d, 1);
        d->phase = !me && d->bridge ? SWAP_HELD : SEND_VERDICT;
        break;
    case SWAP_HELD:
        d->mask[0] &= d->theirs[0];
        d->phase = SEND_VERDICT;
        break;
    case SEND_VERDICT:
        if (d->held)
            rt_cid_unhold(d->c_id);
        if (!d->mask[0]) {
            d->attempt++;
            begin_attempt(d);
            return 0;
        }
        rt_cid_reserve(d->c_id);
        if (d->c->inter && !d->got_lcid) {
            d->lcid = d->c_id;
            d->got_lcid = 1;
            begin_agreement(d);
            return 0;
        }
        d->built = 1;
        d->base.status.MPI_ERROR = rt_comm_dup_finish(d->c, d->c_id, d->lcid, d->info, d->newcomm);
        return 1;
    }
    start(d);
    return 0;
}

static void finish(struct idup *d)
{
    if (!d->built && d->got_lcid)
        rt_cid_release(d->lcid);
    if (d->info != MPI_INFO_NULL)
        PMPI_Info_free(&d->info);
    free(d->all);
    d->all = NULL;
    rt_req_complete(&d->base);
}

static int idup_progress(void)
{
    static int busy; /* copy callbacks that make progress do not re-enter */
    int n = 0;

    if (busy)
        return 0;
    busy = 1;
    for (struct idup **p = &running, *d; (d = *p);) {
        int over = 0;

        while (!over && coll_sched_advance(&d->s)) {
            int err = d->s.err;

            coll_sched_fini(&d->s);
            n++;
            if (err) {
                d->base.status.MPI_ERROR = err;
                over = 1;
            } else {
                over = next_phase(d);
            }
        }
        if (over) {
            *p = d->next;
            finish(d);
        } else {
            p = &d->next;
        }
    }
    busy = 0;
    return n;
}

static int idup_cancel(struct rdmpi_request *r)
{
    (void)r;
    return 0; /* a duplication cannot be cancelled: it runs to its end */
}

static void idup_release(struct rdmpi_request *r)
{
    rt_obj_delete(r);
}

static const struct rt_req_ops idup_ops = {.cancel = idup_cancel, .release = idup_release};

/* Starts duplicating c (an intracommunicator or an intercommunicator);
 * *newcomm is written when the request completes. info (owned by the
 * duplication from now on) replaces c's hints when not MPI_INFO_NULL. */
static int idup_start(struct rdmpi_comm *c, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    struct idup *d;

    /* Once per start-up: a second registration is a no-op. */
    if (rt_progress_register(idup_progress))
        return MPI_ERR_INTERN;
    if (!(d = rt_obj_new(RT_KIND_REQUEST, sizeof(*d))))
        return MPI_ERR_NO_MEM;
    d->c = c;
    d->over = c->inter ? c->local : c;
    if (!d->over->rank && !(d->all = malloc((size_t)d->over->size * sizeof(d->mask)))) {
        rt_obj_delete(d);
        return MPI_ERR_NO_MEM;
    }
    d->base.type = RT_REQ_COLL;
    d->base.comm = c->handle;
    d->base.ops = &idup_ops;
    rt_status_empty(&d->base.status);
    d->info = info;
    d->newcomm = newcomm;
    d->tag = RT_TAG_IDUP - (int)(coll_comm(c)->idup_seq++ % (1u << 20));
    d->seed = (unsigned)rt.rank * 2654435761u ^ (unsigned)d->tag;
    begin_agreement(d);
    d->next = running;
    running = d;
    *request = (MPI_Request)d;
    return MPI_SUCCESS;
}

/* Info is copied now, as the user may free it at once. */
static int idup_common(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request,
                       int with_info, const char *fn)
{
    struct rdmpi_comm *c;
    MPI_Info mine = MPI_INFO_NULL;
    int err;

    if ((err = rt_comm_dup_check(comm, info, newcomm, with_info, fn, &c)))
        return err;
    if (!request)
        return rdmpi_err_comm(comm, MPI_ERR_REQUEST, fn,
                              "request is NULL; pass the address of an MPI_Request");
    if (with_info && info != MPI_INFO_NULL && (err = PMPI_Info_dup(info, &mine)))
        return rdmpi_err_comm(comm, err, fn, "copying info failed");
    if ((err = idup_start(c, mine, newcomm, request))) {
        if (mine != MPI_INFO_NULL)
            PMPI_Info_free(&mine);
        return rdmpi_err_comm(comm, err, fn, "out of memory starting the duplication");
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    RT_API_ENTER();
    return idup_common(comm, MPI_INFO_NULL, newcomm, request, 0, "MPI_Comm_idup");
}

#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    RT_API_ENTER();
    return idup_common(comm, info, newcomm, request, 1, "MPI_Comm_idup_with_info");
}
