/* The shared-segment path of small blocking collectives (coll/coll_shm*.c):
 * a root running many collectives ahead of slow readers (slots are reused
 * only once every rank has read them); a non-commutative operation on a
 * predefined type, whose result proves rank order (also for a reduce and
 * an allreduce in pieces when ranks outnumber cores); bcast with different
 * datatypes of one signature on different ranks; pair types with gaps;
 * MPI_IN_PLACE; blocking collectives on the segment interleaved with
 * non-blocking ones and point-to-point traffic; and communicators that set
 * a segment up and are freed, many times; a barrier after bcasts that
 * left its numbers in the slots. Larger allgathers and
 * alltoalls (read directly on two ranks with a core each, else by
 * messages) with contiguous and strided layouts on either side and in
 * place; larger two-rank reduces and allreduces read each other's buffers
 * directly: reduces cut into pieces and shared between the ranks, pair
 * types with gaps; two-rank 4-16 KiB collectives by either way;
 * alltoallv and alltoallw through the slots and by messages. Run with
 * RDMPI_COLL_SHM_AFTER=0 so every call takes the path, and with
 * RDMPI_COLL_SHM=0 and RDMPI_COLL_SHM_DIRECT=0 as controls. */
#include "../p2p/mpitest.h"

#include <stdint.h>
#include <time.h>
#include <unistd.h>

/* a op b = the digits of a followed by those of b: associative, not
 * commutative. Values are digit strings without zeros. */
static void concat(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    long long *a = in, *b = inout;

    (void)dt;
    for (int i = 0; i < *len; i++) {
        long long p = 1;
        while (p <= b[i])
            p *= 10;
        b[i] = a[i] * p + b[i];
    }
}

static long long digits(int n, int first)
{
    long long v = 0;

    for (int r = 0; r < n; r++)
        v = v * 10 + (first + r) % 9 + 1;
    return v;
}

static void run_ahead(MPI_Comm comm, int me, int n)
{
    int v[4];

    /* The root races ahead while the others sleep: it must wait for
     * free slots, never overwrite an unread one. */
    for (int i = 0; i < 200; i++) {
        if (me && i == 3)
            usleep(20000);
        for (int k = 0; k < 4; k++)
            v[k] = me == 1 % n ? i * 4 + k : -1;
        MPI_Bcast(v, 4, MPI_INT, 1 % n, comm);
        for (int k = 0; k < 4; k++)
            if (v[k] != i * 4 + k) {
                CHECK_TRUE(0, "bcast %d: element %d is %d", i, k, v[k]);
                return;
            }
    }
}

static void order(MPI_Comm comm, int me, int n)
{
    MPI_Op op;
    long long x[3], y[3];

    MPI_Op_create(concat, 0, &op);
    for (int i = 0; i < 40; i++) {
        for (int k = 0; k < 3; k++)
            x[k] = (me + k + i) % 9 + 1;
        MPI_Allreduce(x, y, 3, MPI_LONG_LONG, op, comm);
        for (int k = 0; k < 3 && n <= 18; k++)
            CHECK_EQ_LONG(y[k], digits(n, k + i), "allreduce %d[%d]: %lld, want %lld", i, k, y[k],
                          digits(n, k + i));
        x[0] = (me + i) % 9 + 1;
        if (me == i % n) {
            y[0] = x[0];
            MPI_Reduce(MPI_IN_PLACE, y, 1, MPI_LONG_LONG, op, i % n, comm);
            CHECK_TRUE(n > 18 || y[0] == digits(n, i), "reduce %d at root %d: %lld", i, i % n,
                       y[0]);
        } else {
            MPI_Reduce(x, NULL, 1, MPI_LONG_LONG, op, i % n, comm);
        }
        /* Not in place: the root folds its own data from its buffer. */
        y[1] = -1;
        MPI_Reduce(x, &y[1], 1, MPI_LONG_LONG, op, (i + 1) % n, comm);
        CHECK_TRUE(me != (i + 1) % n || n > 18 || y[1] == digits(n, i),
                   "reduce %d at root %d not in place: %lld", i, (i + 1) % n, y[1]);
    }
    /* 24 KB: in slot-sized pieces when ranks outnumber cores. */
    enum { BIG = 3000 };
    long long *bx = malloc(BIG * sizeof(*bx)), *by = malloc(BIG * sizeof(*by));
    for (int k = 0; k < BIG; k++)
        bx[k] = (me + k) % 9 + 1;
    MPI_Reduce(bx, by, BIG, MPI_LONG_LONG, op, n - 1, comm);
    for (int k = 0; me == n - 1 && n <= 18 && k < BIG; k++)
        if (by[k] != digits(n, k)) {
            CHECK_TRUE(0, "24 KB reduce [%d]: %lld, want %lld", k, by[k], digits(n, k));
            break;
        }
    /* 12 KB to rank 0: through the slots in pieces even with a core per
     * rank, the root folding its own piece from its buffer. */
    for (int k = 0; k < BIG; k++)
        by[k] = -1;
    MPI_Reduce(bx, by, BIG / 2, MPI_LONG_LONG, op, 0, comm);
    for (int k = 0; me == 0 && n <= 18 && k < BIG / 2; k++)
        if (by[k] != digits(n, k)) {
            CHECK_TRUE(0, "12 KB reduce [%d]: %lld, want %lld", k, by[k], digits(n, k));
            break;
        }
    /* And an allreduce of it in place (to rank 0 and back out). */
    for (int k = 0; k < BIG; k++)
        bx[k] = (me + k) % 9 + 1;
    MPI_Allreduce(MPI_IN_PLACE, bx, BIG, MPI_LONG_LONG, op, comm);
    for (int k = 0; n <= 18 && k < BIG; k++)
        if (bx[k] != digits(n, k)) {
            CHECK_TRUE(0, "24 KB allreduce [%d]: %lld, want %lld", k, bx[k], digits(n, k));
            break;
        }
    free(bx);
    free(by);
    /* 160 KB, beyond the slots: rank order still holds. */
    enum { HUGE = 20000 };
    bx = malloc(HUGE * sizeof(*bx));
    by = malloc(HUGE * sizeof(*by));
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int k = 0; k < HUGE; k++)
            bx[k] = by[k] = (me + k) % 9 + 1;
        MPI_Allreduce(inplace ? MPI_IN_PLACE : bx, by, HUGE, MPI_LONG_LONG, op, comm);
        for (int k = 0; n <= 18 && k < HUGE; k++)
            if (by[k] != digits(n, k)) {
                CHECK_TRUE(0, "160 KB allreduce%s [%d]: %lld, want %lld",
                           inplace ? " in place" : "", k, by[k], digits(n, k));
                break;
            }
    }
    free(bx);
    free(by);
    MPI_Op_free(&op);
}

