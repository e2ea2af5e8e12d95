/*
 * slurm.c: mpirun inside a Slurm allocation (salloc, sbatch) runs on the
 * allocation's nodes, as Open MPI's and MPICH's launchers do, unless
 * --host or --hostfile say otherwise.  The nodes come from
 * SLURM_JOB_NODELIST (expanded by scontrol), the slots from
 * SLURM_TASKS_PER_NODE, and each node's daemon is started by srun as a
 * step of the allocation.
 */
#include "launcher.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "4(x2),2" -> the count of node i, or -1. */
static int tasks_of(const char *spec, int i)
{
    const char *p = spec;

    while (*p) {
        char *end;
        long n = strtol(p, &end, 10), times = 1;

        if (end == p || n <= 0)
            return -1;
        if (!strncmp(end, "(x", 2)) {
            times = strtol(end + 2, &end, 10);
            if (times <= 0 || *end != ')')
                return -1;
            end++;
        }
        if (i < times)
            return n > 65535 ? 65535 : (int)n;
        i -= (int)times;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
    return -1;
}

/* Appends "name:slots" to the --host list being built. */
static int add(char **list, size_t *len, const char *name, int slots)
{
    size_t need = *len + strlen(name) + 16;
    char *l = realloc(*list, need);

    if (!l)
        return -ENOMEM;
    *list = l;
    *len += (size_t)snprintf(l + *len, need - *len, "%s%s:%d", *len ? "," : "", name, slots);
    return 0;
}

int ln_slurm_hosts(struct ln_opts *o)
{
    const char *nodes = getenv("SLURM_JOB_NODELIST"), *tasks = getenv("SLURM_TASKS_PER_NODE");
    char cmd[4200], name[256], *list = NULL;
    size_t len = 0;
    FILE *f;
    int i = 0, rc = 0;

    if (o->hosts || o->hostfile || !getenv("SLURM_JOB_ID") || !nodes || !*nodes)
        return 0;
    if (!tasks || !*tasks)
        tasks = getenv("SLURM_JOB_CPUS_PER_NODE");
    /* Node lists are names, digits, '-', ',', '[' and ']': nothing the
     * shell would read. */
    if (strlen(nodes) > 4000 || strspn(nodes, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789-_.,[]") != strlen(nodes)) {
        ln_err("cannot use SLURM_JOB_NODELIST='%s'; give the hosts with --host", nodes);
        return -EINVAL;
    }
    snprintf(cmd, sizeof(cmd), "scontrol show hostnames '%s' 2>/dev/null", nodes);
    if (!(f = popen(cmd, "r"))) {
        ln_err("inside a Slurm allocation but cannot run scontrol: %s; give the hosts with "
               "--host",
               strerror(errno));
        return -EINVAL;
    }
    while (!rc && fgets(name, sizeof(name), f)) {
        int slots = tasks ? tasks_of(tasks, i) : 1;

        name[strcspn(name, "\n")] = 0;
        if (!*name)
            continue;
        rc = add(&list, &len, name, slots > 0 ? slots : 1);
        i++;
    }
    if (pclose(f) != 0 || !i) {
        ln_err("inside a Slurm allocation but 'scontrol show hostnames %s' failed; give the "
               "hosts with --host",
               nodes);
        free(list);
        return -EINVAL;
    }
    if (rc) {
        free(list);
        return rc;
    }
    o->hosts = list;
    if (!o->launch_agent)
        o->launch_agent = LN_SRUN_AGENT;
    return 0;
}
