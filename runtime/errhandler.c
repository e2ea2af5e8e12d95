/* The error handler API: create, set, get and call handlers on
 * communicators, windows, files and sessions, and free them.  The handler
 * of MPI_FILE_NULL serves file calls without a file (open, delete) and is
 * the one each file starts with. */
#include "comm.h"
#include "errors.h"
#include "file.h"
#include "obj.h"
#include "session.h"
#include "win.h"

static int create(enum rt_errh_kind kind, void (*fn)(void), MPI_Errhandler *errhandler,
                  const char *func)
{
    struct rdmpi_errhandler *e;

    if (!fn || !errhandler)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, func, "%s is NULL",
                              fn ? "errhandler" : "the handler function");
    e = rt_obj_new(RT_KIND_ERRHANDLER, sizeof(*e));
    if (!e)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, func, "out of memory");
    e->builtin = RT_ERRH_USER;
    e->kind = kind;
    e->fn = fn;
    e->refs = 1;
    *errhandler = (MPI_Errhandler)e;
    return MPI_SUCCESS;
}

struct rdmpi_errhandler *rt_errh_usable(MPI_Errhandler h, enum rt_errh_kind kind, const char **why)
{
    struct rdmpi_errhandler *e = rt_errh_get(h);

    if (!e)
        *why = h == MPI_ERRHANDLER_NULL ? "errhandler is MPI_ERRHANDLER_NULL"
                                        : "errhandler is not a valid error handler (freed?)";
    else if (e->builtin == RT_ERRH_USER && e->kind != kind)
        *why = "errhandler was created for another kind of object; create it with the "
               "matching MPI_*_create_errhandler";
    else
        return e;
    return NULL;
}

static void replace(struct rdmpi_errhandler **slot, struct rdmpi_errhandler *e)
{
    struct rdmpi_errhandler *old = *slot;

    rt_errh_retain(e);
    *slot = e;
    if (old)
        rt_errh_release(old);
}

/* ---- communicators ---- */

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    RT_API_ENTER();
    return create(RT_ERRH_COMM, (void (*)(void))fn, errhandler, "MPI_Comm_create_errhandler");
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_set_errhandler";
    struct rdmpi_comm *c;
    struct rdmpi_errhandler *e;
    const char *why;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    if (!(e = rt_errh_usable(errhandler, RT_ERRH_COMM, &why)))
        return rdmpi_err_comm(comm, MPI_ERR_ERRHANDLER, fn, "%s", why);
    replace(&c->errh, e);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_get_errhandler";
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    if (!errhandler)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "errhandler is NULL");
    /* The user frees what get returns, so it counts as a reference. */
    rt_errh_retain(c->errh);
    *errhandler = rt_errh_handle(c->errh);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_call_errhandler";
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    rt_err_raise_comm(comm, errorcode, fn, "error raised by the application");
    /* The standard: returns MPI_SUCCESS when the handler returned. */
    return MPI_SUCCESS;
}

/* ---- windows ---- */

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    RT_API_ENTER();
    return create(RT_ERRH_WIN, (void (*)(void))fn, errhandler, "MPI_Win_create_errhandler");
}

#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_set_errhandler";
    struct rdmpi_win *w;
    struct rdmpi_errhandler *e;
    const char *why;
    int err;

    RT_CHECK_INIT(fn);
    if (!(w = rt_win_check(win, fn, &err)))
        return err;
    if (!(e = rt_errh_usable(errhandler, RT_ERRH_WIN, &why)))
        return rdmpi_err_win(win, MPI_ERR_ERRHANDLER, fn, "%s", why);
    replace(&w->errh, e);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_get_errhandler";
    struct rdmpi_win *w;
    int err;

    RT_CHECK_INIT(fn);
    if (!(w = rt_win_check(win, fn, &err)))
        return err;
    if (!errhandler)
        return rdmpi_err_win(win, MPI_ERR_ARG, fn, "errhandler is NULL");
    rt_errh_retain(w->errh);
    *errhandler = rt_errh_handle(w->errh);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Win_call_errhandler";
    struct rdmpi_win *w;
    int err;

    RT_CHECK_INIT(fn);
    if (!(w = rt_win_check(win, fn, &err)))
        return err;
    rt_errh_run(w->errh, &win, errorcode, fn, "error raised by the application");
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_create_errhandler = PMPI_Session_create_errhandler
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    RT_API_ENTER();
    return create(RT_ERRH_SESSION, (void (*)(void))fn, errhandler, "MPI_Session_create_errhandler");
}

