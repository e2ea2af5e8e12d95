#include "param.h"
#include "rt.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>

RT_PARAM(p_yield, "YIELD", RT_PARAM_BOOL, "auto",
         "Blocked ranks yield the CPU after a short spin (auto: when ranks "
         "outnumber this host's cores)")
RT_PARAM(p_spin, "SPIN", RT_PARAM_INT, "1",
         "Polls a blocked rank makes before it yields the CPU (with YIELD)")

#define MAX_SOURCES 8

static rt_progress_fn sources[MAX_SOURCES];
static void (*dump_fn)(FILE *out);
static volatile sig_atomic_t dump_asked;

/* A rank that is stuck spins in a progress loop; SIGUSR1 (mpirun sends it
 * before killing a job that timed out) makes the loop print what the rank
 * is waiting for. Printing happens in the loop, not the handler. */
static void on_sigusr1(int sig)
{
    (void)sig;
    dump_asked = 1;
}

void rt_progress_set_dump(void (*fn)(FILE *out))
{
    struct sigaction sa, old;

    dump_fn = fn;
    if (sigaction(SIGUSR1, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
        sa.sa_handler = on_sigusr1;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(SIGUSR1, &sa, NULL);
    }
}
static int nsources;
static int yield_on;
static unsigned spin_limit;

int rt_progress_register(rt_progress_fn fn)
{
    if (nsources == MAX_SOURCES)
        return -ENOSPC;
    sources[nsources++] = fn;
    return 0;
}

void rt_progress_setup(void)
{
    int y = rt_param_bool(&p_yield);

    yield_on = y < 0 ? rt.oversubscribed : y;
    spin_limit = (unsigned)rt_param_int(&p_spin);
}

int rt_progress(void)
{
    int n = 0;

    for (int i = 0; i < nsources; i++)
        n += sources[i]();
    return n;
}

void rt_progress_idle(unsigned *spins)
{
    if (rt_mt)
        rt_api_yield();
    if (RT_UNLIKELY(dump_asked)) {
        dump_asked = 0;
        if (dump_fn)
            dump_fn(stderr);
    }
    if (yield_on && ++*spins >= spin_limit) {
        *spins = 0;
        sched_yield();
    }
}
