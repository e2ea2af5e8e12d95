/* The intracommunicator constructors and MPI_Comm_free. Every constructor
 * agrees on a context id over the members taking part (comm_cid.c), then
 * builds the communicator from a group (comm_create.c). */
#include "comm.h"
#include "info.h"

#include <stdlib.h>
#include <string.h>

/* Whether info names an info object (the predefined MPI_INFO_ENV too). */
static int info_valid(MPI_Info info)
{
    const struct rt_obj *o = (const struct rt_obj *)info;

    return info == MPI_INFO_ENV ||
           ((uintptr_t)info >= RDMPI_PREDEF_LIMIT && o->kind == RT_KIND_INFO);
}

static int cid_error(MPI_Comm comm, int err, const char *fn)
{
    if (err == MPI_ERR_INTERN)
        return rdmpi_err_comm(comm, MPI_ERR_INTERN, fn,
                              "no context id is free at every member (16384 communicators "
                              "in use); free communicators with MPI_Comm_free");
    return rdmpi_err_comm(comm, err, fn,
                          "agreeing on a context id with the other members "
                          "failed");
}

static int check_newcomm(MPI_Comm comm, MPI_Comm *newcomm, const char *fn)
{
    if (!newcomm)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "newcomm is NULL; pass the address of an MPI_Comm");
    return MPI_SUCCESS;
}

static int check_intra(MPI_Comm comm, struct rdmpi_comm *c, const char *fn)
{
    if (c->inter)
        return rdmpi_err_comm(comm, MPI_ERR_COMM, fn,
                              "comm is an intercommunicator; this operation needs an "
                              "intracommunicator (merge it with MPI_Intercomm_merge)");
    return MPI_SUCCESS;
}

/* Agreement over the whole local group; an intercomm's two leaders also
 * agree with each other, so both groups end with one id. */
static int agree_all(struct rdmpi_comm *c, int keep, uint32_t *cid)
{
    if (!c->inter)
        return rt_cid_agree(c, NULL, c->size, c->rank, RT_TAG_COMM, NULL, 0, 0, keep, cid);
    return rt_cid_agree(c->local, NULL, c->size, c->rank, RT_TAG_COMM, c, 0, RT_TAG_COMM, keep,
                        cid);
}

/* Copies what a duplicate inherits: attributes (through their copy
 * callbacks), the topology and the info hints (or `info` instead). */
static int inherit(struct rdmpi_comm *c, struct rdmpi_comm *nc, MPI_Info info)
{
    int err;

    if ((err = rt_attr_copy(RT_KIND_COMM, c->handle, c->attrs, nc->handle, &nc->attrs)))
        return err;
    nc->topo = rt_topo_dup(c->topo, &err);
    if (err)
        return err;
    if (info == MPI_INFO_NULL)
        info = c->info;
    if (info != MPI_INFO_NULL)
        return PMPI_Info_dup(info, &nc->info);
    return MPI_SUCCESS;
}

int rt_comm_dup_finish(struct rdmpi_comm *c, uint32_t cid, uint32_t lcid, MPI_Info info,
                       MPI_Comm *newcomm)
{
    struct rdmpi_comm *nc;
    struct rdmpi_group *g;
    int err;

    if (!(g = rt_comm_group(c))) {
        rt_cid_release(cid);
        if (c->inter)
            rt_cid_release(lcid);
        return MPI_ERR_NO_MEM;
    }
    nc = c->inter ? rt_intercomm_new(g, c->remote_group, cid, lcid, c, &err)
                  : rt_comm_new(g, cid, c, &err);
    if (!nc)
        return err;
    nc->dup = c->name[0] != 0;
    if ((err = inherit(c, nc, info))) {
        rt_attr_delete_all(RT_KIND_COMM, nc->handle, &nc->attrs);
        rt_comm_destroy(nc);
        *newcomm = MPI_COMM_NULL; /* no half-made communicator escapes */
        return err;
    }
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

int rt_comm_dup_check(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, int with_info,
                      const char *fn, struct rdmpi_comm **c)
{
    int err;

    RT_CHECK_INIT(fn);
    if (!(*c = rt_comm_check(comm, fn, &err)) || (err = check_newcomm(comm, newcomm, fn)))
        return err;
    if (with_info && info != MPI_INFO_NULL && !info_valid(info))
        return rdmpi_err_comm(comm, MPI_ERR_INFO, fn,
                              "info is not a valid info object; pass "
                              "one from MPI_Info_create, or MPI_INFO_NULL");
    return MPI_SUCCESS;
}

static int dup_common(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, int with_info,
                      const char *fn)
{
    struct rdmpi_comm *c;
    uint32_t cid, lcid = 0;
    int err;

    if ((err = rt_comm_dup_check(comm, info, newcomm, with_info, fn, &c)))
        return err;
    if (c->inter &&
        (err = rt_cid_agree(c->local, NULL, c->size, c->rank, RT_TAG_COMM, NULL, 0, 0, 1, &lcid)))
        return cid_error(comm, err, fn);
    if ((err = agree_all(c, 1, &cid))) {
        if (c->inter)
            rt_cid_release(lcid);
        return cid_error(comm, err, fn);
    }
    if ((err = rt_comm_dup_finish(c, cid, lcid, with_info ? info : MPI_INFO_NULL, newcomm)))
        return rdmpi_err_comm(comm, err, fn,
                              err == MPI_ERR_NO_MEM
                                  ? "out of memory for a communicator"
                                  : "copying the communicator's attributes, topology or info "
                                    "failed (an attribute copy callback returned an error?)");
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    RT_API_ENTER();
    return dup_common(comm, MPI_INFO_NULL, newcomm, 0, "MPI_Comm_dup");
}

#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    RT_API_ENTER();
    return dup_common(comm, info, newcomm, 1, "MPI_Comm_dup_with_info");
}

