/*
 * ln_spawn.c: a plain PMIx client that calls PMIx_Spawn and the name
 * service directly, for the launcher's dynamic-process tests (t_spawn.sh).
 *
 *   ln_spawn ACTION [ARG...]
 *
 * Actions (rank 0 acts, other ranks only init and finalize):
 *   spawn N [S]     start N children (this program, "child S"), print
 *                   "spawned NSPACE" and finalize; the children print
 *                   their facts and exit S (default 0)
 *   mpmd            two programs in one spawn: 1 "child 0" with
 *                   LN_SPAWN_ARG=a and 2 "child 0" with LN_SPAWN_ARG=b
 *   nested          start 1 child that itself spawns 1 child
 *   loop N          N spawns of 1 child each, one after the other
 *   reuse           in a universe of 2: 1 child, then another once the
 *                   first has ended (retrying while the universe is full)
 *   envar           1 child whose LN_SPAWN_ARG=x gets ":y" appended by a
 *                   PMIX_APPEND_ENVAR directive, and LN_SPAWN_GONE unset
 *   expect WHAT STATUS   a spawn that must fail with PMIx status STATUS
 *                   (its name, e.g. PMIX_ERR_JOB_EXE_NOT_FOUND): WHAT is
 *                   notfound, toomany, wdir, host, zero or required;
 *                   prints "refused: NAME"
 *   names           publish, lookup (also waiting for a late name) and
 *                   unpublish across the ranks (at least 2), with errors
 *   child S         print "child R of N parent NS:R appnum A univ U
 *                   arg V" and exit S
 * Exit 0 when every check passed; 90+ when one failed (the line says).
 */
#ifdef HAVE_CONFIG_H
#include "config.h" /* _GNU_SOURCE: pmix_common.h needs strdup, setenv */
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pmix.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;
static char self_path[PATH_MAX];

/* Sanitizer builds: libpmix's own allocations at exit are not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

_Noreturn static void fail(int code, const char *fmt, const char *what, pmix_status_t rc)
{
    fprintf(stderr, "ln_spawn: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, ": %s\n", PMIx_Error_string(rc));
    exit(code);
}

static uint32_t get_u32(const pmix_proc_t *p, const char *key)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    uint32_t u;

    if (rc != PMIX_SUCCESS)
        fail(91, "PMIx_Get(%s)", key, rc);
    u = v->type == PMIX_UINT32 ? v->data.uint32 : v->type == PMIX_UINT16 ? v->data.uint16 : 0;
    PMIX_VALUE_RELEASE(v);
    return u;
}

static void child(int status)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc;
    const char *arg = getenv("LN_SPAWN_ARG");

    if (getenv("LN_SPAWN_GONE"))
        arg = "LN_SPAWN_GONE-is-set";

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&me, PMIX_PARENT_ID, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_PROC)
        fail(92, "%s", "PMIx_Get(PMIX_PARENT_ID)", rc);
    printf("child %u of %u parent %s:%u appnum %u univ %u arg %s\n", me.rank,
           get_u32(&wild, PMIX_JOB_SIZE), v->data.proc->nspace, v->data.proc->rank,
           get_u32(&me, PMIX_APPNUM), get_u32(&wild, PMIX_UNIV_SIZE), arg ? arg : "-");
    fflush(stdout);
    PMIX_VALUE_RELEASE(v);
    PMIx_Finalize(NULL, 0);
    exit(status);
}

/* One app of this program: argv {self, args...}, env "LN_SPAWN_ARG=arg". */
static void load_app(pmix_app_t *a, int np, const char *arg, char *const args[])
{
    size_t n = 0;

    PMIX_APP_CONSTRUCT(a);
    a->cmd = strdup(self_path);
    while (args[n])
        n++;
    a->argv = calloc(n + 2, sizeof(char *));
    a->argv[0] = strdup(self_path);
    for (size_t i = 0; i < n; i++)
        a->argv[i + 1] = strdup(args[i]);
    a->env = calloc(2, sizeof(char *));
    if (asprintf(&a->env[0], "LN_SPAWN_ARG=%s", arg) < 0)
        exit(93);
    a->maxprocs = np;
}

static pmix_status_t spawn(pmix_app_t *apps, size_t napps, pmix_info_t *info, size_t ninfo,
                           char *ns)
{
    pmix_nspace_t out;
    pmix_status_t rc = PMIx_Spawn(info, ninfo, apps, napps, out);

    if (rc == PMIX_SUCCESS && ns)
        snprintf(ns, PMIX_MAX_NSLEN + 1, "%s", out);
    for (size_t i = 0; i < napps; i++)
        PMIX_APP_DESTRUCT(&apps[i]);
    return rc;
}

static void do_spawn(int n, const char *status)
{
    char *args[] = {"child", (char *)status, NULL};
    char ns[PMIX_MAX_NSLEN + 1];
    pmix_app_t app;
    pmix_status_t rc;

    load_app(&app, n, "x", args);
    if ((rc = spawn(&app, 1, NULL, 0, ns)) != PMIX_SUCCESS)
        fail(94, "%s", "PMIx_Spawn", rc);
    printf("spawned %s\n", ns);
}

