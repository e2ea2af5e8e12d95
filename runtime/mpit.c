/* MPI_T: initialisation, the variable tables, and the categories that group
 * variables by layer. MPI_T calls never invoke error handlers: they return
 * MPI_T_ERR_* codes. */
#include "mpit.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

int mpit_refs;
static pthread_mutex_t mpit_mutex = PTHREAD_MUTEX_INITIALIZER;

int mpit_lock(void)
{
    pthread_mutex_lock(&mpit_mutex);
    return 1;
}

void mpit_unlock(const int *held)
{
    if (*held)
        pthread_mutex_unlock(&mpit_mutex);
}

void mpit_string(char *dst, int *len, const char *src)
{
    size_t n = strlen(src);

    if (!len)
        return;
    if (dst && *len > 0) {
        if (n > (size_t)*len - 1)
            n = (size_t)*len - 1;
        memcpy(dst, src, n);
        dst[n] = 0;
    }
    *len = (int)n + 1;
}

/* ---- tables ---- */

static const struct rt_param **cvars;
static int ncvars;
static struct rt_pvar *pvar_list;
static const struct rt_pvar **pvars;
static int npvars;

void rt_pvar_register(struct rt_pvar *v)
{
    v->next = pvar_list;
    pvar_list = v;
}

static int by_param_name(const void *a, const void *b)
{
    return strcmp((*(const struct rt_param *const *)a)->name,
                  (*(const struct rt_param *const *)b)->name);
}

static int by_pvar_name(const void *a, const void *b)
{
    return strcmp((*(const struct rt_pvar *const *)a)->name,
                  (*(const struct rt_pvar *const *)b)->name);
}

/* Every variable registers from a constructor, so the set is complete by
 * the first MPI_T_init_thread; sorting makes indices the same in every
 * process of the job. */
static int build_tables(void)
{
    const struct rt_param *p;
    const struct rt_pvar *v;
    int i = 0;

    for (p = rt_param_list(); p; p = p->next)
        ncvars++;
    for (v = pvar_list; v; v = v->next)
        npvars++;
    cvars = malloc(sizeof(*cvars) * (size_t)(ncvars + 1));
    pvars = malloc(sizeof(*pvars) * (size_t)(npvars + 1));
    if (!cvars || !pvars) {
        free(cvars);
        free(pvars);
        cvars = NULL;
        pvars = NULL;
        ncvars = npvars = 0;
        return MPI_T_ERR_MEMORY;
    }
    for (p = rt_param_list(); p; p = p->next)
        cvars[i++] = p;
    i = 0;
    for (v = pvar_list; v; v = v->next)
        pvars[i++] = v;
    qsort(cvars, (size_t)ncvars, sizeof(*cvars), by_param_name);
    qsort(pvars, (size_t)npvars, sizeof(*pvars), by_pvar_name);
    return MPI_SUCCESS;
}

int mpit_ncvars(void)
{
    return ncvars;
}

const struct rt_param *mpit_cvar(int index)
{
    return index >= 0 && index < ncvars ? cvars[index] : NULL;
}

int mpit_npvars(void)
{
    return npvars;
}

const struct rt_pvar *mpit_pvar(int index)
{
    return index >= 0 && index < npvars ? pvars[index] : NULL;
}

/* ---- init and finalize ---- */

