/* The attribute functions of MPI-4.1 7.7 for communicators, datatypes and
 * windows, their deprecated MPI-1 spellings, and the predefined attributes
 * every communicator answers. */
#include "attr.h"
#include "comm.h"
#include "win.h"
#include "datatype.h"
#include "errors.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

/* An object attributes hang on, as the shared code below sees it. */
struct target {
    int kind;
    void *handle; /* what callbacks receive */
    struct rt_attr **list;
};

/* Raises an error on the object the call was about: the communicator's
 * handler, MPI_COMM_SELF's for datatypes (they have none). */
static int attr_err(const struct target *t, int cls, const char *fn, const char *fmt, ...)
    RT_PRINTF(4, 5);
static int attr_err(const struct target *t, int cls, const char *fn, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (t->kind == RT_KIND_COMM)
        return rdmpi_err_comm((MPI_Comm)t->handle, cls, fn, "%s", msg);
    if (t->kind == RT_KIND_WIN)
        return rdmpi_err_win((MPI_Win)t->handle, cls, fn, "%s", msg);
    return rdmpi_err_comm(MPI_COMM_SELF, cls, fn, "%s", msg);
}

/* ---- predefined attributes ---- */

/* The values live here so that the pointers handed out stay valid. */
static int tag_ub = INT_MAX;     /* the pml's PML_TAG_UB */
static int host = MPI_PROC_NULL; /* no process is "the host" */
static int io = MPI_ANY_SOURCE;  /* every process can do language I/O */
static int wtime_is_global, universe_size, appnum;

/* 1 and the value's address if keyval is a predefined communicator
 * attribute; every world-model communicator answers them, as in MPICH. */
static int predef_comm_attr(int keyval, void **value)
{
    switch (keyval) {
    case MPI_TAG_UB: *value = &tag_ub; break;
    case MPI_HOST: *value = &host; break;
    case MPI_IO: *value = &io; break;
    case MPI_WTIME_IS_GLOBAL:
        /* MPI_Wtime reads CLOCK_MONOTONIC, one clock per host. */
        wtime_is_global = rt.num_nodes <= 1;
        *value = &wtime_is_global;
        break;
    case MPI_UNIVERSE_SIZE:
        universe_size = rt.univ_size > 0 ? rt.univ_size : rt.size;
        *value = &universe_size;
        break;
    case MPI_APPNUM:
        appnum = rt.appnum;
        *value = &appnum;
        break;
    case MPI_LASTUSEDCODE: *value = &rt_err_lastusedcode; break;
    default: return 0;
    }
    return 1;
}

/* 1 and the value if keyval is a predefined window attribute: the base
 * itself, pointers to the others (MPI-4.1 12.2.6). */
static int predef_win_attr(void *handle, int keyval, void **value)
{
    struct rdmpi_win *w = rt_win_get((MPI_Win)handle);

    switch (keyval) {
    case MPI_WIN_BASE: *value = w->base; break;
    case MPI_WIN_SIZE: *value = &w->size; break;
    case MPI_WIN_DISP_UNIT: *value = &w->disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: *value = &w->flavor; break;
    case MPI_WIN_MODEL: *value = &w->model; break;
    default: return 0;
    }
    return 1;
}

static int predefined(int keyval)
{
    return keyval > 0 && keyval < RDMPI_KEYVAL_PREDEF_LIMIT;
}

/* ---- shared by the three kinds ---- */

static int create_keyval(int kind, rt_attr_fn copy, rt_attr_fn del, int *keyval, void *extra,
                         const char *fn)
{
    RT_CHECK_INIT(fn);
    if (!keyval)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "the keyval argument is NULL; pass the address of an int");
    if (rt_keyval_create(kind, copy, del, extra, keyval))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

static int free_keyval(int kind, int *keyval, const char *fn)
{
    const char *why;

    RT_CHECK_INIT(fn);
    if (!keyval)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "the keyval argument is NULL; pass the address of a keyval");
    if (predefined(*keyval))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_KEYVAL, fn,
                              "keyval %d is predefined and cannot be freed", *keyval);
    if ((why = rt_keyval_check_held(kind, *keyval)))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_KEYVAL, fn, "%s", why);
    rt_keyval_free(*keyval);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* Validates a keyval the user wants to set or delete; a freed keyval
 * still in use may be deleted, not set. */
static int check_user_keyval(const struct target *t, int keyval, int deleting, const char *fn)
{
    const char *why;

    if (predefined(keyval))
        return attr_err(t, MPI_ERR_KEYVAL, fn,
                        "keyval %d is a predefined attribute, which the user cannot set or "
                        "delete",
                        keyval);
    if ((why = deleting ? rt_keyval_check_held(t->kind, keyval) : rt_keyval_check(t->kind, keyval)))
        return attr_err(t, MPI_ERR_KEYVAL, fn, "%s", why);
    return MPI_SUCCESS;
}

