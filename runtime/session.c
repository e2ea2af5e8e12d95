/* MPI_Session_init/finalize and the process-set queries. The layers come
 * up with the first session (or MPI_Init) and stay up while either model
 * uses them; a process whose last session ended without MPI_Init keeps
 * them for a later session and takes them down at exit, since bringing
 * the layers up again costs a whole start-up. Two process
 * sets exist: mpi://WORLD and mpi://SELF. */
#include "comm.h"
#include "group.h"
#include "info.h"
#include "obj.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const psets[] = {"mpi://WORLD", "mpi://SELF"};

void (*rt_session_bbuf_free)(void *bbuf);
#define NPSETS 2

struct rdmpi_session *rt_session_get(MPI_Session h)
{
    struct rdmpi_session *s = (struct rdmpi_session *)h;

    if ((uintptr_t)h < RDMPI_PREDEF_LIMIT)
        return NULL;
    return s->obj.kind == RT_KIND_SESSION ? s : NULL;
}

static struct rdmpi_session *check(MPI_Session h, const char *fn, int *err)
{
    struct rdmpi_session *s = rt_session_get(h);

    if (!s)
        *err = rdmpi_err_session(
            h, MPI_ERR_SESSION, fn, "%s",
            h == MPI_SESSION_NULL
                ? "session is MPI_SESSION_NULL; pass a session from MPI_Session_init"
                : "session is not a valid session (finalized, or not a session handle)");
    return s;
}

/* Index of a process set by name, or -1. Case does not matter: the
 * standard spells them mpi://WORLD and mpi://SELF, while programs written
 * for MPICH and Open MPI (which both ignore case) use mpi://world too. */
static int pset_index(const char *name)
{
    for (int i = 0; name && i < NPSETS; i++)
        if (!strcasecmp(name, psets[i]))
            return i;
    return -1;
}

/* The level the info's thread_level asks for (MPI_THREAD_SINGLE without
 * one), or -1 with its value in v when it names no level. */
static int thread_level_wanted(MPI_Info info, char v[64])
{
    int len = 64, flag = 0;

    if (info == MPI_INFO_NULL || PMPI_Info_get_string(info, "thread_level", &len, v, &flag) ||
        !flag)
        return MPI_THREAD_SINGLE;
    for (int l = MPI_THREAD_SINGLE; l <= MPI_THREAD_MULTIPLE; l++)
        if (!strcasecmp(v, rt_thread_level_name(l)))
            return l;
    return -1;
}

static void down_at_exit(void)
{
    if (rt.up && !rt.sessions && !rt.initialized)
        rt_down();
}

#pragma weak MPI_Session_init = PMPI_Session_init
int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Session_init";
    static int exit_hook;
    MPI_Errhandler h = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
    const char *why;
    struct rdmpi_errhandler *e = rt_errh_usable(h, RT_ERRH_SESSION, &why);
    struct rdmpi_session *s;
    char level[64];
    int wanted;

    if (!session)
        return rdmpi_err_errh(h, RT_ERRH_SESSION, MPI_ERR_ARG, fn,
                              "session is NULL; pass the address of an MPI_Session");
    if (!e)
        return rdmpi_err_errh(h, RT_ERRH_SESSION, MPI_ERR_ERRHANDLER, fn, "%s", why);
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        return rdmpi_err_errh(h, RT_ERRH_SESSION, MPI_ERR_INFO, fn,
                              "info is not a valid info object; pass one or MPI_INFO_NULL");
    if ((wanted = thread_level_wanted(info, level)) < 0)
        return rdmpi_err_errh(h, RT_ERRH_SESSION, MPI_ERR_INFO_VALUE, fn,
                              "info key thread_level is \"%s\"; use MPI_THREAD_SINGLE, "
                              "MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE",
                              level);
    if (!rt.up) {
        rt_up(wanted, fn);
        if (!exit_hook++)
            atexit(down_at_exit);
    }
    if (!(s = rt_obj_new(RT_KIND_SESSION, sizeof(*s))) ||
        (info == MPI_INFO_NULL ? PMPI_Info_create(&s->info) : PMPI_Info_dup(info, &s->info)) ||
        PMPI_Info_set(s->info, "thread_level", rt_thread_level_name(rt.thread_level))) {
        if (s)
            rt_obj_delete(s);
        return rdmpi_err_errh(h, RT_ERRH_SESSION, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    rt_errh_retain(e);
    s->errh = e;
    rt.sessions++;
    *session = (MPI_Session)s;
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_finalize = PMPI_Session_finalize
int PMPI_Session_finalize(MPI_Session *session)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Session_finalize";
    struct rdmpi_session *s;
    int err;

    if (!session)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "session is NULL; pass the address of an MPI_Session");
    if (!(s = check(*session, fn, &err)))
        return err;
    if (s->bbuf)
        rt_session_bbuf_free(s->bbuf);
    PMPI_Info_free(&s->info);
    rt_errh_release(s->errh);
    rt_obj_delete(s);
    *session = MPI_SESSION_NULL;
    /* After MPI_Finalize the last session takes the layers down; without
     * MPI_Init they stay for a later session (see the top). */
    if (!--rt.sessions && rt.finalized)
        rt_down();
    return MPI_SUCCESS;
}

