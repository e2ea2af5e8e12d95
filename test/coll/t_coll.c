/* Every collective against a serial reference computed on each rank: counts
 * 0, 1, small, across the algorithm switch points and up to 1 MiB; several
 * roots; MPI_IN_PLACE; blocking, non-blocking and persistent forms (a
 * persistent request is started several times with new data). Run by
 * t_matrix.sh over rank counts and forced algorithms. */
#include "../p2p/mpitest.h"

#include <stdbool.h>
#include <stdint.h>

enum form { BLOCKING, NONBLOCKING, PERSISTENT, NFORMS };
static const char *form_name[] = {"blocking", "non-blocking", "persistent"};

/* Vector lengths (ints) for bcast, reductions and scans, and block
 * lengths for the per-rank collectives; the largest is 1 MiB in all. */
static const size_t vcounts[] = {0, 1, 3, 65, 1000, 4099, 20000, 70001, 262144};
static const size_t bcounts[] = {0, 1, 3, 64, 1000, 5000, 40000};
#define NV (sizeof(vcounts) / sizeof(vcounts[0]))
#define NB (sizeof(bcounts) / sizeof(bcounts[0]))

static int val(int rank, size_t i, unsigned seed)
{
    return (int)((unsigned)rank * 1000003u + (unsigned)i * 7u + seed * 101u);
}

static int *ints(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof(int));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void poison(int *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = -0x5a5a5a5b;
}

static size_t diff(const int *got, const int *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            return i + 1;
    return 0;
}

#define CHECK(got, want, n, ...)                                                              \
    do {                                                                                      \
        size_t bad_ = diff(got, want, n);                                                     \
        mt_check(!bad_, "%s: element %zu of %zu: got %d want %d", __VA_ARGS__, bad_ - 1,      \
                 (size_t)(n), bad_ ? (got)[bad_ - 1] : 0, bad_ ? (want)[bad_ - 1] : 0);       \
    } while (0)

/* Runs one collective in the given form. `start` issues it: blocking
 * calls pass req NULL, others get a request to wait for. Persistent
 * requests are started `rounds` times, `refill` renewing the data. */
static MPI_Request preq;

static void finish(enum form f, MPI_Request *r)
{
    if (f != BLOCKING)
        MPI_Wait(r, MPI_STATUS_IGNORE);
}

static void done_persistent(enum form f)
{
    if (f == PERSISTENT)
        MPI_Request_free(&preq);
}

/* ---- bcast ---- */
static void t_bcast(enum form f, size_t n, int root, unsigned seed)
{
    int *b = ints(n), *w = ints(n);
    MPI_Request r;
    char what[96];

    for (int round = 0; round < (f == PERSISTENT ? 3 : 1); round++) {
        unsigned sd = seed + (unsigned)round;
        for (size_t i = 0; i < n; i++)
            w[i] = val(root, i, sd);
        if (mt_rank == root)
            memcpy(b, w, n * sizeof(int));
        else
            poison(b, n);
        if (f == BLOCKING)
            MPI_Bcast(b, (int)n, MPI_INT, root, MPI_COMM_WORLD);
        else if (f == NONBLOCKING)
            MPI_Ibcast(b, (int)n, MPI_INT, root, MPI_COMM_WORLD, &r);
        else {
            if (!round)
                MPI_Bcast_init(b, (int)n, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &preq);
            MPI_Start(&preq);
            r = preq;
        }
        finish(f, f == PERSISTENT ? &preq : &r);
        snprintf(what, sizeof(what), "bcast %s n=%zu root=%d", form_name[f], n, root);
        CHECK(b, w, n, what);
    }
    done_persistent(f);
    free(b);
    free(w);
}

/* ---- reduce / allreduce (MPI_SUM on ints, wrapping) ---- */
static void sum_ref(int *w, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        unsigned s = 0;
        for (int k = 0; k < mt_size; k++)
            s += (unsigned)val(k, i, seed);
        w[i] = (int)s;
    }
}

