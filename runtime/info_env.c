/* The keys of MPI_INFO_ENV and MPI_Info_create_env (MPI-4.1 11.2.8): how
 * this process was started, as far as the runtime knows it.  soft and
 * file are left out: our launcher has no such options. Also
 * MPI_Get_hw_resource_info, what the runtime knows of the host. */
#include "errors.h"
#include "info.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Appends "s" to *buf (growing it), separated by a space unless first. */
static int append(char **buf, size_t *len, const char *s)
{
    size_t n = strlen(s);
    char *b = realloc(*buf, *len + n + 2);

    if (!b)
        return -1;
    if (*len)
        b[(*len)++] = ' ';
    memcpy(b + *len, s, n + 1);
    *len += n;
    *buf = b;
    return 0;
}

/* command and argv (the arguments after the command, space separated),
 * from the caller's argv or else from /proc/self/cmdline. */
static int put_command(struct rdmpi_info *info, int argc, char **argv)
{
    char *args = NULL, cmdline[8192];
    size_t len = 0;
    int rc = 0;

    if (argc <= 0) {
        FILE *f = fopen("/proc/self/cmdline", "r");
        size_t n = f ? fread(cmdline, 1, sizeof(cmdline) - 1, f) : 0;

        if (f)
            fclose(f);
        if (!n)
            return 0;
        cmdline[n] = 0;
        rc = rt_info_put(info, "command", cmdline);
        for (size_t at = strlen(cmdline) + 1; !rc && at < n; at += strlen(cmdline + at) + 1)
            rc = append(&args, &len, cmdline + at);
    } else {
        rc = rt_info_put(info, "command", argv[0] ? argv[0] : "");
        for (int i = 1; !rc && i < argc && argv[i]; i++)
            rc = append(&args, &len, argv[i]);
    }
    if (!rc && args)
        rc = rt_info_put(info, "argv", args);
    free(args);
    return rc ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

const char *rt_thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

/* The job's size: known since MPI_Init or a session brought the runtime
 * up (and kept after MPI_Finalize); before, what the launcher put in the
 * environment (our mpirun sets PMI_SIZE and OMPI_COMM_WORLD_SIZE, srun
 * SLURM_NTASKS); without a launcher the process is a singleton. */
static int job_size(void)
{
    static const char *vars[] = {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"};

    if (rt.size > 0)
        return rt.size;
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        char *end;
        long n = v ? strtol(v, &end, 10) : 0;
        if (v && *v && !*end && n > 0 && n <= 1 << 30)
            return (int)n;
    }
    return 1;
}

int rt_info_env_fill(struct rdmpi_info *info, int argc, char **argv)
{
    char buf[4096];
    struct utsname u;
    int rc = put_command(info, argc, argv);

    /* In the standard's order, and the same whenever asked: before
     * MPI_Init, while MPI runs and after MPI_Finalize (MPI-4.1 11.2.8
     * lets MPI_Info_create_env be called at any time). */
    if (!rc) {
        snprintf(buf, sizeof(buf), "%d", job_size());
        rc = rt_info_put(info, "maxprocs", buf);
    }
    if (!rc && (rt.hostname[0] || gethostname(buf, sizeof(buf) - 1) == 0)) {
        buf[sizeof(buf) - 1] = 0;
        rc = rt_info_put(info, "host", rt.hostname[0] ? rt.hostname : buf);
    }
    if (!rc && uname(&u) == 0)
        rc = rt_info_put(info, "arch", u.machine);
    if (!rc && getcwd(buf, sizeof(buf)))
        rc = rt_info_put(info, "wdir", buf);
    /* The level in force once MPI_Init or a session set it (kept after
     * MPI_Finalize); before, the one MPI_Init gives, as nothing can ask
     * for another before the program starts. */
    if (!rc)
        rc = rt_info_put(info, "thread_level",
                         rt_thread_level_name(rt.size > 0 ? rt.thread_level : MPI_THREAD_SINGLE));
    return rc;
}

/* MPI-4.1's hardware description: the standard names no keys, so these
 * are ours (Open MPI returns an empty object): the host, its online
 * cores, the cores this process may run on, and the job's ranks on it. */
#pragma weak MPI_Get_hw_resource_info = PMPI_Get_hw_resource_info
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Get_hw_resource_info";
    struct rdmpi_info *info;
    char host[256], v[32];
    cpu_set_t set;
    int rc;

    RT_CHECK_INIT(fn);
    if (!hw_info)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "hw_info is NULL; pass the address of an MPI_Info");
    if ((rc = PMPI_Info_create(hw_info)))
        return rc;
    info = rt_info_get(*hw_info);
    if (gethostname(host, sizeof(host) - 1) == 0) {
        host[sizeof(host) - 1] = 0;
        rc |= rt_info_put(info, "rdmpi_host", rt.hostname[0] ? rt.hostname : host);
    }
    snprintf(v, sizeof(v), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    rc |= rt_info_put(info, "rdmpi_cores_online", v);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        snprintf(v, sizeof(v), "%d", CPU_COUNT(&set));
        rc |= rt_info_put(info, "rdmpi_cores_allowed", v);
    }
    snprintf(v, sizeof(v), "%d", rt.local_size);
    rc |= rt_info_put(info, "rdmpi_local_ranks", v);
    if (rc) {
        PMPI_Info_free(hw_info);
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    return MPI_SUCCESS;
}
