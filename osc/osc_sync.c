/* Synchronization: fence, post-start-complete-wait, and the passive
 * target calls (lock, unlock, flush, sync). Remote completion rests on
 * the target handling each origin's messages in order: a FLUSH, UNLOCK
 * or COMPLETE is answered or counted after the operations sent before
 * it. A fence instead compares counts: every rank learns how many
 * operations were sent to it, ever, waits until it applied that many, and
 * then meets the others in a barrier. Direct puts and gets (osc_ops.c)
 * are complete when they return and need none of this. */
#include "osc.h"

#include <stdlib.h>

static int epoch_err(MPI_Win win, const char *fn, const char *what)
{
    return rdmpi_err_win(win, MPI_ERR_RMA_SYNC, fn, "%s", what);
}

#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert, MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_fence";
    struct osc_win *o;
    uint64_t expected = 0;
    unsigned spins = 0;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (o->nstart || o->npost >= 0 || o->lock_all)
        return epoch_err(win, fn,
                         "a post/start or lock_all epoch is open on this window; "
                         "close it before MPI_Win_fence");
    osc_complete_local(o);
    PMPI_Reduce_scatter_block(o->sent, &expected, 1, MPI_UINT64_T, MPI_SUM, o->comm);
    while (o->processed < expected)
        if (!rt_progress())
            rt_progress_wait(&spins);
    /* No rank reads or writes in the next epoch before every rank has
     * applied what it was sent in this one. */
    PMPI_Barrier(o->comm);
    o->fence_open = !(assert &MPI_MODE_NOSUCCEED);
    return MPI_SUCCESS;
}

/* The window's ranks of a group, or NULL after raising. */
static int *ranks_of(struct osc_win *o, MPI_Win win, MPI_Group group, int *n, const char *fn)
{
    MPI_Group wg;
    int *in, *out;

    if (PMPI_Group_size(group, n) != MPI_SUCCESS) {
        rdmpi_err_win(win, MPI_ERR_GROUP, fn, "group is not a valid group");
        return NULL;
    }
    in = malloc(sizeof(int) * (size_t)(*n + 1));
    out = malloc(sizeof(int) * (size_t)(*n + 1));
    if (!in || !out)
        rt_fatal("osc: out of memory");
    for (int i = 0; i < *n; i++)
        in[i] = i;
    PMPI_Comm_group(o->comm, &wg);
    PMPI_Group_translate_ranks(group, *n, in, wg, out);
    PMPI_Group_free(&wg);
    free(in);
    for (int i = 0; i < *n; i++)
        if (out[i] == MPI_UNDEFINED) {
            free(out);
            rdmpi_err_win(win, MPI_ERR_GROUP, fn, "group member %d is not in the window", i);
            return NULL;
        }
    return out;
}

#pragma weak MPI_Win_post = PMPI_Win_post
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_post";
    struct osc_hdr h = {.kind = OSC_POST};
    struct osc_win *o;
    int err, n, *r;

    (void)assert;
    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (o->npost >= 0)
        return epoch_err(win, fn, "an exposure epoch is open already; MPI_Win_wait first");
    if (!(r = ranks_of(o, win, group, &n, fn)))
        return MPI_ERR_GROUP;
    for (int i = 0; i < n; i++)
        osc_send(o, r[i], &h, sizeof(h), NULL, 0, MPI_BYTE, MPI_REQUEST_NULL);
    free(r);
    o->npost = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_start = PMPI_Win_start
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_start";
    struct osc_win *o;
    unsigned spins = 0;
    int err, n, *r;

    (void)assert;
    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (o->start_ranks)
        return epoch_err(win, fn, "an access epoch is open already; MPI_Win_complete first");
    if (!(r = ranks_of(o, win, group, &n, fn)))
        return MPI_ERR_GROUP;
    /* Each target's MPI_Win_post must have come. */
    for (int i = 0; i < n; i++) {
        while (!o->posts[r[i]])
            if (!rt_progress())
                rt_progress_wait(&spins);
        o->posts[r[i]]--;
    }
    o->start_ranks = r;
    o->nstart = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_complete(MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_complete";
    struct osc_hdr h = {.kind = OSC_COMPLETE};
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (!o->start_ranks)
        return epoch_err(win, fn, "no access epoch is open; call MPI_Win_start first");
    for (int i = 0; i < o->nstart; i++)
        osc_send(o, o->start_ranks[i], &h, sizeof(h), NULL, 0, MPI_BYTE, MPI_REQUEST_NULL);
    osc_complete_local(o);
    free(o->start_ranks);
    o->start_ranks = NULL;
    o->nstart = 0;
    return MPI_SUCCESS;
}

