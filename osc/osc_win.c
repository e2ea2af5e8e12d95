/* Windows: creation in the four flavors, free, and the queries (group,
 * info, name, shared memory, attached memory). Every window runs its
 * traffic on a duplicate of its communicator; windows start with
 * MPI_ERRORS_ARE_FATAL, as the standard says. */
#include "group.h"
#include "info.h"
#include "obj.h"
#include "osc.h"

#include "param.h"
#include "shm.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

RT_PARAM(p_direct, "OSC_DIRECT", RT_PARAM_BOOL, "1",
         "Puts and gets of contiguous data read and write the target's window directly "
         "where the BTL allows it without registration (sm with cross-memory attach), "
         "with no message the target must serve; 0 sends every operation as a message")

struct osc_win *osc_get(MPI_Win win, const char *fn, int *err)
{
    struct rdmpi_win *w;

    RT_CHECK_INIT(fn);
    return (w = rt_win_check(win, fn, err)) ? w->osc : NULL;
}

static int check_args(MPI_Comm comm, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Win *win,
                      const char *fn)
{
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    if (c->inter)
        return rdmpi_err_comm(comm, MPI_ERR_COMM, fn,
                              "comm is an intercommunicator; windows "
                              "are made over intracommunicators");
    if (!win)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "win is NULL; pass the address of an "
                              "MPI_Win");
    if (size < 0)
        return rdmpi_err_comm(comm, MPI_ERR_SIZE, fn, "size is %lld; it must be >= 0",
                              (long long)size);
    if (disp_unit <= 0 || disp_unit > INT32_MAX)
        return rdmpi_err_comm(comm, MPI_ERR_DISP, fn, "disp_unit is %lld; it must be > 0",
                              (long long)disp_unit);
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        return rdmpi_err_comm(comm, MPI_ERR_INFO, fn, "info is not a valid info object");
    return MPI_SUCCESS;
}

/* The window object and its osc state, the sizes and displacement units
 * of every rank exchanged (a collective over comm). */
static struct osc_win *win_new(MPI_Comm comm, void *mem, MPI_Aint size, int disp_unit,
                               MPI_Info info, int flavor)
{
    struct rdmpi_win *w = rt_obj_new(RT_KIND_WIN, sizeof(*w));
    struct osc_win *o = calloc(1, sizeof(*o));
    MPI_Aint mine[3] = {size, disp_unit, (MPI_Aint)(uintptr_t)mem}, *all;
    bool direct = flavor != MPI_WIN_FLAVOR_DYNAMIC && rt_param_bool(&p_direct);
    struct rdmpi_comm *c;

    if (!w || !o)
        rt_fatal("osc: out of memory for a window");
    PMPI_Comm_dup(comm, &o->comm);
    PMPI_Comm_set_errhandler(o->comm, MPI_ERRORS_ARE_FATAL);
    PMPI_Comm_rank(o->comm, &o->rank);
    PMPI_Comm_size(o->comm, &o->size);
    all = malloc(3 * sizeof(MPI_Aint) * (size_t)o->size);
    o->bases = malloc(sizeof(uint64_t) * (size_t)o->size);
    o->direct = calloc((size_t)o->size, sizeof(bool));
    o->unflushed = calloc((size_t)o->size, sizeof(bool));
    o->sizes = malloc(sizeof(MPI_Aint) * (size_t)o->size);
    o->disp_units = malloc(sizeof(int) * (size_t)o->size);
    o->sent = calloc((size_t)o->size, sizeof(uint64_t));
    o->released = calloc((size_t)o->size, sizeof(uint64_t));
    o->locked = calloc((size_t)o->size, 1);
    o->nocheck = calloc((size_t)o->size, 1);
    o->posts = calloc((size_t)o->size, sizeof(int));
    if (!all || !o->sizes || !o->disp_units || !o->sent || !o->released || !o->locked ||
        !o->nocheck || !o->posts || !o->bases || !o->direct || !o->unflushed)
        rt_fatal("osc: out of memory for a window of %d ranks", o->size);
    PMPI_Allgather(mine, 3, MPI_AINT, all, 3, MPI_AINT, o->comm);
    c = rt_comm_get(o->comm);
    for (int r = 0; r < o->size; r++) {
        o->sizes[r] = all[3 * r];
        o->disp_units[r] = (int)all[3 * r + 1];
        o->bases[r] = (uint64_t)all[3 * r + 2];
        o->direct[r] = direct && (r == o->rank || pml_direct_ok(rt_comm_world_rank(c, r)));
    }
    free(all);
    o->w = w;
    o->mem = mem;
    o->excl = -1;
    o->npost = -1;
    o->dynamic = flavor == MPI_WIN_FLAVOR_DYNAMIC;
    w->osc = o;
    w->errh = rt_errh_get(MPI_ERRORS_ARE_FATAL);
    rt_errh_retain(w->errh);
    w->base = mem;
    w->size = size;
    w->disp_unit = disp_unit;
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    w->info = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL)
        PMPI_Info_dup(info, &w->info);
    osc_register(o);
    return o;
}

