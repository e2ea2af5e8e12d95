/* MPI_THREAD_MULTIPLE: several threads per rank at once doing ring
 * exchanges of eager and rendezvous sizes (one tag per thread), blocking
 * wildcard receives fed by other threads, collectives and communicator
 * duplication on per-thread communicators, requests started in one
 * thread and completed in another, and one-sided operations. */
#include "../p2p/mpitest.h"

#include <pthread.h>
#include <stdint.h>

#define NT     4
#define ROUNDS 200

static int next, prev;
static MPI_Comm tcomm[NT];

static void *ring(void *arg)
{
    int t = (int)(intptr_t)arg, bad = 0;
    size_t sizes[] = {8, 1000, 70000, 1 << 20};
    char *s = malloc(1 << 20), *r = malloc(1 << 20);

    for (int i = 0; i < ROUNDS; i++) {
        size_t n = sizes[(i + t) % 4];

        if (n == (1 << 20) && i % 16)
            n = 4096;
        mt_fill(s, n, (unsigned)(mt_rank * 100 + t + i));
        MPI_Sendrecv(s, (int)n, MPI_CHAR, next, t, r, (int)n, MPI_CHAR, prev, t, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        bad += mt_verify(r, n, (unsigned)(prev * 100 + t + i)) != 0;
    }
    CHECK_TRUE(!bad, "thread %d: %d ring exchanges corrupt", t, bad);
    free(s);
    free(r);
    return NULL;
}

/* Thread 0 receives from anyone what the other threads of every rank
 * send it; tags say who sent what. */
static void *wild_recv(void *arg)
{
    int seen[NT] = {0}, total = (NT - 1) * ROUNDS * mt_size, v[2];
    MPI_Status st;

    (void)arg;
    for (int i = 0; i < total; i++) {
        MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, tcomm[0], &st);
        if (v[0] != st.MPI_SOURCE || v[1] != st.MPI_TAG || st.MPI_TAG < 1 || st.MPI_TAG >= NT)
            CHECK_TRUE(0, "wildcard message %d/%d from %d tag %d", v[0], v[1], st.MPI_SOURCE,
                       st.MPI_TAG);
        else
            seen[st.MPI_TAG]++;
    }
    for (int t = 1; t < NT; t++)
        CHECK_EQ_INT(seen[t], ROUNDS * mt_size, "thread %d's messages: %d", t, seen[t]);
    return NULL;
}

static void *wild_send(void *arg)
{
    int t = (int)(intptr_t)arg, v[2] = {mt_rank, t};

    for (int i = 0; i < ROUNDS; i++)
        for (int d = 0; d < mt_size; d++)
            MPI_Send(v, 2, MPI_INT, d, t, tcomm[0]);
    return NULL;
}

static void *collectives(void *arg)
{
    int t = (int)(intptr_t)arg, sum, bad = 0;
    MPI_Comm dup;

    for (int i = 0; i < ROUNDS; i++) {
        int v = mt_rank + i + t;

        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, tcomm[t]);
        bad += sum != mt_size * (mt_size - 1) / 2 + mt_size * (i + t);
        if (i % 10 == 0) {
            MPI_Comm_dup(tcomm[t], &dup);
            MPI_Barrier(dup);
            MPI_Comm_free(&dup);
        }
    }
    CHECK_TRUE(!bad, "thread %d: %d allreduce results wrong", t, bad);
    return NULL;
}

static void *wait_for(void *arg)
{
    MPI_Status st;
    int count;

    MPI_Wait((MPI_Request *)arg, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_EQ_INT(count, 1000, "request completed in another thread: count %d", count);
    return NULL;
}

static void run(void *(*fn)(void *), int first, int n)
{
    pthread_t th[NT];

    for (int t = first; t < n; t++)
        pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t);
    for (int t = first; t < n; t++)
        pthread_join(th[t], NULL);
}

static void *is_main(void *arg)
{
    int flag = 1;

    MPI_Is_thread_main(&flag);
    *(int *)arg = flag;
    return NULL;
}

static MPI_Win win;

static void *rma(void *arg)
{
    int one = 1;

    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Accumulate(&one, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_flush(next, win);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, flag, main_flag = 0, other_flag = 1, *counter;
    pthread_t th;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    CHECK_EQ_INT(provided, MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Query_thread(&flag);
    CHECK_EQ_INT(flag, MPI_THREAD_MULTIPLE, "MPI_Query_thread %d", flag);
    MPI_Is_thread_main(&main_flag);
    pthread_create(&th, NULL, is_main, &other_flag);
    pthread_join(th, NULL);
    CHECK_TRUE(main_flag && !other_flag, "MPI_Is_thread_main: main %d, other %d", main_flag,
               other_flag);
    next = (mt_rank + 1) % mt_size;
    prev = (mt_rank + mt_size - 1) % mt_size;
    for (int t = 0; t < NT; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]);

    run(ring, 0, NT);

    pthread_t rx;
    pthread_create(&rx, NULL, wild_recv, NULL);
    run(wild_send, 1, NT);
    pthread_join(rx, NULL);

    run(collectives, 0, NT);

    int big[1000] = {0};
    MPI_Request rq;
    MPI_Irecv(big, 1000, MPI_INT, prev, 7, MPI_COMM_WORLD, &rq);
    pthread_create(&th, NULL, wait_for, &rq);
    MPI_Send(big, 1000, MPI_INT, next, 7, MPI_COMM_WORLD);
    pthread_join(th, NULL);

    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
    *counter = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    run(rma, 0, NT);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, win);
    CHECK_EQ_INT(*counter, NT * ROUNDS, "accumulates from %d threads: %d", NT, *counter);
    MPI_Win_unlock(mt_rank, win);
    MPI_Win_free(&win);

    for (int t = 0; t < NT; t++)
        MPI_Comm_free(&tcomm[t]);
    return mt_finish("t_threads");
}