static int set_attr(const struct target *t, int keyval, void *value, const char *fn)
{
    int rc;

    if ((rc = check_user_keyval(t, keyval, 0, fn)))
        return rc;
    rc = rt_attr_set(t->kind, t->handle, t->list, keyval, value);
    if (rc == MPI_ERR_NO_MEM)
        return attr_err(t, rc, fn, "out of memory");
    if (rc)
        return attr_err(t, rc, fn,
                        "the delete callback of keyval %d, run on the value being replaced, "
                        "returned %d; the old value stays",
                        keyval, rc);
    return MPI_SUCCESS;
}

static int delete_attr(const struct target *t, int keyval, const char *fn)
{
    int rc;

    if ((rc = check_user_keyval(t, keyval, 1, fn)))
        return rc;
    if ((rc = rt_attr_delete(t->kind, t->handle, t->list, keyval)))
        return attr_err(t, rc, fn,
                        "the delete callback of keyval %d returned %d; the attribute stays", keyval,
                        rc);
    return MPI_SUCCESS;
}

static int get_attr(const struct target *t, int keyval, void *value, int *flag, const char *fn)
{
    const char *why;
    void *v;

    if (!value || !flag)
        return attr_err(t, MPI_ERR_ARG, fn, "%s is NULL; pass the address of %s",
                        value ? "flag" : "attribute_val", value ? "an int" : "a pointer");
    if (predefined(keyval)) {
        /* MPI-4.1: communicators built from a session's groups carry only
         * MPI_TAG_UB; the rest describe the world model's environment. */
        if (t->kind == RT_KIND_COMM && keyval != MPI_TAG_UB && keyval < MPI_WIN_BASE &&
            rt_comm_get((MPI_Comm)t->handle)->session != MPI_SESSION_NULL) {
            *flag = 0;
            return MPI_SUCCESS;
        }
        if (!(t->kind == RT_KIND_COMM
                  ? predef_comm_attr(keyval, &v)
                  : t->kind == RT_KIND_WIN && predef_win_attr(t->handle, keyval, &v)))
            return attr_err(t, MPI_ERR_KEYVAL, fn,
                            "keyval %d is a predefined attribute of %s, not of this kind of "
                            "object",
                            keyval, keyval >= MPI_WIN_BASE ? "windows" : "communicators");
    } else if ((why = rt_keyval_check_held(t->kind, keyval))) {
        return attr_err(t, MPI_ERR_KEYVAL, fn, "%s", why);
    } else if (!rt_attr_find(*t->list, keyval, &v)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    *(void **)value = v;
    *flag = 1;
    return MPI_SUCCESS;
}

/* ---- communicators ---- */

static int comm_target(MPI_Comm comm, const char *fn, struct target *t)
{
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    *t = (struct target){RT_KIND_COMM, comm, &c->attrs};
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    RT_API_ENTER();
    return create_keyval(RT_KIND_COMM, (rt_attr_fn)copy_fn, (rt_attr_fn)delete_fn, keyval,
                         extra_state, "MPI_Comm_create_keyval");
}

#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval
int PMPI_Comm_free_keyval(int *keyval)
{
    RT_API_ENTER();
    return free_keyval(RT_KIND_COMM, keyval, "MPI_Comm_free_keyval");
}

#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr
int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *attribute_val)
{
    RT_API_ENTER();
    struct target t;
    int rc = comm_target(comm, "MPI_Comm_set_attr", &t);

    return rc ? rc : set_attr(&t, keyval, attribute_val, "MPI_Comm_set_attr");
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    RT_API_ENTER();
    struct target t;
    int rc = comm_target(comm, "MPI_Comm_get_attr", &t);

    return rc ? rc : get_attr(&t, keyval, attribute_val, flag, "MPI_Comm_get_attr");
}

#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr
int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    RT_API_ENTER();
    struct target t;
    int rc = comm_target(comm, "MPI_Comm_delete_attr", &t);

    return rc ? rc : delete_attr(&t, keyval, "MPI_Comm_delete_attr");
}

/* The deprecated MPI-1 names: the same calls, reported under their own
 * names. */

#pragma weak MPI_Keyval_create = PMPI_Keyval_create
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    RT_API_ENTER();
    return create_keyval(RT_KIND_COMM, (rt_attr_fn)copy_fn, (rt_attr_fn)delete_fn, keyval,
                         extra_state, "MPI_Keyval_create");
}

