/* MPI_T performance variables: counters the layers declare with RT_PVAR,
 * read through handles in sessions. Every variable counts all the time
 * (continuous: no start or stop); a counter handle starts at 0 when it is
 * allocated and may be reset or written, which moves its own baseline, so
 * sessions never disturb each other. */
#include "mpit.h"

#include <stdlib.h>
#include <string.h>

struct rdmpi_t_pvar_handle {
    const struct rt_pvar *v;
    uint64_t base; /* the counter's value when this handle read 0 */
    struct rdmpi_t_pvar_handle *next;
};

struct rdmpi_t_pvar_session {
    struct rdmpi_t_pvar_handle *handles;
    struct rdmpi_t_pvar_session *next;
};
static struct rdmpi_t_pvar_session *sessions; /* live ones: a session is checked here */

/* Classes whose value is relative to a starting point may be reset; the
 * others report a current state. */
static int relative(const struct rt_pvar *v)
{
    return v->var_class == MPI_T_PVAR_CLASS_COUNTER || v->var_class == MPI_T_PVAR_CLASS_AGGREGATE ||
           v->var_class == MPI_T_PVAR_CLASS_TIMER;
}

static int is_session(MPI_T_pvar_session s)
{
    for (struct rdmpi_t_pvar_session *x = sessions; x; x = x->next)
        if (x == s)
            return 1;
    return 0;
}

static int in_session(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    for (struct rdmpi_t_pvar_handle *x = s->handles; x; x = x->next)
        if (x == h)
            return 1;
    return 0;
}

static void free_handles(struct rdmpi_t_pvar_session *s)
{
    while (s->handles) {
        struct rdmpi_t_pvar_handle *h = s->handles;

        s->handles = h->next;
        free(h);
    }
}

void mpit_pvar_release(void)
{
    while (sessions) {
        struct rdmpi_t_pvar_session *s = sessions;

        sessions = s->next;
        free_handles(s);
        free(s);
    }
}

#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num
int PMPI_T_pvar_get_num(int *num_pvar)
{
    MPIT_ENTER();

    if (!num_pvar)
        return MPI_T_ERR_INVALID;
    *num_pvar = mpit_npvars();
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info
int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous, int *atomic)
{
    MPIT_ENTER();
    const struct rt_pvar *v = mpit_pvar(pvar_index);

    if (!v)
        return MPI_T_ERR_INVALID_INDEX;
    mpit_string(name, name_len, v->name);
    mpit_string(desc, desc_len, v->desc);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
    if (var_class)
        *var_class = v->var_class;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = !relative(v);
    if (continuous)
        *continuous = 1;
    if (atomic)
        *atomic = 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index
int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    MPIT_ENTER();

    if (!name || !pvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < mpit_npvars(); i++)
        if (mpit_pvar(i)->var_class == var_class && !strcmp(name, mpit_pvar(i)->name)) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create
int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    MPIT_ENTER();
    struct rdmpi_t_pvar_session *s;

    if (!session)
        return MPI_T_ERR_INVALID;
    if (!(s = calloc(1, sizeof(*s))))
        return MPI_T_ERR_OUT_OF_SESSIONS;
    s->next = sessions;
    sessions = s;
    *session = s;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free
int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    MPIT_ENTER();

    if (!session || !is_session(*session))
        return MPI_T_ERR_INVALID_SESSION;
    for (struct rdmpi_t_pvar_session **x = &sessions; *x; x = &(*x)->next)
        if (*x == *session) {
            *x = (*session)->next;
            break;
        }
    free_handles(*session);
    free(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    MPIT_ENTER();
    const struct rt_pvar *v = mpit_pvar(pvar_index);
    struct rdmpi_t_pvar_handle *h;

    (void)obj_handle; /* bound to no object */
    if (!is_session(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (!v)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    if (!(h = malloc(sizeof(*h))))
        return MPI_T_ERR_OUT_OF_HANDLES;
    h->v = v;
    h->base = relative(v) ? v->read(v) : 0;
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free
int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    MPIT_ENTER();

    if (!is_session(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (!handle || !in_session(session, *handle))
        return MPI_T_ERR_INVALID_HANDLE;
    for (struct rdmpi_t_pvar_handle **x = &session->handles; *x; x = &(*x)->next)
        if (*x == *handle) {
            *x = (*handle)->next;
            break;
        }
    free(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

/* Start and stop: every variable is continuous, so only the all-handles
 * form (which applies to the non-continuous ones) succeeds. */
static int start_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    if (!is_session(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES)
        return MPI_SUCCESS;
    if (!in_session(session, handle))
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_T_ERR_PVAR_NO_STARTSTOP;
}

#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIT_ENTER();
    return start_stop(session, handle);
}

#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop
int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIT_ENTER();
    return start_stop(session, handle);
}

static int check(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    if (!is_session(session))
        return MPI_T_ERR_INVALID_SESSION;
    return in_session(session, handle) ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

/* A handle of this session on a variable that may be written or reset,
 * and a buffer. */
static int check_writable(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    int rc = check(session, handle);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!relative(handle->v))
        return MPI_T_ERR_PVAR_NO_WRITE;
    return buf ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

static void reset(struct rdmpi_t_pvar_handle *h)
{
    h->base = h->v->read(h->v);
}

#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    MPIT_ENTER();
    int rc = check(session, handle);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    *(unsigned long long *)buf = handle->v->read(handle->v) - handle->base;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write
int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    MPIT_ENTER();
    int rc = check_writable(session, handle, buf);

    if (rc != MPI_SUCCESS)
        return rc;
    handle->base = handle->v->read(handle->v) - *(const unsigned long long *)buf;
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset
int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    MPIT_ENTER();
    int rc;

    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        if (!is_session(session))
            return MPI_T_ERR_INVALID_SESSION;
        for (struct rdmpi_t_pvar_handle *h = session->handles; h; h = h->next)
            if (relative(h->v))
                reset(h);
        return MPI_SUCCESS;
    }
    if ((rc = check(session, handle)) != MPI_SUCCESS)
        return rc;
    if (!relative(handle->v))
        return MPI_T_ERR_PVAR_NO_WRITE;
    reset(handle);
    return MPI_SUCCESS;
}

#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    MPIT_ENTER();
    int rc = check_writable(session, handle, buf);
    uint64_t now;

    if (rc != MPI_SUCCESS)
        return rc;
    now = handle->v->read(handle->v);
    *(unsigned long long *)buf = now - handle->base;
    handle->base = now;
    return MPI_SUCCESS;
}
