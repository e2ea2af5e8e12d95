/* MPI_T control variables: each RT_PARAM tunable, named like its
 * environment variable (RDMPI_SM_EAGER_LIMIT), as MPICH names its cvars.
 * The layers read their parameters once, when MPI starts or at first use,
 * so a write is taken only while MPI is not up: it sets the environment
 * variable, which the library then reads. */
#include "mpit.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRING_MAX 256 /* MPI_CHAR count of a string cvar, terminator included */

struct rdmpi_t_enum {
    const char *name;
    int n;
    const int *values;
    const char *const *names;
};

/* Boolean parameters are MPI_INT with this enumeration. */
static const int bool_values[] = {-1, 0, 1};
static const char *const bool_names[] = {"auto", "false", "true"};
static struct rdmpi_t_enum bool_enum = {"rdmpi_bool", 3, bool_values, bool_names};

struct rdmpi_t_cvar_handle {
    const struct rt_param *p;
    struct rdmpi_t_cvar_handle *next;
};
static struct rdmpi_t_cvar_handle *handles; /* live ones: a handle is checked here */

static int is_handle(MPI_T_cvar_handle h)
{
    for (struct rdmpi_t_cvar_handle *x = handles; x; x = x->next)
        if (x == h)
            return 1;
    return 0;
}

void mpit_cvar_release(void)
{
    while (handles) {
        struct rdmpi_t_cvar_handle *h = handles;

        handles = h->next;
        free(h);
    }
}

static MPI_Datatype cvar_type(const struct rt_param *p)
{
    switch (p->type) {
    case RT_PARAM_SIZE: return MPI_UNSIGNED_LONG_LONG;
    case RT_PARAM_STRING: return MPI_CHAR;
    default: return MPI_INT;
    }
}

/* Algorithm choices and switch points must match across the job, or ranks
 * would run different algorithms of one collective. */
static int cvar_scope(const struct rt_param *p)
{
    return strncmp(p->name, "COLL_", 5) ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_ALL_EQ;
}

static int cvar_verbosity(const struct rt_param *p)
{
    int cat = mpit_param_category(p);

    if (cat <= 1 || !strcmp(p->name, "OFI_PROVIDER") || !strcmp(p->name, "OFI_IFACE"))
        return MPI_T_VERBOSITY_USER_BASIC; /* runtime and BTL choice */
    if (strstr(p->name, "_ALGORITHM"))
        return MPI_T_VERBOSITY_TUNER_BASIC;
    return MPI_T_VERBOSITY_TUNER_DETAIL;
}

#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num
int PMPI_T_cvar_get_num(int *num_cvar)
{
    MPIT_ENTER();

    if (!num_cvar)
        return MPI_T_ERR_INVALID;
    *num_cvar = mpit_ncvars();
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info
int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    MPIT_ENTER();
    const struct rt_param *p = mpit_cvar(cvar_index);
    char text[1024];

    if (!p)
        return MPI_T_ERR_INVALID_INDEX;
    snprintf(text, sizeof(text), "RDMPI_%s", p->name);
    mpit_string(name, name_len, text);
    snprintf(text, sizeof(text), "%s (default: %s)", p->help, *p->def ? p->def : "empty");
    mpit_string(desc, desc_len, text);
    if (verbosity)
        *verbosity = cvar_verbosity(p);
    if (datatype)
        *datatype = cvar_type(p);
    if (enumtype)
        *enumtype = p->type == RT_PARAM_BOOL ? &bool_enum : MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = cvar_scope(p);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index
int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    MPIT_ENTER();

    if (!name || !cvar_index)
        return MPI_T_ERR_INVALID;
    if (strncmp(name, "RDMPI_", 6))
        return MPI_T_ERR_INVALID_NAME;
    for (int i = 0; i < mpit_ncvars(); i++)
        if (!strcmp(name + 6, mpit_cvar(i)->name)) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc
int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    MPIT_ENTER();
    const struct rt_param *p = mpit_cvar(cvar_index);
    struct rdmpi_t_cvar_handle *h;

    (void)obj_handle; /* bound to no object */
    if (!p)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    if (!(h = malloc(sizeof(*h))))
        return MPI_T_ERR_MEMORY;
    h->p = p;
    h->next = handles;
    handles = h;
    *handle = h;
    *count = p->type == RT_PARAM_STRING ? STRING_MAX : 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free
int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    MPIT_ENTER();

    if (!handle || !is_handle(*handle))
        return MPI_T_ERR_INVALID_HANDLE;
    for (struct rdmpi_t_cvar_handle **x = &handles; *x; x = &(*x)->next)
        if (*x == *handle) {
            *x = (*handle)->next;
            break;
        }
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read
int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    MPIT_ENTER();
    const struct rt_param *p;
    const char *text;
    long long v;

    if (!is_handle(handle))
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buf)
        return MPI_T_ERR_INVALID;
    p = handle->p;
    text = rt_param_text(p);
    if (p->type == RT_PARAM_STRING) {
        snprintf(buf, STRING_MAX, "%s", text);
        return MPI_SUCCESS;
    }
    if (rt_param_parse(p, text, &v))
        return MPI_T_ERR_INVALID; /* a malformed RDMPI_ variable in the environment */
    if (p->type == RT_PARAM_SIZE)
        *(unsigned long long *)buf = (unsigned long long)v;
    else
        *(int *)buf = v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write
int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    MPIT_ENTER();
    const struct rt_param *p;
    char var[128], text[STRING_MAX];
    long long v;

    if (!is_handle(handle))
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buf)
        return MPI_T_ERR_INVALID;
    if (rt.up)
        return MPI_T_ERR_CVAR_SET_NOT_NOW;
    p = handle->p;
    switch (p->type) {
    case RT_PARAM_STRING:
        if (strnlen(buf, STRING_MAX) == STRING_MAX)
            return MPI_T_ERR_INVALID;
        snprintf(text, sizeof(text), "%s", (const char *)buf);
        break;
    case RT_PARAM_SIZE:
        snprintf(text, sizeof(text), "%llu", *(const unsigned long long *)buf);
        break;
    case RT_PARAM_BOOL:
        v = *(const int *)buf;
        if (v < -1 || v > 1)
            return MPI_T_ERR_INVALID;
        snprintf(text, sizeof(text), "%s", v < 0 ? "auto" : v ? "1" : "0");
        break;
    default: snprintf(text, sizeof(text), "%d", *(const int *)buf); break;
    }
    if (rt_param_parse(p, text, &v))
        return MPI_T_ERR_INVALID;
    snprintf(var, sizeof(var), "RDMPI_%s", p->name);
    return setenv(var, text, 1) ? MPI_T_ERR_MEMORY : MPI_SUCCESS;
}

#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info
int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    MPIT_ENTER();

    if (enumtype != &bool_enum)
        return MPI_T_ERR_INVALID_HANDLE;
    if (num)
        *num = enumtype->n;
    mpit_string(name, name_len, enumtype->name);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item
int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    MPIT_ENTER();

    if (enumtype != &bool_enum)
        return MPI_T_ERR_INVALID_HANDLE;
    if (indx < 0 || indx >= enumtype->n)
        return MPI_T_ERR_INVALID_ITEM;
    if (value)
        *value = enumtype->values[indx];
    mpit_string(name, name_len, enumtype->names[indx]);
    return MPI_SUCCESS;
}