/* A new communicator over world ranks w[0..n) (this process among them)
 * with an agreed id; the group reference is the communicator's alone. */
/* A communicator over world ranks w[0..n) with context id cid, inheriting
 * c's error handler; an MPI error class. */
static int build_comm(struct rdmpi_comm *c, const int *w, int n, uint32_t cid, MPI_Comm *newcomm)
{
    struct rdmpi_group *g = rt_group_new(w, n);
    struct rdmpi_comm *nc = NULL;
    int err = MPI_ERR_NO_MEM;

    if (g) {
        nc = rt_comm_new(g, cid, c, &err);
        rt_group_release(g);
    } else {
        rt_cid_release(cid);
    }
    if (!nc)
        return err;
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}

static int make_comm(struct rdmpi_comm *c, const int *w, int n, uint32_t cid, MPI_Comm *newcomm,
                     const char *fn)
{
    int err = build_comm(c, w, n, cid, newcomm);

    if (err)
        return rdmpi_err_comm(c->handle, err, fn, "out of memory for a communicator");
    return MPI_SUCCESS;
}

struct split_entry {
    int color, key, rank;
};

static int by_key(const void *a, const void *b)
{
    const struct split_entry *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* Splits c by (color, key); color MPI_UNDEFINED gives MPI_COMM_NULL. */
static int split(struct rdmpi_comm *c, int color, int key, MPI_Comm *newcomm, const char *fn)
{
    MPI_Comm comm = c->handle;
    int mine[2] = {color, key}, *all, *w, n = 0, err;
    struct split_entry *e;
    uint32_t cid;

    all = malloc(2 * (size_t)c->size * sizeof(int));
    e = malloc((size_t)c->size * sizeof(*e));
    w = malloc((size_t)c->size * sizeof(int));
    if (!all || !e || !w) {
        err = rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of memory");
        goto out;
    }
    if ((err = rt_comm_allgather(c, mine, 2, MPI_INT, all, 2, MPI_INT)))
        goto out;
    if ((err = rt_cid_agree(c, NULL, c->size, c->rank, RT_TAG_COMM, NULL, 0, 0,
                            color != MPI_UNDEFINED, &cid))) {
        err = cid_error(comm, err, fn);
        goto out;
    }
    *newcomm = MPI_COMM_NULL;
    if (color == MPI_UNDEFINED)
        goto out;
    for (int r = 0; r < c->size; r++)
        if (all[2 * r] == color)
            e[n++] = (struct split_entry){color, all[2 * r + 1], r};
    qsort(e, (size_t)n, sizeof(*e), by_key);
    for (int i = 0; i < n; i++)
        w[i] = rt_comm_world_rank(c, e[i].rank);
    err = make_comm(c, w, n, cid, newcomm, fn);
out:
    free(all);
    free(e);
    free(w);
    return err;
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_split";
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)) || (err = check_newcomm(comm, newcomm, fn)))
        return err;
    if (color < 0 && color != MPI_UNDEFINED)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "color is %d; it must be non-negative "
                              "or MPI_UNDEFINED",
                              color);
    if (c->inter && (err = rt_inter_split(c, color, key, newcomm)))
        return rdmpi_err_comm(comm, err, fn, "splitting the intercommunicator failed");
    return c->inter ? MPI_SUCCESS : split(c, color, key, newcomm, fn);
}

