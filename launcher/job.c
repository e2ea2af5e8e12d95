/*
 * job.c: starting the ranks, watching them, and ending the job.
 *
 * The main loop polls a signalfd (SIGCHLD and the signals mpirun forwards),
 * the PMIx wake-up pipe and the ranks' output pipes, with a poll timeout
 * set by the nearest deadline (--timeout, the SIGKILL after the grace
 * period, the last wait for output).  It never sleeps otherwise.
 *
 * Ending the job: the first failure (a rank killed by a signal, exiting
 * non-zero, exiting 0 without finalizing after it connected, calling
 * MPI_Abort, the timeout, or a signal to mpirun) prints one line, sets the
 * exit status and sends SIGTERM to every rank still running; after the
 * grace period the survivors get SIGKILL.  Later deaths are the teardown's
 * doing and are not reported.  Each rank leads its own process group, so
 * whatever it started goes with it; once every rank is reaped, anything
 * left in those groups is killed.  A child also dies with mpirun
 * (PR_SET_PDEATHSIG), so even kill -9 of mpirun leaves no rank behind.
 */
#include "launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* Seconds the other ranks may run on after one exits 0 without
 * MPI_Finalize (they finish like it, or they wait for it in vain). */
#define NOFIN_GRACE 10.0

/* Seconds the other ranks may run on after one exits non-zero past
 * MPI_Finalize: they may be in their own PMIx_Finalize, and a rank killed
 * there makes libpmix log the reply it can no longer deliver. */
#define FIN_GRACE 1.0

extern char **environ;

/* Signals handled by the main loop through the signalfd. */
static const int loop_signals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};

/* What a forked child needs, prepared before fork: between fork and exec
 * the child may only make async-signal-safe calls. */
struct child_plan {
    const struct ln_app *app;
    const char *wdir; /* NULL: stay in mpirun's directory */
    char **env;
    int fds[2];
    int stdin_fd; /* -1: keep mpirun's stdin (rank 0) */
    int own_group;
    int bind;
    cpu_set_t cpus;
    pid_t parent;
    struct rlimit nofile; /* the limit mpirun was given */
    char errprefix[512];
};

/* Each rank costs mpirun three descriptors (two pipes and its PMIx
 * socket); ask for four, plus a few for mpirun itself.  The soft limit is
 * raised as far as needed and allowed; the ranks get the limit mpirun was
 * started with. */
static struct rlimit orig_nofile;

static int raise_nofile(int size)
{
    static int saved;
    struct rlimit rl;
    rlim_t need = (rlim_t)size * 4 + 64;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    /* Again for each spawn: the first call sees the limit given. */
    if (!saved++)
        orig_nofile = rl;
    if (rl.rlim_cur >= need)
        return 0;
    rl.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need;
    setrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < need) {
        ln_err("%d ranks need about %lu open files, but the limit is %lu "
               "(raise it with ulimit -n, or start fewer ranks)",
               size, (unsigned long)need, (unsigned long)rl.rlim_cur);
        return -EMFILE;
    }
    return 0;
}

