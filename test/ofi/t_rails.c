/* Two ranks exchange large messages that the pml stripes over every rail
 * (t_rails.sh runs it on two fake hosts joined by two networks): sizes no
 * multiple of the chunk, contiguous and vector datatypes, both directions
 * at once, every byte and every gap checked. "--loop N": N exchanges of
 * 33 MiB + 1 each way, checked, while t_rails.sh kills a rail's
 * connections under them; "--mixed N": the same with a stream of small
 * messages each way beside each exchange, every one checked, while it
 * takes a rail's link down. With a size argument (bytes,
 * k/m suffixes) and a count it is the bandwidth measurement of
 * docs/btl-ofi.md instead: rank 0 sends that many messages of that size,
 * a window of 16 at a time, and prints MB/s (osu_bw's pattern). */
#include "../mpitap.h"

#include <stdlib.h>
#include <string.h>

static unsigned char at(size_t i, unsigned seed)
{
    return (unsigned char)(seed * 131 + i * 7 + (i >> 12));
}

/* One exchange of n bytes of type dt (count elements spanning span bytes)
 * each way; the number of wrong bytes this rank received. */
static size_t exchange(MPI_Datatype dt, int count, size_t span, size_t blen, size_t stride,
                       unsigned seed)
{
    unsigned char *s = malloc(span), *r = malloc(span);
    int me, peer;
    size_t bad = 0;
    MPI_Request rq[2];

    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    peer = 1 - me;
    if (!s || !r)
        bail_out("out of memory for %zu bytes", span);
    for (size_t i = 0; i < span; i++)
        s[i] = at(i, seed + (unsigned)me);
    memset(r, 0xee, span);
    MPI_Irecv(r, count, dt, peer, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(s, count, dt, peer, 1, MPI_COMM_WORLD, &rq[1]);
    if (MPI_Waitall(2, rq, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        bad = span;
    for (size_t i = 0; i < span && bad != span; i++)
        bad += (i % stride < blen) ? r[i] != at(i, seed + (unsigned)peer) : r[i] != 0xee;
    free(s);
    free(r);
    return bad;
}

/* SMALL messages of 1..4096 bytes each way, all posted before any wait,
 * beside one large exchange; the wrong bytes (a small message's every
 * byte counts, and its length) this rank received. */
static size_t mixed(size_t big, unsigned seed)
{
    enum { SMALL = 64, MAXLEN = 4096 };
    static unsigned char s[SMALL][MAXLEN], r[SMALL][MAXLEN];
    MPI_Request rq[2 * SMALL];
    int me, peer;
    size_t bad = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    peer = 1 - me;
    for (int k = 0; k < SMALL; k++) {
        size_t len = 1 + (seed * 977u + (unsigned)k * 131u) % MAXLEN;

        for (size_t i = 0; i < len; i++)
            s[k][i] = at(i, seed * 31 + (unsigned)k + (unsigned)me);
        MPI_Irecv(r[k], MAXLEN, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rq[k]);
        MPI_Isend(s[k], (int)len, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rq[SMALL + k]);
    }
    bad += exchange(MPI_BYTE, (int)big, big, 1, 1, seed);
    for (int k = 0; k < SMALL; k++) {
        size_t len = 1 + (seed * 977u + (unsigned)k * 131u) % MAXLEN;
        MPI_Status st;
        int got = -1;

        if (MPI_Wait(&rq[k], &st) != MPI_SUCCESS) {
            bad += len;
            continue;
        }
        MPI_Get_count(&st, MPI_BYTE, &got);
        bad += got != (int)len;
        for (size_t i = 0; i < len && got == (int)len; i++)
            bad += r[k][i] != at(i, seed * 31 + (unsigned)k + (unsigned)peer);
    }
    MPI_Waitall(SMALL, rq + SMALL, MPI_STATUSES_IGNORE);
    return bad;
}

static size_t size_arg(const char *a)
{
    char *end;
    size_t v = strtoull(a, &end, 0);

    return v << (*end == 'k' ? 10 : *end == 'm' ? 20 : 0);
}

static void bandwidth(size_t n, int iters)
{
    enum { WINDOW = 16 };
    char *buf = malloc(n);
    MPI_Request rq[WINDOW];
    int me;
    double t;

    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (!buf)
        bail_out("out of memory");
    memset(buf, me, n);
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        for (int w = 0; w < WINDOW; w++)
            if (me == 0)
                MPI_Isend(buf, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq[w]);
            else
                MPI_Irecv(buf, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq[w]);
        MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
        if (me == 0)
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    }
    t = MPI_Wtime() - t;
    if (me == 0)
        printf("%zu bytes: %.1f MB/s\n", n, (double)n * WINDOW * iters / t / 1e6);
    free(buf);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {(1u << 20) + 7, (8u << 20) + 12345, (33u << 20) + 1};
    int me, np;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2)
        bail_out("t_rails needs 2 ranks, not %d", np);
    if (argc > 2 && (!strcmp(argv[1], "--loop") || !strcmp(argv[1], "--mixed"))) {
        const int mix = !strcmp(argv[1], "--mixed");
        size_t bad = 0;
        int n = atoi(argv[2]);

        if (me == 0)
            plan(1);
        for (int i = 0; i < n; i++)
            bad += mix ? mixed(sizes[2], (unsigned)i)
                       : exchange(MPI_BYTE, (int)sizes[2], sizes[2], 1, 1, (unsigned)i);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (me == 0)
            CHECK_EQ_LONG(bad, 0, "%d exchanges of %zu bytes each way%s: wrong bytes", n, sizes[2],
                          mix ? " beside 64 small messages each" : "");
        MPI_Finalize();
        return me == 0 && tap_failed != 0;
    }
    if (argc > 2) {
        bandwidth(size_arg(argv[1]), atoi(argv[2]));
        MPI_Finalize();
        return 0;
    }
    if (me == 0)
        plan(4);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t bad = exchange(MPI_BYTE, (int)sizes[k], sizes[k], 1, 1, (unsigned)k);

        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (me == 0)
            CHECK_EQ_LONG(bad, 0, "%zu bytes each way: wrong bytes at the two ranks", sizes[k]);
    }
    MPI_Datatype vec;
    const int blocks = 300000, blen = 40, stride = 56; /* 12 MB in 16.8 MB */
    size_t bad;

    MPI_Type_vector(blocks, blen, stride, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    bad = exchange(vec, 1, (size_t)blocks * stride, (size_t)blen, (size_t)stride, 9);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        CHECK_EQ_LONG(bad, 0, "vector of %d blocks of %d each way: blocks and gaps", blocks, blen);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return me == 0 && tap_failed != 0;
}
