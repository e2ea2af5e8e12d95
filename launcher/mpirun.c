/*
 * mpirun.c: start an rdmpi job on this host.
 *
 * The order matters for "no rank started on bad input" and "nothing left
 * behind": everything the user can get wrong (options, the program, the
 * output directory) is checked before any file is made or any rank is
 * forked; from the job directory on, every way out goes through the one
 * cleanup at the end of main.
 */
#include "launcher.h"
#include "mh.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static struct ln_job job;
static struct ln_opts opts;

/* Descriptors 0-2 must exist, or our first pipe would become someone's
 * stdout.  A closed stdin gives rank 0 an immediate end of file. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0) {
            int nfd = open("/dev/null", fd ? O_WRONLY : O_RDONLY);

            if (nfd >= 0 && nfd != fd) {
                dup2(nfd, fd);
                close(nfd);
            }
        }
}

/* Inherited PMIx connection variables belong to whatever started mpirun
 * (srun, another mpirun) and would confuse our server and our ranks.
 * PMIX_MCA_* are user settings and stay. */
static void drop_foreign_pmix_env(void)
{
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; *e; e++) {
            if (!strncmp(*e, "PMIX_", 5) && strncmp(*e, "PMIX_MCA_", 9)) {
                char name[256];
                size_t len = strcspn(*e, "=");

                if (len >= sizeof(name))
                    continue;
                memcpy(name, *e, len);
                name[len] = 0;
                unsetenv(name);
                again = 1;
                break;
            }
        }
    }
}

/* Last resort if something calls exit() under us: the job directory
 * must not outlive mpirun. */
static void at_exit_cleanup(void)
{
    ln_tmpdir_remove(&job);
}

/* Sanitizer builds: libpmix keeps some allocations until exit, which is
 * not our leak to report.  LeakSanitizer calls this hook if it is linked
 * in; otherwise it is an unused function. */
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

/* MPI_UNIVERSE_SIZE when --universe-size does not say: the slots the
 * host list gives this host, else its CPUs, and never fewer than the
 * ranks started (as Open MPI counts slots). */
static int default_universe(const struct ln_opts *o, int slots)
{
    cpu_set_t set;

    if (!slots)
        slots = sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0
                    ? CPU_COUNT(&set)
                    : 1;
    return slots > o->np ? slots : o->np;
}

static int exit_for(int rc)
{
    switch (rc) {
    case -EINVAL: return LN_EXIT_USAGE;
    case -ENOENT: return LN_EXIT_NOTFOUND;
    case -EACCES: return LN_EXIT_NOEXEC;
    default: return LN_EXIT_INTERNAL;
    }
}

int main(int argc, char **argv)
{
    int rc, code, slots = 0;

    ensure_std_fds();
    signal(SIGPIPE, SIG_IGN);

    rc = ln_opts_parse(&opts, argc, argv);
    if (rc == 1)
        return 0;
    if (!rc)
        rc = ln_slurm_hosts(&opts);
    if (rc)
        return exit_for(rc);
    if (opts.hosts || opts.hostfile) {
        /* Hosts that are all this one run as ever; others through a
         * daemon on each host (mh.c). */
        struct ln_hosts hosts;

        rc = ln_hosts_parse(&opts, &hosts);
        if (!rc)
            rc = ln_hosts_map(&opts, &hosts);
        if (!rc && !ln_hosts_all_local(&hosts)) {
            code = ln_mh_run(&opts, &hosts);
            ln_hosts_free(&hosts);
            ln_opts_free(&opts);
            return code;
        }
        for (int k = 0; !rc && k < hosts.n; k++)
            slots += hosts.v[k].slots;
        ln_hosts_free(&hosts);
        if (rc) {
            ln_opts_free(&opts);
            return exit_for(rc);
        }
    }
    if (opts.univ_size && opts.univ_size < opts.np) {
        ln_err("--universe-size %d is fewer processes than the %d ranks started (give at least "
               "-n, example: mpirun --universe-size 8 -n 2 ./app)",
               opts.univ_size, opts.np);
        ln_opts_free(&opts);
        return LN_EXIT_USAGE;
    }
    if (!opts.univ_size)
        opts.univ_size = default_universe(&opts, slots);
    if (ln_job_init(&job, &opts)) {
        code = LN_EXIT_INTERNAL;
        goto out_job;
    }
    if (opts.output_dir && ln_output_dirs(&job, 0)) {
        code = LN_EXIT_USAGE;
        goto out_job;
    }

    ln_sweep_stale();
    drop_foreign_pmix_env();
    /* The hash store keeps job data in the server's memory instead of
     * shared-memory files: fewer files and a faster PMIx_Init. */
    setenv("PMIX_MCA_gds", "hash", 0);
    /* libfabric's psm and psm2 providers, loaded even without their
     * hardware, turn a rank's SIGSEGV into a backtrace and exit(1); the
     * launcher could then not say that the rank crashed, nor how. */
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    setenv("HFI_NO_BACKTRACE", "1", 0);

    atexit(at_exit_cleanup);
    if (ln_tmpdir_create(&job)) {
        code = LN_EXIT_INTERNAL;
        goto out_job;
    }
    if (ln_pmix_init(&job) || ln_pmix_register_clients(&job, 0)) {
        code = LN_EXIT_INTERNAL;
        goto out_pmix;
    }
    ln_job_spawn(&job);
    code = ln_job_run(&job);

out_pmix:
    ln_pmix_finalize(&job, code);
    ln_shm_remove_job(&job);
    ln_tmpdir_remove(&job);
out_job:
    ln_job_free(&job);
    ln_opts_free(&opts);
    return code;
}