#pragma weak MPI_T_init_thread = PMPI_T_init_thread
int PMPI_T_init_thread(int required, int *provided)
{
    RT_API_ENTER();
    int held __attribute__((cleanup(mpit_unlock), unused)) = mpit_lock();
    int rc;

    if (!provided || required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    if (!cvars && (rc = build_tables()) != MPI_SUCCESS)
        return rc;
    mpit_refs++;
    *provided = required; /* every level, MULTIPLE included (thread.c) */
    return MPI_SUCCESS;
}

#pragma weak MPI_T_finalize = PMPI_T_finalize
int PMPI_T_finalize(void)
{
    MPIT_ENTER();

    if (--mpit_refs == 0) {
        mpit_cvar_release();
        mpit_pvar_release();
    }
    return MPI_SUCCESS;
}

/* ---- categories: one per layer, none nested ---- */

static const struct {
    const char *name;
    const char *prefix; /* of the RT_PARAM names it holds */
    const char *desc;
    const char *prefix2; /* another, or NULL; the longest prefix that matches wins */
} cats[] = {
    {"rdmpi_runtime", NULL, "Start-up, logging, waiting and the transport report", NULL},
    {"rdmpi_btl", "BTL", "Which byte transfer layers a process opens", NULL},
    {"rdmpi_btl_sm", "SM_", "The shared-memory BTL: eager limit, rings, single-copy reads", NULL},
    {"rdmpi_btl_ofi", "OFI_", "The libfabric BTL: provider, interface, rails, buffers, windows",
     "BTL_OFI_"},
    {"rdmpi_pml", "PML_", "Point-to-point: credits, rendezvous pipeline, message counters", NULL},
    {"rdmpi_coll", "COLL_", "Collectives: algorithm choices and their switch points", NULL},
    {"rdmpi_osc", "OSC_", "One-sided communication", NULL},
};
#define NCATS ((int)(sizeof(cats) / sizeof(cats[0])))

static size_t matches(const char *name, const char *prefix)
{
    return prefix && !strncmp(name, prefix, strlen(prefix)) ? strlen(prefix) : 0;
}

/* RDMPI_BTL_OFI_RAILS is btl/ofi's, not the BTL choice's. */
int mpit_param_category(const struct rt_param *p)
{
    size_t best = 0;
    int cat = 0;

    for (int i = 1; i < NCATS; i++) {
        size_t n = matches(p->name, cats[i].prefix), n2 = matches(p->name, cats[i].prefix2);

        if (n2 > n)
            n = n2;
        if (n > best) {
            best = n;
            cat = i;
        }
    }
    return cat;
}

int mpit_pvar_category(const struct rt_pvar *v)
{
    for (int i = 1; i < NCATS; i++)
        if (!strcmp(v->category, cats[i].name))
            return i;
    return 0;
}

static int count_in(int cat, int want_cvars)
{
    int n = 0;

    if (want_cvars) {
        for (int i = 0; i < ncvars; i++)
            n += mpit_param_category(cvars[i]) == cat;
    } else {
        for (int i = 0; i < npvars; i++)
            n += mpit_pvar_category(pvars[i]) == cat;
    }
    return n;
}

#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num
int PMPI_T_category_get_num(int *num_cat)
{
    MPIT_ENTER();

    if (!num_cat)
        return MPI_T_ERR_INVALID;
    *num_cat = NCATS;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    MPIT_ENTER();

    if (cat_index < 0 || cat_index >= NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    mpit_string(name, name_len, cats[cat_index].name);
    mpit_string(desc, desc_len, cats[cat_index].desc);
    if (num_cvars)
        *num_cvars = count_in(cat_index, 1);
    if (num_pvars)
        *num_pvars = count_in(cat_index, 0);
    if (num_categories)
        *num_categories = 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index
int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    MPIT_ENTER();

    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < NCATS; i++)
        if (!strcmp(name, cats[i].name)) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

/* The first len members of category cat, cvars or pvars. */
static int members(int cat, int len, int *indices, int want_cvars)
{
    int n = 0;

    if (cat < 0 || cat >= NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    if (want_cvars) {
        for (int i = 0; i < ncvars && n < len; i++)
            if (mpit_param_category(cvars[i]) == cat)
                indices[n++] = i;
    } else {
        for (int i = 0; i < npvars && n < len; i++)
            if (mpit_pvar_category(pvars[i]) == cat)
                indices[n++] = i;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars
int PMPI_T_category_get_cvars(int cat_index, int len, int *indices)
{
    MPIT_ENTER();
    return members(cat_index, len, indices, 1);
}

#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars
int PMPI_T_category_get_pvars(int cat_index, int len, int *indices)
{
    MPIT_ENTER();
    return members(cat_index, len, indices, 0);
}

#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories
int PMPI_T_category_get_categories(int cat_index, int len, int *indices)
{
    MPIT_ENTER();

    (void)indices; /* categories do not nest */
    if (cat_index < 0 || cat_index >= NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    return len < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_num_events = PMPI_T_category_get_num_events
int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    MPIT_ENTER();

    if (cat_index < 0 || cat_index >= NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = 0; /* rdmpi defines no event types */
    return MPI_SUCCESS;
}

#pragma weak MPI_T_category_get_events = PMPI_T_category_get_events
int PMPI_T_category_get_events(int cat_index, int len, int *indices)
{
    MPIT_ENTER();

    (void)indices;
    if (cat_index < 0 || cat_index >= NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    return len < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

#pragma weak MPI_T_category_changed = PMPI_T_category_changed
int PMPI_T_category_changed(int *update_number)
{
    MPIT_ENTER();

    if (!update_number)
        return MPI_T_ERR_INVALID;
    *update_number = 0; /* the sets are fixed when the library loads */
    return MPI_SUCCESS;
}
