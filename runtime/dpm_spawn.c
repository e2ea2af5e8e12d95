/* MPI_Comm_spawn, MPI_Comm_spawn_multiple and MPI_Comm_get_parent
 * (MPI-4.1 11.3). The root opens a port, asks the launcher for the
 * processes (PMIx_Spawn, served by mpirun: launcher/spawn.c) with the
 * port in their environment (RDMPI_PARENT_PORT), and the parents accept
 * on it; each child's MPI_Init connects to it over its MPI_COMM_WORLD
 * (rt_dpm_init), which gives both sides their intercommunicator. A
 * refused spawn starts nothing, and every parent returns MPI_ERR_SPAWN
 * (MPI_ERR_UNSUPPORTED_OPERATION where the launcher cannot spawn) with
 * the launcher's reason. docs/dynamic.md. */
#include "dpm.h"
#include "errors.h"
#include "info.h"
#include "log.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARENT_VAR "RDMPI_PARENT_PORT"

struct rdmpi_comm *rt_dpm_parent;

void rt_dpm_forget(struct rdmpi_comm *c)
{
    if (c == rt_dpm_parent)
        rt_dpm_parent = NULL;
}

void rt_dpm_init(void)
{
    char why[512] = "", *port = getenv(PARENT_VAR);
    struct rdmpi_comm *ic;
    int err;

    if (!port)
        return;
    /* Our own children get a port of their own, not this one. */
    port = strdup(port);
    unsetenv(PARENT_VAR);
    if (!port)
        rt_fatal("MPI_Init: out of memory");
    if ((err = rt_dpm_connect(port, rt_comm_predef[0], 0, &ic, why, sizeof(why))))
        rt_fatal("MPI_Init: this process was spawned, but connecting to its parents through "
                 "port '%.200s' failed: %s",
                 port, why);
    free(port);
    /* MPI-4.1 11.8.2: the parent intercommunicator's name. */
    snprintf(ic->name, sizeof(ic->name), "MPI_COMM_PARENT");
    rt_dpm_parent = ic;
}

/* An info value, or NULL if absent. */
static const char *info_val(MPI_Info info, const char *key, char *buf, int len)
{
    int flag = 0;

    if (info == MPI_INFO_NULL || PMPI_Info_get_string(info, key, &len, buf, &flag) || !flag)
        return NULL;
    return buf;
}

static char **argv_of(const char *cmd, char **argv)
{
    size_t n = 0;
    char **a;

    while (argv && argv[n])
        n++;
    if (!(a = calloc(n + 2, sizeof(*a))))
        return NULL;
    a[0] = strdup(cmd);
    for (size_t i = 0; i < n; i++)
        a[i + 1] = strdup(argv[i]);
    return a;
}

/* One program: argv, maxprocs, the port in its environment and what its
 * info asks (host, wdir, path, env: docs/dynamic.md). 0 or MPI_ERR_NO_MEM. */
