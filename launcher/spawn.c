/*
 * spawn.c: a rank's PMIx_Spawn, run by the main loop.
 *
 * Everything the caller can get wrong is checked before anything starts
 * (the programs, their directories, the hosts, the universe's room), so a
 * refused spawn leaves no process and no namespace behind and the caller
 * gets a status, never a wait:
 *   PMIX_ERR_BAD_PARAM              no programs, maxprocs < 1
 *   PMIX_ERR_JOB_NO_EXE_SPECIFIED   a program without cmd or argv
 *   PMIX_ERR_JOB_EXE_NOT_FOUND      a program not found
 *   PMIX_ERR_JOB_FAILED_TO_LAUNCH   a program that is not executable, or
 *                                   a fork that failed
 *   PMIX_ERR_JOB_WDIR_NOT_FOUND     a working directory that is not one
 *   PMIX_ERR_OUT_OF_RESOURCE        more processes than the universe has
 *                                   room for (PMIX_UNIV_SIZE), or than the
 *                                   open-file limit allows
 *   PMIX_ERR_NOT_SUPPORTED          another host, or a required directive
 *                                   mpirun does not know; and any spawn in
 *                                   a job over several hosts (for now)
 *   PMIX_ERR_JOB_CANCELED           the job is ending
 * mpirun prints the reason as one line ("mpirun: spawn by rank R: ...").
 *
 * The new namespace, "<first namespace>.<n>", runs on this host: its
 * processes start in the working directory asked for (PMIX_WDIR or the
 * app's cwd, relative to the caller's), else in the caller's; their
 * environment is what the first job's ranks get plus the app's env and
 * its PMIX_*_ENVAR directives.  They read no stdin, are not bound, and are
 * watched as the first job's ranks are (job.c).
 */
#include "pmix_ev.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* MPI's "path" info key (directories to look for the programs in) has no
 * PMIx attribute of its own: the MPI library passes it as this. */
#define LN_SPAWN_PATH "rdmpi.path"

/* What one app of the request asks for, in mpirun's terms. */
struct app_req {
    const char *wdir; /* PMIX_WDIR, else the app's cwd, else NULL */
    const char *path; /* LN_SPAWN_PATH, or NULL */
    const char *host; /* PMIX_HOST, or NULL */
};

void ln_spawn_apps_free(struct ln_app *apps, int napps)
{
    for (int a = 0; apps && a < napps; a++) {
        for (size_t i = 0; apps[a].argv && apps[a].argv[i]; i++)
            free(apps[a].argv[i]);
        free(apps[a].argv);
        for (size_t i = 0; i < apps[a].nenv; i++)
            free(apps[a].env[i]);
        free(apps[a].env);
        free(apps[a].prog);
        free((char *)apps[a].wdir);
    }
    free(apps);
}

static int is_this_host(const struct ln_job *job, const char *name, size_t len)
{
    size_t hl = strcspn(job->host, ".");

    return (len == strlen(job->host) && !strncmp(name, job->host, len)) ||
           (len == hl && !strncmp(name, job->host, hl)) ||
           (len == 9 && !strncmp(name, "localhost", 9));
}

/* "a,b:2,c": every host must be this one (one host for now). */
static pmix_status_t check_hosts(const struct ln_job *job, const char *list)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",:");

        if (len && !is_this_host(job, p, len)) {
            ln_err("host '%.*s' is not this host (%s): spawning on other hosts needs "
                   "rdmpi-launchd, not done yet (docs/dynamic.md)",
                   (int)len, p, job->host);
            return PMIX_ERR_NOT_SUPPORTED;
        }
        p += strcspn(p, ",");
        if (*p)
            p++;
    }
    return PMIX_SUCCESS;
}

/* Appends "VAR=value" (or a bare "VAR": unset) to the app's variables. */
static int env_add(struct ln_app *a, const char *var, const char *value)
{
    char **e = realloc(a->env, (a->nenv + 1) * sizeof(*e)), *v;

    if (!e)
        return -ENOMEM;
    a->env = e;
    if ((value ? asprintf(&v, "%s=%s", var, value) : asprintf(&v, "%s", var)) < 0)
        return -ENOMEM;
    a->env[a->nenv++] = v;
    return 0;
}

