/* latency_mt: one-way latency of blocking ping-pongs between ranks 0 and 1
 * run by -T threads on each at once (thread t of rank 0 with thread t of
 * rank 1, on tag t), as osu_latency_mt measures it; the time is each
 * message's, averaged over the threads. Needs MPI_THREAD_MULTIPLE. */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */

#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define MAX_THREADS 64

struct pp {
    size_t n;
    int iters, warm, tag;
    double usec;
    long bad;
    pthread_barrier_t *start;
};

static void pingpong(char *s, char *r, size_t n, int count, int tag, long *bad)
{
    int peer = 1 - bench_rank, len = (int)n;

    for (int i = 0; i < count; i++) {
        unsigned ping = 2u * (unsigned)i + (unsigned)tag * 7919u, pong = ping + 1u;

        if (bench_rank == 0) {
            if (bench_opt->check)
                bench_fill(s, n, ping);
            MPI_Send(s, len, MPI_CHAR, peer, tag, MPI_COMM_WORLD);
            MPI_Recv(r, len, MPI_CHAR, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (bench_opt->check)
                *bad += bench_check(r, n, pong);
        } else {
            MPI_Recv(r, len, MPI_CHAR, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (bench_opt->check) {
                *bad += bench_check(r, n, ping);
                bench_fill(s, n, pong);
            }
            MPI_Send(s, len, MPI_CHAR, peer, tag, MPI_COMM_WORLD);
        }
    }
}

static void *thread(void *arg)
{
    struct pp *p = arg;
    char *s = bench_alloc(p->n), *r = bench_alloc(p->n);
    double t;

    pingpong(s, r, p->n, p->warm, p->tag, &p->bad);
    pthread_barrier_wait(p->start);
    t = MPI_Wtime();
    pingpong(s, r, p->n, p->iters, p->tag, &p->bad);
    p->usec = (MPI_Wtime() - t) * 1e6 / (2.0 * p->iters);
    free(s);
    free(r);
    return NULL;
}

static int run(void)
{
    int nt = bench_opt->threads < MAX_THREADS ? bench_opt->threads : MAX_THREADS;
    pthread_t th[MAX_THREADS];
    struct pp pp[MAX_THREADS];
    pthread_barrier_t start;

    for (int k = 0; k < bench_opt->nsizes; k++) {
        size_t n = bench_opt->sizes[k];
        double v = NAN;
        long bad = 0;

        MPI_Barrier(MPI_COMM_WORLD);
        if (bench_rank < 2) {
            pthread_barrier_init(&start, NULL, (unsigned)nt);
            for (int t = 0; t < nt; t++) {
                pp[t] = (struct pp){.n = n,
                                    .iters = bench_iters(n),
                                    .warm = bench_warmup(n),
                                    .tag = t,
                                    .start = &start};
                pthread_create(&th[t], NULL, thread, &pp[t]);
            }
            v = 0;
            for (int t = 0; t < nt; t++) {
                pthread_join(th[t], NULL);
                v += pp[t].usec / nt;
                bad += pp[t].bad;
            }
            pthread_barrier_destroy(&start);
        }
        bench_row(n, &v, bad);
    }
    return 0;
}

const struct bench bench_latency_mt = {
    .name = "latency_mt",
    .desc = "one-way latency of -T threads per rank ping-ponging at once, ranks 0 and 1",
    .flags = NEED_2 | THREADED,
    .min = 0,
    .max = 1 << 20,
    .iters = 10000,
    .warmup = 1000,
    .large_div = 10,
    .size_col = "Size",
    .cols = {{"Latency (us)", 3, AGG_AVG}},
    .run = run,
};