int ln_job_init(struct ln_job *job, struct ln_opts *o)
{
    sigset_t set;
    cpu_set_t cs;

    memset(job, 0, sizeof(*job));
    job->opts = o;
    job->size = o->np;
    job->nprocs = o->np;
    job->univ_size = o->univ_size > 0 ? o->univ_size : o->np;
    job->nnodes = 1;
    job->nlocal = o->np;
    job->ctl_fd = -1;
    job->sfd = -1;
    job->devnull = -1;
    job->t0 = ln_now();
    snprintf(job->nspace, sizeof(job->nspace), "rdmpi.%d", (int)getpid());
    if (gethostname(job->host, sizeof(job->host) - 1) < 0)
        snprintf(job->host, sizeof(job->host), "localhost");

    if (raise_nofile(job->size))
        return -EMFILE;
    job->ranks = calloc(job->size, sizeof(*job->ranks));
    job->ns = calloc(1, sizeof(*job->ns));
    if (!job->ranks || !job->ns) {
        ln_err("out of memory for %d ranks", job->size);
        return -ENOMEM;
    }
    for (int r = 0; r < job->size; r++) {
        job->ranks[r].rank = r;
        job->ranks[r].out_file = job->ranks[r].err_file = -1;
        job->ranks[r].out.fd = job->ranks[r].err.fd = -1;
    }
    /* Its name and programs are taken at ln_pmix_init (a daemon learns
     * them after this). */
    job->nns = 1;
    job->ns[0].size = job->size;
    job->ns[0].parent = -1;

    /* The CPUs we may use, in order, for --bind-to core. */
    CPU_ZERO(&cs);
    if (sched_getaffinity(0, sizeof(cs), &cs) < 0 || CPU_COUNT(&cs) == 0)
        CPU_SET(0, &cs);
    job->ncpus = CPU_COUNT(&cs);
    job->cpus = malloc(job->ncpus * sizeof(int));
    if (!job->cpus) {
        ln_err("out of memory");
        return -ENOMEM;
    }
    for (int c = 0, k = 0; c < CPU_SETSIZE && k < job->ncpus; c++)
        if (CPU_ISSET(c, &cs))
            job->cpus[k++] = c;
    job->bind = ln_binds(o->bind, job->nlocal, job->ncpus);

    job->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (job->devnull < 0) {
        ln_err("cannot open /dev/null: %s", strerror(errno));
        return -errno;
    }
    job->stdin_tty = isatty(0);

    /* Block the loop's signals before PMIx starts its threads, so that
     * they inherit the mask and every such signal reaches the signalfd. */
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(loop_signals) / sizeof(int); i++)
        sigaddset(&set, loop_signals[i]);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
        (job->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
        ln_err("cannot set up signal handling: %s", strerror(errno));
        return -errno;
    }
    if (o->timeout > 0)
        job->timeout_at = job->t0 + o->timeout;
    return 0;
}

int ln_job_add_ns(struct ln_job *job, const char *name, struct ln_app *apps, int napps, int parent)
{
    struct ln_ns *ns = realloc(job->ns, (size_t)(job->nns + 1) * sizeof(*ns));
    struct ln_rank *ranks;
    int size = 0;

    if (ns)
        job->ns = ns;
    for (int a = 0; a < napps; a++)
        size += apps[a].np;
    if (raise_nofile(job->nprocs + size))
        return -EMFILE;
    ranks = ns ? realloc(job->ranks, (size_t)(job->nprocs + size) * sizeof(*ranks)) : NULL;
    if (!ranks) {
        ln_err("out of memory for %d more processes", size);
        return -ENOMEM;
    }
    job->ranks = ranks;
    ns = &job->ns[job->nns];
    memset(ns, 0, sizeof(*ns));
    snprintf(ns->name, sizeof(ns->name), "%s", name);
    ns->base = job->nprocs;
    ns->size = size;
    ns->apps = apps;
    ns->napps = napps;
    ns->parent = parent;
    for (int r = 0; r < size; r++) {
        struct ln_rank *rk = &ranks[ns->base + r];

        memset(rk, 0, sizeof(*rk));
        rk->rank = r;
        rk->ns = job->nns;
        rk->out_file = rk->err_file = -1;
        rk->out.fd = rk->err.fd = -1;
    }
    job->nprocs += size;
    return job->nns++;
}

const char *ln_rank_name(const struct ln_job *job, int i, char *buf, size_t len)
{
    const struct ln_rank *r = &job->ranks[i];

    if (r->ns)
        snprintf(buf, len, "rank %d of %s", r->rank, job->ns[r->ns].name);
    else
        snprintf(buf, len, "rank %d", r->rank);
    return buf;
}

void ln_job_free(struct ln_job *job)
{
    for (int k = 1; k < job->nns; k++)
        ln_spawn_apps_free(job->ns[k].apps, job->ns[k].napps);
    free(job->ns);
    job->ns = NULL;
    job->nns = 0;
    for (int r = 0; job->ranks && r < job->nprocs; r++) {
        struct ln_rank *rk = &job->ranks[r];

        if (rk->out_file >= 0)
            close(rk->out_file);
        if (rk->err_file >= 0)
            close(rk->err_file);
        ln_iof_close(job, &rk->out);
        ln_iof_close(job, &rk->err);
    }
    free(job->ranks);
    free(job->cpus);
    if (job->devnull >= 0)
        close(job->devnull);
    if (job->sfd >= 0)
        close(job->sfd);
    job->ranks = NULL;
    job->cpus = NULL;
}

static void signal_rank(struct ln_rank *r, int sig)
{
    if (r->pgid > 0 && kill(-r->pgid, sig) == 0)
        return;
    if (r->pid > 0 && r->state == LN_RANK_RUNNING)
        kill(r->pid, sig);
}

