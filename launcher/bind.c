/*
 * bind.c: the CPUs a rank is pinned to.
 *
 * A rank's anchor is the (local index mod n)-th CPU mpirun may use.  Bound
 * to a core it gets the anchor alone; to a wider unit (socket, NUMA node,
 * L3 cache) every allowed CPU that shares that unit with the anchor, as
 * the kernel lists them in sysfs.
 */
#include "launcher.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYS_CPU "/sys/devices/system/cpu/cpu"

/* Adds a kernel CPU list ("0-3,8,10-11") to set; -1 if it cannot be read. */
static int read_cpulist(const char *path, cpu_set_t *set)
{
    char buf[4096], *p = buf;
    FILE *f = fopen(path, "r");
    int n = 0;

    if (!f)
        return -1;
    if (!fgets(buf, sizeof(buf), f)) {
        fclose(f);
        return -1;
    }
    fclose(f);
    while (*p && *p != '\n') {
        char *end;
        long a = strtol(p, &end, 10), b = a;

        if (end == p)
            return -1;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long c = a; c <= b && c < CPU_SETSIZE; c++, n++)
            CPU_SET((int)c, set);
        p = *end == ',' ? end + 1 : end;
    }
    return n ? 0 : -1;
}

/* The NUMA node of cpu: the nodeN entry in its sysfs directory. */
static int numa_list(int cpu, char *path, size_t size)
{
    for (int node = 0; node < 4096; node++) {
        char probe[128];
        FILE *f;

        snprintf(probe, sizeof(probe), SYS_CPU "%d/node%d/cpulist", cpu, node);
        if ((f = fopen(probe, "r"))) {
            fclose(f);
            snprintf(path, size, "%s", probe);
            return 0;
        }
    }
    return -1;
}

const char *ln_bind_name(enum ln_bind b)
{
    static const char *const names[] = {"default", "none", "core", "socket", "numa", "l3cache"};

    return names[b];
}

int ln_bind_cpus(const struct ln_job *job, int local, cpu_set_t *set)
{
    int anchor = job->cpus[local % job->ncpus];
    enum ln_bind b = job->opts->bind;
    char path[256];
    cpu_set_t unit, allowed;

    CPU_ZERO(set);
    if (b != LN_BIND_SOCKET && b != LN_BIND_NUMA && b != LN_BIND_L3) {
        CPU_SET(anchor, set);
        return 0;
    }
    if (b == LN_BIND_SOCKET)
        snprintf(path, sizeof(path), SYS_CPU "%d/topology/package_cpus_list", anchor);
    else if (b == LN_BIND_L3)
        snprintf(path, sizeof(path), SYS_CPU "%d/cache/index3/shared_cpu_list", anchor);
    else if (numa_list(anchor, path, sizeof(path)) < 0)
        return -1;
    CPU_ZERO(&unit);
    if (read_cpulist(path, &unit) < 0)
        return -1;
    CPU_ZERO(&allowed);
    for (int i = 0; i < job->ncpus; i++)
        CPU_SET(job->cpus[i], &allowed);
    CPU_AND(set, &unit, &allowed);
    return CPU_COUNT(set) ? 0 : -1;
}

void ln_cpuset_text(const cpu_set_t *set, char *buf, size_t size)
{
    size_t n = 0;

    buf[0] = 0;
    for (int c = 0; c < CPU_SETSIZE && n < size; c++) {
        int e = c;

        if (!CPU_ISSET(c, set))
            continue;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
            e++;
        n += (size_t)snprintf(buf + n, size - n, e > c ? "%s%d-%d" : "%s%d", n ? "," : "", c, e);
        c = e;
    }
}