static void types(MPI_Comm comm, int me, int n)
{
    struct {
        double v;
        int i;
    } p[5], q[5];
    int b[64], e[64];
    MPI_Datatype vec;

    /* Root sends 32 contiguous ints; the others receive them strided. */
    MPI_Type_vector(32, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int k = 0; k < 64; k++)
        b[k] = me ? -1 : k;
    if (me)
        MPI_Bcast(b, 1, vec, 0, comm);
    else
        MPI_Bcast(b, 32, MPI_INT, 0, comm);
    for (int k = 0; k < 64; k++)
        e[k] = me ? (k % 2 ? -1 : k / 2) : k;
    CHECK_EQ_MEM(b, e, sizeof(b), "bcast of one signature in two layouts");
    MPI_Type_free(&vec);

    /* The same, 12 KB (two pieces on 2 ranks) and 80 KB (in slot-sized
     * pieces when ranks outnumber cores), each piece cut at an arbitrary
     * point of the strided layout. */
    for (int big_n = 3001; big_n < 30000; big_n += 16999) {
        int *big = malloc(2 * (size_t)big_n * sizeof(int));
        MPI_Type_vector(big_n, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        for (int k = 0; k < 2 * big_n; k++)
            big[k] = me ? -1 : k * 3;
        MPI_Bcast(big, me ? 1 : big_n, me ? vec : MPI_INT, 0, comm);
        for (int k = 0; k < 2 * big_n; k++) {
            int want = !me ? k * 3 : k % 2 ? -1 : k / 2 * 3;
            if (big[k] != want) {
                CHECK_TRUE(0, "%d-int bcast: element %d is %d, want %d", big_n, k, big[k], want);
                break;
            }
        }
        MPI_Type_free(&vec);
        free(big);
    }

    for (int k = 0; k < 5; k++) {
        p[k].v = (me * 7 + k * 3) % n;
        p[k].i = me;
    }
    MPI_Allreduce(p, q, 5, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    for (int k = 0; k < 5; k++) {
        int max = -1, at = -1;
        for (int r = 0; r < n; r++)
            if ((r * 7 + k * 3) % n > max) {
                max = (r * 7 + k * 3) % n;
                at = r;
            }
        CHECK_ALL ("maxloc[%d]: (%g, %d), want (%d, %d)", k, q[k].v, q[k].i, max, at) {
            CHECK_TRUE(q[k].v == max);
            CHECK_EQ_INT(q[k].i, at);
        }
    }
}

/* Allgather and alltoall larger than a slot: in pieces when ranks
 * outnumber cores, piece boundaries falling inside blocks. */
static void gathers(MPI_Comm comm, int me, int n)
{
    enum { AG = 3001, AA = 701 }; /* ints per block: 12 KB and 2.8 KB */
    int *s = malloc((size_t)n * AG * sizeof(int)), *r = malloc((size_t)n * AG * sizeof(int));

    for (int k = 0; k < AG; k++)
        s[k] = me * 100000 + k;
    MPI_Allgather(s, AG, MPI_INT, r, AG, MPI_INT, comm);
    for (int k = 0; k < n * AG; k++)
        if (r[k] != k / AG * 100000 + k % AG) {
            CHECK_TRUE(0, "allgather: element %d is %d", k, r[k]);
            break;
        }
    for (int k = 0; k < n * AG; k++)
        r[k] = k / AG == me ? me * 100000 + k % AG : -1;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, AG, MPI_INT, comm);
    for (int k = 0; k < n * AG; k++)
        if (r[k] != k / AG * 100000 + k % AG) {
            CHECK_TRUE(0, "allgather in place: element %d is %d", k, r[k]);
            break;
        }
    for (int k = 0; k < n * AA; k++)
        s[k] = me * 1000000 + k;
    MPI_Alltoall(s, AA, MPI_INT, r, AA, MPI_INT, comm);
    for (int k = 0; k < n * AA; k++)
        if (r[k] != k / AA * 1000000 + me * AA + k % AA) {
            CHECK_TRUE(0, "alltoall: element %d is %d", k, r[k]);
            break;
        }
    free(s);
    free(r);
}

/* Beyond the slots: 160 KB blocks (more than n/2 slots of up to 64 KB
 * per rank), the receiver's or the sender's layout strided on alternate
 * ranks: read directly on two ranks with a core each, else by messages. */
static void large_gathers(MPI_Comm comm, int me, int n)
{
    enum { B = 40000 }; /* ints per block */
    int *s = malloc((size_t)n * B * 2 * sizeof(int)), *r = malloc((size_t)n * B * 2 * sizeof(int));
    MPI_Datatype vec, blk;

    MPI_Type_vector(B, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * B * sizeof(int)), &blk);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&blk);
    for (int strided = 0; strided < 2; strided++) {
        int odd = strided && me % 2;
        for (int k = 0; k < 2 * B; k++)
            s[k] = odd ? (k % 2 ? -7 : me * 100000 + k / 2) : me * 100000 + k;
        for (int k = 0; k < n * B * 2; k++)
            r[k] = -1;
        /* Odd ranks send strided and receive strided (every other int of
         * blocks twice as long); even ones contiguous. */
        MPI_Allgather(s, odd ? 1 : B, odd ? vec : MPI_INT, r, odd ? 1 : B, odd ? blk : MPI_INT,
                      comm);
        for (int k = 0; k < n * B; k++) {
            int got = odd ? r[2 * k] : r[k];
            if (got != k / B * 100000 + k % B) {
                CHECK_TRUE(0, "160 KB allgather (%s): element %d is %d", odd ? "strided" : "contig",
                           k, got);
                break;
            }
        }
    }
    for (int k = 0; k < n * B; k++)
        r[k] = k / B == me ? me * 100000 + k % B : -1;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, B, MPI_INT, comm);
    for (int k = 0; k < n * B; k++)
        if (r[k] != k / B * 100000 + k % B) {
            CHECK_TRUE(0, "160 KB allgather in place: element %d is %d", k, r[k]);
            break;
        }
    for (int k = 0; k < n * B; k++)
        s[k] = me * 1000000 + k;
    for (int k = 0; k < n * B * 2; k++)
        r[k] = -1;
    MPI_Alltoall(s, B, MPI_INT, r, me % 2 ? 1 : B, me % 2 ? blk : MPI_INT, comm);
    for (int k = 0; k < n * B; k++) {
        int got = me % 2 ? r[k / B * 2 * B + 2 * (k % B)] : r[k];
        if (got != k / B * 1000000 + me * B + k % B) {
            CHECK_TRUE(0, "160 KB alltoall: element %d is %d", k, got);
            break;
        }
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&blk);
    free(s);
    free(r);
}

