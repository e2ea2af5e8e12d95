/* Names of the /dev/shm objects a job creates. The launcher sweeps
 * /dev/shm/rdmpi-<uid>-<nspace>-* when a job ends, so every name has that
 * shape; the node id keeps apart hosts that share /dev/shm (network-
 * namespace fake hosts, where every host has a node rank 0). */
#include "rt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

int rt_shm_name(char *name, size_t size, const char *fmt, ...)
{
    char ns[sizeof(rt.nspace)];
    va_list ap;
    int n, m;

    snprintf(ns, sizeof(ns), "%s", rt.nspace);
    for (char *c = ns; *c; c++)
        if (*c == '/')
            *c = '_';
    n = snprintf(name, size, "/rdmpi-%u-%s-%d", (unsigned)getuid(), ns, rt.nodeid);
    if (n < 0 || (size_t)n >= size)
        return -ENAMETOOLONG;
    va_start(ap, fmt);
    m = vsnprintf(name + n, size - (size_t)n, fmt, ap);
    va_end(ap);
    return m < 0 || (size_t)m >= size - (size_t)n ? -ENAMETOOLONG : 0;
}