/* Whether every member runs on this host (locality from PMIx). */
static int all_on_my_node(struct rdmpi_comm *c)
{
    for (int r = 0; r < c->size; r++) {
        int w = rt_comm_world_rank(c, r), i = 0;
        while (i < rt.local_size && rt.local_peers[i] != w)
            i++;
        if (i == rt.local_size)
            return 0;
    }
    return 1;
}

static int hw_type_is_shared(MPI_Info info)
{
    char v[64];
    int len = sizeof(v), flag = 0;

    if (info == MPI_INFO_NULL ||
        PMPI_Info_get_string(info, "mpi_hw_resource_type", &len, v, &flag) || !flag)
        return 0;
    return !strcmp(v, "mpi_shared_memory");
}

#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_split_type";
    struct rdmpi_comm *c;
    int err, color;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)) || (err = check_newcomm(comm, newcomm, fn)) ||
        (err = check_intra(comm, c, fn)))
        return err;
    switch (split_type) {
    case MPI_UNDEFINED: color = MPI_UNDEFINED; break;
    case MPI_COMM_TYPE_SHARED: color = rt.nodeid; break;
    case MPI_COMM_TYPE_HW_GUIDED:
        /* The only hardware level we know is the node (shared memory). */
        color = hw_type_is_shared(info) ? rt.nodeid : MPI_UNDEFINED;
        break;
    case MPI_COMM_TYPE_HW_UNGUIDED:
        /* A strict subset of comm: the node, unless comm is one node already. */
        color = all_on_my_node(c) ? MPI_UNDEFINED : rt.nodeid;
        break;
    case MPI_COMM_TYPE_RESOURCE_GUIDED: color = MPI_UNDEFINED; break;
    default:
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "split_type is %d; pass "
                              "MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED, "
                              "MPI_COMM_TYPE_HW_UNGUIDED, MPI_COMM_TYPE_RESOURCE_GUIDED or "
                              "MPI_UNDEFINED",
                              split_type);
    }
    return split(c, color, key, newcomm, fn);
}

static struct rdmpi_group *check_group_arg(MPI_Comm comm, MPI_Group group, const char *fn, int *err)
{
    struct rdmpi_group *g = rt_group_get(group);

    if (!g)
        *err = rdmpi_err_comm(comm, MPI_ERR_GROUP, fn,
                              "group is not a valid group (null, "
                              "freed, or not a group handle)");
    return g;
}

/* Ranks in c of the members of g, in g's order; an error when g is not a
 * subset of c's group. */
static int *ranks_in(struct rdmpi_comm *c, struct rdmpi_group *g, const char *fn, int *err)
{
    struct rdmpi_group *cg = rt_comm_group(c);
    int *m = malloc(((size_t)g->size + 1) * sizeof(int));

    if (!cg || !m) {
        free(m);
        *err = rdmpi_err_comm(c->handle, MPI_ERR_NO_MEM, fn, "out of memory");
        return NULL;
    }
    for (int i = 0; i < g->size; i++) {
        if ((m[i] = rt_group_find(cg, g->world[i])) == MPI_UNDEFINED) {
            free(m);
            *err = rdmpi_err_comm(c->handle, MPI_ERR_GROUP, fn,
                                  "group rank %d (world rank "
                                  "%d) is not a member of comm; the group must be a subset "
                                  "of comm's group",
                                  i, g->world[i]);
            return NULL;
        }
    }
    return m;
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_create";
    struct rdmpi_comm *c;
    struct rdmpi_group *g;
    uint32_t cid;
    int err, *m;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)) || (err = check_newcomm(comm, newcomm, fn)) ||
        !(g = check_group_arg(comm, group, fn, &err)))
        return err;
    if (!(m = ranks_in(c->inter ? c->local : c, g, fn, &err)))
        return err;
    free(m);
    if (c->inter) {
        if ((err = rt_inter_create(c, g, newcomm)))
            return rdmpi_err_comm(comm, err, fn, "creating the intercommunicator failed");
        return MPI_SUCCESS;
    }
    if ((err = rt_cid_agree(c, NULL, c->size, c->rank, RT_TAG_COMM, NULL, 0, 0,
                            g->rank != MPI_UNDEFINED, &cid)))
        return cid_error(comm, err, fn);
    *newcomm = MPI_COMM_NULL;
    if (g->rank == MPI_UNDEFINED)
        return MPI_SUCCESS;
    return make_comm(c, g->world, g->size, cid, newcomm, fn);
}