/* Two ranks with a core each, 4-16 KiB (8-16 KiB for reduces;
 * coll/coll_shm_two.c), and on to 32 KiB (bcast: halves read and
 * written at once; coll_shm_direct.c): each call
 * goes through the writer's slot or by a read of its buffer, as the
 * reader last measured faster, trying the other every 32 calls
 * (RDMPI_COLL_SHM_TWO_WAY forces one). Many calls, fresh data in each,
 * so that both ways and the switches between them must carry the right
 * bytes: bcasts from either root, strided or not, to a strided receiver
 * or not,
 * allgathers and alltoalls with a strided receiver, reduces to either
 * root, and in place. */
static int val(int it, int from, int to, int k)
{
    return ((it * 16 + from) * 16 + to) * 4096 + k;
}

/* Affine maps x -> a x + b as MPI_2INT, composed: associative, not
 * commutative, so an allreduce's result proves the rank order. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *f = in, *g = inout;

    (void)dt;
    for (int i = 0; i < *len; i++, f += 2, g += 2) {
        g[1] = f[0] * g[1] + f[1];
        g[0] *= f[0];
    }
}

/* Allreduces of m / 2 MPI_2INT pairs by `compose` (in place on odd
 * iterations), then of m ints by MPI_SUM, each checked on every rank. */
static int two_allreduce(MPI_Comm comm, int me, int n, int m, int it, MPI_Op op, int *s, int *r)
{
    int p = m / 2, inplace = it % 2, bad = 0;

    for (int k = 0; k < p; k++) {
        s[2 * k] = r[2 * k] = 1 + (it + me + k) % 2;
        s[2 * k + 1] = r[2 * k + 1] = (it + me * 7 + k) % 100;
    }
    MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, p, MPI_2INT, op, comm);
    for (int k = 0; k < p; k++) {
        int a = 1, b = 0;

        for (int q = n - 1; q >= 0; q--) {
            int fa = 1 + (it + q + k) % 2, fb = (it + q * 7 + k) % 100;

            b = fa * b + fb;
            a *= fa;
        }
        if (r[2 * k] != a || r[2 * k + 1] != b) {
            CHECK_TRUE(0, "%d-pair allreduce %d: [%d] is (%d, %d), want (%d, %d)", p, it, k,
                       r[2 * k], r[2 * k + 1], a, b);
            bad = 1;
            break;
        }
    }
    for (int k = 0; k < m; k++)
        s[k] = r[k] = val(it, me, 0, k) % 1000;
    MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, m, MPI_INT, MPI_SUM, comm);
    for (int k = 0; k < m; k++) {
        int want = 0;

        for (int q = 0; q < n; q++)
            want += val(it, q, 0, k) % 1000;
        if (r[k] != want) {
            CHECK_TRUE(0, "%d-int allreduce %d: [%d] is %d, want %d", m, it, k, r[k], want);
            bad = 1;
            break;
        }
    }
    return bad;
}

