/* A randomized, reproducible stress of the intracommunicator collectives.
 * Every rank seeds the same generator (argv[1], else MT_SEED, else a fixed
 * seed) and so draws the same sequence of MT_STEPS (default 2000) steps:
 * barrier, bcast, reduce, allreduce, allgather(v), alltoall(v), gather(v),
 * scatter(v), reduce_scatter(_block), scan, exscan and point-to-point shifts, in
 * blocking, non-blocking and persistent forms left outstanding over later
 * steps, on MPI_COMM_WORLD, a dup, a random split and a reversed-order
 * split created and freed at random; counts across every size switch of
 * the shared segment and the algorithms (0 B to 2 MiB), several types (a
 * vector with gaps, sent by some ranks as plain ints), predefined ops and
 * a non-commutative user op (also on a vector of uint64s), MPI_IN_PLACE,
 * and short sleeps of one rank so the others run ahead; a new
 * communicator often starts with a burst of small blocking collectives.
 * Data depends on (step, rank, index) and is often 0, 1, -1, the step or
 * a number near the communicator's count of collectives (an internal
 * sequence number might equal it), so every rank computes every result
 * locally and checks it, gaps included; a blocking barrier checks that no
 * rank left it before the last one entered. A failure
 * names the step, collective, communicator, form, count, type, op and
 * root, the first bad index, and the seed to rerun with. MT_TRACE=1 prints
 * every call; MT_BIG=p makes p% of them 128 KiB-2 MiB. */
#include "../p2p/mpitest.h"

#include <inttypes.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static uint64_t seed, rng;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The shared sequence: the same on every rank. */
static unsigned rn(unsigned n)
{
    rng += 0x632be59bd9b4e019ull;
    return n ? (unsigned)(mix(rng) % n) : 0;
}

/* Types: a layout of basic elements (per instance, at offsets). T_VEC is
 * sent by a rank either as itself or, same signature, as plain ints
 * (T_INTS); T_V64, uint64s with gaps, goes through the user op only (the
 * predefined ones take predefined types). */
enum { T_INT, T_DOUBLE, T_CHAR, T_U64, T_DI, T_V64, T_VEC, T_INTS, NT };
static const char *tname[NT] = {"int",        "double",   "char",   "uint64",
                                "double_int", "vector64", "vector", "ints"};
struct lay {
    MPI_Datatype dt;
    size_t ext;
    int per, bsz, off[6];
};
static struct lay lays[NT];

struct di {
    double d;
    int i;
};

enum { O_SUM, O_MAX, O_BXOR, O_USER, O_MINLOC, O_MAXLOC, NO };
static const char *oname[NO] = {"sum", "max", "bxor", "affine(user)", "minloc", "maxloc"};
static MPI_Op ops[NO];

enum {
    K_BARRIER,
    K_BCAST,
    K_REDUCE,
    K_ALLREDUCE,
    K_ALLGATHER,
    K_ALLGATHERV,
    K_ALLTOALL,
    K_ALLTOALLV,
    K_GATHER,
    K_SCATTER,
    K_RSB,
    K_SCAN,
    K_EXSCAN,
    K_GATHERV,
    K_SCATTERV,
    K_RS,
    K_P2P,
    NK
};
static const char *kname[NK] = {"barrier",
                                "bcast",
                                "reduce",
                                "allreduce",
                                "allgather",
                                "allgatherv",
                                "alltoall",
                                "alltoallv",
                                "gather",
                                "scatter",
                                "reduce_scatter_block",
                                "scan",
                                "exscan",
                                "gatherv",
                                "scatterv",
                                "reduce_scatter",
                                "p2p"};
enum { M_BLOCK, M_NB, M_PERSIST };
static const char *mname[] = {"blocking", "non-blocking", "persistent"};

struct comm {
    MPI_Comm c;
    int me, n;
    uint64_t ncoll; /* collectives started on it (the same on every rank) */
    uint64_t nshm;  /* blocking ones of the kinds the shared segment runs */
};
static const char *cname[] = {"world", "dup", "split", "reversed"};
static struct comm comms[4];

/* One collective (or point-to-point pair) and what it needs to be checked. */
struct call {
    int step, step0, kind, mode, ci, me, n, t, o, root, inplace, nreq;
    int peer, anytag; /* p2p: shift to the destination; receive with MPI_ANY_TAG */
    int late;         /* blocking barrier: this rank enters 1 ms late (or -1) */
    size_t B;         /* basic elements per block */
    uint64_t ncoll, nshm;
    MPI_Comm comm;
    const struct lay *sl, *rl;
    unsigned char *sb, *rb, *mask;
    size_t sbytes, rbytes;
    int *sc, *sd, *rc, *rd;
    MPI_Request req[2];
};

#define SENTINEL 0xA5
#define MAXPEND  16
static struct call *pend[MAXPEND];
static int npend;
static int trace; /* MT_TRACE=1: each call on stderr */

/* a op b = b after a, as maps x -> hi * x + lo (mod 2^32): associative,
 * not commutative, so a result proves the ranks were combined in order. */
static uint64_t compose(uint64_t a, uint64_t b)
{
    uint32_t a1 = (uint32_t)(a >> 32), b1 = (uint32_t)a, a2 = (uint32_t)(b >> 32), b2 = (uint32_t)b;

    return (uint64_t)(a1 * a2) << 32 | (uint32_t)(a2 * b1 + b2);
}