#pragma weak MPI_Keyval_free = PMPI_Keyval_free
int PMPI_Keyval_free(int *keyval)
{
    RT_API_ENTER();
    return free_keyval(RT_KIND_COMM, keyval, "MPI_Keyval_free");
}

#pragma weak MPI_Attr_put = PMPI_Attr_put
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    RT_API_ENTER();
    struct target t;
    int rc = comm_target(comm, "MPI_Attr_put", &t);

    return rc ? rc : set_attr(&t, keyval, attribute_val, "MPI_Attr_put");
}

#pragma weak MPI_Attr_get = PMPI_Attr_get
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    RT_API_ENTER();
    struct target t;
    int rc = comm_target(comm, "MPI_Attr_get", &t);

    return rc ? rc : get_attr(&t, keyval, attribute_val, flag, "MPI_Attr_get");
}

#pragma weak MPI_Attr_delete = PMPI_Attr_delete
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    RT_API_ENTER();
    struct target t;
    int rc = comm_target(comm, "MPI_Attr_delete", &t);

    return rc ? rc : delete_attr(&t, keyval, "MPI_Attr_delete");
}

/* ---- datatypes ---- */

static int type_target(MPI_Datatype type, const char *fn, struct target *t)
{
    struct rdmpi_datatype *d;

    RT_CHECK_INIT(fn);
    if (!(d = rt_dt_get(type)))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_TYPE, fn, "%s",
                              type == MPI_DATATYPE_NULL
                                  ? "datatype is MPI_DATATYPE_NULL; pass a datatype"
                                  : "datatype is not a valid datatype (freed?)");
    *t = (struct target){RT_KIND_DATATYPE, type, &d->attrs};
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn, int *keyval,
                            void *extra_state)
{
    RT_API_ENTER();
    return create_keyval(RT_KIND_DATATYPE, (rt_attr_fn)copy_fn, (rt_attr_fn)delete_fn, keyval,
                         extra_state, "MPI_Type_create_keyval");
}

#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval
int PMPI_Type_free_keyval(int *keyval)
{
    RT_API_ENTER();
    return free_keyval(RT_KIND_DATATYPE, keyval, "MPI_Type_free_keyval");
}

#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr
int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void *attribute_val)
{
    RT_API_ENTER();
    struct target t;
    int rc = type_target(type, "MPI_Type_set_attr", &t);

    return rc ? rc : set_attr(&t, keyval, attribute_val, "MPI_Type_set_attr");
}

#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr
int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void *attribute_val, int *flag)
{
    RT_API_ENTER();
    struct target t;
    int rc = type_target(type, "MPI_Type_get_attr", &t);

    return rc ? rc : get_attr(&t, keyval, attribute_val, flag, "MPI_Type_get_attr");
}

#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr
int PMPI_Type_delete_attr(MPI_Datatype type, int keyval)
{
    RT_API_ENTER();
    struct target t;
    int rc = type_target(type, "MPI_Type_delete_attr", &t);

    return rc ? rc : delete_attr(&t, keyval, "MPI_Type_delete_attr");
}

/* ---- windows ---- */

static int win_target(MPI_Win win, const char *fn, struct target *t)
{
    struct rdmpi_win *w;
    int err;

    RT_CHECK_INIT(fn);
    if (!(w = rt_win_check(win, fn, &err)))
        return err;
    *t = (struct target){RT_KIND_WIN, win, &w->attrs};
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                           MPI_Win_delete_attr_function *delete_fn, int *keyval, void *extra_state)
{
    RT_API_ENTER();
    return create_keyval(RT_KIND_WIN, (rt_attr_fn)copy_fn, (rt_attr_fn)delete_fn, keyval,
                         extra_state, "MPI_Win_create_keyval");
}

#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval
int PMPI_Win_free_keyval(int *keyval)
{
    RT_API_ENTER();
    return free_keyval(RT_KIND_WIN, keyval, "MPI_Win_free_keyval");
}

#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr
int PMPI_Win_set_attr(MPI_Win win, int keyval, void *attribute_val)
{
    RT_API_ENTER();
    struct target t;
    int rc = win_target(win, "MPI_Win_set_attr", &t);

    return rc ? rc : set_attr(&t, keyval, attribute_val, "MPI_Win_set_attr");
}

#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr
int PMPI_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag)
{
    RT_API_ENTER();
    struct target t;
    int rc = win_target(win, "MPI_Win_get_attr", &t);

    return rc ? rc : get_attr(&t, keyval, attribute_val, flag, "MPI_Win_get_attr");
}

#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr
int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    RT_API_ENTER();
    struct target t;
    int rc = win_target(win, "MPI_Win_delete_attr", &t);

    return rc ? rc : delete_attr(&t, keyval, "MPI_Win_delete_attr");
}
