/* pack: MPI_Pack/MPI_Unpack throughput of a strided vector (every other
 * double) and of a 2-D subarray (half the columns of a 512-double-wide
 * array), next to memcpy of the same bytes. bw_vector: bw with the vector
 * type on both sides. Sizes are bytes of data (rounded to doubles). */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 512 /* doubles per row of the subarray's array */

/* MB/s of n bytes moved iters times in t seconds. */
static double rate(size_t n, int iters, double t)
{
    return (double)n * iters / t / 1e6;
}

static MPI_Datatype vector_of(size_t n)
{
    MPI_Datatype t;

    MPI_Type_vector((int)(n / 8), 1, 2, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

/* rows x cols doubles out of rows x WIDTH; n bytes in total. */
static MPI_Datatype subarray_of(size_t n)
{
    int cols = n / 8 < WIDTH / 2 ? (int)(n / 8) : WIDTH / 2;
    int sizes[2] = {(int)(n / 8 / (size_t)cols), WIDTH}, sub[2] = {sizes[0], cols},
        start[2] = {0, WIDTH / 4};
    MPI_Datatype t;

    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Seconds per call of MPI_Pack (dir 0) or MPI_Unpack (dir 1), times iters. */
static double time_pack(MPI_Datatype t, char *mem, char *packed, size_t n, int iters, int warm,
                        int dir)
{
    double t0 = 0;

    for (int i = -warm; i < iters; i++) {
        int pos = 0;
        if (i == 0)
            t0 = MPI_Wtime();
        if (dir)
            MPI_Unpack(packed, (int)n, &pos, mem, 1, t, MPI_COMM_SELF);
        else
            MPI_Pack(mem, 1, t, packed, (int)n, &pos, MPI_COMM_SELF);
    }
    return MPI_Wtime() - t0;
}

static int run_pack(void)
{
    size_t max = bench_opt->max < 8 ? 8 : bench_opt->max;
    char *mem = bench_alloc(2 * max + WIDTH * 8), *packed = bench_alloc(max),
         *copy = bench_alloc(max);

    for (int k = 0; k < bench_opt->nsizes; k++) {
        size_t n = bench_opt->sizes[k] / 8 * 8;
        int iters = bench_iters(n), warm = bench_warmup(n);
        double v[5], t0;
        long bad = 0;

        if (n < 8)
            n = 8;
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            memcpy(copy, packed, n);
            __asm__ volatile("" ::: "memory"); /* keep every copy */
        }
        v[0] = rate(n, iters, MPI_Wtime() - t0);
        MPI_Datatype vec = vector_of(n), sub = subarray_of(n);
        int vsize, ssize;
        MPI_Type_size(vec, &vsize);
        MPI_Type_size(sub, &ssize);
        v[1] = rate(n, iters, time_pack(vec, mem, packed, n, iters, warm, 0));
        v[2] = rate(n, iters, time_pack(vec, mem, packed, n, iters, warm, 1));
        if ((size_t)ssize == n) {
            v[3] = rate(n, iters, time_pack(sub, mem, packed, n, iters, warm, 0));
            v[4] = rate(n, iters, time_pack(sub, mem, packed, n, iters, warm, 1));
        } else {
            v[3] = v[4] = NAN; /* n is not rows x cols */
        }
        if (bench_opt->check) {
            /* Pack of the vector must give the even doubles. */
            int pos = 0;
            bench_fill(mem, 2 * n, 7);
            MPI_Pack(mem, 1, vec, packed, (int)n, &pos, MPI_COMM_SELF);
            for (size_t i = 0; i < n / 8; i++)
                bad += memcmp(packed + 8 * i, mem + 16 * i, 8) != 0;
        }
        MPI_Type_free(&vec);
        MPI_Type_free(&sub);
        bench_row(n, v, bad);
    }
    free(mem), free(packed), free(copy);
    return 0;
}

const struct bench bench_pack = {
    .name = "pack",
    .desc = "MPI_Pack/Unpack of a vector (every other double) and a 2-D subarray (rows of up "
            "to 256 of 512 doubles) beside memcpy of the same bytes; every rank alone",
    .flags = 0,
    .min = 64,
    .max = 16 << 20,
    .iters = 200,
    .warmup = 10,
    .large_div = 5,
    .size_col = "Bytes",
    .cols = {{"memcpy (MB/s)", 1, AGG_AVG},
             {"vec pack (MB/s)", 1, AGG_AVG},
             {"vec unpack (MB/s)", 1, AGG_AVG},
             {"sub pack (MB/s)", 1, AGG_AVG},
             {"sub unpack (MB/s)", 1, AGG_AVG}},
    .run = run_pack,
};

/* ---- bw with a vector type ---- */

static long stream(char *sbuf, char *rbuf, size_t n, MPI_Datatype t, int count, int peer, int send)
{
    static MPI_Request *req;
    static MPI_Status *stat;
    int w = bench_opt->window;
    char ack[4] = {0};
    long bad = 0;

    if (!req) {
        req = malloc((size_t)w * sizeof(*req));
        stat = malloc((size_t)w * sizeof(*stat));
    }
    for (int i = 0; i < count; i++) {
        if (bench_opt->check && !send)
            bench_poison(rbuf, 2 * n, (unsigned)i);
        for (int j = 0; j < w; j++) {
            if (send)
                MPI_Isend(sbuf, 1, t, peer, 2, MPI_COMM_WORLD, &req[j]);
            else
                MPI_Irecv(rbuf, 1, t, peer, 2, MPI_COMM_WORLD, &req[j]);
        }
        MPI_Waitall(w, req, stat);
        if (send) {
            MPI_Recv(ack, 4, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(ack, 4, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
            for (size_t e = 0; bench_opt->check && e < n / 8; e++)
                bad += memcmp(rbuf + 16 * e, sbuf + 16 * e, 8) != 0;
        }
    }
    return bad;
}

static int run_bw(void)
{
    size_t max = bench_opt->max < 8 ? 8 : bench_opt->max;
    char *sbuf = bench_alloc(2 * max), *rbuf = bench_alloc(2 * max);
    int send = bench_rank == 0, recv = bench_rank == 1;

    /* The receiver checks against the pattern the sender uses. */
    bench_fill(sbuf, 2 * max, 3);
    for (int k = 0; k < bench_opt->nsizes; k++) {
        size_t n = bench_opt->sizes[k] / 8 * 8;
        int iters = bench_iters(n);
        double v = NAN, t;
        long bad = 0;
        MPI_Datatype vec;

        if (n < 8)
            n = 8;
        vec = vector_of(n);
        MPI_Barrier(MPI_COMM_WORLD);
        if (send || recv)
            bad = stream(sbuf, rbuf, n, vec, bench_warmup(n), 1 - bench_rank, send);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        if (send || recv)
            bad += stream(sbuf, rbuf, n, vec, iters, 1 - bench_rank, send);
        t = MPI_Wtime() - t;
        if (send)
            v = (double)n * bench_opt->window * iters / t / 1e6;
        MPI_Type_free(&vec);
        bench_row(n, &v, bad);
    }
    free(sbuf), free(rbuf);
    return 0;
}

const struct bench bench_bw_vector = {
    .name = "bw_vector",
    .desc = "bw with a vector type (every other double) on both sides, windows of -W "
            "messages from rank 0 to rank 1; sizes are bytes of data",
    .flags = NEED_2 | WINDOWED,
    .min = 8,
    .max = 4 << 20,
    .iters = 100,
    .warmup = 10,
    .large_div = 5,
    .size_col = "Size",
    .cols = {{"Bandwidth (MB/s)", 2, AGG_AVG}},
    .run = run_bw,
};
