#include "errors.h"
#include "comm.h"
#include "file.h"
#include "obj.h"
#include "session.h"
#include "win.h"

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
    [MPI_ERR_TRUNCATE] = {"MPI_ERR_TRUNCATE",
                          "message truncated: the receive buffer is smaller than the message"},
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
    [MPI_ERR_UNSUPPORTED_DATAREP] = {"MPI_ERR_UNSUPPORTED_DATAREP",
                                     "unsupported data representation"},
    [MPI_ERR_UNSUPPORTED_OPERATION] = {"MPI_ERR_UNSUPPORTED_OPERATION", "operation not supported"},
    [MPI_ERR_VALUE_TOO_LARGE] = {"MPI_ERR_VALUE_TOO_LARGE", "value too large to store"},
    [MPI_ERR_WIN] = {"MPI_ERR_WIN", "invalid window"},
    [MPI_ERR_ERRHANDLER] = {"MPI_ERR_ERRHANDLER", "invalid error handler"},
    [MPI_T_ERR_MEMORY] = {"MPI_T_ERR_MEMORY", "out of memory in the tool interface"},
    [MPI_T_ERR_NOT_INITIALIZED] = {"MPI_T_ERR_NOT_INITIALIZED",
                                   "the tool interface is not initialized"},
    [MPI_T_ERR_CANNOT_INIT] = {"MPI_T_ERR_CANNOT_INIT", "the tool interface cannot be initialized"},
    [MPI_T_ERR_INVALID] = {"MPI_T_ERR_INVALID", "invalid use of the tool interface"},
    [MPI_T_ERR_INVALID_INDEX] = {"MPI_T_ERR_INVALID_INDEX",
                                 "invalid tool variable or category index"},
    [MPI_T_ERR_INVALID_ITEM] = {"MPI_T_ERR_INVALID_ITEM",
                                "invalid item index in a tool enumeration"},
    [MPI_T_ERR_INVALID_HANDLE] = {"MPI_T_ERR_INVALID_HANDLE", "invalid tool handle"},
    [MPI_T_ERR_INVALID_NAME] = {"MPI_T_ERR_INVALID_NAME",
                                "no tool variable or category of that name"},
    [MPI_T_ERR_INVALID_SESSION] = {"MPI_T_ERR_INVALID_SESSION",
                                   "invalid performance variable session"},
    [MPI_T_ERR_OUT_OF_HANDLES] = {"MPI_T_ERR_OUT_OF_HANDLES", "no more tool handles available"},
    [MPI_T_ERR_OUT_OF_SESSIONS] = {"MPI_T_ERR_OUT_OF_SESSIONS",
                                   "no more performance variable sessions available"},
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = {"MPI_T_ERR_CVAR_SET_NOT_NOW",
                                    "the control variable cannot be set now"},
    [MPI_T_ERR_CVAR_SET_NEVER] = {"MPI_T_ERR_CVAR_SET_NEVER",
                                  "the control variable can never be set"},
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = {"MPI_T_ERR_PVAR_NO_STARTSTOP",
                                     "the performance variable cannot be started or stopped"},
    [MPI_T_ERR_PVAR_NO_WRITE] = {"MPI_T_ERR_PVAR_NO_WRITE",
                                 "the performance variable cannot be written or reset"},
    [MPI_T_ERR_PVAR_NO_ATOMIC] = {"MPI_T_ERR_PVAR_NO_ATOMIC",
                                  "the performance variable cannot be read and reset atomically"},
    [MPI_T_ERR_NOT_ACCESSIBLE] = {"MPI_T_ERR_NOT_ACCESSIBLE",
                                  "the requested tool information is not accessible"},
    [MPI_T_ERR_NOT_SUPPORTED] = {"MPI_T_ERR_NOT_SUPPORTED",
                                 "the requested tool functionality is not supported"},
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

/* Errors on MPI_FILE_NULL (and on files, which do not exist yet) use this;
 * the standard makes ERRORS_RETURN the initial one. */
struct rdmpi_errhandler *rt_errh_file_default = &errh_predef[1];

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

MPI_Errhandler rt_errh_handle(struct rdmpi_errhandler *e)
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
    if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) == 0 && e->builtin == RT_ERRH_USER)
        rt_obj_delete(e);
}

int rt_err_class_of(int code)
{
    if (code >= 0 && code < RDMPI_ERR_CLASS_COUNT && classes[code].name)
        return code;
    return rt_err_user_class(code);
}

const char *rt_err_class_name(int errclass)
{
    if (errclass >= 0 && errclass < RDMPI_ERR_CLASS_COUNT && classes[errclass].name)
        return classes[errclass].name;
    return rt_err_user_class(errclass) == errclass ? "user-defined error class"
                                                   : "unknown error class";
}

_Noreturn void rt_not_initialized(const char *func)
{
    char msg[256];

    snprintf(msg, sizeof(msg),
             "%s was called %s; call it between MPI_Init and MPI_Finalize "
             "(or MPI_Session_init and MPI_Session_finalize)",
             func, rt.finalized ? "after MPI_Finalize" : "before MPI_Init");
    rt_abort_job(1, msg);
}

