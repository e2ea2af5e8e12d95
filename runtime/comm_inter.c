/* Intercommunicators: creation from two intracommunicators joined by their
 * leaders, and merging back into one intracommunicator. Each intercomm
 * keeps a hidden intracommunicator of its local group (`local`) for the
 * agreements that run among the local members. */
#include "comm.h"
#include "dpm.h"
#include "proc.h"

#include <stdlib.h>

/* A new intercommunicator between local members lw[0..ln) and remote ones
 * rw[0..rn), inheriting parent's error handler. Two ids are agreed over
 * `over` (members m, NULL for all of it, ours at me): one for the hidden
 * local communicator, then one for the intercommunicator, whose first member
 * also agrees with bridge_peer on bridge (tag btag). A process with either
 * side empty gets MPI_COMM_NULL but still takes part in the agreements. */
static int make_intercomm(struct rdmpi_comm *over, const int *m, int me, struct rdmpi_comm *bridge,
                          int bridge_peer, int btag, struct rdmpi_comm *parent, const int *lw,
                          int ln, const int *rw, int rn, MPI_Comm *out)
{
    int part = ln > 0 && rn > 0, err;
    struct rdmpi_group *lg, *rg;
    struct rdmpi_comm *ic = NULL;
    uint32_t cid, lcid;

    *out = MPI_COMM_NULL;
    if ((err = rt_cid_agree(over, m, over->size, me, RT_TAG_COMM, NULL, 0, 0, part, &lcid)))
        return err;
    if ((err = rt_cid_agree(over, m, over->size, me, RT_TAG_COMM, bridge, bridge_peer, btag, part,
                            &cid))) {
        if (part)
            rt_cid_release(lcid);
        return err;
    }
    if (!part)
        return MPI_SUCCESS;
    lg = rt_group_new(lw, ln);
    rg = rt_group_new(rw, rn);
    if (lg && rg) {
        ic = rt_intercomm_new(lg, rg, cid, lcid, parent, &err);
    } else {
        rt_cid_release(lcid);
        rt_cid_release(cid);
        err = MPI_ERR_NO_MEM;
    }
    if (lg)
        rt_group_release(lg);
    if (rg)
        rt_group_release(rg);
    if (!ic)
        return err;
    *out = ic->handle;
    return MPI_SUCCESS;
}

/* The body of MPI_Intercomm_create, its arguments checked; tag may be an
 * internal (negative) one. The leaders swap their groups' identities and
 * business cards over pc, so a member may meet processes of other jobs it
 * never talked to (a spawned group's, say): dpm_conn.c. Returns an MPI
 * error class. */
static int intercomm_create(struct rdmpi_comm *c, int local_leader, struct rdmpi_comm *pc,
                            int remote_leader, int tag, MPI_Comm *newintercomm)
{
    struct rdmpi_comm *ic;
    char why[256] = "";
    int err = rt_dpm_meet_over(c, local_leader, pc, remote_leader, tag, &ic, why, sizeof(why));

    if (!err)
        *newintercomm = ic->handle;
    return err;
}

#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Intercomm_create";
    struct rdmpi_comm *c, *pc = NULL;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(local_comm, fn, &err)))
        return err;
    if (c->inter)
        return rdmpi_err_comm(local_comm, MPI_ERR_COMM, fn,
                              "local_comm is an "
                              "intercommunicator; pass an intracommunicator");
    if (!newintercomm)
        return rdmpi_err_comm(local_comm, MPI_ERR_ARG, fn,
                              "newintercomm is NULL; pass the address of an MPI_Comm");
    if (local_leader < 0 || local_leader >= c->size)
        return rdmpi_err_comm(local_comm, MPI_ERR_RANK, fn,
                              "local_leader is %d; pass a rank "
                              "of local_comm (0..%d)",
                              local_leader, c->size - 1);
    if (tag < 0)
        return rdmpi_err_comm(local_comm, MPI_ERR_TAG, fn,
                              "tag is %d; it must be in "
                              "0..MPI_TAG_UB",
                              tag);
    if (c->rank == local_leader) {
        if (!(pc = rt_comm_check(peer_comm, fn, &err)))
            return err;
        if (pc->session != c->session)
            return rdmpi_err_comm(local_comm, MPI_ERR_COMM, fn,
                                  "local_comm and peer_comm come from different sessions (or "
                                  "one from a session, one from the world model); they cannot "
                                  "meet in one call");
        if (remote_leader < 0 || remote_leader >= pc->remote_size)
            return rdmpi_err_comm(local_comm, MPI_ERR_RANK, fn,
                                  "remote_leader is %d; pass a "
                                  "rank of peer_comm (0..%d)",
                                  remote_leader, pc->remote_size - 1);
    }
    if ((err = intercomm_create(c, local_leader, pc, remote_leader, tag, newintercomm)))
        return rdmpi_err_comm(local_comm, err, fn,
                              "building the intercommunicator failed "
                              "(out of context ids or memory, or a leader exchange failed)");
    return MPI_SUCCESS;
}