static void loop(int n)
{
    for (int i = 0; i < n; i++)
        do_spawn(1, "0");
}

static void reuse(void)
{
    char *args[] = {"child", "0", NULL};
    char ns[PMIX_MAX_NSLEN + 1];
    pmix_app_t app;
    pmix_status_t rc;
    int full = 0;

    do_spawn(1, "0");
    do {
        load_app(&app, 1, "again", args);
        if ((rc = spawn(&app, 1, NULL, 0, ns)) == PMIX_ERR_OUT_OF_RESOURCE)
            usleep(25000);
    } while (rc == PMIX_ERR_OUT_OF_RESOURCE && ++full < 2400);
    if (rc != PMIX_SUCCESS)
        fail(94, "%s", "the second PMIx_Spawn", rc);
    printf("spawned %s%s\n", ns, full ? " after the first ended" : "");
}

static void envar(void)
{
    char *args[] = {"child", "0", NULL};
    char ns[PMIX_MAX_NSLEN + 1];
    pmix_envar_t ev;
    pmix_app_t app;
    pmix_status_t rc;

    load_app(&app, 1, "x", args);
    PMIX_INFO_CREATE(app.info, 2);
    app.ninfo = 2;
    PMIX_ENVAR_LOAD(&ev, "LN_SPAWN_ARG", "y", ':');
    PMIX_INFO_LOAD(&app.info[0], PMIX_APPEND_ENVAR, &ev, PMIX_ENVAR);
    PMIX_ENVAR_DESTRUCT(&ev);
    PMIX_INFO_LOAD(&app.info[1], PMIX_UNSET_ENVAR, "LN_SPAWN_GONE", PMIX_STRING);
    if ((rc = spawn(&app, 1, NULL, 0, ns)) != PMIX_SUCCESS)
        fail(94, "%s", "PMIx_Spawn", rc);
    printf("spawned %s\n", ns);
}

static void mpmd(void)
{
    char *args[] = {"child", "0", NULL};
    char ns[PMIX_MAX_NSLEN + 1];
    pmix_app_t apps[2];
    pmix_status_t rc;

    load_app(&apps[0], 1, "a", args);
    load_app(&apps[1], 2, "b", args);
    if ((rc = spawn(apps, 2, NULL, 0, ns)) != PMIX_SUCCESS)
        fail(94, "%s", "PMIx_Spawn", rc);
    printf("spawned %s\n", ns);
}

static void nested(void)
{
    char *args[] = {"spawn", "1", NULL};
    char ns[PMIX_MAX_NSLEN + 1];
    pmix_app_t app;
    pmix_status_t rc;

    load_app(&app, 1, "mid", args);
    if ((rc = spawn(&app, 1, NULL, 0, ns)) != PMIX_SUCCESS)
        fail(94, "%s", "PMIx_Spawn", rc);
    printf("spawned %s\n", ns);
}

static const struct {
    pmix_status_t st;
    const char *name;
} statuses[] = {
#define S_(x)                                                                                      \
    {                                                                                              \
        x, #x                                                                                      \
    }
    S_(PMIX_SUCCESS),
    S_(PMIX_ERR_JOB_EXE_NOT_FOUND),
    S_(PMIX_ERR_OUT_OF_RESOURCE),
    S_(PMIX_ERR_JOB_WDIR_NOT_FOUND),
    S_(PMIX_ERR_BAD_PARAM),
    S_(PMIX_ERR_NOT_SUPPORTED),
    S_(PMIX_ERR_JOB_FAILED_TO_LAUNCH),
#undef S_
};

static const char *status_name(pmix_status_t rc)
{
    for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
        if (statuses[i].st == rc)
            return statuses[i].name;
    return PMIx_Error_string(rc);
}

/* A spawn mpirun must refuse, with `want`. */
static void expect(const char *what, const char *want)
{
    char *args[] = {"child", "0", NULL};
    pmix_info_t info[1];
    size_t ninfo = 0;
    pmix_app_t app;
    pmix_status_t rc;
    pmix_proc_t wild;

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    load_app(&app, 1, "x", args);
    if (!strcmp(what, "notfound")) {
        free(app.cmd);
        app.cmd = strdup("ln_spawn_no_such_program");
    } else if (!strcmp(what, "toomany")) {
        app.maxprocs = (int)get_u32(&wild, PMIX_UNIV_SIZE);
    } else if (!strcmp(what, "wdir")) {
        app.cwd = strdup("/nonexistent/dir");
    } else if (!strcmp(what, "zero")) {
        app.maxprocs = 0;
    } else if (!strcmp(what, "host")) {
        PMIX_INFO_LOAD(&info[0], PMIX_HOST, "no-such-host.invalid", PMIX_STRING);
        ninfo = 1;
    } else if (!strcmp(what, "required")) {
        PMIX_INFO_LOAD(&info[0], "ln.unknown.directive", "x", PMIX_STRING);
        PMIX_INFO_REQUIRED(&info[0]);
        ninfo = 1;
    }
    rc = spawn(&app, 1, info, ninfo, NULL);
    if (ninfo)
        PMIX_INFO_DESTRUCT(&info[0]);
    printf("refused: %s\n", status_name(rc));
    if (rc == PMIX_SUCCESS || strcmp(status_name(rc), want))
        exit(95);
}