static int exposure_done(struct osc_win *o)
{
    if (o->completes < o->npost)
        return 0;
    o->completes -= o->npost;
    o->npost = -1;
    return 1;
}

#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_wait(MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_wait";
    struct osc_win *o;
    unsigned spins = 0;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (o->npost < 0)
        return epoch_err(win, fn, "no exposure epoch is open; call MPI_Win_post first");
    while (!exposure_done(o))
        if (!rt_progress())
            rt_progress_wait(&spins);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_test = PMPI_Win_test
int PMPI_Win_test(MPI_Win win, int *flag)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_test";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (!flag)
        return rdmpi_err_win(win, MPI_ERR_ARG, fn, "flag is NULL");
    if (o->npost < 0)
        return epoch_err(win, fn, "no exposure epoch is open; call MPI_Win_post first");
    rt_progress();
    *flag = exposure_done(o);
    return MPI_SUCCESS;
}

/* ---- passive target ---- */

static int check_rank(struct osc_win *o, MPI_Win win, int rank, const char *fn)
{
    if (rank < 0 || rank >= o->size)
        return rdmpi_err_win(win, MPI_ERR_RANK, fn, "rank %d is not in the window (0..%d)", rank,
                             o->size - 1);
    return MPI_SUCCESS;
}

/* Sends kind to every rank (a FLUSH only to those with messages since
 * their last flush: direct operations are complete already; an UNLOCK
 * with osc_release) and waits for all the answers. */
static void control_all(struct osc_win *o, int kind, int lock)
{
    MPI_Request *r = malloc(sizeof(*r) * (size_t)o->size);

    if (!r)
        rt_fatal("osc: out of memory");
    for (int t = 0; t < o->size; t++) {
        r[t] = MPI_REQUEST_NULL;
        if (kind == OSC_FLUSH && !o->unflushed[t])
            continue;
        if (kind == OSC_UNLOCK)
            osc_release(o, t, &r[t]);
        else
            osc_ask(o, t, kind, lock, &r[t]);
        o->unflushed[t] = false;
    }
    PMPI_Waitall(o->size, r, MPI_STATUSES_IGNORE);
    free(r);
}

