/*
 * util.c: messages, clocks and careful writes for mpirun.
 */
#include "launcher.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Every message of mpirun is one line on stderr that starts with
 * "mpirun: ".  It is written with a single write() so that it can never
 * land inside a line forwarded from a rank. */
const char *ln_prefix = "mpirun";

static void vline(const char *fmt, va_list ap)
{
    char buf[2048];
    int n = snprintf(buf, sizeof(buf), "%s: ", ln_prefix);
    int m = vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);

    if (m < 0)
        m = 0;
    n += m;
    if (n > (int)sizeof(buf) - 2)
        n = sizeof(buf) - 2;
    buf[n++] = '\n';
    ln_write_all(2, buf, n);
}

void ln_err(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
}

void ln_verbose(const struct ln_job *job, const char *fmt, ...)
{
    va_list ap;

    if (job->opts->verbose < 2)
        return;
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
}

double ln_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Write everything, waiting on EAGAIN in case somebody handed us a
 * non-blocking descriptor.  Returns 0 or -errno (-EPIPE when the reader is
 * gone: SIGPIPE is ignored in mpirun). */
int ln_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                struct pollfd pfd = {.fd = fd, .events = POLLOUT};

                poll(&pfd, 1, 100);
                continue;
            }
            return -errno;
        }
        p += n;
        len -= n;
    }
    return 0;
}

/* In a forked child before exec: a program starts with every signal at its
 * default action and none blocked, whatever mpirun inherited (a shell runs
 * background jobs with SIGINT ignored, and exec keeps ignored signals).
 * Async-signal-safe; sigaction fails harmlessly for SIGKILL, SIGSTOP and
 * the C library's internal signals. */
void ln_signals_default(void)
{
    struct sigaction sa;
    sigset_t none;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &sa, NULL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* "SIGSEGV" for 11; "signal 77" when the C library knows no name. */
const char *ln_signame(int sig, char *buf, size_t len)
{
    const char *abbrev = NULL;

#if !defined(HAVE_CONFIG_H) || defined(HAVE_SIGABBREV_NP)
    abbrev = sigabbrev_np(sig);
#endif
    if (abbrev)
        snprintf(buf, len, "SIG%s", abbrev);
    else
        snprintf(buf, len, "signal %d", sig);
    return buf;
}