#define CREATE_API(NAME, DT)                                                                       \
    int PMPI_##NAME(void *base, MPI_Aint size, DT disp_unit, MPI_Info info, MPI_Comm comm,         \
                    MPI_Win *win)                                                                  \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        int err = check_args(comm, size, disp_unit, info, win, "MPI_" #NAME);                      \
        if (err)                                                                                   \
            return err;                                                                            \
        if (size > 0 && !base)                                                                     \
            return rdmpi_err_comm(comm, MPI_ERR_BASE, "MPI_" #NAME,                                \
                                  "base is NULL with size "                                        \
                                  "%lld",                                                          \
                                  (long long)size);                                                \
        *win = (MPI_Win)win_new(comm, base, size, (int)disp_unit, info, MPI_WIN_FLAVOR_CREATE)->w; \
        return MPI_SUCCESS;                                                                        \
    }

#pragma weak MPI_Win_create = PMPI_Win_create
CREATE_API(Win_create, int)
#pragma weak MPI_Win_create_c = PMPI_Win_create_c
CREATE_API(Win_create_c, MPI_Aint)

#define ALLOCATE_API(NAME, DT)                                                                     \
    int PMPI_##NAME(MPI_Aint size, DT disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,      \
                    MPI_Win *win)                                                                  \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        int err = check_args(comm, size, disp_unit, info, win, "MPI_" #NAME);                      \
        struct osc_win *o;                                                                         \
        void *mem;                                                                                 \
        if (err)                                                                                   \
            return err;                                                                            \
        if (!baseptr)                                                                              \
            return rdmpi_err_comm(comm, MPI_ERR_ARG, "MPI_" #NAME, "baseptr is NULL");             \
        if (posix_memalign(&mem, 64, (size_t)size ? (size_t)size : 1))                             \
            return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, "MPI_" #NAME,                              \
                                  "out of memory for %lld bytes", (long long)size);                \
        o = win_new(comm, mem, size, (int)disp_unit, info, MPI_WIN_FLAVOR_ALLOCATE);               \
        o->own_mem = true;                                                                         \
        *(void **)baseptr = mem;                                                                   \
        *win = (MPI_Win)o->w;                                                                      \
        return MPI_SUCCESS;                                                                        \
    }

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
ALLOCATE_API(Win_allocate, int)
#pragma weak MPI_Win_allocate_c = PMPI_Win_allocate_c
ALLOCATE_API(Win_allocate_c, MPI_Aint)

/* Every member on this host (MPI_Win_allocate_shared needs one). */
static bool one_host(MPI_Comm comm)
{
    struct rdmpi_comm *c = rt_comm_get(comm);
    struct rdmpi_group *g = rt_comm_group(c);

    for (int i = 0; g && i < g->size; i++) {
        bool here = false;
        for (int k = 0; k < rt.local_size && !here; k++)
            here = rt.local_peers[k] == g->world[i];
        if (!here)
            return false;
    }
    return g != NULL;
}

/* One segment for the whole window, rank r's part right after rank
 * r-1's (the standard's contiguous default); rank 0 makes and, once all
 * have mapped it, unlinks it, so nothing is left in /dev/shm. */