/* Reduce_scatter through the slots and beyond: rank q gets (q + it) % 3
 * units of pairs (some none) folded by `compose`, whose result shows the
 * rank order; then the block form by MPI_SUM; in place on odd
 * iterations (the input in recvbuf, the result at its start). */
static void reduce_scatters(MPI_Comm comm, int me, int n)
{
    static const int unit[] = {1, 40, 500};
    int *cnt = malloc((size_t)n * sizeof(int));
    MPI_Op op;

    MPI_Op_create(compose, 0, &op);
    for (int z = 0; z < 3; z++)
        for (int it = 0; it < 6; it++) {
            int total = 0, at = 0, inplace = it % 2, u = unit[z], bad = 0;
            int *s, *r;

            for (int q = 0; q < n; q++) {
                cnt[q] = (q + it) % 3 * u;
                at = q == me ? total : at;
                total += cnt[q];
            }
            s = malloc((size_t)(2 * total + 2 * n * u + 2) * sizeof(int));
            r = malloc((size_t)(2 * total + 2 * n * u + 2) * sizeof(int));
            for (int k = 0; k < total; k++) {
                s[2 * k] = r[2 * k] = 1 + (it + me + k) % 2;
                s[2 * k + 1] = r[2 * k + 1] = (it + me * 7 + k) % 100;
            }
            MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : s, r, cnt, MPI_2INT, op, comm);
            for (int k = 0; k < cnt[me] && !bad; k++) {
                int a = 1, b = 0, e = at + k;

                for (int q = n - 1; q >= 0; q--) {
                    int fa = 1 + (it + q + e) % 2, fb = (it + q * 7 + e) % 100;

                    b = fa * b + fb;
                    a *= fa;
                }
                if (r[2 * k] != a || r[2 * k + 1] != b) {
                    CHECK_TRUE(0, "%d-pair reduce_scatter %d: [%d] is (%d, %d), want (%d, %d)",
                               total, it, k, r[2 * k], r[2 * k + 1], a, b);
                    bad = 1;
                }
            }
            for (int k = 0; k < n * u; k++)
                s[k] = r[k] = val(it, me, z, k) % 1000;
            MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : s, r, u, MPI_INT, MPI_SUM, comm);
            for (int k = 0; k < u && !bad; k++) {
                int want = 0;

                for (int q = 0; q < n; q++)
                    want += val(it, q, z, me * u + k) % 1000;
                if (r[k] != want) {
                    CHECK_TRUE(0, "%d-int reduce_scatter_block %d: [%d] is %d, want %d", u, it, k,
                               r[k], want);
                    bad = 1;
                }
            }
            free(s);
            free(r);
        }
    MPI_Op_free(&op);
    free(cnt);
}

/* Rank q's block: (q + it) % 3 units (some none), the blocks in reverse
 * rank order; returns their total. */
static int reverse_blocks(int *cnt, int *dis, int n, int it, int unit)
{
    int total = 0;

    for (int q = n - 1; q >= 0; q--) {
        cnt[q] = (q + it) % 3 * unit;
        dis[q] = total;
        total += cnt[q];
    }
    return total;
}

/* Allgatherv through the slots and beyond: rank q contributes (q + it)
 * % 3 units of ints (some none), stored in reverse rank order; in place
 * every third time; odd ranks send strided. */
static void allgathervs(MPI_Comm comm, int me, int n)
{
    static const int unit[] = {1, 300, 3000};
    int *cnt = malloc((size_t)n * sizeof(int)), *dis = malloc((size_t)n * sizeof(int));

    for (int z = 0; z < 3; z++)
        for (int it = 0; it < 6; it++) {
            int total = reverse_blocks(cnt, dis, n, it, unit[z]);
            int inplace = it % 3 == 2, odd = me % 2 && !inplace, bad = 0;
            int *s, *r;
            MPI_Datatype vec;

            s = malloc((size_t)(2 * cnt[me] + 1) * sizeof(int));
            r = malloc((size_t)(total + 1) * sizeof(int));
            MPI_Type_vector(cnt[me], 1, 2, MPI_INT, &vec);
            MPI_Type_commit(&vec);
            for (int k = 0; k < 2 * cnt[me]; k++)
                s[k] = odd ? (k % 2 ? -7 : val(it, me, z, k / 2)) : val(it, me, z, k);
            for (int k = 0; k < total; k++)
                r[k] = -1;
            for (int k = 0; inplace && k < cnt[me]; k++)
                r[dis[me] + k] = val(it, me, z, k);
            MPI_Allgatherv(inplace ? MPI_IN_PLACE : s, odd ? 1 : cnt[me], odd ? vec : MPI_INT, r,
                           cnt, dis, MPI_INT, comm);
            for (int q = 0; q < n && !bad; q++)
                for (int k = 0; k < cnt[q] && !bad; k++)
                    if (r[dis[q] + k] != val(it, q, z, k)) {
                        CHECK_TRUE(0, "allgatherv %d (unit %d): block %d [%d] is %d", it, unit[z],
                                   q, k, r[dis[q] + k]);
                        bad = 1;
                    }
            MPI_Type_free(&vec);
            free(s);
            free(r);
        }
    free(cnt);
    free(dis);
}

