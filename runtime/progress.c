#include "mpit.h"
#include "param.h"
#include "request.h"
#include "rt.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

RT_PARAM(p_yield, "YIELD", RT_PARAM_BOOL, "auto",
         "Blocked ranks yield the CPU after a short spin (auto: when ranks "
         "outnumber this host's cores)")
RT_PARAM(p_spin, "SPIN", RT_PARAM_INT, "1",
         "Polls a blocked rank makes before it yields the CPU (with YIELD)")
RT_PARAM(p_sleep, "SLEEP", RT_PARAM_BOOL, "auto",
         "A rank blocked waiting for a message sleeps until a peer's message wakes it, "
         "instead of yielding the CPU (auto: when it would yield; needs every transport "
         "in use to wake sleepers, as self and sm do)")
RT_PARAM(p_sleep_max, "SLEEP_MAX", RT_PARAM_INT, "16000",
         "Microseconds such a sleep lasts at most (a bound for wake-ups that are missed or "
         "for progress that no message announces); the first sleep after a completion "
         "lasts at most 1000, and each that ends with nothing done doubles up to this")
RT_PARAM(p_sleep_after, "SLEEP_AFTER", RT_PARAM_INT, "100",
         "With SLEEP: a yield that takes longer than this many microseconds (the CPU "
         "went to another program, or to a rank computing) makes blocked waits sleep "
         "rather than yield (0: always sleep)")
RT_PARAM(p_noise, "NOISE", RT_PARAM_INT, "0",
         "Debugging: per mille of the library's noise points (sends, arrivals, polls) "
         "that pause for a random 0-200 microseconds, to shake out races that only "
         "scheduling delays reveal (0: off)")

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
    __atomic_store_n(&rt_idle_work, 1, __ATOMIC_RELAXED);
}

void rt_progress_set_dump(void (*fn)(FILE *out))
{
    dump_fn = fn;
    rt_progress_catch_dump();
}

/* Before PMIx_Init: mpirun may ask a process for its hang report (its
 * --timeout) while it is still starting, and SIGUSR1's default would kill
 * it; the report then comes from its first progress loop. */
