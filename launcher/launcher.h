/*
 * launcher.h: what the pieces of mpirun share.
 *
 * mpirun is one process with one thread of its own.  PMIx runs its progress
 * thread beside it; the PMIx upcalls only copy their arguments into an event
 * and wake the main loop (pmix_server.c).  Everything else (forking, reaping,
 * forwarding output, timers, teardown) happens on the main thread in the
 * poll() loop of job.c, so no other state needs a lock.
 *
 * Internal functions carry the ln_ prefix and return 0 or a negative errno
 * value; the function that detects an error prints it, callers pass it on.
 */
#ifndef LN_LAUNCHER_H
#define LN_LAUNCHER_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

/* Exit codes of mpirun itself, besides the ranks' own statuses. */
enum {
    LN_EXIT_INTERNAL = 1,   /* a launcher resource failed (PMIx, fork) */
    LN_EXIT_USAGE = 2,      /* bad command line or RDMPI_* setting */
    LN_EXIT_NOFINALIZE = 1, /* a rank exited 0 without MPI_Finalize */
    LN_EXIT_TIMEOUT = 124,  /* --timeout expired (as timeout(1)) */
    LN_EXIT_NOEXEC = 126,   /* program found but not executable */
    LN_EXIT_NOTFOUND = 127, /* program not found (as the shell) */
};

enum ln_bind {
    LN_BIND_DEFAULT,
    LN_BIND_NONE,
    LN_BIND_CORE,
    LN_BIND_SOCKET,
    LN_BIND_NUMA,
    LN_BIND_L3
};

/* How the daemons and mpirun authenticate each other (mh.c, auth.c,
 * auth_munge.c). */
enum ln_auth {
    LN_AUTH_AUTO, /* munge when built in and munged answers, else the secret */
    LN_AUTH_SECRET,
    LN_AUTH_MUNGE
};

/* One program of the command line: several, separated by ':', make an
 * MPMD job whose ranks are numbered through the programs in order. */
struct ln_app {
    int np;      /* its ranks (the last program's: the rest of the job's) */
    char **argv; /* argv[0] as typed, NULL-terminated */
    char *prog;  /* argv[0] resolved through PATH */
    char **env;  /* "VAR=value" for its ranks, applied after the job's */
    size_t nenv;
    const char *wdir; /* the directory its ranks start in, or NULL */
};

/* Everything the command line and the RDMPI_* variables decide. */
struct ln_opts {
    int np;                 /* number of ranks, > 0 after parsing */
    int tag_output;         /* prefix lines with "[R] " */
    double timeout;         /* seconds, 0 for none */
    const char *output_dir; /* --output-filename, or NULL */
    enum ln_bind bind;
    int report_bindings; /* say where each rank is bound */
    int verbose;         /* mpirun's own chatter at >= 2 */
    double kill_grace;   /* seconds between SIGTERM and SIGKILL */
    char **rank_env;     /* "VAR=value" for ranks, in command order */
    size_t nrank_env;
    const char *wdir;    /* -wdir before the first program, or NULL */
    struct ln_app *apps; /* the programs, at least one */
    int napps;
    /* Several hosts (hosts.c, mh.c); np stays 0 here when not given. */
    char *hosts;              /* --host lists, joined by commas, or NULL */
    const char *hostfile;     /* --hostfile, or NULL */
    int ppn;                  /* -ppn: ranks per host, 0 = by slots */
    int map_by_node;          /* --map-by node: round robin over hosts */
    const char *launch_agent; /* --launch-agent, default "ssh" */
    enum ln_auth auth;        /* --auth, RDMPI_AUTH */
    int np_given;
    int univ_size; /* --universe-size, else this host's slots; 0: the job size */
};

/* Parse argv and the environment into *o.  Returns 0, a negative errno on
 * internal failure, or 1 when mpirun should exit 0 at once (--help,
 * --version).  Usage errors are printed and return -EINVAL. */