#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_create_group";
    struct rdmpi_comm *c, *over;
    struct rdmpi_group *g;
    uint32_t cid;
    int err, *m;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)) || (err = check_newcomm(comm, newcomm, fn)) ||
        !(g = check_group_arg(comm, group, fn, &err)))
        return err;
    if (tag < 0)
        return rdmpi_err_comm(comm, MPI_ERR_TAG, fn,
                              "tag is %d; it must be in "
                              "0..MPI_TAG_UB",
                              tag);
    *newcomm = MPI_COMM_NULL;
    if (g->rank == MPI_UNDEFINED)
        return MPI_SUCCESS;
    over = c->inter ? c->local : c;
    if (!(m = ranks_in(over, g, fn, &err)))
        return err;
    err = rt_cid_agree(over, m, g->size, g->rank, RT_TAG_COMM_GROUP - (tag & 0xfffff), NULL, 0, 0,
                       1, &cid);
    free(m);
    if (err)
        return cid_error(comm, err, fn);
    return make_comm(c, g->world, g->size, cid, newcomm, fn);
}

int rt_stringtag(const char *stringtag)
{
    uint32_t hash = 2166136261u;

    for (const char *p = stringtag; *p; p++)
        hash = (hash ^ (unsigned char)*p) * 16777619u;
    return RT_TAG_FROM_GROUP - (int)(hash & 0xfffff);
}

int rt_comm_from_group(struct rdmpi_group *g, int tag, MPI_Comm *newcomm)
{
    struct rdmpi_comm *world = rt_comm_predef[0];
    uint32_t cid;
    int err;

    if ((err = rt_cid_agree(world, g->world, g->size, g->rank, tag, NULL, 0, 0, 1, &cid)))
        return err;
    return build_comm(world, g->world, g->size, cid, newcomm);
}

int rt_from_group_check(MPI_Errhandler h, MPI_Info info, const char *fn)
{
    const char *why;

    if (!rt_errh_usable(h, RT_ERRH_COMM, &why))
        return rdmpi_err_errh(h, RT_ERRH_COMM, MPI_ERR_ERRHANDLER, fn, "%s", why);
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        return rdmpi_err_errh(h, RT_ERRH_COMM, MPI_ERR_INFO, fn,
                              "info is not a valid info object; pass one or MPI_INFO_NULL");
    return MPI_SUCCESS;
}

/* The sessions model's MPI_Comm_create_group. Errors go to the handler
 * given, as no communicator exists yet. */
#pragma weak MPI_Comm_create_from_group = PMPI_Comm_create_from_group
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_create_from_group";
    MPI_Errhandler h = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
    struct rdmpi_errhandler *e = rt_errh_get(h);
    struct rdmpi_group *g = rt_group_get(group);
    struct rdmpi_comm *nc;
    int err;

    RT_CHECK_INIT(fn);
    if (!newcomm || !stringtag)
        return rdmpi_err_errh(h, RT_ERRH_COMM, MPI_ERR_ARG, fn, "%s is NULL",
                              newcomm ? "stringtag" : "newcomm");
    if (!g)
        return rdmpi_err_errh(h, RT_ERRH_COMM, MPI_ERR_GROUP, fn,
                              "group is not a valid group (MPI_GROUP_NULL or freed)");
    if ((err = rt_from_group_check(h, info, fn)))
        return err;
    *newcomm = MPI_COMM_NULL;
    if (g->size == 0)
        return MPI_SUCCESS;
    if (g->rank == MPI_UNDEFINED)
        return rdmpi_err_errh(h, RT_ERRH_COMM, MPI_ERR_GROUP, fn,
                              "this process is not in "
                              "group; only its members make the communicator");
    if ((err = rt_comm_from_group(g, rt_stringtag(stringtag), newcomm)))
        return rdmpi_err_errh(h, RT_ERRH_COMM, err, fn,
                              "agreeing on a context id with the "
                              "other members failed (all ids in use, or out of memory)");
    nc = rt_comm_get(*newcomm);
    nc->session = g->session;
    rt_comm_set_errh(nc, e);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm *comm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_free";
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!comm)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "comm is NULL; pass the address of an MPI_Comm");
    if (!(c = rt_comm_check(*comm, fn, &err)))
        return err;
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return rdmpi_err_comm(*comm, MPI_ERR_COMM, fn, "%s cannot be freed",
                              *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    if ((err = rt_attr_delete_all(RT_KIND_COMM, *comm, &c->attrs)))
        return rdmpi_err_comm(*comm, err, fn,
                              "an attribute delete callback returned an "
                              "error; the communicator was not freed");
    rt_comm_destroy(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
