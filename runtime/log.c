#include "log.h"
#include "param.h"
#include "rt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

RT_PARAM(p_verbose, "VERBOSE", RT_PARAM_INT, "0",
         "Verbosity: 1 says which transport was chosen and why, 2 and up add detail")

int rt_verbosity;

void rt_log_init(void)
{
    rt_verbosity = (int)rt_param_int(&p_verbose);
}

/* One write(2) per line keeps lines whole when ranks share a pipe. */
static void emit(const char *kind, const char *fmt, va_list ap)
{
    char line[1024];
    int n;

    if (rt.rank >= 0)
        n = snprintf(line, sizeof(line), "rdmpi[%d]: %s", rt.rank, kind);
    else
        n = snprintf(line, sizeof(line), "rdmpi: %s", kind);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    if (write(STDERR_FILENO, line, (size_t)n) < 0)
        return;
}

void rt_info(int level, const char *fmt, ...)
{
    va_list ap;

    if (rt_verbosity < level)
        return;
    va_start(ap, fmt);
    emit("", fmt, ap);
    va_end(ap);
}

void rt_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    emit("warning: ", fmt, ap);
    va_end(ap);
}

void rt_fatal(const char *fmt, ...)
{
    va_list ap;
    char msg[1024];

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    rt_abort_job(1, msg);
}