static void publish(const char *key, const char *value, pmix_persistence_t persist,
                    pmix_status_t want)
{
    pmix_info_t info[2];
    pmix_status_t rc;

    PMIX_INFO_LOAD(&info[0], key, value, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_PERSISTENCE, &persist, PMIX_PERSIST);
    rc = PMIx_Publish(info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != want)
        fail(96, "PMIx_Publish(%s)", key, rc);
}

/* Looks key up (waiting up to `wait` s when > 0); its value or NULL. */
static char *lookup(const char *key, int wait, pmix_status_t want)
{
    pmix_info_t info[2];
    pmix_pdata_t pd;
    pmix_status_t rc;
    bool yes = true;
    char *s = NULL;

    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &wait, PMIX_INT);
    rc = PMIx_Lookup(&pd, 1, wait > 0 ? info : NULL, wait > 0 ? 2 : 0);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != want)
        fail(97, "PMIx_Lookup(%s)", key, rc);
    if (rc == PMIX_SUCCESS && pd.value.type == PMIX_STRING)
        s = strdup(pd.value.data.string);
    PMIX_PDATA_DESTRUCT(&pd);
    return s;
}

static void unpublish(const char *key, pmix_status_t want)
{
    char *keys[] = {(char *)key, NULL};
    pmix_status_t rc = PMIx_Unpublish(keys, NULL, 0);

    if (rc != want)
        fail(98, "PMIx_Unpublish(%s)", key, rc);
}

static void fence(void)
{
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);

    if (rc != PMIX_SUCCESS)
        fail(99, "%s", "PMIx_Fence", rc);
}

/* Rank 0 publishes, rank 1 reads; rank 1 waits for a name rank 0
 * publishes late. */
static void names(void)
{
    char *v;

    if (me.rank == 0) {
        publish("ln.svc", "port-0", PMIX_PERSIST_SESSION, PMIX_SUCCESS);
        publish("ln.svc", "port-again", PMIX_PERSIST_SESSION, PMIX_ERR_DUPLICATE_KEY);
    }
    fence();
    if (me.rank == 1) {
        v = lookup("ln.svc", 0, PMIX_SUCCESS);
        if (!v || strcmp(v, "port-0"))
            fail(90, "lookup gave %s", v ? v : "nothing", PMIX_SUCCESS);
        free(v);
        lookup("ln.nothing", 0, PMIX_ERR_NOT_FOUND);
        /* Not the publisher: refused, and the name stays. */
        unpublish("ln.svc", PMIX_ERR_NOT_FOUND);
    }
    fence();
    if (me.rank == 0) {
        unpublish("ln.svc", PMIX_SUCCESS);
        unpublish("ln.svc", PMIX_ERR_NOT_FOUND);
    }
    fence();
    if (me.rank == 1) {
        lookup("ln.svc", 0, PMIX_ERR_NOT_FOUND);
        /* Rank 0 publishes this one only after the fence. */
        v = lookup("ln.late", 20, PMIX_SUCCESS);
        if (!v || strcmp(v, "late-0"))
            fail(90, "waiting lookup gave %s", v ? v : "nothing", PMIX_SUCCESS);
        free(v);
        lookup("ln.never", 1, PMIX_ERR_TIMEOUT);
    }
    if (me.rank == 0) {
        usleep(200000);
        publish("ln.late", "late-0", PMIX_PERSIST_PROC, PMIX_SUCCESS);
    }
    fence();
    printf("names ok on rank %u\n", me.rank);
}

int main(int argc, char **argv)
{
    pmix_status_t rc;
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);

    if (n <= 0 || argc < 2) {
        fprintf(stderr, "usage: ln_spawn ACTION [ARG...]\n");
        return 2;
    }
    self_path[n] = 0;
    if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS)
        fail(91, "%s", "PMIx_Init", rc);
    if (!strcmp(argv[1], "child"))
        child(argc > 2 ? atoi(argv[2]) : 0);
    if (!strcmp(argv[1], "names"))
        names();
    else if (me.rank == 0) {
        if (!strcmp(argv[1], "spawn") && argc > 2)
            do_spawn(atoi(argv[2]), argc > 3 ? argv[3] : "0");
        else if (!strcmp(argv[1], "loop") && argc > 2)
            loop(atoi(argv[2]));
        else if (!strcmp(argv[1], "reuse"))
            reuse();
        else if (!strcmp(argv[1], "envar"))
            envar();
        else if (!strcmp(argv[1], "mpmd"))
            mpmd();
        else if (!strcmp(argv[1], "nested"))
            nested();
        else if (!strcmp(argv[1], "expect") && argc > 3)
            expect(argv[2], argv[3]);
        else {
            fprintf(stderr, "ln_spawn: unknown action %s\n", argv[1]);
            return 2;
        }
    }
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}