int ln_opts_parse(struct ln_opts *o, int argc, char **argv);
void ln_opts_free(struct ln_opts *o);

/* The program of `rank` among napps; *first gets its first rank. */
static inline int ln_app_of(const struct ln_app *apps, int napps, int rank, int *first)
{
    int k = 0, off = 0;

    while (k + 1 < napps && rank >= off + apps[k].np)
        off += apps[k++].np;
    *first = off;
    return k;
}

/* argv[0] of app found as execvp would (relative names against dir, NULL:
 * mpirun's directory; names without '/' in path, NULL: $PATH), into
 * app->prog.  Says what is wrong on failure: -ENOENT, -EACCES, -EINVAL. */
int ln_resolve_program(struct ln_app *a, const char *dir, const char *path);

/* One output stream of one rank, read from a pipe (iof.c). */
struct ln_stream {
    int fd;    /* read end, -1 once closed */
    int outfd; /* where its lines go: 1 or 2 */
    int rank;  /* in its namespace */
    int ns;    /* its namespace's index in job->ns */
    char *buf; /* bytes not yet written (a partial line) */
    size_t len, cap;
    int at_line_start; /* next byte begins a line (for tags) */
};

enum ln_rank_state { LN_RANK_NEW, LN_RANK_RUNNING, LN_RANK_EXITED };

struct ln_rank {
    int rank; /* in its namespace */
    int ns;   /* its namespace's index in job->ns */
    pid_t pid;
    pid_t pgid; /* its process group, or 0 if it shares ours */
    enum ln_rank_state state;
    int aborted;            /* it called PMIx_Abort */
    int wstatus;            /* from waitpid */
    int out_file, err_file; /* --output-filename fds before fork */
    struct ln_stream out, err;
};

/* A namespace mpirun started: the command line's job (job->ns[0]) or one
 * a rank asked for with PMIx_Spawn (spawn.c).  Its processes are
 * job->ranks[base .. base + size), rank r at base + r. */
struct ln_ns {
    char name[256]; /* PMIX_MAX_NSLEN + 1 */
    int base, size;
    struct ln_app *apps; /* ns 0: the options'; spawned: its own */
    int napps;
    int nlive;  /* its processes started and not yet reaped */
    int parent; /* spawned: the index of the process that asked, else -1 */
};

struct ln_job {
    struct ln_opts *opts;
    int size;         /* the first namespace's processes */
    char nspace[256]; /* the first namespace's name (PMIX_MAX_NSLEN + 1) */
    struct ln_ns *ns; /* every namespace, the first at 0 */
    int nns;
    int nprocs;    /* entries in ranks[]: every namespace's processes */
    int univ_size; /* PMIX_UNIV_SIZE: the processes live at once may not exceed it */
    char host[256];
    char tmpdir[4096];     /* per-job PMIx directory, "" if none */
    int pmix_up;           /* PMIx_server_init succeeded */
    struct ln_rank *ranks; /* nprocs of them, namespace after namespace */
    int nlive;             /* started and not yet reaped, in all namespaces */
    int ncpus;
    int *cpus; /* allowed CPUs, for --bind-to core */
    int bind;  /* resolved: 1 to pin ranks */
    int devnull;
    int stdin_tty; /* mpirun's stdin is a terminal */

    int failed;        /* the job is being ended */
    int exit_code;     /* mpirun's exit status */
    double end_at;     /* failed: when to start the teardown, 0 = started or none */
    double kill_at;    /* when to SIGKILL survivors, 0 = not armed */
    double timeout_at; /* --timeout deadline, 0 = none */
    double report_at;  /* timed out: teardown after the hang reports, 0 = none */
    double drain_at;   /* give up on output pipes after this */
    double nofin_at;   /* a rank exited 0 without MPI_Finalize: fail if others outlive this */
    int nofin_rank, nofin_count; /* the first such rank, and how many */
    int signals_seen;            /* SIGINT/TERM/HUP received */
    int sfd;                     /* signalfd */
    double t0;                   /* start time, for -v -v timings */