/* Gatherv and scatterv through the slots and by reads of the owner's
 * memory (blocks beyond a slot): rank q's block is (q + it) % 3 units of
 * ints (some none), in reverse rank order at the root, to the first and
 * the last rank, in place at the root every third time; odd non-roots
 * send and receive strided. */
static void rooted_v(MPI_Comm comm, int me, int n)
{
    static const int unit[] = {1, 300, 5000};
    int *cnt = malloc((size_t)n * sizeof(int)), *dis = malloc((size_t)n * sizeof(int));

    for (int z = 0; z < 3; z++)
        for (int it = 0; it < 6; it++) {
            int total = reverse_blocks(cnt, dis, n, it, unit[z]);
            int root = it % 2 ? n - 1 : 0, inplace = it % 3 == 2 && me == root;
            int odd = me % 2 && me != root, m, bad = 0;
            int *s, *r;
            MPI_Datatype vec;

            /* Every third time the root receives every other int (its
             * blocks not contiguous: the senders beyond a slot publish
             * their data for it to read). */
            int gap = it % 3 == 1 ? 2 : 1;
            MPI_Datatype spread, rt = MPI_INT;

            m = cnt[me];
            s = malloc((size_t)(2 * total + 2) * sizeof(int));
            r = malloc((size_t)(2 * total + 2) * sizeof(int));
            MPI_Type_vector(m, 1, 2, MPI_INT, &vec);
            MPI_Type_commit(&vec);
            MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)(2 * sizeof(int)), &spread);
            MPI_Type_commit(&spread);
            if (gap == 2)
                rt = spread;
            for (int k = 0; k < 2 * m; k++)
                s[k] = odd ? (k % 2 ? -7 : val(it, me, z, k / 2)) : val(it, me, z, k);
            for (int k = 0; k < 2 * total; k++)
                r[k] =
                    inplace && k >= dis[me] && k < dis[me] + m ? val(it, me, z, k - dis[me]) : -1;
            MPI_Gatherv(inplace ? MPI_IN_PLACE : s, odd ? 1 : m, odd ? vec : MPI_INT, r, cnt, dis,
                        rt, root, comm);
            for (int q = 0; me == root && q < n && !bad; q++)
                for (int k = 0; k < cnt[q] && !bad; k++)
                    if (r[gap * (dis[q] + k)] != val(it, q, z, k) ||
                        (gap == 2 && r[2 * (dis[q] + k) + 1] != -1)) {
                        CHECK_TRUE(0, "gatherv %d (unit %d) to %d: block %d [%d] is %d", it,
                                   unit[z], root, q, k, r[gap * (dis[q] + k)]);
                        bad = 1;
                    }
            MPI_Type_free(&spread);
            for (int k = 0; k < total; k++)
                s[k] = -1;
            for (int q = 0; me == root && q < n; q++)
                for (int k = 0; k < cnt[q]; k++)
                    s[dis[q] + k] = val(it, q, z, k + 1);
            for (int k = 0; k < 2 * m; k++)
                r[k] = -1;
            MPI_Scatterv(s, cnt, dis, MPI_INT, inplace ? MPI_IN_PLACE : r, odd ? 1 : m,
                         odd ? vec : MPI_INT, root, comm);
            for (int k = 0; !inplace && k < m && !bad; k++)
                if ((odd ? r[2 * k] : r[k]) != val(it, me, z, k + 1) ||
                    (odd && r[2 * k + 1] != -1)) {
                    CHECK_TRUE(0, "scatterv %d (unit %d) from %d: [%d] is %d", it, unit[z], root, k,
                               odd ? r[2 * k] : r[k]);
                    bad = 1;
                }
            MPI_Type_free(&vec);
            free(s);
            free(r);
        }
    free(cnt);
    free(dis);
}

/* Alltoallv and alltoallw with uneven blocks, a third of them empty, in
 * reverse rank order with gaps between them: all within a slot (of a
 * few bytes, or several KB), some beyond it (those go by messages) and
 * most beyond. Alltoallw
 * strides every other int on even ranks' send side and odd ranks'
 * receive side. */