static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    uint64_t *a = in, *b = inout;

    if (*dt == MPI_UINT64_T) {
        for (int i = 0; i < *len; i++)
            b[i] = compose(a[i], b[i]);
        return;
    }
    /* T_V64: words 0 and 2 of every 3. */
    for (int i = 0; i < 3 * *len; i += 3) {
        b[i] = compose(a[i], b[i]);
        b[i + 2] = compose(a[i + 2], b[i + 2]);
    }
}

/* Rank src's value at index idx: often a small number an implementation
 * might also keep in a word of its own. */
static uint64_t val(const struct call *c, int src, uint64_t idx)
{
    uint64_t h =
        mix(seed ^ mix((uint64_t)c->step * 1000003u + (uint64_t)src) ^ idx * 0xd6e8feb86659fd93ull);

    /* The first word of a slot's data most of all. */
    if (idx == 0 && (h >> 62))
        return c->nshm + ((h >> 8) & 1 ? 17 : 1) + (h >> 9) % 3 - 1;
    if (idx == 1 && (h >> 62))
        return 0;
    switch (h & 15) {
    case 0: return (uint64_t)c->step;
    case 1: return c->B;
    case 2: return 0;
    case 3: return 1;
    case 4: return UINT64_MAX;
    /* The segment numbers its collectives from the first (or the 17th)
     * blocking call of its kinds; a slot holds the data of the collective
     * 16 numbers before the one that uses it next. */
    case 5: return c->nshm + 16 + (h >> 8) % 5 - 2;
    case 6: return c->nshm + (h >> 8) % 5 - 2;
    case 8: return c->ncoll + (h >> 8) % 24 - 4;
    case 7: return idx;
    default: return h >> 4;
    }
}

static int kind_of(int t)
{
    return t == T_VEC || t == T_INTS ? T_INT : t == T_V64 ? T_U64 : t;
}

static void elem(int t, uint64_t v, unsigned char *out)
{
    switch (kind_of(t)) {
    case T_INT: {
        int32_t x = (int32_t)v;
        memcpy(out, &x, 4);
        break;
    }
    case T_DOUBLE: {
        /* Integers small enough that any order of summing is exact. */
        int64_t s = (int64_t)v;
        double d = (double)(s > 1000000 || s < -1000000 ? s % 1000 : s);
        memcpy(out, &d, 8);
        break;
    }
    case T_CHAR: out[0] = (unsigned char)v; break;
    case T_U64: memcpy(out, &v, 8); break;
    case T_DI: {
        struct di p = {(double)((int64_t)v % 5), (int)((v >> 3) & 0xff)};
        memcpy(out, &p, sizeof p);
        break;
    }
    }
}

/* acc = acc op x, acc from the lower ranks. */
static void fold(int t, int o, unsigned char *acc, const unsigned char *x)
{
    switch (kind_of(t)) {
    case T_INT: {
        int32_t a, b;
        memcpy(&a, acc, 4);
        memcpy(&b, x, 4);
        a = o == O_SUM   ? (int32_t)((uint32_t)a + (uint32_t)b)
            : o == O_MAX ? (a > b ? a : b)
                         : a ^ b;
        memcpy(acc, &a, 4);
        break;
    }
    case T_DOUBLE: {
        double a, b;
        memcpy(&a, acc, 8);
        memcpy(&b, x, 8);
        a = o == O_SUM ? a + b : (a > b ? a : b);
        memcpy(acc, &a, 8);
        break;
    }
    case T_CHAR: {
        char a = (char)acc[0], b = (char)x[0];
        a = o == O_SUM   ? (char)(unsigned char)(acc[0] + x[0])
            : o == O_MAX ? (a > b ? a : b)
                         : (char)(a ^ b);
        acc[0] = (unsigned char)a;
        break;
    }
    case T_U64: {
        uint64_t a, b;
        memcpy(&a, acc, 8);
        memcpy(&b, x, 8);
        a = o == O_SUM ? a + b : o == O_MAX ? (a > b ? a : b) : o == O_BXOR ? a ^ b : compose(a, b);
        memcpy(acc, &a, 8);
        break;
    }
    case T_DI: {
        struct di a, b;
        memcpy(&a, acc, sizeof a);
        memcpy(&b, x, sizeof b);
        if ((o == O_MINLOC ? b.d < a.d : b.d > a.d) || (b.d == a.d && b.i < a.i))
            a = b;
        memcpy(acc, &a, sizeof a);
        break;
    }
    }
}

static unsigned char *at(const struct lay *l, unsigned char *base, size_t k)
{
    return base + k / (size_t)l->per * l->ext + (size_t)l->off[k % (size_t)l->per];
}

static int cnt(const struct lay *l, size_t B)
{
    return (int)(B / (size_t)l->per);
}

/* Writes rank src's values idx0 + k, k < B, from instance inst0 on. */
static void fill(const struct call *c, const struct lay *l, unsigned char *base, size_t inst0,
                 size_t B, int src, uint64_t idx0)
{
    base += inst0 * l->ext;
    for (size_t k = 0; k < B; k++)
        elem(c->t, val(c, src, idx0 + k), at(l, base, k));
}

/* The reduction of ranks [lo, hi) at index idx. */
static void reduced(const struct call *c, int lo, int hi, uint64_t idx, unsigned char *out)
{
    unsigned char x[16];

    elem(c->t, val(c, lo, idx), out);
    for (int r = lo + 1; r < hi; r++) {
        elem(c->t, val(c, r, idx), x);
        fold(c->t, c->o, out, x);
    }
}