/* SIGTERM (or sig) to every running rank but `spare`, SIGKILL later. */
static void start_teardown(struct ln_job *job, int sig, int spare)
{
    double grace = job->opts->kill_grace;

    for (int i = 0; i < job->nprocs; i++)
        if (job->ranks[i].state == LN_RANK_RUNNING && i != spare)
            signal_rank(&job->ranks[i], grace > 0 ? sig : SIGKILL);
    if (!job->kill_at)
        job->kill_at = ln_now() + grace;
}

static void kill_all(struct ln_job *job)
{
    for (int i = 0; i < job->nprocs; i++)
        if (job->ranks[i].state == LN_RANK_RUNNING)
            signal_rank(&job->ranks[i], SIGKILL);
}

/* The first failure decides the exit status and prints the one line; the
 * teardown starts after DELAY seconds unless every rank has ended by then. */
static void fail(struct ln_job *job, int code, int spare, double delay, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void fail(struct ln_job *job, int code, int spare, double delay, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (job->failed)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    job->failed = 1;
    job->exit_code = code;
    /* A daemon's verdict goes to mpirun, which prints the job's first. */
    if (job->daemon)
        job->daemon->report(job, code, msg);
    else
        ln_err("%s", msg);
    if (delay > 0)
        job->end_at = ln_now() + delay;
    else
        start_teardown(job, SIGTERM, spare);
}

/* A spawned namespace's process fails the job as a rank of the first
 * would, named with its namespace. */
static void judge_exit(struct ln_job *job, struct ln_rank *r)
{
    int st = r->wstatus, i = (int)(r - job->ranks);
    char name[32], who[300];

    ln_rank_name(job, i, who, sizeof(who));
    if (job->failed) {
        ln_verbose(job, "%s (pid %d) ended during teardown (wait status 0x%x)", who, (int)r->pid,
                   st);
        return;
    }
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);

        fail(job, 128 + sig, -1, 0, "%s (pid %d) on host %s was killed by signal %d (%s)", who,
             (int)r->pid, job->host, sig, ln_signame(sig, name, sizeof(name)));
    } else if (WEXITSTATUS(st) != 0) {
        fail(job, WEXITSTATUS(st), -1, ln_pmix_finalized(i) ? FIN_GRACE : 0,
             "%s (pid %d) on host %s exited with status %d", who, (int)r->pid, job->host,
             WEXITSTATUS(st));
    } else if (ln_pmix_connected(i) && !ln_pmix_finalized(i)) {
        /* Erroneous, but Hydra lets it pass and benchmarks do it (OSU's
         * latency_mt): warn, and end the job only if other ranks outlive
         * it by NOFIN_GRACE, as they may be waiting for it. */
        if (!job->nofin_count++) {
            ln_err("warning: %s (pid %d) on host %s exited with status 0 without calling "
                   "MPI_Finalize",
                   who, (int)r->pid, job->host);
            job->nofin_rank = i;
            job->nofin_at = ln_now() + NOFIN_GRACE;
        }
    }
}

static struct ln_rank *rank_of_pid(struct ln_job *job, pid_t pid)
{
    for (int i = 0; i < job->nprocs; i++)
        if (job->ranks[i].pid == pid && job->ranks[i].state == LN_RANK_RUNNING)
            return &job->ranks[i];
    return NULL;
}

static void reap(struct ln_job *job)
{
    pid_t pid;
    int st;

    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        struct ln_rank *r = rank_of_pid(job, pid);

        if (!r)
            continue;
        struct ln_ns *ns = &job->ns[r->ns];
        int i = (int)(r - job->ranks);

        r->wstatus = st;
        r->state = LN_RANK_EXITED;
        job->nlive--;
        /* Its last words first, then the verdict. */
        ln_iof_drain(job, r);
        judge_exit(job, r);
        ln_names_proc_gone(job, i);
        if (--ns->nlive == 0)
            ln_names_ns_gone(job, r->ns);
    }
}

/* 1 if an rdmpi rank's abort message is an MPI error: "MPI_Fn: ..." or
 * "MPI_Fn on COMM: ..." (runtime/errors.c), not MPI_Abort's "MPI_Abort(". */
static int is_mpi_error(const char *m)
{
    size_t n = strncmp(m, "MPI_", 4) ? 0
                                     : 4 + strspn(m + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "abcdefghijklmnopqrstuvwxyz0123456789_");

    return n > 4 && (m[n] == ':' || !strncmp(m + n, " on ", 4));
}