static int allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                           void *baseptr, MPI_Win *win, const char *fn)
{
    static unsigned serial;
    struct osc_win *o;
    char name[256] = "";
    struct rt_shm m = {0};
    size_t total = 0;
    int ok, all_ok = 0;

    if (!one_host(comm))
        return rdmpi_err_comm(comm, MPI_ERR_RMA_SHARED, fn,
                              "the ranks of comm are on more "
                              "than one host; make comm with MPI_Comm_split_type("
                              "MPI_COMM_TYPE_SHARED)");
    o = win_new(comm, NULL, size, disp_unit, info, MPI_WIN_FLAVOR_SHARED);
    if (!(o->shm_off = malloc(sizeof(MPI_Aint) * (size_t)o->size)))
        rt_fatal("osc: out of memory for a shared window");
    for (int r = 0; r < o->size; r++) {
        o->shm_off[r] = (MPI_Aint)total;
        total += (size_t)o->sizes[r];
    }
    o->shm_len = total ? total : 1;
    /* A rank that cannot make or map the segment says why (rt_shm_*);
     * the window is then impossible for everyone. */
    if (o->rank == 0 &&
        (rt_shm_name(name, sizeof(name), "-win%d-%u", rt.rank, serial) ||
         rt_shm_create(&m, fn, name, o->shm_len, 0,
                       "a smaller window, or a larger /dev/shm (mount -o remount,size=...)")))
        name[0] = 0;
    serial++;
    PMPI_Bcast(name, sizeof(name), MPI_CHAR, 0, o->comm);
    ok = name[0] && (o->rank == 0 || !rt_shm_attach(&m, fn, name, o->shm_len, 0));
    o->shm = ok ? m.base : NULL;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, o->comm);
    if (o->rank == 0)
        rt_shm_unlink(fn, name);
    if (!all_ok)
        rt_fatal("%s: could not make a %zu-byte shared segment for the window (a warning above "
                 "says why, on the rank that failed)",
                 fn, o->shm_len);
    o->mem = o->shm + o->shm_off[o->rank];
    o->w->base = o->mem;
    *(void **)baseptr = o->mem;
    *win = (MPI_Win)o->w;
    return MPI_SUCCESS;
}

#define SHARED_API(NAME, DT)                                                                       \
    int PMPI_##NAME(MPI_Aint size, DT disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,      \
                    MPI_Win *win)                                                                  \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        int err = check_args(comm, size, disp_unit, info, win, "MPI_" #NAME);                      \
        if (err)                                                                                   \
            return err;                                                                            \
        if (!baseptr)                                                                              \
            return rdmpi_err_comm(comm, MPI_ERR_ARG, "MPI_" #NAME, "baseptr is NULL");             \
        return allocate_shared(size, (int)disp_unit, info, comm, baseptr, win, "MPI_" #NAME);      \
    }

#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
SHARED_API(Win_allocate_shared, int)
#pragma weak MPI_Win_allocate_shared_c = PMPI_Win_allocate_shared_c
SHARED_API(Win_allocate_shared_c, MPI_Aint)

static int shared_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr,
                        const char *fn)
{
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (o->dynamic)
        return rdmpi_err_win(win, MPI_ERR_RMA_FLAVOR, fn,
                             "the window was made by "
                             "MPI_Win_create_dynamic; it has no segments to query");
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= o->size))
        return rdmpi_err_win(win, MPI_ERR_RANK, fn, "rank %d is not in the window (0..%d)", rank,
                             o->size - 1);
    if (!size || !disp_unit || !baseptr)
        return rdmpi_err_win(win, MPI_ERR_ARG, fn,
                             "size, disp_unit and baseptr must not "
                             "be NULL");
    /* MPI-4.1 allows created and allocated windows too: only our own
     * segment is in our address space; the others read as size 0, NULL. */
    if (!o->shm) {
        bool own = rank == o->rank || (rank == MPI_PROC_NULL && o->sizes[o->rank]);

        *size = own ? o->sizes[o->rank] : 0;
        *disp_unit = o->disp_units[own ? o->rank : rank == MPI_PROC_NULL ? 0 : rank];
        *(void **)baseptr = own ? o->mem : NULL;
        return MPI_SUCCESS;
    }
    /* MPI_PROC_NULL: the lowest rank with memory. */
    if (rank == MPI_PROC_NULL)
        for (rank = 0; rank < o->size - 1 && !o->sizes[rank]; rank++)
            ;
    *size = o->sizes[rank];
    *disp_unit = o->disp_units[rank];
    /* A segment of size 0 has no address (NULL, as for created windows,
     * and as MPICH's win_shared_noncontig_put expects). */
    *(void **)baseptr = o->sizes[rank] ? o->shm + o->shm_off[rank] : NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    RT_API_ENTER();
    MPI_Aint du = 0;
    int err =
        shared_query(win, rank, size, disp_unit ? &du : NULL, baseptr, "MPI_Win_shared_query");

    if (!err)
        *disp_unit = (int)du;
    return err;
}