static void alltoallvs(MPI_Comm comm, int me, int n)
{
    static const int unit[] = {1, 300, 1500, 5000, 20000};
    int *sc = malloc((size_t)n * 6 * sizeof(int)), *sd = sc + n, *rc = sd + n, *rd = rc + n;
    int *wsd = rd + n, *wrd = wsd + n;
    MPI_Datatype spread, *st = malloc((size_t)n * 2 * sizeof(MPI_Datatype)), *rt = st + n;
    int ss = me % 2 == 0, rs = me % 2;

    MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)(2 * sizeof(int)), &spread);
    MPI_Type_commit(&spread);
    for (int z = 0; z < 5; z++)
        for (int it = 0; it < 6; it++) {
            int key = it + 6 * z, stot = 0, rtot = 0, bad = 0;
            int *s, *r;

            for (int q = n - 1; q >= 0; q--) {
                sc[q] = (me + 2 * q + it) % 3 * unit[z];
                sd[q] = stot;
                stot += sc[q] + 1;
                rc[q] = (q + 2 * me + it) % 3 * unit[z];
                rd[q] = rtot;
                rtot += rc[q] + 1;
            }
            s = malloc((size_t)(2 * stot + 1) * sizeof(int));
            r = malloc((size_t)(2 * rtot + 1) * sizeof(int));
            for (int k = 0; k < 2 * stot + 1; k++)
                s[k] = -7;
            for (int k = 0; k < 2 * rtot + 1; k++)
                r[k] = -1;
            for (int q = 0; q < n; q++)
                for (int k = 0; k < sc[q]; k++)
                    s[sd[q] + k] = val(key, me, q, k);
            MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
            for (int q = 0; q < n && !bad; q++)
                for (int k = 0; k <= rc[q] && !bad; k++)
                    if (r[rd[q] + k] != (k < rc[q] ? val(key, q, me, k) : -1)) {
                        CHECK_TRUE(0, "alltoallv %d (unit %d): block %d [%d] is %d", it, unit[z], q,
                                   k, r[rd[q] + k]);
                        bad = 1;
                    }
            for (int k = 0; k < 2 * rtot + 1; k++)
                r[k] = -1;
            for (int q = 0; q < n; q++) {
                for (int k = 0; k < sc[q]; k++)
                    s[(ss + 1) * (sd[q] + k)] = val(key + 1, me, q, k);
                wsd[q] = (ss + 1) * sd[q] * (int)sizeof(int);
                wrd[q] = (rs + 1) * rd[q] * (int)sizeof(int);
                st[q] = ss ? spread : MPI_INT;
                rt[q] = rs ? spread : MPI_INT;
            }
            MPI_Alltoallw(s, sc, wsd, st, r, rc, wrd, rt, comm);
            for (int q = 0; q < n && !bad; q++)
                for (int k = 0; k < rc[q] && !bad; k++)
                    if (r[(rs + 1) * (rd[q] + k)] != val(key + 1, q, me, k) ||
                        (rs && r[2 * (rd[q] + k) + 1] != -1)) {
                        CHECK_TRUE(0, "alltoallw %d (unit %d): block %d [%d] is %d", it, unit[z], q,
                                   k, r[(rs + 1) * (rd[q] + k)]);
                        bad = 1;
                    }
            free(s);
            free(r);
        }
    MPI_Type_free(&spread);
    free(sc);
    free(st);
}

/* Gather and scatter through the slots (and beyond: 20 KB blocks, all
 * of which exceed a slot on 2 ranks with a core each), to the first and
 * the last rank, in place at the root every other time, odd ranks'
 * blocks strided (every other int). */
static void rooted(MPI_Comm comm, int me, int n)
{
    static const int ints[] = {1, 100, 1000, 2000, 5000};
    int *s = malloc((size_t)n * 10000 * sizeof(int)), *r = malloc((size_t)n * 10000 * sizeof(int));

    for (int z = 0; z < 5; z++)
        for (int it = 0; it < 8; it++) {
            int m = ints[z], root = it % 2 ? n - 1 : 0, inplace = it % 4 >= 2 && me == root;
            int odd = me % 2 && me != root, bad = 0;
            MPI_Datatype vec;

            MPI_Type_vector(m, 1, 2, MPI_INT, &vec);
            MPI_Type_commit(&vec);
            /* Gather: block q of the root's buffer from rank q. */
            for (int k = 0; k < 2 * m; k++)
                s[k] = odd ? (k % 2 ? -7 : val(it, me, z, k / 2)) : val(it, me, z, k);
            for (int k = 0; k < n * m; k++)
                r[k] = inplace && k / m == me ? val(it, me, z, k % m) : -1;
            MPI_Gather(inplace ? MPI_IN_PLACE : s, odd ? 1 : m, odd ? vec : MPI_INT, r, m, MPI_INT,
                       root, comm);
            for (int k = 0; me == root && k < n * m && !bad; k++)
                if (r[k] != val(it, k / m, z, k % m)) {
                    CHECK_TRUE(0, "%d-int gather %d to %d: [%d] is %d", m, it, root, k, r[k]);
                    bad = 1;
                }
            /* Scatter: block q of the root's buffer to rank q. */
            for (int k = 0; k < n * m; k++)
                s[k] = me == root ? val(it, k / m, z, k % m) : -1;
            for (int k = 0; k < 2 * m; k++)
                r[k] = -1;
            MPI_Scatter(s, m, MPI_INT, inplace ? MPI_IN_PLACE : r, odd ? 1 : m, odd ? vec : MPI_INT,
                        root, comm);
            for (int k = 0; !inplace && k < m && !bad; k++)
                if ((odd ? r[2 * k] : r[k]) != val(it, me, z, k) || (odd && r[2 * k + 1] != -1)) {
                    CHECK_TRUE(0, "%d-int scatter %d from %d: [%d] is %d", m, it, root, k,
                               odd ? r[2 * k] : r[k]);
                    bad = 1;
                }
            MPI_Type_free(&vec);
        }
    free(s);
    free(r);
}