/* A rank's PMIx_Abort: MPI_Abort, a fatal MPI error (named by function and
 * communicator), or another reason the rank gave. */
static void report_abort(struct ln_job *job, int r, int code, const char *m)
{
    struct ln_rank *rk = &job->ranks[r];
    char who[300];

    ln_rank_name(job, r, who, sizeof(who));
    if (m && is_mpi_error(m))
        fail(job, code, r, 0, "%s (pid %d) on host %s: MPI error in %s", who, (int)rk->pid,
             job->host, m);
    else if (!m || !strncmp(m, "MPI_Abort(", 10))
        fail(job, code, r, 0, "%s (pid %d) on host %s called MPI_Abort with error code %d", who,
             (int)rk->pid, job->host, code);
    else
        fail(job, code, r, 0, "%s (pid %d) on host %s aborted the job with status %d: %s", who,
             (int)rk->pid, job->host, code, m);
}

static void handle_events(struct ln_job *job)
{
    struct ln_event *ev, *next;

    ln_pmix_clear_wake();
    for (ev = ln_pmix_take_events(); ev; ev = next) {
        next = ln_pmix_event_next(ev);
        if (ln_pmix_event_type(ev) == LN_EV_ABORT) {
            int r = ln_pmix_event_rank(ev);
            int s = ln_pmix_event_status(ev);
            int code = s >= 0 && s <= 255 ? s : 255;

            if (r >= 0) {
                struct ln_rank *rk = &job->ranks[r];

                rk->aborted = 1;
                /* Its own message comes before ours. */
                ln_iof_drain(job, rk);
                report_abort(job, r, code, ln_pmix_event_msg(ev));
            } else {
                fail(job, code, -1, 0, "a process called PMIx_Abort with status %d", s);
            }
        } else if (ln_pmix_event_type(ev) == LN_EV_FENCE && job->daemon) {
            /* The other hosts' data comes back through mpirun. */
            job->daemon->fence(job, ev);
            continue;
        } else if (ln_pmix_event_type(ev) == LN_EV_SPAWN) {
            ln_spawn_run(job, ev);
            continue;
        } else if (ln_pmix_event_type(ev) >= LN_EV_PUBLISH) {
            ln_names_handle(job, ev);
            continue;
        }
        ln_pmix_event_done(ev);
    }
}

static void forward_to_all(struct ln_job *job, int sig)
{
    for (int i = 0; i < job->nprocs; i++)
        if (job->ranks[i].state == LN_RANK_RUNNING)
            signal_rank(&job->ranks[i], sig);
}

void ln_job_signal(struct ln_job *job, int sig)
{
    forward_to_all(job, sig);
}

/* End the job by signal sig (SIGKILL: at once), as when mpirun gets it. */
void ln_job_end(struct ln_job *job, int sig)
{
    if (sig == SIGKILL) {
        job->failed = 1;
        kill_all(job);
        return;
    }
    job->failed = 1;
    forward_to_all(job, job->opts->kill_grace > 0 ? sig : SIGKILL);
    if (!job->kill_at)
        job->kill_at = ln_now() + job->opts->kill_grace;
}

/* Returns 1 if a terminating signal arrived. */
static int handle_signals(struct ln_job *job)
{
    struct signalfd_siginfo si;
    int child = 0, term = 0;
    char name[32];

    while (read(job->sfd, &si, sizeof(si)) == sizeof(si)) {
        int sig = (int)si.ssi_signo;

        switch (sig) {
        case SIGCHLD: child = 1; break;
        case SIGUSR1:
        case SIGUSR2: forward_to_all(job, sig); break;
        default:
            term = 1;
            if (++job->signals_seen > 1) {
                /* Asked twice: no more grace. */
                kill_all(job);
                break;
            }
            if (!job->failed) {
                job->failed = 1;
                job->exit_code = 128 + sig;
                ln_err("caught %s; ending the job", ln_signame(sig, name, sizeof(name)));
            }
            forward_to_all(job, sig);
            if (!job->kill_at)
                job->kill_at = ln_now() + job->opts->kill_grace;
            break;
        }
    }
    if (child)
        reap(job);
    return term;
}