static void report(const struct call *c, const char *what, size_t k, const unsigned char *want,
                   const unsigned char *got, int bytes)
{
    char w[40] = "", g[40] = "";

    for (int i = 0; i < bytes && i < 16; i++) {
        sprintf(w + strlen(w), "%02x", want[bytes - 1 - i]);
        sprintf(g + strlen(g), "%02x", got[bytes - 1 - i]);
    }
    if (mt_failed++ < 20)
        fprintf(stderr,
                "rank %d: seed %" PRIu64 " step %d: %s %s on %s (rank %d of %d): count %zu "
                "type %s op %s root %d%s: %s index %zu: want 0x%s got 0x%s\n",
                mt_rank, seed, c->step, mname[c->mode], kname[c->kind], cname[c->ci], c->me, c->n,
                c->B, tname[c->t],
                c->kind == K_REDUCE || c->kind == K_ALLREDUCE || c->kind == K_RSB ||
                        c->kind == K_SCAN || c->kind == K_EXSCAN || c->kind == K_RS
                    ? oname[c->o]
                    : "-",
                c->root, c->inplace ? " in place" : "", what, k, w, g);
}

/* Checks B elements from instance inst0 of the receive buffer: src >= 0
 * for rank src's values from idx0 on, else the reduction of [lo, hi). */
static void check(const struct call *c, const char *what, size_t inst0, size_t B, int src,
                  uint64_t idx0, int lo, int hi)
{
    const struct lay *l = c->rl;
    unsigned char *base = c->rb + inst0 * l->ext, want[16];
    int bad = 0;

    for (size_t k = 0; k < B; k++) {
        unsigned char *p = at(l, base, k);

        /* A pair's padding is nobody's business. */
        memset(c->mask + (p - c->rb), 1, l->per == 1 ? l->ext : (size_t)l->bsz);
        if (bad)
            continue;
        if (src >= 0)
            elem(c->t, val(c, src, idx0 + k), want);
        else
            reduced(c, lo, hi, idx0 + k, want);
        if (memcmp(want, p, (size_t)l->bsz)) {
            report(c, what, k, want, p, l->bsz);
            bad = 1;
        }
    }
}

/* Marks a range of the receive buffer as undefined after the call. */
static void dontcare(struct call *c, size_t from, size_t to)
{
    if (to > from)
        memset(c->mask + from, 1, to - from);
}

/* Bytes the check did not claim must still hold the sentinel. */
static void check_gaps(const struct call *c)
{
    for (size_t i = 0; i < c->rbytes; i++)
        if (!c->mask[i] && c->rb[i] != SENTINEL) {
            unsigned char s = SENTINEL;
            report(c, "gap byte", i, &s, &c->rb[i], 1);
            return;
        }
}

/* Blocks of the v forms: 0, 1 or 2 times B, agreed by every rank. */
static size_t vblock(const struct call *c, int from, int to)
{
    if (c->kind == K_ALLTOALLV && c->inplace && from > to) {
        int t = from;
        from = to;
        to = t;
    }
    return c->B *
           (mix(seed ^ (uint64_t)c->step0 * 7919u ^ (uint64_t)from << 20 ^ (uint64_t)to << 40) % 3);
}

/* Places n blocks (instances cnt[r]) in this rank's buffer, in rank order
 * or reversed, with gaps; returns the instances used. */
static size_t place(const struct call *c, int salt, const int *count, int *displ)
{
    uint64_t h =
        mix(seed ^ (uint64_t)c->step0 * 131u ^ (uint64_t)c->me << 24 ^ (uint64_t)salt << 48);
    size_t pos = 0;

    for (int i = 0; i < c->n; i++) {
        int r = h & 1 ? c->n - 1 - i : i;
        pos += (h >> (1 + i % 48)) & 1;
        displ[r] = (int)pos;
        pos += (size_t)count[r];
    }
    return pos;
}