    /* A job over several hosts, seen by the daemon of one of them
     * (launchd.c); one host: nnodes 1 and node_of, node_names NULL. */
    int nnodes, nodeid;
    int *node_of;                       /* host of each rank */
    char **node_names;                  /* host names, in node order */
    int nlocal;                         /* ranks on this host */
    int ctl_fd;                         /* control connection to mpirun, -1 if none */
    struct ln_event *fence;             /* a fence waiting for the other hosts */
    const struct ln_daemon_ops *daemon; /* NULL in mpirun itself */
};

/* A daemon's side of its job loop (launchd.c): a failure's line goes to
 * mpirun, fences go through mpirun, and the control connection is read
 * when ctl_fd is readable. */
struct ln_daemon_ops {
    void (*report)(struct ln_job *job, int code, const char *msg);
    void (*fence)(struct ln_job *job, struct ln_event *ev);
    void (*read)(struct ln_job *job);
};

static inline int ln_is_local(const struct ln_job *job, int rank)
{
    return !job->node_of || job->node_of[rank] == job->nodeid;
}

/* "rank 3" for the first namespace, "rank 3 of rdmpi.42.1" for a spawned
 * one, of the process at index i of job->ranks. */
const char *ln_rank_name(const struct ln_job *job, int i, char *buf, size_t len);

