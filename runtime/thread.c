/* MPI_THREAD_MULTIPLE: a single lock serializes the library, taken by
 * every API function (RT_API_ENTER in rt.h). A thread that waits inside
 * the library (for a message, a collective, a window epoch) gives the
 * lock up whenever it idles and another thread wants it, so the thread
 * that will send the message it waits for can get in. */
#include "rt.h"

#include <pthread.h>
#include <sched.h>

int rt_mt;
__thread int rt_api_depth;
static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static int waiting;       /* threads blocked on `big` */
static unsigned acquired; /* times `big` was taken: tells a yielder it was handed over */

void rt_api_acquire(void)
{
    __atomic_add_fetch(&waiting, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&big);
    __atomic_sub_fetch(&waiting, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&acquired, 1, __ATOMIC_RELAXED);
}

void rt_api_release(void)
{
    pthread_mutex_unlock(&big);
}

void rt_api_yield(void)
{
    int depth = rt_api_depth;

    if (!depth || !__atomic_load_n(&waiting, __ATOMIC_RELAXED))
        return;
    rt_api_depth = 0;
    /* A waiter must be woken and scheduled before it holds the lock;
     * retaking it at once would starve it, so wait (a bounded while)
     * until someone else has taken it. */
    unsigned gen = __atomic_load_n(&acquired, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&big);
    for (int i = 0; i < 1000 && __atomic_load_n(&acquired, __ATOMIC_RELAXED) == gen &&
                    __atomic_load_n(&waiting, __ATOMIC_RELAXED);
         i++)
        sched_yield();
    rt_api_acquire();
    rt_api_depth = depth;
}