/* The value VAR has so far for this app: its own settings, then the
 * options' (-x), then mpirun's environment. */
static const char *env_now(const struct ln_job *job, const struct ln_app *a, const char *var)
{
    size_t len = strlen(var);

    for (size_t i = a->nenv; i-- > 0;)
        if (!strncmp(a->env[i], var, len) && (!a->env[i][len] || a->env[i][len] == '='))
            return a->env[i][len] ? a->env[i] + len + 1 : NULL;
    for (size_t i = job->opts->nrank_env; i-- > 0;)
        if (!strncmp(job->opts->rank_env[i], var, len) && job->opts->rank_env[i][len] == '=')
            return job->opts->rank_env[i] + len + 1;
    return getenv(var);
}

/* PMIX_SET_ENVAR, _ADD_, _UNSET_, _PREPEND_, _APPEND_ as app variables. */
static int envar(const struct ln_job *job, struct ln_app *a, const pmix_info_t *in)
{
    const pmix_envar_t *ev = &in->value.data.envar;
    const char *old;
    char *v;
    int rc;

    if (PMIX_CHECK_KEY(in, PMIX_UNSET_ENVAR))
        return in->value.type == PMIX_STRING ? env_add(a, in->value.data.string, NULL) : -EINVAL;
    if (in->value.type != PMIX_ENVAR || !ev->envar || !ev->value)
        return -EINVAL;
    old = env_now(job, a, ev->envar);
    if (PMIX_CHECK_KEY(in, PMIX_SET_ENVAR) || !old)
        return env_add(a, ev->envar, ev->value);
    if (PMIX_CHECK_KEY(in, PMIX_ADD_ENVAR))
        return 0;
    if (PMIX_CHECK_KEY(in, PMIX_PREPEND_ENVAR))
        rc = asprintf(&v, "%s%c%s", ev->value, ev->separator, old);
    else
        rc = asprintf(&v, "%s%c%s", old, ev->separator, ev->value);
    if (rc < 0)
        return -ENOMEM;
    rc = env_add(a, ev->envar, v);
    free(v);
    return rc;
}

static int is_envar_key(const pmix_info_t *in)
{
    return PMIX_CHECK_KEY(in, PMIX_SET_ENVAR) || PMIX_CHECK_KEY(in, PMIX_ADD_ENVAR) ||
           PMIX_CHECK_KEY(in, PMIX_UNSET_ENVAR) || PMIX_CHECK_KEY(in, PMIX_PREPEND_ENVAR) ||
           PMIX_CHECK_KEY(in, PMIX_APPEND_ENVAR);
}

/* One directive of the job's or an app's info.  Directives mpirun does
 * not act on are ignored unless marked required. */
