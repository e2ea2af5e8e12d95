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
static int waiting;     /* threads blocked on `big` */

void rt_api_acquire(void)
{
    __atomic_add_fetch(&waiting, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&big);
    __atomic_sub_fetch(&waiting, 1, __ATOMIC_RELAXED);
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
    pthread_mutex_unlock(&big);
    sched_yield();
    rt_api_acquire();
    rt_api_depth = depth;
}