static void two_ways(MPI_Comm comm, int me, int n)
{
    static const int ints[] = {1025, 2048, 3000, 4096, 6000, 8192};
    int *s = malloc((size_t)n * 8192 * sizeof(int)), *r = malloc((size_t)n * 16384 * sizeof(int));
    MPI_Op op;

    MPI_Op_create(compose, 0, &op);

    for (int z = 0; z < 6; z++) {
        int m = ints[z];
        MPI_Datatype vec, blk;

        MPI_Type_vector(m, 1, 2, MPI_INT, &vec);
        MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * m * sizeof(int)), &blk);
        MPI_Type_commit(&vec);
        MPI_Type_commit(&blk);
        for (int it = 0; it < 70; it++) {
            int root = it % 2 % n, str = it % 3 == 1 && me % 2, inplace = it % 5 == 4, bad = 0;

            /* The root's layout strided every fourth time. */
            int rs = it % 4 == 3, lay = me == root ? rs : str;

            for (int k = 0; k < 2 * m; k++)
                r[k] = me != root ? -1
                       : !rs      ? val(it, root, 0, k)
                       : k % 2    ? -7
                                  : val(it, root, 0, k / 2);
            MPI_Bcast(r, lay ? 1 : m, lay ? vec : MPI_INT, root, comm);
            for (int k = 0; k < m && !bad; k++)
                if ((lay ? r[2 * k] : r[k]) != val(it, root, 0, k)) {
                    CHECK_TRUE(0, "%d-int bcast %d from %d: [%d] is %d", m, it, root, k,
                               lay ? r[2 * k] : r[k]);
                    bad = 1;
                }
            for (int k = 0; k < n * 2 * m; k++)
                r[k] = -1;
            for (int k = 0; k < m; k++)
                s[k] = r[me * m + k] = val(it, me, 0, k);
            if (inplace)
                MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, m, MPI_INT, comm);
            else
                MPI_Allgather(s, m, MPI_INT, r, str ? 1 : m, str ? blk : MPI_INT, comm);
            str = str && !inplace;
            for (int q = 0; q < n && !bad; q++)
                for (int k = 0; k < m && !bad; k++)
                    if ((str ? r[q * 2 * m + 2 * k] : r[q * m + k]) != val(it, q, 0, k)) {
                        CHECK_TRUE(0, "%d-int allgather %d: block %d [%d] is %d", m, it, q, k,
                                   str ? r[q * 2 * m + 2 * k] : r[q * m + k]);
                        bad = 1;
                    }
            for (int k = 0; k < m; k++)
                s[k] = r[k] = val(it, me, 0, k);
            if (me == root && inplace)
                MPI_Reduce(MPI_IN_PLACE, r, m, MPI_INT, MPI_SUM, root, comm);
            else
                MPI_Reduce(s, r, m, MPI_INT, MPI_SUM, root, comm);
            for (int k = 0; k < m && me == root && !bad; k++) {
                int want = 0;
                for (int q = 0; q < n; q++)
                    want += val(it, q, 0, k);
                if (r[k] != want) {
                    CHECK_TRUE(0, "%d-int reduce %d to %d: [%d] is %d, want %d", m, it, root, k,
                               r[k], want);
                    bad = 1;
                }
            }
            for (int q = 0; q < n; q++)
                for (int k = 0; k < m; k++)
                    s[q * m + k] = r[q * m + k] = val(it, me, q, k);
            if (inplace)
                MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, m, MPI_INT, comm);
            else
                MPI_Alltoall(s, m, MPI_INT, r, m, MPI_INT, comm);
            for (int q = 0; q < n && !bad; q++)
                for (int k = 0; k < m && !bad; k++)
                    if (r[q * m + k] != val(it, q, me, k)) {
                        CHECK_TRUE(0, "%d-int alltoall %d: block %d [%d] is %d", m, it, q, k,
                                   r[q * m + k]);
                        bad = 1;
                    }
            /* Every rank calls it: bad differs between ranks. */
            bad |= two_allreduce(comm, me, n, m, it, op, s, r);
        }
        MPI_Type_free(&vec);
        MPI_Type_free(&blk);
    }
    MPI_Op_free(&op);
    free(s);
    free(r);
}

/* Reduces of 400 KB (two ranks: each rank folds a share, in pieces),
 * at either root, in place or not, and a pair type whose gaps ride along. */