static void t_reduce(enum form f, size_t n, int root, bool all, bool inplace, unsigned seed)
{
    int *sb = ints(n), *rb = ints(n), *w = ints(n);
    bool ip = inplace && (all || mt_rank == root);
    MPI_Request r;
    char what[128];

    for (int round = 0; round < (f == PERSISTENT ? 3 : 1); round++) {
        unsigned sd = seed + (unsigned)round;
        for (size_t i = 0; i < n; i++)
            sb[i] = val(mt_rank, i, sd);
        poison(rb, n);
        if (ip)
            memcpy(rb, sb, n * sizeof(int));
        const void *s = ip ? MPI_IN_PLACE : sb;
        if (all) {
            if (f == BLOCKING)
                MPI_Allreduce(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            else if (f == NONBLOCKING)
                MPI_Iallreduce(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
            else if (!round)
                MPI_Allreduce_init(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &preq);
        } else {
            if (f == BLOCKING)
                MPI_Reduce(s, rb, (int)n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
            else if (f == NONBLOCKING)
                MPI_Ireduce(s, rb, (int)n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &r);
            else if (!round)
                MPI_Reduce_init(s, rb, (int)n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &preq);
        }
        if (f == PERSISTENT)
            MPI_Start(&preq);
        finish(f, f == PERSISTENT ? &preq : &r);
        snprintf(what, sizeof(what), "%s %s%s n=%zu root=%d", all ? "allreduce" : "reduce",
                 form_name[f], ip ? " in-place" : "", n, root);
        if (all || mt_rank == root) {
            sum_ref(w, n, sd);
            CHECK(rb, w, n, what);
        }
    }
    done_persistent(f);
    free(sb);
    free(rb);
    free(w);
}

/* ---- scan / exscan ---- */
static void t_scan(enum form f, size_t n, bool ex, bool inplace, unsigned seed)
{
    int *sb = ints(n), *rb = ints(n), *w = ints(n);
    MPI_Request r;
    char what[128];

    for (int round = 0; round < (f == PERSISTENT ? 3 : 1); round++) {
        unsigned sd = seed + (unsigned)round;
        for (size_t i = 0; i < n; i++)
            sb[i] = val(mt_rank, i, sd);
        poison(rb, n);
        if (inplace)
            memcpy(rb, sb, n * sizeof(int));
        const void *s = inplace ? MPI_IN_PLACE : sb;
        if (f == BLOCKING) {
            if (ex)
                MPI_Exscan(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            else
                MPI_Scan(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        } else if (f == NONBLOCKING) {
            if (ex)
                MPI_Iexscan(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
            else
                MPI_Iscan(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
        } else if (!round) {
            if (ex)
                MPI_Exscan_init(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &preq);
            else
                MPI_Scan_init(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &preq);
        }
        if (f == PERSISTENT)
            MPI_Start(&preq);
        finish(f, f == PERSISTENT ? &preq : &r);
        snprintf(what, sizeof(what), "%s %s%s n=%zu", ex ? "exscan" : "scan", form_name[f],
                 inplace ? " in-place" : "", n);
        if (ex && mt_rank == 0)
            continue;
        for (size_t i = 0; i < n; i++) {
            unsigned s2 = 0;
            for (int k = 0; k < (ex ? mt_rank : mt_rank + 1); k++)
                s2 += (unsigned)val(k, i, sd);
            w[i] = (int)s2;
        }
        CHECK(rb, w, n, what);
    }
    done_persistent(f);
    free(sb);
    free(rb);
    free(w);
}

/* ---- gather / scatter / allgather / alltoall (regular) ---- */
enum kind { GATHER, SCATTER, ALLGATHER, ALLTOALL };
static const char *kind_name[] = {"gather", "scatter", "allgather", "alltoall"};

static void t_blocks(enum kind k, enum form f, size_t n, int root, bool inplace, unsigned seed)
{
    size_t N = (size_t)mt_size * n;
    int *sb = ints(N), *rb = ints(N), *w = ints(N);
    bool me = mt_rank == root, ip = inplace && (k >= ALLGATHER || me);
    MPI_Request r;
    char what[128];
    int c = (int)n;

    for (int round = 0; round < (f == PERSISTENT ? 2 : 1); round++) {
        unsigned sd = seed + (unsigned)round;
        poison(rb, N);
        /* Send data: block j of rank q is val(q, j * n + i). */
        for (size_t i = 0; i < N; i++)
            sb[i] = val(mt_rank, i, sd);
        const void *s = sb;
        void *rv = rb;
        if (ip) {
            if (k == GATHER)
                memcpy(rb + (size_t)mt_rank * n, sb, n * sizeof(int));
            else if (k == ALLGATHER)
                memcpy(rb + (size_t)mt_rank * n, sb, n * sizeof(int));
            else if (k == ALLTOALL)
                memcpy(rb, sb, N * sizeof(int));
            if (k == SCATTER)
                rv = MPI_IN_PLACE;
            else
                s = MPI_IN_PLACE;
        }
        switch (k) {
        case GATHER:
            if (f == BLOCKING)
                MPI_Gather(s, c, MPI_INT, rv, c, MPI_INT, root, MPI_COMM_WORLD);
            else if (f == NONBLOCKING)
                MPI_Igather(s, c, MPI_INT, rv, c, MPI_INT, root, MPI_COMM_WORLD, &r);
            else if (!round)
                MPI_Gather_init(s, c, MPI_INT, rv, c, MPI_INT, root, MPI_COMM_WORLD,
                                MPI_INFO_NULL, &preq);
            break;
        case SCATTER:
            if (f == BLOCKING)
                MPI_Scatter(s, c, MPI_INT, rv, c, MPI_INT, root, MPI_COMM_WORLD);
            else if (f == NONBLOCKING)
                MPI_Iscatter(s, c, MPI_INT, rv, c, MPI_INT, root, MPI_COMM_WORLD, &r);
            else if (!round)
                MPI_Scatter_init(s, c, MPI_INT, rv, c, MPI_INT, root, MPI_COMM_WORLD,
                                 MPI_INFO_NULL, &preq);
            break;
        case ALLGATHER:
            if (f == BLOCKING)
                MPI_Allgather(s, c, MPI_INT, rv, c, MPI_INT, MPI_COMM_WORLD);
            else if (f == NONBLOCKING)
                MPI_Iallgather(s, c, MPI_INT, rv, c, MPI_INT, MPI_COMM_WORLD, &r);
            else if (!round)
                MPI_Allgather_init(s, c, MPI_INT, rv, c, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                   &preq);
            break;
        case ALLTOALL:
            if (f == BLOCKING)
                MPI_Alltoall(s, c, MPI_INT, rv, c, MPI_INT, MPI_COMM_WORLD);
            else if (f == NONBLOCKING)
                MPI_Ialltoall(s, c, MPI_INT, rv, c, MPI_INT, MPI_COMM_WORLD, &r);
            else if (!round)
                MPI_Alltoall_init(s, c, MPI_INT, rv, c, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                  &preq);
            break;
        }
        if (f == PERSISTENT)
            MPI_Start(&preq);
        finish(f, f == PERSISTENT ? &preq : &r);
        snprintf(what, sizeof(what), "%s %s%s n=%zu root=%d", kind_name[k], form_name[f],
                 ip ? " in-place" : "", n, root);
        switch (k) {
        case GATHER:
            if (!me)
                break;
            for (int q = 0; q < mt_size; q++)
                for (size_t i = 0; i < n; i++)
                    w[(size_t)q * n + i] = val(q, i, sd);
            CHECK(rb, w, N, what);
            break;
        case SCATTER:
            for (size_t i = 0; i < n; i++)
                w[i] = val(root, (size_t)mt_rank * n + i, sd);
            if (ip)
                CHECK(sb + (size_t)mt_rank * n, w, n, what);
            else
                CHECK(rb, w, n, what);
            break;
        case ALLGATHER:
            for (int q = 0; q < mt_size; q++)
                for (size_t i = 0; i < n; i++)
                    w[(size_t)q * n + i] = val(q, i, sd);
            CHECK(rb, w, N, what);
            break;
        case ALLTOALL:
            for (int q = 0; q < mt_size; q++)
                for (size_t i = 0; i < n; i++)
                    w[(size_t)q * n + i] = val(q, (size_t)mt_rank * n + i, sd);
            CHECK(rb, w, N, what);
            break;
        }
    }
    done_persistent(f);
    free(sb);
    free(rb);
    free(w);
}

int main(int argc, char **argv)
{
    const char *only = getenv("MT_ONLY");
    unsigned seed = 1;

    mt_init(&argc, &argv);
    for (int f = 0; f < NFORMS; f++) {
        for (size_t ci = 0; ci < NV; ci++) {
            size_t n = vcounts[ci];
            /* The largest size once per collective, blocking only. */
            if (ci == NV - 1 && f != BLOCKING)
                continue;
            for (int root = 0; root < mt_size; root += (mt_size > 2 ? mt_size / 2 : 1)) {
                if (!only || strstr(only, "bcast"))
                    t_bcast(f, n, root, seed++);
                if (!only || strstr(only, "reduce"))
                    t_reduce(f, n, root, false, root & 1, seed++);
                if (ci == NV - 1)
                    break;
            }
            if (!only || strstr(only, "allreduce")) {
                t_reduce(f, n, 0, true, false, seed++);
                t_reduce(f, n, 0, true, true, seed++);
            }
            if (!only || strstr(only, "scan")) {
                t_scan(f, n, false, ci & 1, seed++);
                t_scan(f, n, true, !(ci & 1), seed++);
            }
        }
        for (size_t ci = 0; ci < NB; ci++) {
            size_t n = bcounts[ci];
            if (ci == NB - 1) {
                if (f != BLOCKING)
                    continue;
                n = 262144 / (size_t)mt_size;
            }
            for (int k = 0; k < 4; k++) {
                if (only && !strstr(only, kind_name[k]))
                    continue;
                int root = (int)(ci % (size_t)mt_size);
                t_blocks(k, f, n, root, false, seed++);
                t_blocks(k, f, n, (root + 1) % mt_size, true, seed++);
            }
        }
    }
    return mt_finish("t_coll");
}