#pragma weak MPI_Win_shared_query_c = PMPI_Win_shared_query_c
int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    RT_API_ENTER();
    return shared_query(win, rank, size, disp_unit, baseptr, "MPI_Win_shared_query_c");
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    RT_API_ENTER();
    int err = check_args(comm, 0, 1, info, win, "MPI_Win_create_dynamic");

    if (err)
        return err;
    *win = (MPI_Win)win_new(comm, MPI_BOTTOM, 0, 1, info, MPI_WIN_FLAVOR_DYNAMIC)->w;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_attach";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    if (!o->dynamic)
        return rdmpi_err_win(win, MPI_ERR_RMA_FLAVOR, fn,
                             "the window was not made by "
                             "MPI_Win_create_dynamic");
    if (size < 0 || (size > 0 && !base))
        return rdmpi_err_win(win, MPI_ERR_RMA_ATTACH, fn, "invalid base %p or size %lld", base,
                             (long long)size);
    if (o->nregions == o->cap) {
        int cap = o->cap ? 2 * o->cap : 8;
        struct osc_region *r = realloc(o->regions, (size_t)cap * sizeof(*r));
        if (!r)
            return rdmpi_err_win(win, MPI_ERR_NO_MEM, fn, "out of memory");
        o->regions = r;
        o->cap = cap;
    }
    o->regions[o->nregions++] = (struct osc_region){base, (size_t)size};
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_detach";
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, fn, &err)))
        return err;
    for (int r = 0; r < o->nregions; r++)
        if (o->regions[r].base == base) {
            o->regions[r] = o->regions[--o->nregions];
            return MPI_SUCCESS;
        }
    return rdmpi_err_win(win, MPI_ERR_RMA_ATTACH, fn,
                         "%p is not the base of memory "
                         "attached to this window",
                         base);
}

/* MPI_Win_free needs this process's lock and post/start epochs closed
 * (a fence epoch ends with the fence itself). */
static int epochs_closed(const struct osc_win *o, MPI_Win win, const char *fn)
{
    const char *open = NULL, *close = NULL;

    if (o->start_ranks)
        open = "an access epoch (MPI_Win_start)", close = "MPI_Win_complete";
    else if (o->npost >= 0)
        open = "an exposure epoch (MPI_Win_post)", close = "MPI_Win_wait";
    else if (o->lock_all)
        open = "an MPI_Win_lock_all epoch", close = "MPI_Win_unlock_all";
    for (int t = 0; !open && t < o->size; t++)
        if (o->locked[t])
            open = "a lock (MPI_Win_lock)", close = "MPI_Win_unlock";
    if (!open)
        return MPI_SUCCESS;
    return rdmpi_err_win(win, MPI_ERR_RMA_SYNC, fn,
                         "%s is open on this window; end it with %s "
                         "before freeing the window",
                         open, close);
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_free";
    struct rdmpi_win *w;
    struct osc_win *o;
    uint64_t unlocks = 0;
    unsigned spins = 0;
    int err;

    if (!win)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "win is NULL");
    if (!(o = osc_get(*win, fn, &err)))
        return err;
    if ((err = epochs_closed(o, *win, fn)))
        return err;
    w = o->w;
    /* Every rank has closed its epochs: nothing is in flight after this,
     * once each has also taken in the UNLOCKs sent it without an answer. */
    osc_complete_local(o);
    PMPI_Reduce_scatter_block(o->released, &unlocks, 1, MPI_UINT64_T, MPI_SUM, o->comm);
    while (o->unlocked < unlocks)
        if (!rt_progress())
            rt_progress_wait(&spins);
    PMPI_Barrier(o->comm);
    if ((err = rt_attr_delete_all(RT_KIND_WIN, *win, &w->attrs)))
        return rdmpi_err_win(*win, err, fn, "an attribute delete callback failed");
    osc_unregister(o);
    if (o->shm)
        munmap(o->shm, o->shm_len);
    if (o->own_mem)
        free(o->mem);
    while (o->waiting) {
        struct osc_lockq *q = o->waiting;
        o->waiting = q->next;
        free(q);
    }
    free(o->regions);
    free(o->shm_off);
    free(o->sizes);
    free(o->disp_units);
    free(o->bases);
    free(o->direct);
    free(o->unflushed);
    free(o->sent);
    free(o->released);
    free(o->locked);
    free(o->nocheck);
    free(o->posts);
    free(o->start_ranks);
    PMPI_Comm_free(&o->comm);
    free(o);
    rt_errh_release(w->errh);
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    rt_obj_delete(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_group = PMPI_Win_get_group
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    RT_API_ENTER();
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, "MPI_Win_get_group", &err)))
        return err;
    if (!group)
        return rdmpi_err_win(win, MPI_ERR_ARG, "MPI_Win_get_group", "group is NULL");
    return PMPI_Comm_group(o->comm, group);
}