/* The running ranks and their pids, comma-separated (512 bytes each). */
static void running(struct ln_job *job, char *list, char *pids)
{
    size_t l = 0, p = 0, size = 512;

    list[0] = pids[0] = 0;
    for (int i = 0; i < job->nprocs; i++) {
        struct ln_rank *r = &job->ranks[i];

        if (r->state != LN_RANK_RUNNING)
            continue;
        if (l + 16 < size && !r->ns)
            l += snprintf(list + l, size - l, "%s%d", l ? "," : "", i);
        else if (l + 16 + strlen(job->ns[r->ns].name) < size)
            l +=
                snprintf(list + l, size - l, "%s%s:%d", l ? "," : "", job->ns[r->ns].name, r->rank);
        else if (l + 4 < size)
            l += snprintf(list + l, size - l, "...");
        if (p + 16 < size)
            p += snprintf(pids + p, size - p, "%s%d", p ? "," : "", (int)r->pid);
        else if (p + 4 < size)
            p += snprintf(pids + p, size - p, "...");
    }
}

static void check_timers(struct ln_job *job, double now)
{
    char list[512], pids[512];

    if (job->nofin_at && now >= job->nofin_at && !job->failed && job->nlive > 0) {
        char who[300];

        running(job, list, pids);
        fail(job, LN_EXIT_NOFINALIZE, -1, 0,
             "%s on host %s exited without calling MPI_Finalize %g s ago; ranks still "
             "running: %s (pids %s)",
             ln_rank_name(job, job->nofin_rank, who, sizeof(who)), job->host, NOFIN_GRACE, list,
             pids);
    }
    ln_names_timers(now);
    if (job->timeout_at && now >= job->timeout_at && !job->failed && job->nlive > 0) {
        running(job, list, pids);
        ln_err("timeout after %g s; ranks still running: %s (pids %s)", job->opts->timeout, list,
               pids);
        job->failed = 1;
        job->exit_code = LN_EXIT_TIMEOUT;
        /* MPI ranks answer SIGUSR1 with a hang report (what each waits for);
         * give them a moment to print it before the teardown. */
        int asked = 0;
        for (int i = 0; i < job->nprocs; i++) {
            if (job->ranks[i].state == LN_RANK_RUNNING && ln_pmix_connected(i) &&
                !ln_pmix_finalized(i) && job->ranks[i].pid > 0) {
                kill(job->ranks[i].pid, SIGUSR1);
                asked = 1;
            }
        }
        job->report_at = asked ? now + 1.0 : now;
    }
    if (job->report_at && now >= job->report_at) {
        job->report_at = 0;
        start_teardown(job, SIGTERM, -1);
    }
    if (job->end_at && now >= job->end_at) {
        job->end_at = 0;
        start_teardown(job, SIGTERM, -1);
    }
    if (job->kill_at && now >= job->kill_at) {
        kill_all(job);
        job->kill_at = 0;
    }
}

static int next_timeout_ms(struct ln_job *job, double now)
{
    double t = 0;
    double cand[7] = {job->failed ? 0 : job->timeout_at,
                      job->kill_at,
                      job->report_at,
                      job->nlive == 0 ? job->drain_at : 0,
                      job->failed ? 0 : job->nofin_at,
                      job->end_at,
                      ln_names_timers(now)};

    for (int i = 0; i < 7; i++)
        if (cand[i] && (!t || cand[i] < t))
            t = cand[i];
    if (!t)
        return -1;
    if (t <= now)
        return 0;
    return (int)((t - now) * 1000) + 1;
}

/* Once every rank is gone: kill what they left in their process groups,
 * which also closes the pipes such leftovers held. */
static void reap_groups(struct ln_job *job)
{
    for (int i = 0; i < job->nprocs; i++)
        if (job->ranks[i].pgid > 0)
            kill(-job->ranks[i].pgid, SIGKILL);
}

/* Room for every process's two pipes and three more descriptors. */
static int grow_poll(struct ln_job *job, size_t *cap, struct pollfd **pfd, struct ln_stream ***who)
{
    size_t need = 3 + 2 * (size_t)job->nprocs;
    struct pollfd *p;
    struct ln_stream **w;

    if (need <= *cap)
        return 0;
    if ((p = realloc(*pfd, need * sizeof(*p))))
        *pfd = p;
    if ((w = realloc(*who, need * sizeof(*w))))
        *who = w;
    if (!p || !w)
        return -ENOMEM;
    *cap = need;
    return 0;
}