/* Remote completion at t of what was sent to it. */
static void flush(struct osc_win *o, int t)
{
    if (o->unflushed[t])
        osc_control(o, t, OSC_FLUSH, 0);
    o->unflushed[t] = false;
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_lock";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return rdmpi_err_win(win, MPI_ERR_LOCKTYPE, fn,
                             "lock_type is %d; pass "
                             "MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED",
                             lock_type);
    if (rank == MPI_PROC_NULL) /* a valid target that needs nothing (MPI-4.1 sec. 12.5) */
        return MPI_SUCCESS;
    if ((err = check_rank(o, win, rank, fn)))
        return err;
    if (o->locked[rank] || o->lock_all)
        return epoch_err(win, fn, "this process holds a lock on that rank already");
    if (o->start_ranks)
        return epoch_err(win, fn,
                         "an access epoch (MPI_Win_start) is open on this window; "
                         "MPI_Win_complete it before locking");
    /* MPI_MODE_NOCHECK: the user promises no conflicting lock; skip it. */
    if (!(assert &MPI_MODE_NOCHECK))
        osc_control(o, rank, OSC_LOCK, lock_type);
    o->locked[rank] = (uint8_t)lock_type;
    o->nocheck[rank] = (assert &MPI_MODE_NOCHECK) != 0;
    /* A fence opens an epoch only for RMA calls that follow it (MPI 4.1
     * sec. 12.5.1): a lock instead means it opened none. */
    o->fence_open = false;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_unlock";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (rank == MPI_PROC_NULL) /* a valid target that needs nothing (MPI-4.1 sec. 12.5) */
        return MPI_SUCCESS;
    if ((err = check_rank(o, win, rank, fn)))
        return err;
    if (!o->locked[rank])
        return epoch_err(win, fn,
                         "this process holds no lock on that rank; MPI_Win_lock "
                         "first");
    osc_complete_local(o);
    if (o->nocheck[rank]) {
        flush(o, rank);
    } else {
        MPI_Request r;
        osc_release(o, rank, &r);
        PMPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    o->unflushed[rank] = false;
    o->locked[rank] = 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_lock_all";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (o->lock_all)
        return epoch_err(win, fn,
                         "MPI_Win_lock_all was called already; MPI_Win_unlock_all "
                         "first");
    if (o->start_ranks)
        return epoch_err(win, fn,
                         "an access epoch (MPI_Win_start) is open on this window; "
                         "MPI_Win_complete it before locking");
    for (int t = 0; t < o->size; t++)
        if (o->locked[t])
            return epoch_err(win, fn, "this process holds a lock on a rank already");
    if (!(assert &MPI_MODE_NOCHECK))
        control_all(o, OSC_LOCK, MPI_LOCK_SHARED);
    o->lock_all = 1 + ((assert &MPI_MODE_NOCHECK) != 0);
    o->fence_open = false; /* as in MPI_Win_lock */
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_unlock_all(MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_unlock_all";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (!o->lock_all)
        return epoch_err(win, fn, "MPI_Win_lock_all was not called");
    osc_complete_local(o);
    control_all(o, o->lock_all == 2 ? OSC_FLUSH : OSC_UNLOCK, 0);
    o->lock_all = 0;
    return MPI_SUCCESS;
}

/* A passive-target epoch must be open: to `rank`, or to any rank when all
 * is set (the _all forms). */
static int passive(struct osc_win *o, MPI_Win win, int rank, bool all, const char *fn)
{
    int err;

    if (!all && (err = check_rank(o, win, rank, fn)))
        return err;
    if (!o->lock_all && (all || !o->locked[rank])) {
        bool any = false;
        for (int t = 0; all && t < o->size; t++)
            any |= o->locked[t] != 0;
        if (!any)
            return epoch_err(win, fn,
                             "no passive-target epoch is open; MPI_Win_lock or "
                             "MPI_Win_lock_all first");
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush(int rank, MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_flush";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (rank == MPI_PROC_NULL) /* a valid target that needs nothing (MPI-4.1 sec. 12.5) */
        return MPI_SUCCESS;
    if ((err = passive(o, win, rank, false, fn)))
        return err;
    osc_complete_local(o);
    flush(o, rank);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_all(MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_flush_all";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)) || (err = passive(o, win, 0, true, fn)))
        return err;
    osc_complete_local(o);
    control_all(o, OSC_FLUSH, 0);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_flush_local";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (rank == MPI_PROC_NULL) /* a valid target that needs nothing (MPI-4.1 sec. 12.5) */
        return MPI_SUCCESS;
    if ((err = passive(o, win, rank, false, fn)))
        return err;
    osc_complete_local(o);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_flush_local_all(MPI_Win win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_flush_local_all";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)) || (err = passive(o, win, 0, true, fn)))
        return err;
    osc_complete_local(o);
    return MPI_SUCCESS;
}

/* The unified model: public and private copies are one; a full fence
 * orders this process's loads and stores around the call. */
#pragma weak MPI_Win_sync = PMPI_Win_sync
int PMPI_Win_sync(MPI_Win win)
{
    RT_API_ENTER();
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, "MPI_Win_sync", &err)))
        return err;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    rt_progress();
    return MPI_SUCCESS;
}