#pragma weak MPI_Win_set_info = PMPI_Win_set_info
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    RT_API_ENTER();
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, "MPI_Win_set_info", &err)))
        return err;
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        return rdmpi_err_win(win, MPI_ERR_INFO, "MPI_Win_set_info",
                             "info is not a valid info object");
    if (o->w->info != MPI_INFO_NULL)
        PMPI_Info_free(&o->w->info);
    if (info != MPI_INFO_NULL)
        PMPI_Info_dup(info, &o->w->info);
    return MPI_SUCCESS;
}

/* The window hints the standard defines and their defaults. */
static const char *const win_hints[][2] = {
    {"no_locks", "false"},
    {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"},
    {"same_size", "false"},
    {"same_disp_unit", "false"},
    {"alloc_shared_noncontig", "false"},
    {"mpi_accumulate_granularity", "0"},
};

/* Every standard hint with the value given (at creation or by
 * MPI_Win_set_info), else its default; keys the standard does not define
 * were ignored and are not returned (none of the hints changes what this
 * implementation does). */
#pragma weak MPI_Win_get_info = PMPI_Win_get_info
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    RT_API_ENTER();
    char val[MPI_MAX_INFO_VAL + 1];
    struct osc_win *o;
    int err, len, flag;

    if (!(o = osc_get(win, "MPI_Win_get_info", &err)))
        return err;
    if (!info_used)
        return rdmpi_err_win(win, MPI_ERR_ARG, "MPI_Win_get_info", "info_used is NULL");
    PMPI_Info_create(info_used);
    for (size_t i = 0; i < sizeof(win_hints) / sizeof(win_hints[0]); i++) {
        len = sizeof(val);
        flag = 0;
        if (o->w->info != MPI_INFO_NULL)
            PMPI_Info_get_string(o->w->info, win_hints[i][0], &len, val, &flag);
        PMPI_Info_set(*info_used, win_hints[i][0], flag ? val : win_hints[i][1]);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_set_name = PMPI_Win_set_name
int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    RT_API_ENTER();
    struct osc_win *o;
    int err;

    if (!(o = osc_get(win, "MPI_Win_set_name", &err)))
        return err;
    if (!win_name)
        return rdmpi_err_win(win, MPI_ERR_ARG, "MPI_Win_set_name", "win_name is NULL");
    snprintf(o->w->name, sizeof(o->w->name), "%s", win_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_name = PMPI_Win_get_name
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    RT_API_ENTER();
    struct osc_win *o;
    int err;

    if (win == MPI_WIN_NULL) { /* MPI-4.1: the null handle has its name */
        RT_CHECK_INIT("MPI_Win_get_name");
        if (!win_name || !resultlen)
            return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Win_get_name",
                                  "win_name and resultlen must not be NULL");
        *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "MPI_WIN_NULL");
        return MPI_SUCCESS;
    }
    if (!(o = osc_get(win, "MPI_Win_get_name", &err)))
        return err;
    if (!win_name || !resultlen)
        return rdmpi_err_win(win, MPI_ERR_ARG, "MPI_Win_get_name",
                             "win_name and resultlen must not be NULL");
    *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", o->w->name);
    return MPI_SUCCESS;
}