#pragma weak MPI_Session_get_info = PMPI_Session_get_info
int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Session_get_info";
    struct rdmpi_session *s;
    int err;

    if (!(s = check(session, fn, &err)))
        return err;
    if (!info_used)
        return rdmpi_err_session(session, MPI_ERR_ARG, fn,
                                 "info_used is NULL; pass the address of an MPI_Info");
    return PMPI_Info_dup(s->info, info_used);
}

#pragma weak MPI_Session_get_num_psets = PMPI_Session_get_num_psets
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Session_get_num_psets";
    int err;

    (void)info;
    if (!check(session, fn, &err))
        return err;
    if (!npset_names)
        return rdmpi_err_session(session, MPI_ERR_ARG, fn,
                                 "npset_names is NULL; pass the address of an int");
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}

/* With *pset_len 0, only the length the name needs (with its NUL) is
 * returned; else up to *pset_len - 1 characters and a NUL are copied. */
#pragma weak MPI_Session_get_nth_pset = PMPI_Session_get_nth_pset
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Session_get_nth_pset";
    int err, need;

    (void)info;
    if (!check(session, fn, &err))
        return err;
    if (n < 0 || n >= NPSETS)
        return rdmpi_err_session(session, MPI_ERR_ARG, fn,
                                 "n is %d; this session has %d "
                                 "process sets (0..%d)",
                                 n, NPSETS, NPSETS - 1);
    if (!pset_len || (*pset_len > 0 && !pset_name))
        return rdmpi_err_session(session, MPI_ERR_ARG, fn, "%s is NULL",
                                 pset_len ? "pset_name" : "pset_len");
    need = (int)strlen(psets[n]) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", psets[n]);
    *pset_len = need;
    return MPI_SUCCESS;
}

static int pset_size(int i)
{
    return i == 0 ? rt.size : 1;
}

#pragma weak MPI_Session_get_pset_info = PMPI_Session_get_pset_info
int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Session_get_pset_info";
    char v[16];
    int err, i;

    if (!check(session, fn, &err))
        return err;
    if (!info)
        return rdmpi_err_session(session, MPI_ERR_ARG, fn,
                                 "info is NULL; pass the address of an MPI_Info");
    if ((i = pset_index(pset_name)) < 0)
        return rdmpi_err_session(session, MPI_ERR_ARG, fn,
                                 "no process set named \"%s\"; "
                                 "there are mpi://WORLD and mpi://SELF",
                                 pset_name ? pset_name : "(null)");
    snprintf(v, sizeof(v), "%d", pset_size(i));
    if ((err = PMPI_Info_create(info)))
        return err;
    return PMPI_Info_set(*info, "mpi_size", v);
}

#pragma weak MPI_Group_from_session_pset = PMPI_Group_from_session_pset
int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Group_from_session_pset";
    struct rdmpi_group *g;
    int err, i;

    if (!check(session, fn, &err))
        return err;
    if (!newgroup)
        return rdmpi_err_session(session, MPI_ERR_ARG, fn,
                                 "newgroup is NULL; pass the address of an MPI_Group");
    if ((i = pset_index(pset_name)) < 0)
        return rdmpi_err_session(session, MPI_ERR_ARG, fn,
                                 "no process set named \"%s\"; "
                                 "there are mpi://WORLD and mpi://SELF",
                                 pset_name ? pset_name : "(null)");
    /* A group of its own, which carries the session to communicators. */
    g = rt_comm_group(rt_comm_predef[i]);
    if (!g || !(g = rt_group_new(g->world, g->size)))
        return rdmpi_err_session(session, MPI_ERR_NO_MEM, fn, "out of memory");
    g->session = session;
    *newgroup = rt_group_handle(g);
    return MPI_SUCCESS;
}