int ln_job_run(struct ln_job *job)
{
    size_t cap = 0;
    struct pollfd *pfd = NULL;
    struct ln_stream **who = NULL;
    int groups_reaped = 0;

    for (;;) {
        double now = ln_now();
        size_t n = 0;
        int open_streams = 0;

        /* At the start, and after a spawn added processes. */
        if (grow_poll(job, &cap, &pfd, &who)) {
            ln_err("out of memory watching %d processes", job->nprocs);
            kill_all(job);
            free(pfd);
            free(who);
            job->exit_code = LN_EXIT_INTERNAL;
            /* Still reap what was started. */
            while (job->nlive > 0 && wait(NULL) > 0)
                job->nlive--;
            return job->exit_code;
        }
        handle_events(job);
        handle_signals(job);
        check_timers(job, now);
        if (grow_poll(job, &cap, &pfd, &who))
            continue;

        if (job->nlive == 0 && !groups_reaped) {
            reap_groups(job);
            groups_reaped = 1;
            job->drain_at = now + 0.5;
        }
        for (int i = 0; i < job->nprocs; i++) {
            struct ln_stream *ss[2] = {&job->ranks[i].out, &job->ranks[i].err};

            for (int k = 0; k < 2; k++) {
                if (ss[k]->fd < 0)
                    continue;
                open_streams++;
                pfd[n].fd = ss[k]->fd;
                pfd[n].events = POLLIN;
                who[n++] = ss[k];
            }
        }
        if (job->nlive == 0 && (open_streams == 0 || now >= job->drain_at))
            break;

        pfd[n].fd = job->sfd;
        pfd[n].events = POLLIN;
        who[n++] = NULL;
        pfd[n].fd = ln_pmix_wake_fd();
        pfd[n].events = POLLIN;
        who[n++] = NULL;
        if (job->ctl_fd >= 0) {
            pfd[n].fd = job->ctl_fd;
            pfd[n].events = POLLIN;
            who[n++] = NULL;
        }

        int rc = poll(pfd, n, next_timeout_ms(job, now));

        if (rc < 0 && errno != EINTR) {
            ln_err("poll: %s", strerror(errno));
            break;
        }
        for (size_t i = 0; rc > 0 && i < n; i++) {
            if (who[i] && pfd[i].revents)
                ln_iof_read(job, who[i]);
            else if (pfd[i].revents && pfd[i].fd == job->ctl_fd && job->daemon)
                job->daemon->read(job);
        }
    }

    for (int i = 0; i < job->nprocs; i++) {
        ln_iof_close(job, &job->ranks[i].out);
        ln_iof_close(job, &job->ranks[i].err);
    }
    free(pfd);
    free(who);
    if (job->nofin_count > 1 && !job->failed)
        ln_err("warning: %d ranks on host %s exited without calling MPI_Finalize", job->nofin_count,
               job->host);
    ln_verbose(job, "job done after %.1f ms, exit status %d", (ln_now() - job->t0) * 1e3,
               job->exit_code);
    return job->exit_code;
}

/* Sets each "VAR=value" of vars in env[0..*k), replacing or appending;
 * a bare "VAR" (a spawn's PMIX_UNSET_ENVAR) removes VAR. */
static void merge_env(char **env, size_t *k, char **vars, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(vars[i], "="), j;

        for (j = 0; j < *k; j++)
            if (!strncmp(env[j], vars[i], len) && env[j][len] == '=')
                break;
        if (!vars[i][len]) {
            if (j < *k)
                memmove(&env[j], &env[j + 1], (--*k - j) * sizeof(*env));
            continue;
        }
        env[j] = vars[i];
        if (j == *k)
            ++*k;
    }
}

/* The environment a program's ranks start from: mpirun's own, less the
 * PMIx variables of any launcher that started mpirun (PMIX_MCA_* settings
 * are kept), plus the job's variables from the options in command order,
 * then the program's own. */
static char **base_env(struct ln_job *job, const struct ln_app *app, size_t *count)
{
    size_t n = 0, k = 0;
    char **env;

    for (char **e = environ; *e; e++)
        n++;
    env = calloc(n + job->opts->nrank_env + app->nenv + 1, sizeof(*env));
    if (!env)
        return NULL;
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "PMIX_", 5) || !strncmp(*e, "PMIX_MCA_", 9))
            env[k++] = *e;
    merge_env(env, &k, job->opts->rank_env, job->opts->nrank_env);
    merge_env(env, &k, app->env, app->nenv);
    env[k] = NULL;
    *count = k;
    return env;
}