static void direct_reduce(MPI_Comm comm, int me, int n)
{
    enum { N = 100000, P = 30000 };
    int *x = malloc(N * sizeof(int)), *y = malloc(N * sizeof(int));
    struct {
        double v;
        int i;
    } *p = malloc(P * sizeof(*p)), *q = malloc(P * sizeof(*q));

    for (int root = 0; root < n && root < 2; root++)
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int k = 0; k < N; k++)
                x[k] = y[k] = me * 3 + k;
            if (me == root && inplace)
                MPI_Reduce(MPI_IN_PLACE, y, N, MPI_INT, MPI_SUM, root, comm);
            else
                MPI_Reduce(x, y, N, MPI_INT, MPI_SUM, root, comm);
            for (int k = 0; me == root && k < N; k++)
                if (y[k] != 3 * n * (n - 1) / 2 + n * k) {
                    CHECK_TRUE(0, "400 KB reduce to %d%s: [%d] is %d", root,
                               inplace ? " in place" : "", k, y[k]);
                    break;
                }
        }
    /* Allreduces of the same (ranks outnumbering cores: every rank folds
     * a range of every rank's data, then reads the others' ranges). */
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int k = 0; k < N; k++)
            x[k] = y[k] = me * 3 + k;
        MPI_Allreduce(inplace ? MPI_IN_PLACE : x, y, N, MPI_INT, MPI_SUM, comm);
        for (int k = 0; k < N; k++)
            if (y[k] != 3 * n * (n - 1) / 2 + n * k) {
                CHECK_TRUE(0, "400 KB allreduce%s: [%d] is %d", inplace ? " in place" : "", k,
                           y[k]);
                break;
            }
    }
    for (int k = 0; k < P; k++) {
        p[k].v = (me * 7 + k) % n;
        p[k].i = me;
    }
    MPI_Reduce(p, q, P, MPI_DOUBLE_INT, MPI_MAXLOC, n - 1, comm);
    for (int k = 0; me == n - 1 && k < P; k++) {
        int max = -1, at = -1;
        for (int r = 0; r < n; r++)
            if ((r * 7 + k) % n > max) {
                max = (r * 7 + k) % n;
                at = r;
            }
        if (q[k].v != max || q[k].i != at) {
            CHECK_TRUE(0, "480 KB maxloc[%d]: (%g, %d), want (%d, %d)", k, q[k].v, q[k].i, max, at);
            break;
        }
    }
    free(x);
    free(y);
    free(p);
    free(q);
}

/* A barrier's words must never be read from where a collective before it
 * left data: bcasts from rank 0 fill its slots with the numbers of the
 * barriers that reuse them (in a fresh communicator's numbering, give or
 * take the calls set-up takes), then one rank is late to the barrier. No
 * rank may leave before the late one entered (one host: one clock). */
static double mono(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A barrier after data, or after another barrier (a way of its own when
 * ranks outnumber cores), waits for a late rank. */
static void barrier_after_data(int me, int n)
{
    for (int late = 0; late < 2 && late < n; late++)
        for (int shift = -2; shift <= 3; shift++) {
            MPI_Comm c;
            double entered = 0, left;

            MPI_Comm_dup(MPI_COMM_WORLD, &c);
            for (int k = 1; k <= 16; k++) {
                uint64_t v = (uint64_t)(k + 16 + shift);
                MPI_Bcast(&v, 1, MPI_UINT64_T, 0, c);
            }
            if (shift == 3)
                MPI_Barrier(c);
            if (me == late) {
                usleep(20000);
                entered = mono();
            }
            MPI_Barrier(c);
            left = mono();
            MPI_Bcast(&entered, 1, MPI_DOUBLE, late, c);
            CHECK_TRUE(left >= entered,
                       "rank %d left the barrier %.6f s before rank %d entered "
                       "(shift %d)",
                       me, entered - left, late, shift);
            MPI_Comm_free(&c);
        }
}

static void mixed(MPI_Comm comm, int me, int n)
{
    int x = me, s = 0, t = -1, u;
    MPI_Request rq[2];

    for (int i = 0; i < 50; i++) {
        MPI_Iallreduce(&x, &s, 1, MPI_INT, MPI_SUM, comm, &rq[0]);
        MPI_Irecv(&t, 1, MPI_INT, (me + n - 1) % n, i, comm, &rq[1]);
        MPI_Send(&i, 1, MPI_INT, (me + 1) % n, i, comm);
        MPI_Barrier(comm);
        MPI_Allreduce(&x, &u, 1, MPI_INT, MPI_MAX, comm);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        CHECK_ALL ("round %d: %d %d %d", i, s, u, t) {
            CHECK_EQ_INT(s, n * (n - 1) / 2);
            CHECK_EQ_INT(u, n - 1);
            CHECK_EQ_INT(t, i);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Comm c;

    mt_init(&argc, &argv);
    run_ahead(MPI_COMM_WORLD, mt_rank, mt_size);
    order(MPI_COMM_WORLD, mt_rank, mt_size);
    types(MPI_COMM_WORLD, mt_rank, mt_size);
    gathers(MPI_COMM_WORLD, mt_rank, mt_size);
    large_gathers(MPI_COMM_WORLD, mt_rank, mt_size);
    two_ways(MPI_COMM_WORLD, mt_rank, mt_size);
    rooted(MPI_COMM_WORLD, mt_rank, mt_size);
    reduce_scatters(MPI_COMM_WORLD, mt_rank, mt_size);
    allgathervs(MPI_COMM_WORLD, mt_rank, mt_size);
    rooted_v(MPI_COMM_WORLD, mt_rank, mt_size);
    alltoallvs(MPI_COMM_WORLD, mt_rank, mt_size);
    direct_reduce(MPI_COMM_WORLD, mt_rank, mt_size);
    mixed(MPI_COMM_WORLD, mt_rank, mt_size);
    barrier_after_data(mt_rank, mt_size);
    /* Segments come and go with communicators. */
    for (int i = 0; i < 30; i++) {
        int me, n, x = 1, y = 0;
        MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &c);
        MPI_Comm_rank(c, &me);
        MPI_Comm_size(c, &n);
        for (int k = 0; k < 20; k++)
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c);
        CHECK_EQ_INT(y, n, "split %d: sum %d of %d", i, y, n);
        MPI_Comm_free(&c);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    order(c, mt_rank, mt_size);
    MPI_Comm_free(&c);
    return mt_finish("t_shm");
}
