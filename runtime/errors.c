#include "errors.h"
#include "comm.h"
#include "obj.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    const char *text;
} classes[RDMPI_ERR_CLASS_COUNT] = {
    [MPI_SUCCESS] = {"MPI_SUCCESS", "no error"},
    [MPI_ERR_BUFFER] = {"MPI_ERR_BUFFER", "invalid buffer pointer"},
    [MPI_ERR_COUNT] = {"MPI_ERR_COUNT", "invalid count argument"},
    [MPI_ERR_TYPE] = {"MPI_ERR_TYPE", "invalid datatype"},
    [MPI_ERR_TAG] = {"MPI_ERR_TAG", "invalid tag"},
    [MPI_ERR_COMM] = {"MPI_ERR_COMM", "invalid communicator"},
    [MPI_ERR_RANK] = {"MPI_ERR_RANK", "invalid rank"},
    [MPI_ERR_REQUEST] = {"MPI_ERR_REQUEST", "invalid request"},
    [MPI_ERR_ROOT] = {"MPI_ERR_ROOT", "invalid root"},
    [MPI_ERR_GROUP] = {"MPI_ERR_GROUP", "invalid group"},
    [MPI_ERR_OP] = {"MPI_ERR_OP", "invalid reduction operation"},
    [MPI_ERR_TOPOLOGY] = {"MPI_ERR_TOPOLOGY", "invalid topology"},
    [MPI_ERR_DIMS] = {"MPI_ERR_DIMS", "invalid dimension argument"},
    [MPI_ERR_ARG] = {"MPI_ERR_ARG", "invalid argument"},
    [MPI_ERR_UNKNOWN] = {"MPI_ERR_UNKNOWN", "unknown error"},
    [MPI_ERR_TRUNCATE] = {"MPI_ERR_TRUNCATE", "message truncated: the receive buffer is smaller than the message"},
    [MPI_ERR_OTHER] = {"MPI_ERR_OTHER", "known error not in this list"},
    [MPI_ERR_INTERN] = {"MPI_ERR_INTERN", "internal error in the MPI library"},
    [MPI_ERR_PENDING] = {"MPI_ERR_PENDING", "pending request"},
    [MPI_ERR_IN_STATUS] = {"MPI_ERR_IN_STATUS", "error code is in the status"},
    [MPI_ERR_ACCESS] = {"MPI_ERR_ACCESS", "permission denied"},
    [MPI_ERR_AMODE] = {"MPI_ERR_AMODE", "invalid file access mode"},
    [MPI_ERR_ASSERT] = {"MPI_ERR_ASSERT", "invalid assert argument"},
    [MPI_ERR_BAD_FILE] = {"MPI_ERR_BAD_FILE", "invalid file name"},
    [MPI_ERR_BASE] = {"MPI_ERR_BASE", "invalid base argument"},
    [MPI_ERR_CONVERSION] = {"MPI_ERR_CONVERSION", "error in a data conversion function"},
    [MPI_ERR_DISP] = {"MPI_ERR_DISP", "invalid displacement argument"},
    [MPI_ERR_DUP_DATAREP] = {"MPI_ERR_DUP_DATAREP", "data representation already defined"},
    [MPI_ERR_FILE_EXISTS] = {"MPI_ERR_FILE_EXISTS", "file exists"},
    [MPI_ERR_FILE_IN_USE] = {"MPI_ERR_FILE_IN_USE", "file in use"},
    [MPI_ERR_FILE] = {"MPI_ERR_FILE", "invalid file handle"},
    [MPI_ERR_INFO_KEY] = {"MPI_ERR_INFO_KEY", "info key too long"},
    [MPI_ERR_INFO_NOKEY] = {"MPI_ERR_INFO_NOKEY", "info key not defined"},
    [MPI_ERR_INFO_VALUE] = {"MPI_ERR_INFO_VALUE", "info value too long"},
    [MPI_ERR_INFO] = {"MPI_ERR_INFO", "invalid info object"},
    [MPI_ERR_IO] = {"MPI_ERR_IO", "I/O error"},
    [MPI_ERR_KEYVAL] = {"MPI_ERR_KEYVAL", "invalid attribute key"},
    [MPI_ERR_LOCKTYPE] = {"MPI_ERR_LOCKTYPE", "invalid lock type"},
    [MPI_ERR_NAME] = {"MPI_ERR_NAME", "service name not published"},
    [MPI_ERR_NO_MEM] = {"MPI_ERR_NO_MEM", "out of memory"},
    [MPI_ERR_NOT_SAME] = {"MPI_ERR_NOT_SAME", "arguments differ across processes"},
    [MPI_ERR_NO_SPACE] = {"MPI_ERR_NO_SPACE", "no space left"},
    [MPI_ERR_NO_SUCH_FILE] = {"MPI_ERR_NO_SUCH_FILE", "no such file"},
    [MPI_ERR_PORT] = {"MPI_ERR_PORT", "invalid port name"},
    [MPI_ERR_PROC_ABORTED] = {"MPI_ERR_PROC_ABORTED", "a peer process aborted"},
    [MPI_ERR_QUOTA] = {"MPI_ERR_QUOTA", "quota exceeded"},
    [MPI_ERR_READ_ONLY] = {"MPI_ERR_READ_ONLY", "read-only file or file system"},
    [MPI_ERR_RMA_ATTACH] = {"MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    [MPI_ERR_RMA_CONFLICT] = {"MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
    [MPI_ERR_RMA_RANGE] = {"MPI_ERR_RMA_RANGE", "target memory outside the window"},
    [MPI_ERR_RMA_SHARED] = {"MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    [MPI_ERR_RMA_SYNC] = {"MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
    [MPI_ERR_RMA_FLAVOR] = {"MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
    [MPI_ERR_SERVICE] = {"MPI_ERR_SERVICE", "invalid service name"},
    [MPI_ERR_SESSION] = {"MPI_ERR_SESSION", "invalid session"},
    [MPI_ERR_SIZE] = {"MPI_ERR_SIZE", "invalid size argument"},
    [MPI_ERR_SPAWN] = {"MPI_ERR_SPAWN", "error spawning processes"},
    [MPI_ERR_UNSUPPORTED_DATAREP] = {"MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    [MPI_ERR_UNSUPPORTED_OPERATION] = {"MPI_ERR_UNSUPPORTED_OPERATION", "operation not supported"},
    [MPI_ERR_VALUE_TOO_LARGE] = {"MPI_ERR_VALUE_TOO_LARGE", "value too large to store"},
    [MPI_ERR_WIN] = {"MPI_ERR_WIN", "invalid window"},
    [MPI_ERR_ERRHANDLER] = {"MPI_ERR_ERRHANDLER", "invalid error handler"},
};

/* The detail of the last error raised on this thread, so MPI_Error_string
 * can say which function and argument, not just the class. */
static _Thread_local struct {
    int code;
    char msg[768];
} last;

#define NPREDEF_ERRH 3
static struct rdmpi_errhandler errh_predef[NPREDEF_ERRH] = {
    {.obj = {RT_KIND_ERRHANDLER, 1}, .builtin = RT_ERRH_FATAL, .refs = 1},
    {.obj = {RT_KIND_ERRHANDLER, 2}, .builtin = RT_ERRH_RETURN, .refs = 1},
    {.obj = {RT_KIND_ERRHANDLER, 3}, .builtin = RT_ERRH_ABORT, .refs = 1},
};

struct rdmpi_errhandler *rt_errh_get(MPI_Errhandler h)
{
    uintptr_t v = (uintptr_t)h;
    struct rdmpi_errhandler *e;

    if (v < RDMPI_PREDEF_LIMIT) {
        v -= RDMPI_ERRHANDLER_BASE + 1;
        return v < NPREDEF_ERRH ? &errh_predef[v] : NULL;
    }
    e = (struct rdmpi_errhandler *)h;
    return e->obj.kind == RT_KIND_ERRHANDLER ? e : NULL;
}

static MPI_Errhandler errh_handle(struct rdmpi_errhandler *e)
{
    if (e >= errh_predef && e < errh_predef + NPREDEF_ERRH)
        return (MPI_Errhandler)(uintptr_t)(RDMPI_ERRHANDLER_BASE + 1 + (e - errh_predef));
    return (MPI_Errhandler)e;
}

void rt_errh_retain(struct rdmpi_errhandler *e)
{
    __atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
}

void rt_errh_release(struct rdmpi_errhandler *e)
{
    if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0 &&
        e->builtin == RT_ERRH_USER)
        rt_obj_delete(e);
}

int rt_err_class_of(int code)
{
    if (code >= 0 && code < RDMPI_ERR_CLASS_COUNT && classes[code].name)
        return code;
    return -1;
}

const char *rt_err_class_name(int errclass)
{
    return rt_err_class_of(errclass) >= 0 ? classes[errclass].name : "unknown error class";
}

_Noreturn void rt_not_initialized(const char *func)
{
    char msg[256];

    snprintf(msg, sizeof(msg), "%s was called %s; call it between MPI_Init and MPI_Finalize",
             func, rt.finalized ? "after MPI_Finalize" : "before MPI_Init");
    rt_abort_job(1, msg);
}

/* Runs handler `e` for an error on `handle`; returns the code to return. */
static int run_handler(struct rdmpi_errhandler *e, void *handle, int code,
                       const char *func, const char *msg)
{
    char line[1024];

    last.code = code;
    snprintf(last.msg, sizeof(last.msg), "%s: %s", func, msg);
    switch (e ? e->builtin : RT_ERRH_FATAL) {
    case RT_ERRH_RETURN:
        return code;
    case RT_ERRH_USER: {
        int orig = code;
        switch (e->kind) {
        case RT_ERRH_COMM: ((MPI_Comm_errhandler_function *)e->fn)(handle, &code); break;
        case RT_ERRH_WIN: ((MPI_Win_errhandler_function *)e->fn)(handle, &code); break;
        case RT_ERRH_FILE: ((MPI_File_errhandler_function *)e->fn)(handle, &code); break;
        case RT_ERRH_SESSION: ((MPI_Session_errhandler_function *)e->fn)(handle, &code); break;
        }
        /* Callers stop on a non-zero return; a handler cannot make the
         * failed call succeed. */
        return code ? code : orig;
    }
    case RT_ERRH_FATAL:
    case RT_ERRH_ABORT:
        break;
    }
    snprintf(line, sizeof(line), "%s: %s (%s)", func, msg,
             rt_err_class_name(rt_err_class_of(code)));
    rt_abort_job(code > 0 && code < 256 ? code : 1, line);
}

int rt_err_raise_comm(MPI_Comm comm, int code, const char *func, const char *msg)
{
    struct rdmpi_comm *c = rt_comm_get(comm);

    if (!c) {
        comm = MPI_COMM_SELF;
        c = rt_comm_get(comm);
    }
    return run_handler(c ? c->errh : NULL, &comm, code, func, msg);
}

#define FORMAT(buf, fmt)                                                     \
    char buf[768];                                                           \
    do {                                                                     \
        va_list ap;                                                          \
        va_start(ap, fmt);                                                   \
        vsnprintf(buf, sizeof(buf), fmt, ap);                                \
        va_end(ap);                                                          \
    } while (0)

int rdmpi_err_comm(MPI_Comm comm, int errclass, const char *func, const char *fmt, ...)
{
    FORMAT(msg, fmt);
    return rt_err_raise_comm(comm, errclass, func, msg);
}

/* Windows, files and sessions do not exist as objects yet: their errors go
 * to MPI_COMM_SELF's handler, except files, whose default is ERRORS_RETURN
 * as the standard says for MPI_FILE_NULL. */
int rdmpi_err_win(MPI_Win win, int errclass, const char *func, const char *fmt, ...)
{
    (void)win;
    FORMAT(msg, fmt);
    return rt_err_raise_comm(MPI_COMM_SELF, errclass, func, msg);
}

int rdmpi_err_file(MPI_File fh, int errclass, const char *func, const char *fmt, ...)
{
    FORMAT(msg, fmt);
    return run_handler(&errh_predef[1], &fh, errclass, func, msg);
}

int rdmpi_err_session(MPI_Session s, int errclass, const char *func, const char *fmt, ...)
{
    (void)s;
    FORMAT(msg, fmt);
    return rt_err_raise_comm(MPI_COMM_SELF, errclass, func, msg);
}

/* ---- API ---- */

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int *errorclass)
{
    int c = rt_err_class_of(errorcode);

    if (c < 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Error_class",
                              "errorcode %d is not an MPI error code", errorcode);
    *errorclass = c;
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    int c = rt_err_class_of(errorcode);
    int n;

    if (c < 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Error_string",
                              "errorcode %d is not an MPI error code", errorcode);
    if (c != MPI_SUCCESS && last.code == errorcode && last.msg[0])
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s (last: %s)",
                     classes[c].name, classes[c].text, last.msg);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", classes[c].name,
                     classes[c].text);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    struct rdmpi_errhandler *e;

    if (!fn || !errhandler)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Comm_create_errhandler",
                              "%s is NULL", fn ? "errhandler" : "the function");
    e = rt_obj_new(RT_KIND_ERRHANDLER, sizeof(*e));
    if (!e)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler",
                              "out of memory");
    e->builtin = RT_ERRH_USER;
    e->kind = RT_ERRH_COMM;
    e->fn = (void (*)(void))fn;
    e->refs = 1;
    *errhandler = (MPI_Errhandler)e;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Comm_set_errhandler";
    struct rdmpi_comm *c;
    struct rdmpi_errhandler *e, *old;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    e = rt_errh_get(errhandler);
    if (!e)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "errhandler is not a valid error handler");
    if (e->builtin == RT_ERRH_USER && e->kind != RT_ERRH_COMM)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "errhandler was created for windows or files; use "
                              "MPI_Comm_create_errhandler");
    rt_errh_retain(e);
    old = c->errh;
    c->errh = e;
    if (old)
        rt_errh_release(old);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Comm_get_errhandler";
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    if (!errhandler)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "errhandler is NULL");
    rt_errh_retain(c->errh);
    *errhandler = errh_handle(c->errh);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char fn[] = "MPI_Comm_call_errhandler";
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    run_handler(c->errh, &comm, errorcode, fn, "error raised by the application");
    /* The standard: returns MPI_SUCCESS when the handler returned. */
    return MPI_SUCCESS;
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    struct rdmpi_errhandler *e;

    if (!errhandler || !(e = rt_errh_get(*errhandler)))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Errhandler_free",
                              "errhandler is not a valid error handler");
    rt_errh_release(e);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
