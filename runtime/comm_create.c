/* Communicator objects: creation from groups, and destruction. The
 * MPI_Comm_* constructors that call these are in comm_api.c. */
#include "comm.h"

#include "dpm.h"
#include "obj.h"
#include "proc.h"

#include <stdio.h>
#include <stdlib.h>

struct rdmpi_group *rt_comm_group(struct rdmpi_comm *c)
{
    if (!c->group) {
        int *w = malloc(((size_t)c->size + 1) * sizeof(int));
        if (!w)
            return NULL;
        for (int i = 0; i < c->size; i++)
            w[i] = rt_comm_world_rank(c, i);
        c->group = rt_group_new(w, c->size);
        free(w);
    }
    return c->group;
}

static struct rdmpi_comm *comm_new(struct rdmpi_group *g, struct rdmpi_group *rg, uint32_t cid,
                                   struct rdmpi_comm *parent, int *err)
{
    struct rdmpi_comm *c = rt_obj_new(RT_KIND_COMM, sizeof(*c));

    if (!c) {
        rt_cid_release(cid);
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    rt_group_retain(g);
    c->group = g;
    c->cid = cid;
    c->rank = g->rank;
    c->size = g->size;
    c->world = g->world;
    if (rg) {
        rt_group_retain(rg);
        c->remote_group = rg;
        c->inter = 1;
    } else {
        rg = g;
    }
    c->remote_size = rg->size;
    c->remote_world = rg->world;
    /* Added processes stay reachable while a communicator holds them. */
    rt_proc_retain(c->world, c->size);
    if (c->inter)
        rt_proc_retain(c->remote_world, c->remote_size);
    c->errh = parent->errh;
    rt_errh_retain(c->errh);
    c->session = parent->session;
    snprintf(c->from, sizeof(c->from), "%s", parent->name[0] ? parent->name : parent->from);
    c->handle = (MPI_Comm)c;
    c->info = MPI_INFO_NULL;
    if ((*err = rt_layers_comm_init(c))) {
        rt_comm_destroy(c);
        return NULL;
    }
    return c;
}

struct rdmpi_comm *rt_comm_new(struct rdmpi_group *g, uint32_t cid, struct rdmpi_comm *parent,
                               int *err)
{
    return comm_new(g, NULL, cid, parent, err);
}

struct rdmpi_comm *rt_intercomm_new(struct rdmpi_group *g, struct rdmpi_group *rg, uint32_t cid,
                                    uint32_t lcid, struct rdmpi_comm *parent, int *err)
{
    struct rdmpi_comm *ic = comm_new(g, rg, cid, parent, err);

    if (!ic) {
        rt_cid_release(lcid);
        return NULL;
    }
    if (!(ic->local = comm_new(g, NULL, lcid, parent, err))) {
        rt_comm_destroy(ic);
        return NULL;
    }
    return ic;
}

void rt_comm_destroy(struct rdmpi_comm *c)
{
    rt_dpm_forget(c);
    if (c->local)
        rt_comm_destroy(c->local);
    /* The pml keeps the id while requests still use the communicator; its
     * added processes then stay reachable too (disconnect waits for them). */
    if (!rt_layers_comm_fini(c)) {
        rt_cid_release(c->cid);
        rt_proc_release(c->world, c->size);
        if (c->inter)
            rt_proc_release(c->remote_world, c->remote_size);
    }
    if (c->info != MPI_INFO_NULL)
        PMPI_Info_free(&c->info);
    if (c->errh)
        rt_errh_release(c->errh);
    if (c->remote_group)
        rt_group_release(c->remote_group);
    if (c->group)
        rt_group_release(c->group);
    rt_obj_delete(c);
}

void rt_comm_set_errh(struct rdmpi_comm *c, struct rdmpi_errhandler *e)
{
    struct rdmpi_errhandler *old = c->errh;

    rt_errh_retain(e);
    c->errh = e;
    rt_errh_release(old);
}