#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Intercomm_merge";
    struct rdmpi_comm *c, *nc;
    struct rdmpi_group *g;
    /* each side's high */
    int err, mine[1], theirs[1], first, *w;
    uint32_t cid;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(intercomm, fn, &err)))
        return err;
    if (!c->inter)
        return rdmpi_err_comm(intercomm, MPI_ERR_COMM, fn,
                              "intercomm is an "
                              "intracommunicator; pass an intercommunicator");
    if (!newintracomm)
        return rdmpi_err_comm(intercomm, MPI_ERR_ARG, fn,
                              "newintracomm is NULL; pass the address of an MPI_Comm");
    mine[0] = !!high;
    if (c->rank == 0 &&
        (err = rt_comm_sendrecv(c, mine, sizeof(mine), 0, theirs, sizeof(theirs), 0, RT_TAG_COMM)))
        return rdmpi_err_comm(intercomm, err, fn, "the leaders' exchange failed");
    if ((err =
             rt_comm_bcast(c->local, NULL, c->size, c->rank, RT_TAG_COMM, theirs, sizeof(theirs))))
        return rdmpi_err_comm(intercomm, err, fn, "the local broadcast failed");
    /* The low group goes first; on a tie, the group whose leader comes
     * first by identity (namespace, rank: both sides compute the same
     * answer, also when they come from different jobs). */
    first = mine[0] != theirs[0] ? !mine[0] : rt_proc_cmp(c->world[0], c->remote_world[0]) < 0;
    if ((err = rt_cid_agree(c->local, NULL, c->size, c->rank, RT_TAG_COMM, c, 0, RT_TAG_COMM, 1,
                            &cid)))
        return rdmpi_err_comm(intercomm, err, fn, "agreeing on a context id failed");
    if (!(w = malloc(((size_t)c->size + (size_t)c->remote_size) * sizeof(int)))) {
        rt_cid_release(cid);
        return rdmpi_err_comm(intercomm, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    for (int i = 0; i < c->size; i++)
        w[(first ? 0 : c->remote_size) + i] = c->world[i];
    for (int i = 0; i < c->remote_size; i++)
        w[(first ? c->size : 0) + i] = c->remote_world[i];
    g = rt_group_new(w, c->size + c->remote_size);
    free(w);
    if (!g)
        rt_cid_release(cid);
    nc = g ? rt_comm_new(g, cid, c, &err) : NULL;
    if (g)
        rt_group_release(g);
    if (!nc)
        return rdmpi_err_comm(intercomm, MPI_ERR_NO_MEM, fn, "out of memory");
    *newintracomm = nc->handle;
    return MPI_SUCCESS;
}

/* The leaders swap n ints each way over the intercomm and broadcast what
 * they got to their groups. */
static int swap_and_share(struct rdmpi_comm *c, const int *mine, int n, int *theirs, int rn)
{
    int err = MPI_SUCCESS;

    if (c->rank == 0)
        err = rt_comm_sendrecv(c, mine, (size_t)n * sizeof(int), 0, theirs,
                               (size_t)rn * sizeof(int), 0, RT_TAG_COMM);
    if (!err)
        err = rt_comm_bcast(c->local, NULL, c->size, c->rank, RT_TAG_COMM, theirs,
                            (size_t)rn * sizeof(int));
    return err;
}

struct ckey {
    int key, rank;
};

static int by_ckey(const void *a, const void *b)
{
    const struct ckey *x = a, *y = b;

    return x->key != y->key ? (x->key < y->key ? -1 : 1) : x->rank - y->rank;
}

/* World ranks of the members of one side with this color, ordered by
 * (key, rank); cw[2i], cw[2i+1] are rank i's color and key. */
static int pick(const int *ck, int n, const int *world, int color, int *out, struct ckey *tmp)
{
    int m = 0;

    if (color == MPI_UNDEFINED)
        return 0;
    for (int i = 0; i < n; i++)
        if (ck[2 * i] == color)
            tmp[m++] = (struct ckey){ck[2 * i + 1], i};
    qsort(tmp, (size_t)m, sizeof(*tmp), by_ckey);
    for (int i = 0; i < m; i++)
        out[i] = world[tmp[i].rank];
    return m;
}

int rt_inter_split(struct rdmpi_comm *c, int color, int key, MPI_Comm *out)
{
    int mine[2] = {color, key}, n = c->size, rn = c->remote_size, ln, rrn, err;
    size_t most = (size_t)(n > rn ? n : rn) + 1;
    int *lck = malloc(2 * most * sizeof(int)), *rck = malloc(2 * most * sizeof(int));
    int *lw = malloc(most * sizeof(int)), *rw = malloc(most * sizeof(int));
    struct ckey *tmp = malloc(most * sizeof(*tmp));

    err = MPI_ERR_NO_MEM;
    if (!lck || !rck || !lw || !rw || !tmp)
        goto out;
    if ((err = rt_comm_allgather(c->local, mine, 2, MPI_INT, lck, 2, MPI_INT)) ||
        (err = swap_and_share(c, lck, 2 * n, rck, 2 * rn)))
        goto out;
    ln = pick(lck, n, c->world, color, lw, tmp);
    rrn = pick(rck, rn, c->remote_world, color, rw, tmp);
    err = make_intercomm(c->local, NULL, c->rank, c, 0, RT_TAG_COMM, c, lw, ln, rw, rrn, out);
out:
    free(lck);
    free(rck);
    free(lw);
    free(rw);
    free(tmp);
    return err;
}

int rt_inter_create(struct rdmpi_comm *c, struct rdmpi_group *g, MPI_Comm *out)
{
    int n = 0, rn = 0, err, *rw = NULL;

    /* sizes first, then the member lists */
    if ((err = swap_and_share(c, &g->size, 1, &rn, 1)))
        return err;
    if (!(rw = malloc(((size_t)rn + 1) * sizeof(int))))
        return MPI_ERR_NO_MEM;
    if (!(err = swap_and_share(c, g->world, g->size, rw, rn))) {
        n = g->rank == MPI_UNDEFINED ? 0 : g->size;
        err =
            make_intercomm(c->local, NULL, c->rank, c, 0, RT_TAG_COMM, c, g->world, n, rw, rn, out);
    }
    free(rw);
    return err;
}

/* The sessions model's MPI_Intercomm_create: each side makes a
 * communicator of its group over the hidden world communicator, and the
 * leaders meet over that one, on tags derived from the string tag. */
#pragma weak MPI_Intercomm_create_from_groups = PMPI_Intercomm_create_from_groups
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Intercomm_create_from_groups";
    MPI_Errhandler h = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
    struct rdmpi_errhandler *e = rt_errh_get(h);
    struct rdmpi_group *lg = rt_group_get(local_group), *rg = rt_group_get(remote_group);
    struct rdmpi_comm *ic;
    MPI_Comm local;
    int err, tag;

    RT_CHECK_INIT(fn);
    if (!newintercomm || !stringtag)
        return rdmpi_err_errh(h, RT_ERRH_COMM, MPI_ERR_ARG, fn, "%s is NULL",
                              newintercomm ? "stringtag" : "newintercomm");
    if (!lg || !rg || !lg->size || !rg->size)
        return rdmpi_err_errh(h, RT_ERRH_COMM, MPI_ERR_GROUP, fn,
                              "%s is not a valid, "
                              "non-empty group",
                              !lg || !lg->size ? "local_group" : "remote_group");
    if ((err = rt_from_group_check(h, info, fn)))
        return err;
    if (local_leader < 0 || local_leader >= lg->size || remote_leader < 0 ||
        remote_leader >= rg->size)
        return rdmpi_err_errh(h, RT_ERRH_COMM, MPI_ERR_RANK, fn,
                              "local_leader %d or "
                              "remote_leader %d is not a rank of its group (sizes %d and %d)",
                              local_leader, remote_leader, lg->size, rg->size);
    if (lg->rank == MPI_UNDEFINED)
        return rdmpi_err_errh(h, RT_ERRH_COMM, MPI_ERR_GROUP, fn,
                              "this process is not in "
                              "local_group; only its members call this");
    tag = rt_stringtag(stringtag);
    if ((err = rt_comm_from_group(lg, tag, &local)))
        return rdmpi_err_errh(h, RT_ERRH_COMM, err, fn,
                              "making the local group's "
                              "communicator failed (all ids in use, or out of memory)");
    err = intercomm_create(rt_comm_get(local), local_leader, rt_comm_predef[0],
                           rg->world[remote_leader], tag - (1 << 20), newintercomm);
    rt_comm_destroy(rt_comm_get(local));
    if (err)
        return rdmpi_err_errh(h, RT_ERRH_COMM, err, fn,
                              "building the intercommunicator "
                              "failed (out of context ids or memory, or a leader exchange "
                              "failed)");
    ic = rt_comm_get(*newintercomm);
    ic->session = ic->local->session = lg->session;
    rt_comm_set_errh(ic, e);
    return MPI_SUCCESS;
}