void rt_progress_catch_dump(void)
{
    struct sigaction sa, old;

    if (sigaction(SIGUSR1, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
        sa.sa_handler = on_sigusr1;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(SIGUSR1, &sa, NULL);
    }
}
static int nsources;
static int yield_on;
static int patient; /* blocking dynamic-process calls under way */
static unsigned spin_limit;
static int sleep_on;
static unsigned sleep_max_us;
static int (*sleep_fn)(unsigned timeout_us);
static double yield_slow;
int rt_idle_work;
int rt_noise_permille;
uint64_t rt_moved;

int rt_progress_register(rt_progress_fn fn)
{
    for (int i = 0; i < nsources; i++)
        if (sources[i] == fn)
            return 0;
    if (nsources == MAX_SOURCES)
        return -ENOSPC;
    sources[nsources++] = fn;
    return 0;
}

/* Keeps the order of the others: the pml polls first. */
void rt_progress_unregister(rt_progress_fn fn)
{
    for (int i = 0; i < nsources; i++)
        if (sources[i] == fn) {
            memmove(&sources[i], &sources[i + 1], (size_t)(nsources - i - 1) * sizeof(*sources));
            nsources--;
            return;
        }
}

void rt_progress_clear(void)
{
    nsources = 0;
}

/* Stays constant over any number of start-up/finalize cycles (tests). */
static uint64_t read_nsources(const struct rt_pvar *v)
{
    (void)v;
    return (uint64_t)nsources;
}
RT_PVAR(pv_sources, "rdmpi_progress_sources", "rdmpi_runtime", MPI_T_PVAR_CLASS_LEVEL,
        read_nsources, 0, "Progress sources every poll runs now (layers up, windows, idups)")

void rt_progress_setup(void)
{
    int y = rt_param_bool(&p_yield);

    int sl = rt_param_bool(&p_sleep);
    long max = rt_param_int(&p_sleep_max);

    yield_on = y < 0 ? rt.oversubscribed : y;
    spin_limit = (unsigned)rt_param_int(&p_spin);
    sleep_on = sl < 0 ? yield_on : sl;
    sleep_max_us = max < 1 ? 1 : max > 1000000 ? 1000000 : (unsigned)max;
    rt_noise_permille = (int)rt_param_int(&p_noise);
    yield_slow = (double)rt_param_int(&p_sleep_after) * 1e-6;
    rt_progress_update();
}

void rt_progress_update(void)
{
    __atomic_store_n(&rt_idle_work, yield_on || sleep_on || rt_mt || dump_asked || patient,
                     __ATOMIC_RELAXED);
}

/* Dynamic processes start and run beside the job, and the count of ranks
 * against cores at init (RDMPI_YIELD auto) did not see them: 2 parents
 * spinning on 2 cores while their spawned children started made a spawn
 * of one child take 500-600 ms instead of 40. So the blocking calls that
 * wait on such processes (spawn, accept, connect, join) yield in their
 * idle turns, and once this host holds more processes than cores, every
 * idle turn yields from then on, as at init. */
void rt_progress_patience(int delta)
{
    patient += delta;
    rt_progress_update();
}

void rt_progress_crowd(int local_procs)
{
    if (rt_param_bool(&p_yield) < 0 && local_procs > rt.ncpus && !yield_on) {
        yield_on = 1;
        rt_progress_update();
    }
}

int rt_progress_sleeps(void)
{
    return sleep_on;
}

void rt_progress_set_sleep(int (*fn)(unsigned timeout_us))
{
    sleep_fn = fn;
}

/* A random pause at a noise point (RDMPI_NOISE): mostly a yield, sometimes
 * a sleep of up to 200 us, so the other ranks run in between. */
void rt_noise_pause(void)
{
    static unsigned seed;
    unsigned r;

    if (!seed)
        seed = (unsigned)getpid() * 2654435761u | 1;
    seed = seed * 1103515245u + 12345u;
    r = (seed >> 8) % 1000;
    if (r >= (unsigned)rt_noise_permille)
        return;
    if (r & 1) {
        sched_yield();
    } else {
        struct timespec ts = {0, (long)((seed >> 4) % 200) * 1000};
        nanosleep(&ts, NULL);
    }
}

int rt_progress(void)
{
    int n = 0;

    for (int i = 0; i < nsources; i++)
        n += sources[i]();
    rt_moved += (unsigned)n;
    return n;
}

/* The hang report asked for by SIGUSR1, from a progress loop. The flag
 * is recomputed first, so a signal that comes meanwhile sets it again. */
static void dump_if_asked(void)
{
    rt_progress_update();
    if (RT_UNLIKELY(dump_asked)) {
        dump_asked = 0;
        fprintf(stderr, "rdmpi[%d]: progress: %llu events so far\n", rt.rank,
                (unsigned long long)rt_moved);
        if (dump_fn)
            dump_fn(stderr);
    }
}

/* A blocked rank whose wait only a peer's message can end. Under CPU
 * contention (other programs, or ranks busy computing) a yield hands the
 * core to another task for its whole time slice, so each hop of a message
 * chain cost milliseconds (MPI_Comm_dup's agreement, eight hops at 4 ranks,
 * ran at 25 per second beside 8 CPU hogs on 2 cores); a rank that sleeps
 * instead is woken by the message and runs at once. When only our own
 * ranks compete, a yield comes back in microseconds and costs less than a
 * sleep and its wake-up (50000 dups at 4 ranks on 2 cores: 1.7-3.5 s
 * yielding, 4.5-8.5 s sleeping). So the rank times its yields: one that
 * took longer than RDMPI_SLEEP_AFTER makes it sleep from then on, and it
 * yields again (to measure anew) once a second. sleep_fn says no (0)
 * when something else is pending, such as sends waiting for ring space;
 * then it yields. */
/* The bound of the next sleep: 1 ms after a request completed, doubled
 * by each sleep since that saw none, up to RDMPI_SLEEP_MAX. A message
 * wakes a sleeper at once whatever the bound; what the bound decides is
 * how often silent ranks wake for nothing (128 blocked ranks on 2 cores
 * at 1 ms each took the cores 128000 times a second from the ranks at
 * work). */
static unsigned nap_us(void)
{
    static unsigned us, seen;
    const unsigned done = __atomic_load_n(&rt_req_done_count, __ATOMIC_RELAXED);

    if (!us || done != seen) {
        seen = done;
        us = sleep_max_us < 1000 ? sleep_max_us : 1000;
    } else if (us < sleep_max_us) {
        us = us > sleep_max_us / 2 ? sleep_max_us : us * 2;
    }
    return us;
}

void rt_progress_wait_slow(unsigned *spins)
{
    static int sleepy;
    static double reprobe;
    double t;

    if (!sleep_on || !sleep_fn || rt_mt || ++*spins < spin_limit) {
        rt_progress_idle_slow(spins);
        return;
    }
    *spins = 0;
    dump_if_asked();
    t = rt_wtime();
    if (sleepy && t < reprobe && sleep_fn(nap_us()))
        return;
    sched_yield();
    sleepy = rt_wtime() - t > yield_slow;
    if (sleepy)
        reprobe = t + 1.0;
}

void rt_progress_idle_slow(unsigned *spins)
{
    if (rt_mt)
        rt_api_yield();
    dump_if_asked();
    if ((yield_on || patient) && ++*spins >= spin_limit) {
        *spins = 0;
        sched_yield();
    }
}