static int load_app(pmix_app_t *a, const char *cmd, char **argv, int np, MPI_Info info,
                    const char *port)
{
    static const struct {
        const char *mpi, *pmix;
    } keys[] = {{"host", PMIX_HOST}, {"wdir", PMIX_WDIR}, {"path", "rdmpi.path"}};
    char val[4096];
    const char *v;
    size_t nenv = 1, ninfo = 0;

    PMIX_APP_CONSTRUCT(a);
    a->cmd = strdup(cmd);
    a->argv = argv_of(cmd, argv);
    a->maxprocs = np;
    /* env: "VAR=value" entries, one a line (Open MPI's form). */
    v = info_val(info, "env", val, sizeof(val));
    for (const char *p = v; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
        nenv++;
    if (!a->cmd || !a->argv || !(a->env = calloc(nenv + 1, sizeof(char *))))
        return MPI_ERR_NO_MEM;
    if (asprintf(&a->env[0], "%s=%s", PARENT_VAR, port) < 0)
        return MPI_ERR_NO_MEM;
    nenv = 1;
    for (const char *p = v; p && *p;) {
        size_t l = strcspn(p, "\n");

        if (l && !(a->env[nenv++] = strndup(p, l)))
            return MPI_ERR_NO_MEM;
        p += l + (p[l] != 0);
    }
    PMIX_INFO_CREATE(a->info, sizeof(keys) / sizeof(keys[0]));
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        if ((v = info_val(info, keys[k].mpi, val, sizeof(val))))
            PMIX_INFO_LOAD(&a->info[ninfo++], keys[k].pmix, v, PMIX_STRING);
    a->ninfo = ninfo;
    return MPI_SUCCESS;
}

/* The counts `soft` allows (a, a:b, a:b:s, comma-separated), at most
 * maxprocs, largest first, into c; how many. */
static int soft_counts(const char *soft, int maxprocs, int *c, int max)
{
    int n = 0;

    for (const char *p = soft; *p && n < max;) {
        long a = strtol(p, (char **)&p, 10), b = a, s = 1;

        if (*p == ':')
            b = strtol(p + 1, (char **)&p, 10);
        if (*p == ':')
            s = strtol(p + 1, (char **)&p, 10);
        for (long x = a; s > 0 && x <= b && n < max; x += s)
            if (x >= 1 && x <= maxprocs)
                c[n++] = (int)x;
        p += *p == ',';
        if (*p && *p != ',' && (*p < '0' || *p > '9'))
            break;
    }
    for (int i = 1; i < n; i++) /* largest first */
        for (int j = i; j > 0 && c[j] > c[j - 1]; j--) {
            int t = c[j];
            c[j] = c[j - 1];
            c[j - 1] = t;
        }
    return n;
}

static int class_of(pmix_status_t st)
{
    return st == PMIX_ERR_NOT_SUPPORTED ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_ERR_SPAWN;
}

static const char *reason(pmix_status_t st)
{
    switch (st) {
    case PMIX_ERR_JOB_EXE_NOT_FOUND: return "a program was not found";
    case PMIX_ERR_JOB_FAILED_TO_LAUNCH: return "a program could not be started";
    case PMIX_ERR_JOB_WDIR_NOT_FOUND: return "the working directory (info key wdir) does not exist";
    case PMIX_ERR_OUT_OF_RESOURCE:
        return "more processes than the universe has room for (MPI_UNIVERSE_SIZE; mpirun "
               "--universe-size)";
    case PMIX_ERR_NOT_SUPPORTED:
        return "the launcher cannot spawn this (under srun --mpi=pmix Slurm's PMIx has no "
               "spawn: run rdmpi's mpirun inside the allocation; or a host other than this one)";
    case PMIX_ERR_BAD_PARAM: return "a bad argument (maxprocs < 1, or no program)";
    default: return PMIx_Error_string(st);
    }
}

/* The root's part: spawns, into port the port the children will connect
 * to; *spawned processes. An MPI class, with why. */
static int root_spawn(int count, char **cmds, char ***argvs, const int *np, const MPI_Info *infos,
                      char *port, int *spawned, char *why, size_t wl)
{
    int counts[64], ncounts = 1, err;
    const char *pwhy;
    char soft[256];
    pmix_app_t *apps;
    pmix_nspace_t ns;
    pmix_status_t st = PMIX_ERROR;

    *spawned = 0;
    if (rt.singleton) {
        snprintf(why, wl,
                 "this process was started without a launcher, which could start "
                 "others; run it under rdmpi's mpirun");
        return MPI_ERR_SPAWN;
    }
    counts[0] = np[0];
    if (count == 1 && info_val(infos[0], "soft", soft, sizeof(soft)) &&
        !(ncounts = soft_counts(soft, np[0], counts, 64))) {
        snprintf(why, wl, "info key soft='%s' allows no count in 1..maxprocs (%d)", soft, np[0]);
        return MPI_ERR_ARG;
    }
    if ((err = rt_port_open(port, &pwhy))) {
        snprintf(why, wl, "%s", pwhy);
        return err;
    }
    if (!(apps = calloc((size_t)count, sizeof(*apps))))
        return MPI_ERR_NO_MEM;
    for (int k = 0; k < ncounts; k++) {
        int total = 0;

        err = MPI_SUCCESS;
        for (int i = 0; i < count && !err; i++) {
            err = load_app(&apps[i], cmds[i], argvs ? argvs[i] : NULL,
                           count == 1 ? counts[k] : np[i], infos[i], port);
            total += apps[i].maxprocs;
        }
        if (!err)
            st = PMIx_Spawn(NULL, 0, apps, (size_t)count, ns);
        for (int i = 0; i < count; i++)
            PMIX_APP_DESTRUCT(&apps[i]);
        if (err)
            break;
        if (st == PMIX_SUCCESS) {
            *spawned = total;
            break;
        }
        if (st != PMIX_ERR_OUT_OF_RESOURCE || ncounts == 1)
            break;
    }
    free(apps);
    if (!err && st != PMIX_SUCCESS) {
        err = class_of(st);
        snprintf(why, wl, "the launcher refused the spawn of '%.200s'%s: %s (%s)", cmds[0],
                 count > 1 ? " and others" : "", reason(st), PMIx_Error_string(st));
    }
    if (err)
        rt_port_close(port);
    return err;
}

static int spawn_common(int count, char **cmds, char ***argvs, const int *np, const MPI_Info *infos,
                        int root, MPI_Comm comm, MPI_Comm *intercomm, int *errcodes, const char *fn)
{
    char port[MPI_MAX_PORT_NAME], why[768] = "";
    struct rdmpi_comm *c, *ic;
    int err, spawned = 0, total = 0;

    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    if (c->inter)
        return rdmpi_err_comm(comm, MPI_ERR_COMM, fn,
                              "comm is an intercommunicator; pass an intracommunicator");
    if (!intercomm)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "intercomm is NULL; pass the address of an MPI_Comm");
    if (root < 0 || root >= c->size)
        return rdmpi_err_comm(comm, MPI_ERR_ROOT, fn, "root is %d; pass a rank of comm (0..%d)",
                              root, c->size - 1);
    err = MPI_SUCCESS;
    if (c->rank == root) {
        for (int i = 0; i < count && !err; i++) {
            if (!cmds[i] || !cmds[i][0]) {
                err = MPI_ERR_SPAWN;
                snprintf(why, sizeof(why), "command %d is NULL or empty; name a program", i);
            } else if (np[i] < 1) {
                err = MPI_ERR_ARG;
                snprintf(why, sizeof(why), "maxprocs%s is %d; ask for at least 1 process",
                         count > 1 ? "[i]" : "", np[i]);
            } else if (infos[i] != MPI_INFO_NULL && !rt_info_get(infos[i])) {
                err = MPI_ERR_INFO;
                snprintf(why, sizeof(why), "info%s is not a valid info object",
                         count > 1 ? "[i]" : "");
            }
            total += np[i];
        }
        if (!err)
            err = root_spawn(count, cmds, argvs, np, infos, port, &spawned, why, sizeof(why));
    }
    /* Every parent learns the root's result in the meeting. */
    err = err ? rt_dpm_meet(c, root, -1, 1, err, &ic, why, sizeof(why))
              : rt_dpm_accept(port, c, root, &ic, why, sizeof(why));
    if (c->rank == root && spawned)
        rt_port_close(port);
    if (c->rank == root && errcodes != MPI_ERRCODES_IGNORE)
        for (int i = 0; i < total; i++)
            errcodes[i] = err ? err : i < spawned ? MPI_SUCCESS : MPI_ERR_SPAWN;
    if (err) {
        *intercomm = MPI_COMM_NULL;
        return rdmpi_err_comm(comm, err, fn, "%s", why);
    }
    *intercomm = ic->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
int PMPI_Comm_spawn(const char *command, char **argv, int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int *array_of_errcodes)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_spawn";
    char *cmd = (char *)command;

    RT_CHECK_INIT(fn);
    return spawn_common(1, &cmd, argv == MPI_ARGV_NULL ? MPI_ARGVS_NULL : &argv, &maxprocs, &info,
                        root, comm, intercomm, array_of_errcodes, fn);
}

#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_spawn_multiple";
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (!(c = rt_comm_check(comm, fn, &err)))
        return err;
    if (!c->inter && c->rank == root &&
        (count < 1 || !array_of_commands || !array_of_maxprocs || !array_of_info))
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "count is %d, or an array is NULL: pass count >= 1 and the "
                              "commands, maxprocs and infos",
                              count);
    return spawn_common(c->rank == root ? count : 0, array_of_commands, array_of_argv,
                        array_of_maxprocs, array_of_info, root, comm, intercomm, array_of_errcodes,
                        fn);
}

#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_get_parent";

    RT_CHECK_INIT(fn);
    if (!parent)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "parent is NULL; pass the address of an MPI_Comm");
    *parent = rt_dpm_parent ? rt_dpm_parent->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}