int rt_errh_run(struct rdmpi_errhandler *e, void *handle, int code, const char *func,
                const char *msg)
{
    char line[1024];

    last.code = code;
    snprintf(last.msg, sizeof(last.msg), "%s: %s", func, msg);
    switch (e ? e->builtin : RT_ERRH_FATAL) {
    case RT_ERRH_RETURN: return code;
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
    case RT_ERRH_ABORT: break;
    }
    snprintf(line, sizeof(line), "%s: %s (%s, error %d)", func, msg,
             rt_err_class_name(rt_err_class_of(code)), code);
    rt_abort_job(code > 0 && code < 256 ? code : 1, line);
}

int rt_err_raise_comm(MPI_Comm comm, int code, const char *func, const char *msg)
{
    struct rdmpi_comm *c = rt_comm_get(comm);
    char who[RT_COMM_DESCRIBE_MAX], where[RT_COMM_DESCRIBE_MAX + 64];

    if (!c) {
        comm = MPI_COMM_SELF;
        c = rt_comm_get(comm);
    } else if (comm != MPI_COMM_SELF && (!c->errh || c->errh->builtin == RT_ERRH_FATAL ||
                                         c->errh->builtin == RT_ERRH_ABORT)) {
        /* Fatal: the job's last line must say where it happened. Errors
         * tied to no communicator (invalid handles, requests, ...) are
         * raised on MPI_COMM_SELF, which would mislead if named. */
        snprintf(where, sizeof(where), "%s on %s", func, rt_comm_describe(c, who, sizeof(who)));
        func = where;
    }
    return rt_errh_run(c ? c->errh : NULL, &comm, code, func, msg);
}

#define FORMAT(buf, fmt)                                                                           \
    char buf[768];                                                                                 \
    do {                                                                                           \
        va_list ap;                                                                                \
        va_start(ap, fmt);                                                                         \
        vsnprintf(buf, sizeof(buf), fmt, ap);                                                      \
        va_end(ap);                                                                                \
    } while (0)

int rdmpi_err_comm(MPI_Comm comm, int errclass, const char *func, const char *fmt, ...)
{
    FORMAT(msg, fmt);
    return rt_err_raise_comm(comm, errclass, func, msg);
}

/* Errors on a window or a session go to its handler; on an invalid one, to
 * MPI_COMM_SELF's. Files do not exist as objects yet: their errors use the
 * handler of MPI_FILE_NULL (MPI_File_set_errhandler). */
int rdmpi_err_win(MPI_Win win, int errclass, const char *func, const char *fmt, ...)
{
    struct rdmpi_win *w = rt_win_get(win);

    FORMAT(msg, fmt);
    if (!w)
        return rt_err_raise_comm(MPI_COMM_SELF, errclass, func, msg);
    return rt_errh_run(w->errh, &win, errclass, func, msg);
}

int rdmpi_err_file(MPI_File fh, int errclass, const char *func, const char *fmt, ...)
{
    struct rdmpi_file *f = rt_file_get(fh);

    FORMAT(msg, fmt);
    return rt_errh_run(f ? f->errh : rt_errh_file_default, &fh, errclass, func, msg);
}

int rdmpi_err_session(MPI_Session s, int errclass, const char *func, const char *fmt, ...)
{
    struct rdmpi_session *se = rt_session_get(s);

    FORMAT(msg, fmt);
    if (!se)
        return rt_err_raise_comm(MPI_COMM_SELF, errclass, func, msg);
    return rt_errh_run(se->errh, &s, errclass, func, msg);
}

int rdmpi_err_errh(MPI_Errhandler h, enum rt_errh_kind kind, int errclass, const char *func,
                   const char *fmt, ...)
{
    const char *why;
    struct rdmpi_errhandler *e = rt_errh_usable(h, kind, &why);
    void *none = NULL;

    FORMAT(msg, fmt);
    if (!e)
        return rt_err_raise_comm(MPI_COMM_SELF, errclass, func, msg);
    return rt_errh_run(e, &none, errclass, func, msg);
}

/* ---- API ---- */

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int *errorclass)
{
    RT_API_ENTER();
    int c = rt_err_class_of(errorcode);

    if (c < 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Error_class",
                              "errorcode %d is not an MPI error code", errorcode);
    if (!errorclass)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Error_class",
                              "errorclass is NULL; pass the address of an int");
    *errorclass = c;
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    RT_API_ENTER();
    int c = rt_err_class_of(errorcode);
    const char *user;
    int n;

    if (c < 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Error_string",
                              "errorcode %d is not an MPI error code", errorcode);
    if (!string || !resultlen)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Error_string",
                              "%s is NULL; pass a buffer of MPI_MAX_ERROR_STRING chars "
                              "and the address of an int",
                              string ? "resultlen" : "string");
    /* A user code says what its MPI_Add_error_string said, "" if nothing. */
    if ((user = rt_err_user_string(errorcode)))
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", user);
    else if (c != MPI_SUCCESS && last.code == errorcode && last.msg[0])
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s (last: %s)", classes[c].name,
                     classes[c].text, last.msg);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", classes[c].name, classes[c].text);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