#pragma weak MPI_Session_set_errhandler = PMPI_Session_set_errhandler
int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Session_set_errhandler";
    struct rdmpi_session *s = rt_session_get(session);
    struct rdmpi_errhandler *e;
    const char *why;

    if (!s)
        return rdmpi_err_session(session, MPI_ERR_SESSION, fn, "session is not a valid session");
    if (!(e = rt_errh_usable(errhandler, RT_ERRH_SESSION, &why)))
        return rdmpi_err_session(session, MPI_ERR_ERRHANDLER, fn, "%s", why);
    replace(&s->errh, e);
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_get_errhandler = PMPI_Session_get_errhandler
int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Session_get_errhandler";
    struct rdmpi_session *s = rt_session_get(session);

    if (!s)
        return rdmpi_err_session(session, MPI_ERR_SESSION, fn, "session is not a valid session");
    if (!errhandler)
        return rdmpi_err_session(session, MPI_ERR_ARG, fn, "errhandler is NULL");
    rt_errh_retain(s->errh);
    *errhandler = rt_errh_handle(s->errh);
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_call_errhandler = PMPI_Session_call_errhandler
int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Session_call_errhandler";
    struct rdmpi_session *s = rt_session_get(session);

    if (!s)
        return rdmpi_err_session(session, MPI_ERR_SESSION, fn, "session is not a valid session");
    rt_errh_run(s->errh, &session, errorcode, fn, "error raised by the application");
    return MPI_SUCCESS;
}

/* ---- files: MPI_FILE_NULL's handler is the one new files start with ---- */

/* The handler slot of file (MPI_FILE_NULL's for it), or NULL after raising. */
static struct rdmpi_errhandler **file_slot(MPI_File file, const char *fn, int *err)
{
    struct rdmpi_file *f = rt_file_get(file);

    *err = MPI_SUCCESS;
    if (f)
        return &f->errh;
    if (file == MPI_FILE_NULL)
        return &rt_errh_file_default;
    *err = rdmpi_err_file(MPI_FILE_NULL, MPI_ERR_FILE, fn,
                          "file is not a valid file handle (closed, or not a file)");
    return NULL;
}

#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler
int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    RT_API_ENTER();
    return create(RT_ERRH_FILE, (void (*)(void))fn, errhandler, "MPI_File_create_errhandler");
}

#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_set_errhandler";
    struct rdmpi_errhandler *e, **slot;
    const char *why;
    int err;

    if (!(slot = file_slot(file, fn, &err)))
        return err;
    if (!(e = rt_errh_usable(errhandler, RT_ERRH_FILE, &why)))
        return rdmpi_err_file(file, MPI_ERR_ERRHANDLER, fn, "%s", why);
    replace(slot, e);
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_get_errhandler";
    struct rdmpi_errhandler **slot;
    int err;

    if (!(slot = file_slot(file, fn, &err)))
        return err;
    if (!errhandler)
        return rdmpi_err_file(file, MPI_ERR_ARG, fn, "errhandler is NULL");
    rt_errh_retain(*slot);
    *errhandler = rt_errh_handle(*slot);
    return MPI_SUCCESS;
}

#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler
int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_call_errhandler";
    struct rdmpi_errhandler **slot;
    int err;

    if (!(slot = file_slot(fh, fn, &err)))
        return err;
    rt_errh_run(*slot, &fh, errorcode, fn, "error raised by the application");
    return MPI_SUCCESS;
}

/* ---- all kinds ---- */

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    RT_API_ENTER();
    struct rdmpi_errhandler *e;

    if (!errhandler)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Errhandler_free",
                              "errhandler is NULL; pass the address of a handle");
    if (!(e = rt_errh_get(*errhandler)))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ERRHANDLER, "MPI_Errhandler_free",
                              "*errhandler is not a valid error handler (null or freed)");
    /* Objects using it keep their reference; it goes with the last one. */
    rt_errh_release(e);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
