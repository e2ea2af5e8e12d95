/* The keys of MPI_INFO_ENV and MPI_Info_create_env (MPI-4.1 11.2.8): how
 * this process was started, as far as the runtime knows it.  soft and
 * file are left out: our launcher has no such options. */
#include "info.h"

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

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

int rt_info_env_fill(struct rdmpi_info *info, int argc, char **argv)
{
    char buf[4096];
    struct utsname u;
    int rc = put_command(info, argc, argv);

    /* In the standard's order; the job size and the thread level are
     * known once MPI_Init (or a session) ran. */
    if (!rc && rt.up) {
        snprintf(buf, sizeof(buf), "%d", rt.size);
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
    if (!rc && rt.up)
        rc = rt_info_put(info, "thread_level", thread_level_name(rt.thread_level));
    return rc;
}