static void free_env(char **env)
{
    if (!env)
        return;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}

/* A private copy: PMIx may replace or free entries of what it is given. */
static char **copy_env(char **base, size_t n)
{
    char **env = calloc(n + 1, sizeof(*env));

    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!(env[i] = strdup(base[i]))) {
            free_env(env);
            return NULL;
        }
    return env;
}

static void put_str(const char *s)
{
    if (write(2, s, strlen(s)) < 0) {
        /* nothing left to tell it to */
    }
}

/* Sets "name=value" in a copy_env() array, over any value inherited
 * (mpirun itself may run inside another job). */
static int env_put(char ***env, const char *name, int value)
{
    size_t n = 0, len = strlen(name);
    char **e, *v;

    if (asprintf(&v, "%s=%d", name, value) < 0)
        return -ENOMEM;
    for (; (*env)[n]; n++)
        if (!strncmp((*env)[n], name, len) && (*env)[n][len] == '=') {
            free((*env)[n]);
            (*env)[n] = v;
            return 0;
        }
    if (!(e = realloc(*env, (n + 2) * sizeof(*e)))) {
        free(v);
        return -ENOMEM;
    }
    e[n] = v;
    e[n + 1] = NULL;
    *env = e;
    return 0;
}

/* The rank's place in the variables that scripts and programs written for
 * Open MPI's and MPICH's launchers read (to pick a GPU by local rank, for
 * instance); MPI programs themselves learn it from PMIx. */