static void *alloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);

    if (!p) {
        fprintf(stderr, "t_fuzz: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* Sizes the buffers (once: a persistent call keeps them). */
static void setup(struct call *c)
{
    int n = c->n, me = c->me;
    const struct lay *sl = c->sl, *rl = c->rl;
    size_t bi = c->B / (size_t)rl->per, si = c->B / (size_t)sl->per;

    c->sbytes = c->rbytes = 0;
    switch (c->kind) {
    case K_BARRIER: break;
    case K_BCAST: c->rbytes = bi * rl->ext; break;
    case K_REDUCE:
    case K_ALLREDUCE:
    case K_SCAN:
    case K_EXSCAN:
    case K_P2P:
        c->sbytes = si * sl->ext;
        c->rbytes = bi * rl->ext;
        break;
    case K_ALLGATHER:
    case K_GATHER:
        c->sbytes = si * sl->ext;
        c->rbytes = (size_t)n * bi * rl->ext;
        break;
    case K_SCATTER:
        c->sbytes = (size_t)n * si * sl->ext;
        c->rbytes = bi * rl->ext;
        break;
    case K_ALLTOALL:
        c->sbytes = (size_t)n * si * sl->ext;
        c->rbytes = (size_t)n * bi * rl->ext;
        break;
    case K_RSB:
        c->sbytes = (size_t)n * si * sl->ext;
        c->rbytes = (c->inplace ? (size_t)n : 1) * bi * rl->ext;
        break;
    case K_ALLGATHERV:
    case K_ALLTOALLV:
        c->sc = alloc((size_t)n * sizeof(int));
        c->sd = alloc((size_t)n * sizeof(int));
        c->rc = alloc((size_t)n * sizeof(int));
        c->rd = alloc((size_t)n * sizeof(int));
        for (int r = 0; r < n; r++) {
            if (c->kind == K_ALLGATHERV) {
                c->rc[r] = cnt(rl, vblock(c, r, 0));
                c->sc[r] = cnt(sl, vblock(c, me, 0));
            } else {
                c->rc[r] = cnt(rl, vblock(c, r, me));
                c->sc[r] = cnt(sl, vblock(c, me, r));
            }
        }
        c->rbytes = place(c, 1, c->rc, c->rd) * rl->ext;
        if (c->kind == K_ALLGATHERV)
            c->sbytes = (size_t)c->sc[0] * sl->ext;
        else
            c->sbytes = place(c, 2, c->sc, c->sd) * sl->ext;
        break;
    case K_GATHERV:
    case K_SCATTERV:
    case K_RS: {
        size_t total = 0;

        c->sc = alloc((size_t)n * sizeof(int));
        c->sd = alloc((size_t)n * sizeof(int));
        c->rc = alloc((size_t)n * sizeof(int));
        c->rd = alloc((size_t)n * sizeof(int));
        for (int r = 0; r < n; r++) {
            c->rc[r] = cnt(rl, vblock(c, r, 0));
            c->sc[r] = cnt(sl, vblock(c, r, 0));
            total += vblock(c, r, 0);
        }
        if (c->kind == K_GATHERV) {
            c->rbytes = place(c, 1, c->rc, c->rd) * rl->ext;
            c->sbytes = (size_t)c->sc[me] * sl->ext;
        } else if (c->kind == K_SCATTERV) {
            c->sbytes = place(c, 2, c->sc, c->sd) * sl->ext;
            c->rbytes = (size_t)c->rc[me] * rl->ext;
        } else {
            c->sbytes = (size_t)cnt(sl, total) * sl->ext;
            c->rbytes = (size_t)cnt(rl, c->inplace ? total : vblock(c, me, 0)) * rl->ext;
        }
        break;
    }
    }
    c->sb = alloc(c->sbytes);
    c->rb = alloc(c->rbytes);
    c->mask = alloc(c->rbytes);
}

/* Fills the send data (or the receive buffer, in place) for c->step. */
static void refill(struct call *c)
{
    int n = c->n, me = c->me;
    size_t B = c->B, bi = B / (size_t)c->rl->per, si = B / (size_t)c->sl->per;
    const struct lay *sl = c->sl, *rl = c->rl;

    memset(c->sb, SENTINEL, c->sbytes ? c->sbytes : 1);
    memset(c->rb, SENTINEL, c->rbytes ? c->rbytes : 1);
    memset(c->mask, 0, c->rbytes ? c->rbytes : 1);
    switch (c->kind) {
    case K_BARRIER: break;
    case K_BCAST:
        if (me == c->root)
            fill(c, rl, c->rb, 0, B, me, 0);
        break;
    case K_REDUCE:
    case K_ALLREDUCE:
    case K_SCAN:
    case K_EXSCAN:
        if (c->inplace && (c->kind != K_REDUCE || me == c->root))
            fill(c, rl, c->rb, 0, B, me, 0);
        else
            fill(c, sl, c->sb, 0, B, me, 0);
        break;
    case K_P2P: fill(c, sl, c->sb, 0, B, me, 0); break;
    case K_ALLGATHER:
    case K_GATHER:
        if (c->inplace && (c->kind == K_ALLGATHER || me == c->root))
            fill(c, rl, c->rb, (size_t)me * bi, B, me, 0);
        else
            fill(c, sl, c->sb, 0, B, me, 0);
        break;
    case K_SCATTER:
        if (me == c->root)
            for (int r = 0; r < n; r++)
                fill(c, sl, c->sb, (size_t)r * si, B, me, (uint64_t)r * B);
        break;
    case K_ALLTOALL:
        for (int r = 0; r < n; r++)
            if (c->inplace)
                fill(c, rl, c->rb, (size_t)r * bi, B, me, (uint64_t)r * B);
            else
                fill(c, sl, c->sb, (size_t)r * si, B, me, (uint64_t)r * B);
        break;
    case K_RSB:
        if (c->inplace)
            fill(c, rl, c->rb, 0, (size_t)n * B, me, 0);
        else
            fill(c, sl, c->sb, 0, (size_t)n * B, me, 0);
        break;
    case K_ALLGATHERV:
        if (c->inplace)
            fill(c, rl, c->rb, (size_t)c->rd[me], vblock(c, me, 0), me, 0);
        else
            fill(c, sl, c->sb, 0, vblock(c, me, 0), me, 0);
        break;
    case K_ALLTOALLV:
        for (int r = 0; r < n; r++)
            if (c->inplace)
                fill(c, rl, c->rb, (size_t)c->rd[r], vblock(c, me, r), me, (uint64_t)r << 32);
            else
                fill(c, sl, c->sb, (size_t)c->sd[r], vblock(c, me, r), me, (uint64_t)r << 32);
        break;
    case K_GATHERV:
        if (c->inplace && me == c->root)
            fill(c, rl, c->rb, (size_t)c->rd[me], vblock(c, me, 0), me, 0);
        else
            fill(c, sl, c->sb, 0, vblock(c, me, 0), me, 0);
        break;
    case K_SCATTERV:
        if (me == c->root)
            for (int r = 0; r < n; r++)
                fill(c, sl, c->sb, (size_t)c->sd[r], vblock(c, r, 0), me, (uint64_t)r << 32);
        break;
    case K_RS: {
        size_t total = 0;

        for (int r = 0; r < n; r++)
            total += vblock(c, r, 0);
        if (c->inplace)
            fill(c, rl, c->rb, 0, total, me, 0);
        else
            fill(c, sl, c->sb, 0, total, me, 0);
        break;
    }
    }
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A blocking barrier, half the time with one rank late: no rank may
 * leave before the last entered (one clock on one host). */
static int timed_barrier(struct call *c)
{
    double t[2];
    int err;

    if (c->me == c->late)
        usleep(1000);
    t[0] = now();
    err = MPI_Barrier(c->comm);
    t[1] = -now();
    MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, c->comm);
    comms[c->ci].ncoll++;
    comms[c->ci].nshm++;
    if (t[0] > -t[1] && mt_failed++ < 20)
        fprintf(stderr,
                "rank %d: seed %" PRIu64 " step %d: blocking barrier on %s: a rank "
                "left %.6f s before the last entered\n",
                mt_rank, seed, c->step, cname[c->ci], t[0] + t[1]);
    return err;
}

#define ISSUE(blk, nb, init, ...)                                                                  \
    (c->mode == M_BLOCK ? blk(__VA_ARGS__)                                                         \
     : c->mode == M_NB  ? nb(__VA_ARGS__, &c->req[0])                                              \
                        : init(__VA_ARGS__, MPI_INFO_NULL, &c->req[0]))

static void issue(struct call *c)
{
    MPI_Comm comm = c->comm;
    const struct lay *sl = c->sl, *rl = c->rl;
    int root = c->root, me = c->me, B = cnt(rl, c->B), err = MPI_SUCCESS;
    MPI_Op op = ops[c->o];
    void *sb = c->inplace ? MPI_IN_PLACE : c->sb;

    c->nreq = c->mode != M_BLOCK;
    switch (c->kind) {
    case K_BARRIER:
        err = c->mode == M_BLOCK ? timed_barrier(c)
                                 : ISSUE(MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init, comm);
        break;
    case K_BCAST:
        err =
            ISSUE(MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, c->rb, cnt(rl, c->B), rl->dt, root, comm);
        break;
    case K_REDUCE:
        err = ISSUE(MPI_Reduce, MPI_Ireduce, MPI_Reduce_init, me == root ? sb : c->sb, c->rb, B,
                    rl->dt, op, root, comm);
        break;
    case K_ALLREDUCE:
        err = ISSUE(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, sb, c->rb, B, rl->dt, op,
                    comm);
        break;
    case K_SCAN:
        err = ISSUE(MPI_Scan, MPI_Iscan, MPI_Scan_init, sb, c->rb, B, rl->dt, op, comm);
        break;
    case K_EXSCAN:
        err = ISSUE(MPI_Exscan, MPI_Iexscan, MPI_Exscan_init, sb, c->rb, B, rl->dt, op, comm);
        break;
    case K_RSB:
        err = ISSUE(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block,
                    MPI_Reduce_scatter_block_init, sb, c->rb, B, rl->dt, op, comm);
        break;
    case K_ALLGATHER:
        err = ISSUE(MPI_Allgather, MPI_Iallgather, MPI_Allgather_init, sb, cnt(sl, c->B), sl->dt,
                    c->rb, cnt(rl, c->B), rl->dt, comm);
        break;
    case K_GATHER:
        err = ISSUE(MPI_Gather, MPI_Igather, MPI_Gather_init, me == root ? sb : c->sb,
                    cnt(sl, c->B), sl->dt, c->rb, cnt(rl, c->B), rl->dt, root, comm);
        break;
    case K_SCATTER:
        err = ISSUE(MPI_Scatter, MPI_Iscatter, MPI_Scatter_init, c->sb, cnt(sl, c->B), sl->dt,
                    c->inplace && me == root ? MPI_IN_PLACE : (void *)c->rb, cnt(rl, c->B), rl->dt,
                    root, comm);
        break;
    case K_ALLTOALL:
        err = ISSUE(MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init, sb, cnt(sl, c->B), sl->dt,
                    c->rb, cnt(rl, c->B), rl->dt, comm);
        break;
    case K_ALLGATHERV:
        err = ISSUE(MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init, sb, c->sc[0], sl->dt,
                    c->rb, c->rc, c->rd, rl->dt, comm);
        break;
    case K_ALLTOALLV:
        err = ISSUE(MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init, sb, c->sc, c->sd, sl->dt,
                    c->rb, c->rc, c->rd, rl->dt, comm);
        break;
    case K_GATHERV:
        err = ISSUE(MPI_Gatherv, MPI_Igatherv, MPI_Gatherv_init, me == root ? sb : c->sb, c->sc[me],
                    sl->dt, c->rb, c->rc, c->rd, rl->dt, root, comm);
        break;
    case K_SCATTERV:
        err = ISSUE(MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init, c->sb, c->sc, c->sd, sl->dt,
                    c->inplace && me == root ? MPI_IN_PLACE : (void *)c->rb, c->rc[me], rl->dt,
                    root, comm);
        break;
    case K_RS:
        err = ISSUE(MPI_Reduce_scatter, MPI_Ireduce_scatter, MPI_Reduce_scatter_init, sb, c->rb,
                    c->rc, rl->dt, op, comm);
        break;
    case K_P2P: {
        int to = (me + c->peer) % c->n, from = (me - c->peer + c->n) % c->n;
        int tag = c->step % 30000, rtag = c->anytag ? MPI_ANY_TAG : tag;

        if (c->mode == M_BLOCK) {
            err = MPI_Sendrecv(c->sb, cnt(sl, c->B), sl->dt, to, tag, c->rb, cnt(rl, c->B), rl->dt,
                               from, rtag, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Irecv(c->rb, cnt(rl, c->B), rl->dt, from, rtag, comm, &c->req[0]);
            err = MPI_Isend(c->sb, cnt(sl, c->B), sl->dt, to, tag, comm, &c->req[1]);
            c->nreq = 2;
        }
        break;
    }
    }
    if (c->kind != K_P2P)
        comms[c->ci].ncoll++;
    if (c->mode == M_BLOCK &&
        (c->kind == K_BARRIER || c->kind == K_BCAST || c->kind == K_REDUCE ||
         c->kind == K_ALLREDUCE || c->kind == K_ALLGATHER || c->kind == K_ALLTOALL))
        comms[c->ci].nshm++;
    CHECK_MPI(err, "step %d: %s returned %d", c->step, kname[c->kind], err);
    if (c->mode == M_PERSIST)
        MPI_Start(&c->req[0]);
}

/* Checks a completed call against the values every rank can compute. */
static void verify(struct call *c)
{
    int n = c->n, me = c->me, root = c->root;
    size_t B = c->B, bi = B / (size_t)c->rl->per;

    switch (c->kind) {
    case K_BARRIER: return;
    case K_BCAST: check(c, "data", 0, B, root, 0, 0, 0); break;
    case K_REDUCE:
        if (me != root)
            return;
        check(c, "result", 0, B, -1, 0, 0, n);
        break;
    case K_ALLREDUCE: check(c, "result", 0, B, -1, 0, 0, n); break;
    case K_SCAN: check(c, "result", 0, B, -1, 0, 0, me + 1); break;
    case K_EXSCAN:
        if (me == 0)
            dontcare(c, 0, c->rbytes);
        else
            check(c, "result", 0, B, -1, 0, 0, me);
        break;
    case K_RSB:
        check(c, "result", 0, B, -1, (uint64_t)me * B, 0, n);
        dontcare(c, bi * c->rl->ext, c->rbytes);
        break;
    case K_P2P: check(c, "message", 0, B, (me - c->peer + n) % n, 0, 0, 0); break;
    case K_ALLGATHER:
    case K_GATHER:
        if (c->kind == K_GATHER && me != root)
            return;
        for (int r = 0; r < n; r++)
            check(c, "block", (size_t)r * bi, B, r, 0, 0, 0);
        break;
    case K_SCATTER:
        if (me == root && c->inplace)
            return;
        check(c, "block", 0, B, root, (uint64_t)me * B, 0, 0);
        break;
    case K_ALLTOALL:
        for (int r = 0; r < n; r++)
            check(c, "block", (size_t)r * bi, B, r, (uint64_t)me * B, 0, 0);
        break;
    case K_ALLGATHERV:
        for (int r = 0; r < n; r++)
            check(c, "block", (size_t)c->rd[r], vblock(c, r, 0), r, 0, 0, 0);
        break;
    case K_ALLTOALLV:
        for (int r = 0; r < n; r++)
            check(c, "block", (size_t)c->rd[r], vblock(c, r, me), r, (uint64_t)me << 32, 0, 0);
        break;
    case K_GATHERV:
        if (me != root)
            return;
        for (int r = 0; r < n; r++)
            check(c, "block", (size_t)c->rd[r], vblock(c, r, 0), r, 0, 0, 0);
        break;
    case K_SCATTERV:
        if (me == root && c->inplace)
            return;
        check(c, "block", 0, vblock(c, me, 0), root, (uint64_t)me << 32, 0, 0);
        break;
    case K_RS: {
        uint64_t off = 0;

        for (int r = 0; r < me; r++)
            off += vblock(c, r, 0);
        check(c, "result", 0, vblock(c, me, 0), -1, off, 0, n);
        dontcare(c, (size_t)c->rc[me] * c->rl->ext, c->rbytes);
        break;
    }
    }
    check_gaps(c);
}

static void destroy(struct call *c)
{
    if (c->mode == M_PERSIST)
        MPI_Request_free(&c->req[0]);
    free(c->sb);
    free(c->rb);
    free(c->mask);
    free(c->sc);
    free(c->sd);
    free(c->rc);
    free(c->rd);
    free(c);
}

static unsigned big_percent; /* MT_BIG: this share of calls 128 KiB-2 MiB */

/* Sizes across the switch points: per rank for the block collectives. */
static size_t pick_bytes(void)
{
    static const size_t edge[] = {2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144};
    unsigned r = rn(1000);

    if (big_percent && rn(100) < big_percent)
        return 128 * 1024 + rn(2 << 20);
    if (r < 60)
        return 0;
    if (r < 160)
        return 1;
    if (r < 480)
        return 2 + rn(63);
    if (r < 760)
        return 1024 + rn(15 * 1024 + 1);
    if (r < 900)
        return edge[rn(8)] - 24 + rn(49);
    if (r < 960)
        return 16384 + rn(48 * 1024);
    if (r < 996)
        return 128 * 1024 + rn(172 * 1024);
    return (1 << 20) + rn(1 << 20);
}

static int block_kind(int k)
{
    return k == K_ALLGATHER || k == K_ALLGATHERV || k == K_ALLTOALL || k == K_ALLTOALLV ||
           k == K_GATHER || k == K_SCATTER || k == K_RSB || k == K_GATHERV || k == K_SCATTERV ||
           k == K_RS;
}

static int reduction(int k)
{
    return k == K_REDUCE || k == K_ALLREDUCE || k == K_RSB || k == K_SCAN || k == K_EXSCAN ||
           k == K_RS;
}

static void retire(int i)
{
    pend[i] = pend[--npend];
}

/* After completion: check, then restart a persistent call with new data
 * or let it go. */
static void completed(int i, int step, int restart)
{
    struct call *c = pend[i];

    verify(c);
    if (restart && c->mode == M_PERSIST && rn(2)) {
        c->step = step;
        c->ncoll = comms[c->ci].ncoll;
        refill(c);
        comms[c->ci].ncoll++;
        MPI_Start(&c->req[0]);
        return;
    }
    destroy(c);
    retire(i);
}

static void wait_one(int i, int step, int restart)
{
    struct call *c = pend[i];
    unsigned how = rn(3);

    if (how == 0) {
        MPI_Waitall(c->nreq, c->req, MPI_STATUSES_IGNORE);
    } else if (how == 1) {
        int left = c->nreq, idx;
        while (left--)
            MPI_Waitany(c->nreq, c->req, &idx, MPI_STATUS_IGNORE);
    } else {
        int done = 0;
        while (!done)
            MPI_Testall(c->nreq, c->req, &done, MPI_STATUSES_IGNORE);
    }
    completed(i, step, restart);
}

static void wait_all(int step)
{
    MPI_Request r[2 * MAXPEND];
    int k = 0;

    for (int i = 0; i < npend; i++)
        for (int j = 0; j < pend[i]->nreq; j++)
            r[k++] = pend[i]->req[j];
    MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
    /* Waitall set the finished non-persistent requests to null. */
    k = 0;
    for (int i = 0; i < npend; i++)
        for (int j = 0; j < pend[i]->nreq; j++)
            pend[i]->req[j] = r[k++];
    for (int i = npend - 1; i >= 0; i--)
        completed(i, step, 1);
}

/* A burst (burst_ci >= 0): small blocking calls of the segment's kinds on
 * a fresh communicator, whose collective numbers the data then tracks
 * exactly (nshm). */
static int burst_ci = -1;
static void one_call(int step);

/* Creates or frees a communicator (persistent calls on it go first). */
static void toggle_comm(int ci, int step)
{
    struct comm *m = &comms[ci];

    if (m->c != MPI_COMM_NULL) {
        for (int i = npend - 1; i >= 0; i--)
            if (pend[i]->ci == ci && pend[i]->mode == M_PERSIST) {
                MPI_Wait(&pend[i]->req[0], MPI_STATUS_IGNORE);
                verify(pend[i]);
                destroy(pend[i]);
                retire(i);
            }
        /* Non-blocking calls on it may still run: the free lets them finish. */
        MPI_Comm_free(&m->c);
        return;
    }
    if (ci == 1)
        MPI_Comm_dup(MPI_COMM_WORLD, &m->c);
    else if (ci == 2)
        MPI_Comm_split(MPI_COMM_WORLD, (int)(mix(seed ^ (uint64_t)mt_rank << 8 ^ rng) & 1), mt_rank,
                       &m->c);
    else
        MPI_Comm_split(comms[1].c != MPI_COMM_NULL ? comms[1].c : MPI_COMM_WORLD, 0, -mt_rank,
                       &m->c);
    MPI_Comm_rank(m->c, &m->me);
    MPI_Comm_size(m->c, &m->n);
    m->ncoll = m->nshm = 0;
    if (rn(2)) {
        burst_ci = ci;
        for (int k = 17 + (int)rn(40); k > 0; k--)
            one_call(step);
        burst_ci = -1;
    }
}

static void one_call(int step)
{
    static const int shm_kinds[] = {K_BARRIER,   K_BARRIER,   K_BCAST,   K_REDUCE,
                                    K_ALLREDUCE, K_ALLGATHER, K_ALLTOALL};
    struct call *c = alloc(sizeof *c);
    int ci = burst_ci, t;
    size_t bytes;

    while (ci < 0 || comms[ci].c == MPI_COMM_NULL)
        ci = (int)rn(4);
    c->step = c->step0 = step;
    c->ci = ci;
    c->comm = comms[ci].c;
    c->me = comms[ci].me;
    c->n = comms[ci].n;
    c->ncoll = comms[ci].ncoll;
    c->nshm = comms[ci].nshm;
    c->kind = (int)rn(NK);
    c->root = (int)(rn(64) % (unsigned)c->n);
    c->peer = (int)rn((unsigned)c->n);
    c->anytag = rn(4) == 0;
    c->late = rn(2) ? (int)(rn(64) % (unsigned)c->n) : -1;
    {
        unsigned m = rn(20);
        c->mode = m < 12 ? M_BLOCK : m < 17 || c->kind == K_P2P ? M_NB : M_PERSIST;
    }
    if (burst_ci >= 0) {
        c->kind = shm_kinds[rn(7)];
        c->mode = M_BLOCK;
    }
    if (reduction(c->kind)) {
        static const int allowed[][4] = {[T_INT] = {O_SUM, O_MAX, O_BXOR, O_SUM},
                                         [T_DOUBLE] = {O_SUM, O_MAX, O_SUM, O_MAX},
                                         [T_CHAR] = {O_SUM, O_MAX, O_BXOR, O_SUM},
                                         [T_U64] = {O_SUM, O_MAX, O_BXOR, O_USER},
                                         [T_DI] = {O_MINLOC, O_MAXLOC, O_MINLOC, O_MAXLOC},
                                         [T_V64] = {O_USER, O_USER, O_USER, O_USER}};
        t = (int)rn(6);
        c->o = allowed[t][rn(4)];
        if (rn(4) == 0 && t == T_U64)
            c->o = O_USER;
    } else {
        t = (int)rn(7);
    }
    c->t = t;
    c->sl = c->rl = &lays[t];
    if (t == T_VEC) {
        uint64_t h = mix(seed ^ (uint64_t)step << 16 ^ (uint64_t)c->me);
        c->sl = &lays[h & 1 ? T_VEC : T_INTS];
        c->rl = &lays[h & 2 ? T_VEC : T_INTS];
    }
    bytes = burst_ci >= 0 ? 8 + rn(57) : pick_bytes();
    if (block_kind(c->kind))
        bytes /= (size_t)c->n;
    c->B = bytes / (size_t)lays[t].bsz / (size_t)lays[t].per * (size_t)lays[t].per;
    if (bytes && !c->B)
        c->B = (size_t)lays[t].per;
    switch (c->kind) {
    case K_REDUCE:
    case K_ALLREDUCE:
    case K_ALLGATHER:
    case K_ALLGATHERV:
    case K_ALLTOALL:
    case K_ALLTOALLV:
    case K_GATHER:
    case K_SCATTER:
    case K_RSB:
    case K_SCAN:
    case K_EXSCAN:
    case K_GATHERV:
    case K_SCATTERV:
    case K_RS: c->inplace = rn(3) == 0; break;
    }
    if (c->inplace)
        c->sl = c->rl;
    if (trace)
        fprintf(stderr, "rank %d step %d: %s %s on %s count %zu type %s root %d%s\n", mt_rank, step,
                mname[c->mode], kname[c->kind], cname[ci], c->B, tname[t], c->root,
                c->inplace ? " in place" : "");
    setup(c);
    refill(c);
    issue(c);
    if (c->mode == M_BLOCK) {
        verify(c);
        destroy(c);
        return;
    }
    if (npend == MAXPEND)
        wait_one(0, step, 0); /* makes room */
    pend[npend++] = c;
}

static void make_types(void)
{
    static const MPI_Datatype dt[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_UINT64_T, MPI_DOUBLE_INT};
    static const int bsz[] = {4, 8, 1, 8, 12};

    for (int t = 0; t <= T_DI; t++) {
        MPI_Aint lb, ext;
        MPI_Type_get_extent(dt[t], &lb, &ext);
        lays[t] = (struct lay){dt[t], (size_t)ext, 1, bsz[t], {0}};
    }
    /* uint64s 0 _ 2: a gap inside. */
    MPI_Type_vector(2, 1, 2, MPI_UINT64_T, &lays[T_V64].dt);
    MPI_Type_commit(&lays[T_V64].dt);
    lays[T_V64] = (struct lay){lays[T_V64].dt, 24, 2, 8, {0, 16}};
    /* Ints 0 1 _ 3 4 _ 6 7: two gaps inside, none at the end. */
    MPI_Type_vector(3, 2, 3, MPI_INT, &lays[T_VEC].dt);
    MPI_Type_commit(&lays[T_VEC].dt);
    lays[T_VEC] = (struct lay){lays[T_VEC].dt, 32, 6, 4, {0, 4, 12, 16, 24, 28}};
    lays[T_INTS] = lays[T_INT];
    MPI_Op_create(affine, 0, &ops[O_USER]);
    ops[O_SUM] = MPI_SUM;
    ops[O_MAX] = MPI_MAX;
    ops[O_BXOR] = MPI_BXOR;
    ops[O_MINLOC] = MPI_MINLOC;
    ops[O_MAXLOC] = MPI_MAXLOC;
}

int main(int argc, char **argv)
{
    const char *s = argc > 1 ? argv[1] : getenv("MT_SEED");
    const char *st = getenv("MT_STEPS");
    int steps = st ? atoi(st) : 2000;

    trace = getenv("MT_TRACE") != NULL;
    big_percent = getenv("MT_BIG") ? (unsigned)atoi(getenv("MT_BIG")) : 0;

    mt_init(&argc, &argv);
    seed = s ? strtoull(s, NULL, 0) : 20261130;
    rng = seed;
    make_types();
    comms[0] = (struct comm){MPI_COMM_WORLD, mt_rank, mt_size, 0, 0};
    for (int i = 1; i < 4; i++)
        comms[i].c = MPI_COMM_NULL;
    for (int step = 0; step < steps; step++) {
        unsigned a = rn(100);

        if (a < 2)
            toggle_comm(1 + (int)rn(3), step);
        else if (a < 6 && npend)
            wait_all(step);
        else if (a < 12 && npend)
            wait_one((int)rn((unsigned)npend), step, 1);
        else
            one_call(step);
        if (rn(16) == 0) {
            int who = (int)rn((unsigned)mt_size);
            unsigned us = rn(2000);
            if (who == mt_rank)
                usleep(us);
        }
    }
    while (npend)
        wait_one(0, steps, 0);
    for (int i = 1; i < 4; i++)
        if (comms[i].c != MPI_COMM_NULL)
            toggle_comm(i, steps);
    MPI_Type_free(&lays[T_VEC].dt);
    MPI_Type_free(&lays[T_V64].dt);
    MPI_Op_free(&ops[O_USER]);
    if (mt_failed)
        fprintf(stderr, "rank %d: %d failures; rerun with MT_SEED=%" PRIu64 " MT_STEPS=%d\n",
                mt_rank, mt_failed, seed, steps);
    return mt_finish("t_fuzz");
}
