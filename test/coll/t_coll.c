/* Every collective against a serial reference computed on each rank: counts
 * 0, 1, small, across the algorithm switch points and up to 1 MiB; several
 * roots; MPI_IN_PLACE; blocking, non-blocking and persistent forms (a
 * persistent request is started several times with new data); a bcast
 * with vectors on some ranks and plain ints on others. Run by
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

#define CHECK(got, want, n, ...)                                                                   \
    do {                                                                                           \
        size_t bad_ = diff(got, want, n);                                                          \
        CHECK_TRUE(!bad_, "%s: element %zu of %zu: got %d want %d", __VA_ARGS__, bad_ - 1,         \
                   (size_t)(n), bad_ ? (got)[bad_ - 1] : 0, bad_ ? (want)[bad_ - 1] : 0);          \
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

/* One signature, two layouts: odd ranks pass n vectors of 3 ints in 4
 * (an element of 12 bytes), even ranks 3n plain ints. Algorithms that
 * segment the message must cut every rank's alike, whatever its type. */
static void t_bcast_mixed(enum form f, size_t n, int root, unsigned seed)
{
    size_t m = 3 * n;
    int *b = ints(4 * n), *w = ints(m), odd = mt_rank & 1;
    MPI_Datatype v;
    MPI_Request r;
    char what[96];

    MPI_Type_vector(1, 3, 4, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 4 * sizeof(int), &v);
    MPI_Type_commit(&v);
    poison(b, 4 * n);
    for (size_t i = 0; i < m; i++) {
        w[i] = val(root, i, seed);
        if (mt_rank == root)
            b[odd ? i / 3 * 4 + i % 3 : i] = w[i];
    }
    if (f == BLOCKING)
        MPI_Bcast(b, (int)(odd ? n : m), odd ? v : MPI_INT, root, MPI_COMM_WORLD);
    else
        MPI_Ibcast(b, (int)(odd ? n : m), odd ? v : MPI_INT, root, MPI_COMM_WORLD, &r);
    if (f != BLOCKING)
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (odd)
        for (size_t i = 0; i < n; i++)
            memmove(b + 3 * i, b + 4 * i, 3 * sizeof(int));
    snprintf(what, sizeof(what), "bcast %s n=%zu root=%d, vectors on odd ranks", form_name[f], m,
             root);
    CHECK(b, w, m, what);
    MPI_Type_free(&v);
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
                MPI_Allreduce_init(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                   &preq);
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
                MPI_Gather_init(s, c, MPI_INT, rv, c, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &preq);
            break;
        case SCATTER:
            if (f == BLOCKING)
                MPI_Scatter(s, c, MPI_INT, rv, c, MPI_INT, root, MPI_COMM_WORLD);
            else if (f == NONBLOCKING)
                MPI_Iscatter(s, c, MPI_INT, rv, c, MPI_INT, root, MPI_COMM_WORLD, &r);
            else if (!round)
                MPI_Scatter_init(s, c, MPI_INT, rv, c, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &preq);
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

/* ---- reduce_scatter_block / reduce_scatter (MPI_SUM) ---- */
static void t_redscat(enum form f, size_t n, bool block, bool inplace, unsigned seed)
{
    int *counts = malloc((size_t)mt_size * sizeof(int));
    size_t total = 0, disp = 0;
    MPI_Request r;
    char what[128];

    for (int q = 0; q < mt_size; q++) {
        counts[q] = block ? (int)n : (int)((size_t)(q % 3) * n / 2 + (q == 1));
        if (q < mt_rank)
            disp += (size_t)counts[q];
        total += (size_t)counts[q];
    }
    int *sb = ints(total), *rb = ints(total), *w = ints(total);
    for (int round = 0; round < (f == PERSISTENT ? 2 : 1); round++) {
        unsigned sd = seed + (unsigned)round;
        for (size_t i = 0; i < total; i++)
            sb[i] = val(mt_rank, i, sd);
        poison(rb, total);
        if (inplace)
            memcpy(rb, sb, total * sizeof(int));
        const void *s = inplace ? MPI_IN_PLACE : sb;
        if (block) {
            if (f == BLOCKING)
                MPI_Reduce_scatter_block(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            else if (f == NONBLOCKING)
                MPI_Ireduce_scatter_block(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
            else if (!round)
                MPI_Reduce_scatter_block_init(s, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                              MPI_INFO_NULL, &preq);
        } else {
            if (f == BLOCKING)
                MPI_Reduce_scatter(s, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            else if (f == NONBLOCKING)
                MPI_Ireduce_scatter(s, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
            else if (!round)
                MPI_Reduce_scatter_init(s, rb, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                        MPI_INFO_NULL, &preq);
        }
        if (f == PERSISTENT)
            MPI_Start(&preq);
        finish(f, f == PERSISTENT ? &preq : &r);
        snprintf(what, sizeof(what), "reduce_scatter%s %s%s n=%zu", block ? "_block" : "",
                 form_name[f], inplace ? " in-place" : "", n);
        for (size_t i = 0; i < (size_t)counts[mt_rank]; i++) {
            unsigned t = 0;
            for (int k = 0; k < mt_size; k++)
                t += (unsigned)val(k, disp + i, sd);
            w[i] = (int)t;
        }
        CHECK(rb, w, (size_t)counts[mt_rank], what);
    }
    done_persistent(f);
    free(sb);
    free(rb);
    free(w);
    free(counts);
}

/* ---- the v and w forms: uneven counts (some zero), blocks stored in
 * reverse rank order with gaps ---- */
static int vcount(int q, size_t n)
{
    return (int)((size_t)(q % 3) * n / 2 + (q == 1));
}

static void t_vforms(enum form f, size_t n, int root, bool inplace, unsigned seed)
{
    int P = mt_size, *rc = malloc((size_t)P * sizeof(int)), *rd = malloc((size_t)P * sizeof(int));
    int *sc = malloc((size_t)P * sizeof(int)), *sd2 = malloc((size_t)P * sizeof(int));
    int *wd = malloc((size_t)P * sizeof(int)), *wrd = malloc((size_t)P * sizeof(int));
    MPI_Datatype *ty = malloc((size_t)P * sizeof(MPI_Datatype));
    size_t span = 0, sspan = 0, me = (size_t)vcount(mt_rank, n);
    MPI_Request r;
    char what[128];

    /* Receive layout: block q (vcount(q) ints) at rd[q], reverse order, gap 2. */
    for (int q = P - 1; q >= 0; q--) {
        rc[q] = vcount(q, n);
        rd[q] = (int)span;
        span += (size_t)rc[q] + 2;
    }
    /* Alltoallv send layout: to rank q go vcount(mt_rank) ints... (signatures
     * must match: q receives vcount(mt_rank) from us). */
    for (int q = P - 1; q >= 0; q--) {
        sc[q] = (int)me;
        sd2[q] = (int)sspan;
        sspan += me + 1;
    }
    int *sb = ints(sspan + span + me), *rb = ints(span), *w = ints(span);
    for (int round = 0; round < (f == PERSISTENT ? 2 : 1); round++) {
        unsigned sd = seed + (unsigned)round;
        for (size_t i = 0; i < sspan + span + me; i++)
            sb[i] = val(mt_rank, i, sd);
        for (int step = 0; step < 5; step++) {
            bool ip = inplace && (step != 0 || mt_rank == root) && step != 1;
            poison(rb, span);
            /* step 0 gatherv, 1 scatterv, 2 allgatherv, 3 alltoallv, 4 alltoallw */
            if (ip && (step == 0 || step == 2))
                memcpy(rb + rd[mt_rank], sb, me * sizeof(int));
            if (ip && step >= 3)
                for (int q = 0; q < P; q++)
                    for (int i = 0; i < rc[q]; i++)
                        rb[rd[q] + i] = sb[sd2[q] + i];
            const void *s = ip ? MPI_IN_PLACE : sb;
            for (int q = 0; q < P; q++) {
                ty[q] = MPI_INT;
                wd[q] = sd2[q] * (int)sizeof(int);
                wrd[q] = rd[q] * (int)sizeof(int);
            }
            switch (step) {
            case 0:
                if (f == BLOCKING)
                    MPI_Gatherv(s, (int)me, MPI_INT, rb, rc, rd, MPI_INT, root, MPI_COMM_WORLD);
                else if (f == NONBLOCKING)
                    MPI_Igatherv(s, (int)me, MPI_INT, rb, rc, rd, MPI_INT, root, MPI_COMM_WORLD,
                                 &r);
                else
                    MPI_Gatherv_init(s, (int)me, MPI_INT, rb, rc, rd, MPI_INT, root, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, &preq);
                break;
            case 1:
                /* The root scatters blocks vcount(q) from its send buffer (rd layout). */
                if (f == BLOCKING)
                    MPI_Scatterv(sb, rc, rd, MPI_INT, rb, (int)me, MPI_INT, root, MPI_COMM_WORLD);
                else if (f == NONBLOCKING)
                    MPI_Iscatterv(sb, rc, rd, MPI_INT, rb, (int)me, MPI_INT, root, MPI_COMM_WORLD,
                                  &r);
                else
                    MPI_Scatterv_init(sb, rc, rd, MPI_INT, rb, (int)me, MPI_INT, root,
                                      MPI_COMM_WORLD, MPI_INFO_NULL, &preq);
                break;
            case 2:
                if (f == BLOCKING)
                    MPI_Allgatherv(s, (int)me, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
                else if (f == NONBLOCKING)
                    MPI_Iallgatherv(s, (int)me, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD, &r);
                else
                    MPI_Allgatherv_init(s, (int)me, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD,
                                        MPI_INFO_NULL, &preq);
                break;
            case 3:
                /* Receive vcount(q) from q; send vcount(me) to each. In place
                 * needs symmetric counts, so there each block is min. */
                if (ip) {
                    for (int q = 0; q < P; q++)
                        rc[q] = vcount(q, n) < (int)me ? vcount(q, n) : (int)me;
                }
                if (f == BLOCKING)
                    MPI_Alltoallv(ip ? MPI_IN_PLACE : sb, sc, sd2, MPI_INT, rb, rc, rd, MPI_INT,
                                  MPI_COMM_WORLD);
                else if (f == NONBLOCKING)
                    MPI_Ialltoallv(ip ? MPI_IN_PLACE : sb, sc, sd2, MPI_INT, rb, rc, rd, MPI_INT,
                                   MPI_COMM_WORLD, &r);
                else
                    MPI_Alltoallv_init(ip ? MPI_IN_PLACE : sb, sc, sd2, MPI_INT, rb, rc, rd,
                                       MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &preq);
                break;
            case 4:
                if (ip) {
                    for (int q = 0; q < P; q++)
                        rc[q] = vcount(q, n) < (int)me ? vcount(q, n) : (int)me;
                }
                if (f == BLOCKING)
                    MPI_Alltoallw(ip ? MPI_IN_PLACE : sb, sc, wd, ty, rb, rc, wrd, ty,
                                  MPI_COMM_WORLD);
                else if (f == NONBLOCKING)
                    MPI_Ialltoallw(ip ? MPI_IN_PLACE : sb, sc, wd, ty, rb, rc, wrd, ty,
                                   MPI_COMM_WORLD, &r);
                else
                    MPI_Alltoallw_init(ip ? MPI_IN_PLACE : sb, sc, wd, ty, rb, rc, wrd, ty,
                                       MPI_COMM_WORLD, MPI_INFO_NULL, &preq);
                break;
            }
            if (f == PERSISTENT) {
                MPI_Start(&preq);
                MPI_Wait(&preq, MPI_STATUS_IGNORE);
                MPI_Request_free(&preq);
            } else {
                finish(f, &r);
            }
            static const char *names[] = {"gatherv", "scatterv", "allgatherv", "alltoallv",
                                          "alltoallw"};
            snprintf(what, sizeof(what), "%s %s%s n=%zu root=%d", names[step], form_name[f],
                     ip ? " in-place" : "", n, root);
            memcpy(w, rb, span * sizeof(int));
            switch (step) {
            case 0:
                if (mt_rank != root)
                    break;
                for (int q = 0; q < P; q++)
                    for (int i = 0; i < rc[q]; i++)
                        w[rd[q] + i] = val(q, (size_t)i, sd);
                break;
            case 1:
                for (size_t i = 0; i < me; i++)
                    w[i] = val(root, (size_t)rd[mt_rank] + i, sd);
                break;
            case 2:
                for (int q = 0; q < P; q++)
                    for (int i = 0; i < rc[q]; i++)
                        w[rd[q] + i] = val(q, (size_t)i, sd);
                break;
            default:
                /* Block from q: q's send block for us, at q's sd2[mt_rank]. */
                for (int q = 0; q < P; q++) {
                    size_t qme = (size_t)vcount(q, n), qspan = 0, at = 0;
                    for (int k = P - 1; k >= 0; k--) {
                        if (k == mt_rank)
                            at = qspan;
                        qspan += qme + 1;
                    }
                    for (int i = 0; i < rc[q]; i++)
                        w[rd[q] + i] = val(q, at + (size_t)i, sd);
                }
                for (int q = 0; q < P; q++)
                    rc[q] = vcount(q, n);
                break;
            }
            CHECK(rb, w, span, what);
        }
    }
    free(sb);
    free(rb);
    free(w);
    free(rc);
    free(rd);
    free(sc);
    free(sd2);
    free(wd);
    free(wrd);
    free(ty);
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
                if ((!only || strstr(only, "bcast")) && f != PERSISTENT)
                    t_bcast_mixed(f, n, root, seed++);
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
            if (!only || strstr(only, "reduce_scatter")) {
                t_redscat(f, n, true, ci & 1, seed++);
                t_redscat(f, n, false, !(ci & 1), seed++);
            }
            if (!only || strstr(only, "v"))
                t_vforms(f, n, (int)(ci % (size_t)mt_size), ci & 1, seed++);
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