static pmix_status_t directive(const struct ln_job *job, struct ln_app *a, struct app_req *q,
                               const pmix_info_t *in)
{
    const char *str = in->value.type == PMIX_STRING ? in->value.data.string : NULL;

    if (PMIX_CHECK_KEY(in, PMIX_WDIR) && str)
        q->wdir = str;
    else if (PMIX_CHECK_KEY(in, LN_SPAWN_PATH) && str)
        q->path = str;
    else if (PMIX_CHECK_KEY(in, PMIX_HOST) && str)
        q->host = str;
    else if (is_envar_key(in)) {
        int rc = envar(job, a, in);

        if (rc) {
            ln_err("%s: %s", in->key, rc == -ENOMEM ? "out of memory" : "not a variable");
            return rc == -ENOMEM ? PMIX_ERR_NOMEM : PMIX_ERR_BAD_PARAM;
        }
    } else if (PMIX_INFO_IS_REQUIRED(in)) {
        ln_err("the directive %s is required but mpirun does not support it", in->key);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return PMIX_SUCCESS;
}

/* The caller's working directory (same host, same user). */
static char *cwd_of(pid_t pid)
{
    char link[64], buf[4096];
    ssize_t n;

    snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
    n = readlink(link, buf, sizeof(buf) - 1);
    if (n <= 0)
        return getcwd(buf, sizeof(buf)) ? strdup(buf) : NULL;
    buf[n] = 0;
    return strdup(buf);
}

/* Where the app's processes start: wdir against the caller's directory,
 * which must exist. */
static pmix_status_t start_dir(const char *wdir, const char *caller, char **out)
{
    struct stat st;
    char *dir;

    if (!wdir || !*wdir)
        dir = strdup(caller);
    else if (wdir[0] == '/')
        dir = strdup(wdir);
    else if (asprintf(&dir, "%s/%s", caller, wdir) < 0)
        dir = NULL;
    if (!dir)
        return PMIX_ERR_NOMEM;
    if (stat(dir, &st) < 0)
        st.st_mode = 0;
    else if (!S_ISDIR(st.st_mode))
        errno = ENOTDIR;
    if (!S_ISDIR(st.st_mode)) {
        ln_err("working directory '%s': %s", dir, strerror(errno));
        free(dir);
        return PMIX_ERR_JOB_WDIR_NOT_FOUND;
    }
    *out = dir;
    return PMIX_SUCCESS;
}

/* apps[k] from the request's k-th app and the job-wide directives. */
static pmix_status_t make_app(const struct ln_job *job, const struct ln_event *ev,
                              const pmix_app_t *in, const char *caller, struct ln_app *a)
{
    struct app_req q = {in->cwd, NULL, NULL};
    pmix_status_t st = PMIX_SUCCESS;
    size_t argc = 0;
    int rc;

    if (in->maxprocs < 1) {
        ln_err("%d processes asked for '%s' (maxprocs must be at least 1)", in->maxprocs,
               in->cmd ? in->cmd : "?");
        return PMIX_ERR_BAD_PARAM;
    }
    if ((!in->cmd || !*in->cmd) && (!in->argv || !in->argv[0])) {
        ln_err("a program without a command");
        return PMIX_ERR_JOB_NO_EXE_SPECIFIED;
    }
    a->np = in->maxprocs;
    /* PMIx's argv includes argv[0]; cmd is the program to run. */
    while (in->argv && in->argv[argc])
        argc++;
    if (!(a->argv = calloc(argc + 2, sizeof(*a->argv))))
        return PMIX_ERR_NOMEM;
    a->argv[0] = strdup(in->cmd && *in->cmd ? in->cmd : in->argv[0]);
    for (size_t i = 1; i < argc; i++)
        a->argv[i] = strdup(in->argv[i]);
    for (size_t i = 0; i < (argc ? argc : 1); i++)
        if (!a->argv[i])
            return PMIX_ERR_NOMEM;
    for (size_t i = 0; in->env && in->env[i]; i++) {
        const char *eq = strchr(in->env[i], '=');
        char var[256];

        if (!eq || eq == in->env[i] || (size_t)(eq - in->env[i]) >= sizeof(var))
            continue;
        snprintf(var, sizeof(var), "%.*s", (int)(eq - in->env[i]), in->env[i]);
        if (env_add(a, var, eq + 1))
            return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; st == PMIX_SUCCESS && i < ev->ninfo; i++)
        st = directive(job, a, &q, &ev->info[i]);
    for (size_t i = 0; st == PMIX_SUCCESS && i < in->ninfo; i++)
        st = directive(job, a, &q, &in->info[i]);
    if (st == PMIX_SUCCESS && q.host)
        st = check_hosts(job, q.host);
    if (st == PMIX_SUCCESS)
        st = start_dir(q.wdir, caller, (char **)&a->wdir);
    if (st != PMIX_SUCCESS)
        return st;
    rc = ln_resolve_program(a, a->wdir, q.path);
    return !rc             ? PMIX_SUCCESS
           : rc == -ENOENT ? PMIX_ERR_JOB_EXE_NOT_FOUND
           : rc == -ENOMEM ? PMIX_ERR_NOMEM
                           : PMIX_ERR_JOB_FAILED_TO_LAUNCH;
}

/* The processes that take room in the universe: those running that have
 * not finalized (children that disconnected and called MPI_Finalize are
 * done with MPI, though their exit may come after the parent's next
 * spawn, as in a loop of spawn and disconnect). */
static int in_universe(const struct ln_job *job)
{
    int n = 0;

    for (int i = 0; i < job->nprocs; i++)
        n += job->ranks[i].state == LN_RANK_RUNNING && !ln_pmix_finalized(i);
    return n;
}

/* Checks the request and builds its programs; *size gets its processes. */
static pmix_status_t plan(struct ln_job *job, const struct ln_event *ev, struct ln_app **out,
                          int *size)
{
    struct ln_app *apps;
    pmix_status_t st = PMIX_SUCCESS;
    char *caller;
    int total = 0, running = 0;

    if (ev->rank < 0)
        return PMIX_ERR_NO_PERMISSIONS;
    if (job->daemon) {
        ln_err("spawning in a job over several hosts needs rdmpi-launchd's part, not done yet "
               "(docs/dynamic.md)");
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (job->failed)
        return PMIX_ERR_JOB_CANCELED;
    if (!ev->napps) {
        ln_err("no programs to start");
        return PMIX_ERR_BAD_PARAM;
    }
    if (!(apps = calloc(ev->napps, sizeof(*apps))))
        return PMIX_ERR_NOMEM;
    if (!(caller = cwd_of(job->ranks[ev->rank].pid))) {
        free(apps);
        return PMIX_ERR_NOMEM;
    }
    for (size_t k = 0; st == PMIX_SUCCESS && k < ev->napps; k++) {
        st = make_app(job, ev, &ev->apps[k], caller, &apps[k]);
        total += apps[k].np;
    }
    free(caller);
    if (st == PMIX_SUCCESS && (running = in_universe(job)) + total > job->univ_size) {
        ln_err(
            "%d more processes asked, but %d of the universe's %d run already (MPI_UNIVERSE_SIZE; "
            "raise it with mpirun --universe-size N)",
            total, running, job->univ_size);
        st = PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (st != PMIX_SUCCESS) {
        ln_spawn_apps_free(apps, (int)ev->napps);
        return st;
    }
    *out = apps;
    *size = total;
    return PMIX_SUCCESS;
}

void ln_spawn_run(struct ln_job *job, struct ln_event *ev)
{
    static int count;
    const char *saved = ln_prefix;
    char prefix[400], name[PMIX_MAX_NSLEN + 1], who[300] = "a process";
    struct ln_app *apps = NULL;
    pmix_status_t st;
    int size = 0, k = -1;

    if (ev->rank >= 0)
        ln_rank_name(job, ev->rank, who, sizeof(who));
    /* Every line about this request says whose it is. */
    snprintf(prefix, sizeof(prefix), "%s: spawn by %s", saved, who);
    ln_prefix = prefix;
    st = plan(job, ev, &apps, &size);
    if (st == PMIX_SUCCESS) {
        snprintf(name, sizeof(name), "%.200s.%d", job->nspace, ++count);
        k = ln_job_add_ns(job, name, apps, (int)ev->napps, ev->rank);
        if (k < 0) {
            ln_spawn_apps_free(apps, (int)ev->napps);
            st = k == -EMFILE ? PMIX_ERR_OUT_OF_RESOURCE : PMIX_ERR_NOMEM;
        }
    }
    if (st == PMIX_SUCCESS && job->opts->output_dir && ln_output_dirs(job, k))
        st = PMIX_ERR_JOB_FAILED_TO_LAUNCH;
    if (st == PMIX_SUCCESS && (ln_pmix_register_ns(job, k) || ln_pmix_register_clients(job, k)))
        st = PMIX_ERROR;
    ln_prefix = saved;
    /* A fork that fails ends the job, as it would at start. */
    if (st == PMIX_SUCCESS && ln_job_start_ns(job, k))
        st = PMIX_ERR_JOB_FAILED_TO_LAUNCH;
    if (st == PMIX_SUCCESS)
        ln_verbose(job, "%s spawned %s: %d processes", who, name, size);
    if (ev->scb)
        ev->scb(st, st == PMIX_SUCCESS ? name : NULL, ev->cbdata);
    ln_pmix_event_free(ev);
}