static int compat_env(const struct ln_ns *ns, int nlocal, int r, int local, char ***env)
{
    int rc = 0;

    rc = rc ? rc : env_put(env, "OMPI_COMM_WORLD_RANK", r);
    rc = rc ? rc : env_put(env, "OMPI_COMM_WORLD_SIZE", ns->size);
    rc = rc ? rc : env_put(env, "OMPI_COMM_WORLD_LOCAL_RANK", local);
    rc = rc ? rc : env_put(env, "OMPI_COMM_WORLD_LOCAL_SIZE", nlocal);
    rc = rc ? rc : env_put(env, "OMPI_COMM_WORLD_NODE_RANK", local);
    rc = rc ? rc : env_put(env, "PMI_RANK", r);
    rc = rc ? rc : env_put(env, "PMI_SIZE", ns->size);
    rc = rc ? rc : env_put(env, "MPI_LOCALRANKID", local);
    rc = rc ? rc : env_put(env, "MPI_LOCALNRANKS", nlocal);
    if (rc)
        ln_err("out of memory");
    return rc;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn)) child_exec(struct child_plan *p)
{
    int err;

    ln_signals_default();
    if (p->own_group)
        setpgid(0, 0);
    /* Die with mpirun, even by kill -9; and if mpirun is already gone,
     * do not start at all. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != p->parent)
        _exit(128 + SIGKILL);
    if (p->bind)
        sched_setaffinity(0, sizeof(p->cpus), &p->cpus);
    setrlimit(RLIMIT_NOFILE, &p->nofile);
    if (p->stdin_fd >= 0)
        dup2(p->stdin_fd, 0);
    dup2(p->fds[0], 1);
    dup2(p->fds[1], 2);
    close_range(3, ~0U, 0);
    if (p->wdir && chdir(p->wdir) < 0) {
        err = errno;
        put_str(p->errprefix);
        put_str("chdir(");
        put_str(p->wdir);
        put_str("): ");
        put_str(strerrordesc_np(err) ? strerrordesc_np(err) : "error");
        put_str(" (-wdir)\n");
        _exit(LN_EXIT_NOTFOUND);
    }
    execve(p->app->prog, p->app->argv, p->env);
    err = errno;
    put_str(p->errprefix);
    put_str("execve(");
    put_str(p->app->prog);
    put_str("): ");
    put_str(strerrordesc_np(err) ? strerrordesc_np(err) : "error");
    put_str("\n");
    _exit(err == ENOENT ? LN_EXIT_NOTFOUND : LN_EXIT_NOEXEC);
}

/* A spawned namespace's processes all run on this host, read no stdin
 * and are not bound (they come on top of the first job's). */
int ln_job_start_ns(struct ln_job *job, int k)
{
    const struct ln_ns *ns = &job->ns[k];
    int nlocal = k ? ns->size : job->nlocal, started = job->nlive;
    size_t nbase = 0;
    char **base = NULL, who[300];
    struct child_plan plan;
    double t = ln_now();
    int rc = 0;

    memset(&plan, 0, sizeof(plan));
    plan.parent = getpid();
    plan.nofile = orig_nofile;
    for (int r = 0, local = 0; r < ns->size; r++) {
        int i = ns->base + r;
        struct ln_rank *rk = &job->ranks[i];
        pid_t pid;

        if (!k && !ln_is_local(job, r))
            continue;
        /* A Ctrl-C during startup stops it here. */
        if (handle_signals(job) || job->failed)
            break;

        int first, a = ln_app_of(ns->apps, ns->napps, r, &first);

        /* Ranks go in program order: a base per program. */
        if (!base || plan.app != &ns->apps[a]) {
            free(base);
            plan.app = &ns->apps[a];
            plan.wdir = plan.app->wdir ? plan.app->wdir : job->opts->wdir;
            if (!(base = base_env(job, plan.app, &nbase))) {
                ln_err("out of memory");
                rc = -ENOMEM;
                break;
            }
        }
        plan.env = copy_env(base, nbase);
        if (!plan.env) {
            ln_err("out of memory");
            rc = -ENOMEM;
            break;
        }
        if ((rc = ln_pmix_setup_fork(job, i, &plan.env)) ||
            (rc = compat_env(ns, nlocal, r, local, &plan.env)))
            break;
        plan.fds[0] = plan.fds[1] = -1;
        if ((rc = ln_iof_prepare(job, rk, plan.fds))) {
            ln_iof_parent_close(plan.fds);
            ln_iof_close(job, &rk->out);
            break;
        }
        plan.stdin_fd = i == 0 ? -1 : job->devnull;
        /* Rank 0 reading a terminal must stay in the terminal's
         * foreground process group, which is mpirun's. */
        plan.own_group = !(i == 0 && job->stdin_tty);
        plan.bind = job->bind && !k;
        if (plan.bind && ln_bind_cpus(job, local, &plan.cpus) < 0) {
            if (!local)
                ln_err("warning: --bind-to %s: this host's sysfs does not say which CPUs "
                       "share that unit; ranks are bound to one CPU each",
                       ln_bind_name(job->opts->bind));
            CPU_ZERO(&plan.cpus);
            CPU_SET(job->cpus[local % job->ncpus], &plan.cpus);
        }
        if (job->opts->report_bindings && !k) {
            char list[256];

            ln_cpuset_text(&plan.cpus, list, sizeof(list));
            if (plan.bind)
                ln_err("rank %d on host %s bound to CPU%s %s", r, job->host,
                       CPU_COUNT(&plan.cpus) > 1 ? "s" : "", list);
            else
                ln_err("rank %d on host %s not bound (%d ranks here, %d CPUs%s)", r, job->host,
                       job->nlocal, job->ncpus,
                       job->opts->bind == LN_BIND_NONE ? ", --bind-to none" : "");
        }
        snprintf(plan.errprefix, sizeof(plan.errprefix),
                 "mpirun: cannot start %s: ", ln_rank_name(job, i, who, sizeof(who)));

        pid = fork();
        if (pid == 0)
            child_exec(&plan);
        rc = pid < 0 ? -errno : 0;
        ln_iof_parent_close(plan.fds);
        if (job->opts->output_dir)
            rk->out_file = rk->err_file = -1;
        free_env(plan.env);
        plan.env = NULL;
        if (pid < 0) {
            ln_err("cannot start %s: fork: %s", who, strerror(-rc));
            ln_iof_close(job, &rk->out);
            ln_iof_close(job, &rk->err);
            break;
        }
        /* Also here, so that a kill of the group cannot race the
         * child's own setpgid. */
        if (plan.own_group) {
            setpgid(pid, pid);
            rk->pgid = pid;
        }
        rk->pid = pid;
        rk->state = LN_RANK_RUNNING;
        job->nlive++;
        job->ns[k].nlive++;
        local++;
    }
    free_env(plan.env);
    free(base);
    ln_verbose(job, "started %d processes of %s in %.1f ms", job->nlive - started, ns->name,
               (ln_now() - t) * 1e3);
    if (rc && !job->failed) {
        job->failed = 1;
        job->exit_code = LN_EXIT_INTERNAL;
        start_teardown(job, SIGTERM, -1);
    }
    return rc;
}

int ln_job_spawn(struct ln_job *job)
{
    return ln_job_start_ns(job, 0);
}