/* util.c */
extern const char *ln_prefix; /* "mpirun", or the daemon's name and host */
void ln_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ln_verbose(const struct ln_job *job, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
double ln_now(void);
int ln_write_all(int fd, const void *buf, size_t len);
const char *ln_signame(int sig, char *buf, size_t len);
void ln_signals_default(void);

/* bind.c */
/* Ranks are pinned when asked, and by default when each has a CPU. */
static inline int ln_binds(enum ln_bind b, int nlocal, int ncpus)
{
    return b == LN_BIND_DEFAULT ? nlocal <= ncpus : b != LN_BIND_NONE;
}
const char *ln_bind_name(enum ln_bind b);
/* The CPUs the rank of local index `local` is pinned to under the job's
 * --bind-to; -1 when the unit's CPUs cannot be read from sysfs. */
int ln_bind_cpus(const struct ln_job *job, int local, cpu_set_t *set);
void ln_cpuset_text(const cpu_set_t *set, char *buf, size_t size);

/* slurm.c: inside a Slurm allocation and given no hosts, the
 * allocation's nodes and slots become --host, and srun the launch agent
 * unless one was given. */
int ln_slurm_hosts(struct ln_opts *o);
/* The daemon as a step of the allocation: one task, which by default has
 * every CPU the allocation has on the node (its ranks run inside the
 * step), beside other steps, with no PMIx of Slurm's (the daemon serves
 * its ranks itself) and no binding of its own.  mpirun appends the node. */
#define LN_SRUN_AGENT                                                                              \
    "srun --overlap --mpi=none --cpu-bind=none --kill-on-bad-exit=1 --nodes=1 --ntasks=1 "         \
    "--nodelist"

/* cleanup.c: the per-job PMIx directory and /dev/shm segments. */
int ln_tmpdir_create(struct ln_job *job);
void ln_tmpdir_remove(struct ln_job *job);
void ln_sweep_stale(void);
void ln_shm_remove_job(const struct ln_job *job);

/* pmix_server.c */
/* Upcalls answered later by the main loop.  client_connected and
 * client_finalized complete at once and only set the flags read by
 * ln_pmix_connected() and ln_pmix_finalized(). */
enum ln_ev_type {
    LN_EV_ABORT,
    LN_EV_FENCE,
    LN_EV_DMODEX,
    LN_EV_SPAWN,     /* spawn.c */
    LN_EV_PUBLISH,   /* names.c */
    LN_EV_LOOKUP,    /* names.c */
    LN_EV_UNPUBLISH, /* names.c */
};
struct ln_event;
/* Starts the server and registers the first namespace. */
int ln_pmix_init(struct ln_job *job);
/* Registers namespace k (its job info and its clients); the processes of
 * a namespace are indexed by their place in job->ranks from here on. */
int ln_pmix_register_ns(struct ln_job *job, int k);
int ln_pmix_register_clients(struct ln_job *job, int k);
/* By index in job->ranks. */
int ln_pmix_connected(int i);
int ln_pmix_finalized(int i);
int ln_pmix_setup_fork(struct ln_job *job, int i, char ***env);
/* Ends the PMIx server; if the library hangs there, removes the job's
 * files and exits with `code` (see FINALIZE_WAIT). */
void ln_pmix_finalize(struct ln_job *job, int code);
int ln_pmix_wake_fd(void);
void ln_pmix_clear_wake(void);
/* Take the queued upcall events, oldest first. */
struct ln_event *ln_pmix_take_events(void);
struct ln_event *ln_pmix_event_next(struct ln_event *ev);
enum ln_ev_type ln_pmix_event_type(const struct ln_event *ev);
int ln_pmix_event_rank(const struct ln_event *ev);
int ln_pmix_event_status(const struct ln_event *ev);
const char *ln_pmix_event_msg(const struct ln_event *ev); /* abort; may be NULL */
/* Answer the event (run the PMIx callback, if any) and free it. */
void ln_pmix_event_done(struct ln_event *ev);
/* A fence's local data; completing it with every host's data. */
const char *ln_pmix_fence_data(const struct ln_event *ev, size_t *len);
void ln_pmix_fence_complete(struct ln_event *ev, int ok, char *all, size_t len);

/* iof.c: stdout/stderr forwarding. */
int ln_iof_prepare(struct ln_job *job, struct ln_rank *r, int child_fds[2]);
void ln_iof_parent_close(int child_fds[2]);
int ln_iof_read(struct ln_job *job, struct ln_stream *s);
void ln_iof_drain(struct ln_job *job, struct ln_rank *r);
void ln_iof_close(struct ln_job *job, struct ln_stream *s);
/* --output-filename: the files of namespace k's processes. */
int ln_output_dirs(struct ln_job *job, int k);

/* spawn.c: a rank's PMIx_Spawn, answered once its processes run. */
void ln_spawn_run(struct ln_job *job, struct ln_event *ev);
/* Frees a spawned namespace's programs (their strings are its own). */
void ln_spawn_apps_free(struct ln_app *apps, int napps);

/* names.c: PMIx_Publish, _Lookup and _Unpublish within this mpirun. */
void ln_names_handle(struct ln_job *job, struct ln_event *ev);
/* The process at index i of job->ranks ended: its PROC-persistent names
 * go, and so do its waiting lookups. */
void ln_names_proc_gone(struct ln_job *job, int i);
/* Namespace k ended: names kept for its application go. */
void ln_names_ns_gone(struct ln_job *job, int k);
/* Lookups waiting past their PMIX_TIMEOUT fail; returns the nearest
 * deadline still pending, 0 if none. */
double ln_names_timers(double now);
/* Answers every request still waiting (the job ends). */
void ln_names_finalize(void);

/* job.c */
int ln_job_init(struct ln_job *job, struct ln_opts *o);
/* A new namespace running apps (taken over; their np add up to its
 * size), its processes after the others in job->ranks; returns its index,
 * or a negative errno. */
int ln_job_add_ns(struct ln_job *job, const char *name, struct ln_app *apps, int napps, int parent);
/* Forks namespace k's processes on this host. */
int ln_job_start_ns(struct ln_job *job, int k);
int ln_job_spawn(struct ln_job *job);
int ln_job_run(struct ln_job *job);
void ln_job_end(struct ln_job *job, int sig);
void ln_job_signal(struct ln_job *job, int sig);
void ln_job_free(struct ln_job *job);

#endif /* LN_LAUNCHER_H */
