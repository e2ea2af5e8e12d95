/* Randomized point-to-point fuzz. Rounds of a schedule drawn from MT_SEED
 * (printed first, so a hang or failure replays with MT_SEED=...) that every
 * rank draws alike, so each knows what every other sends it:
 *
 *  - every send mode (blocking, non-blocking, synchronous, buffered, ready,
 *    persistent) and receives pre-posted or late (blocking, non-blocking,
 *    persistent, after Probe/Iprobe/Mprobe/Improbe), and a ring of
 *    persistent requests restarted every round;
 *  - sizes across the eager limit, the split threshold, the 256 KiB rings,
 *    now and then 1-4 MiB; bytes or ints through contiguous, vector,
 *    indexed and struct types, sender and receiver layouts drawn apart;
 *  - five communicators: A, R (ranks reversed), H (even/odd halves) and
 *    N (a fresh dup each round, so early senders' messages wait for a
 *    slower rank to create it) carry ordered streams, where the receives of a stream are posted in
 *    send order (a pre-posted prefix, then late ones), so MPI_ANY_TAG is
 *    deterministic there; B gives every message a tag of its own, so
 *    MPI_ANY_SOURCE is deterministic there and receives go in any order;
 *  - bursts of small non-blocking sends (up to 4 KiB) received late, which
 *    use up the eager credits and fill the rings,
 *    truncated receives (MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN),
 *    cancelled receives and rendezvous sends that nobody matches, sends
 *    cancelled while their receive may be matching them (the sender tells
 *    the outcome: a cancelled one must never arrive, any other must),
 *    Sendrecv, Sendrecv_replace and Isendrecv(_replace) events, short
 *    sleeps on one rank.
 *
 * Deadlock freedom: a blocking send other than a small MPI_Send (which
 * rdmpi completes from a copy) targets a pre-posted receive; an Rsend
 * waits for a token the receiver sends once its receives are posted; the
 * Sendrecv events run in one global order. Every byte and every int is a
 * function of (seed, round, src, dst, message index, offset); gaps of
 * derived receive layouts and bytes past the message must stay untouched. */
#include "mpitest.h"

#include <stdint.h>
#include <time.h>
#include <unistd.h>

#define MAXR            64
#define SENTINEL        0xEE
#define SMALL_SEND      256 /* a blocking MPI_Send this small may go before its receive */
#define TAG_CANCEL_SEND 32000
#define TAG_CANCEL_RECV 32001
#define TAG_RACE        32002

enum { CA, CB, CR, CH, CN, NCOMM };
enum { T_BYTE, T_INT, T_VEC, T_IDX, T_STRUCT, NTYPE };
enum { S_SEND, S_ISEND, S_SSEND, S_ISSEND, S_BSEND, S_IBSEND, S_RSEND, S_IRSEND, S_PSEND, NSK };
enum { R_IRECV, R_PERS, R_PALL, L_RECV, L_IRECV, L_PROBE, L_IPROBE, L_MPROBE, L_IMPROBE, L_PERS };
enum { E_RECV, E_SEND, E_CANCEL_RECV, E_CANCEL_SEND, E_RACE, E_RING, E_OTHER };

static const char *sk_name[] = {"Send",   "Isend", "Ssend",  "Issend",   "Bsend",
                                "Ibsend", "Rsend", "Irsend", "Send_init"};
static const char *rk_name[] = {
    "Irecv",      "Recv_init",   "Recv_init+Startall", "Recv",           "late Irecv",
    "Probe+Recv", "Iprobe+Recv", "Mprobe+Mrecv",       "Improbe+Imrecv", "late Recv_init"};

/* Where the 4 ints of one element of each int layout sit, and its extent. */
static const int lay_pos[NTYPE][4] = {{0}, {0, 1, 2, 3}, {0, 1, 3, 4}, {0, 2, 3, 6}, {0, 2, 5, 6}};
static const int lay_ext[NTYPE] = {1, 4, 5, 7, 8};
static MPI_Datatype dtype[NTYPE];

static MPI_Comm comm[NCOMM], comm_sr, comm_ctl;
static int crank[NCOMM][MAXR]; /* world rank -> rank in comm[c] */
static unsigned seed;
static int verbose;
/* MT_STRICT=1: no blocking send before its receive is posted, so the test
 * stays correct when small sends may block (RDMPI_PML_DETACH_LIMIT). */
static int strict;

struct msg {
    int src, dst, c, tag;
    int elem; /* T_BYTE, or an int layout */
    int stype, rtype;
    size_t n; /* bytes, or elements of 4 ints */
    int skind, rkind, pre, anysrc, anytag, trunc, bigger;
    unsigned base;
    uint64_t key; /* drawn order; a burst's messages share one, in sequence */
    /* receiver state */
    char *rbuf;
    size_t rbytes;
    int rcount; /* count passed to the receive */
    MPI_Request rreq;
    /* sender state */
    char *sbuf;
    MPI_Request sreq;
};

static uint64_t rnd(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned rn(uint64_t *s, unsigned n)
{
    return n ? (unsigned)(rnd(s) % n) : 0;
}

static unsigned mix(unsigned a, unsigned b, unsigned c, unsigned d, unsigned e)
{
    uint64_t s =
        ((uint64_t)a << 32) ^ ((uint64_t)b << 20) ^ ((uint64_t)c << 10) ^ d ^ ((uint64_t)e << 40);
    return (unsigned)rnd(&s);
}

static unsigned char byte_at(unsigned base, size_t j)
{
    return (unsigned char)(base + j * 131u + (j >> 8) * 7u + (j >> 16));
}

static int int_at(unsigned base, size_t i)
{
    return (int)(base ^ (unsigned)(i * 2654435761u));
}

#define CK(call)                                                                                   \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK_MPI(rc_, "seed %u: %s returned %d", seed, #call, rc_);                               \
    } while (0)

/* The datatype and count a side passes for a message of n units. */
static MPI_Datatype side_type(const struct msg *m, int lay)
{
    return m->elem == T_BYTE ? MPI_BYTE : dtype[lay];
}

static int side_count(const struct msg *m, int lay)
{
    if (m->elem == T_BYTE)
        return (int)m->n;
    return lay == T_INT ? (int)(4 * m->n) : (int)m->n;
}

static size_t lay_bytes(const struct msg *m, int lay)
{
    if (m->elem == T_BYTE)
        return m->n;
    return m->n * (size_t)lay_ext[lay] * sizeof(int);
}

static void fill_send(struct msg *m, int gap)
{
    size_t len = lay_bytes(m, m->stype);
    m->sbuf = malloc(len + 1);
    memset(m->sbuf, gap, len + 1);
    if (m->elem == T_BYTE) {
        for (size_t j = 0; j < m->n; j++)
            m->sbuf[j] = (char)byte_at(m->base, j);
        return;
    }
    int *p = (int *)m->sbuf;
    for (size_t e = 0; e < m->n; e++)
        for (int j = 0; j < 4; j++)
            p[e * (size_t)lay_ext[m->stype] + (size_t)lay_pos[m->stype][j]] =
                int_at(m->base, e * 4 + (size_t)j);
}

static void alloc_recv(struct msg *m)
{
    if (m->elem == T_BYTE) {
        m->rcount = m->trunc ? (int)(m->n / 2) : (int)m->n + (m->bigger ? 100 : 0);
        m->rbytes = (size_t)m->rcount;
    } else {
        m->rcount = side_count(m, m->rtype) * (m->bigger ? 2 : 1);
        m->rbytes = lay_bytes(m, m->rtype) * (m->bigger ? 2 : 1);
    }
    m->rbuf = malloc(m->rbytes + 64);
    memset(m->rbuf, SENTINEL, m->rbytes + 64);
}

static const char *describe(const struct msg *m, int round, int i)
{
    static char b[256];
    snprintf(
        b, sizeof(b),
        "seed %u round %d msg %d: %d->%d comm %d tag %d %s%zu %s, recv %s%s%s%s%s layout %d->%d",
        seed, round, i, m->src, m->dst, m->c, m->tag, m->elem == T_BYTE ? "bytes " : "quads ", m->n,
        sk_name[m->skind], rk_name[m->rkind], m->anysrc ? " ANY_SOURCE" : "",
        m->anytag ? " ANY_TAG" : "", m->trunc ? " truncated" : "", m->pre ? " pre" : " late",
        m->stype, m->rtype);
    return b;
}

/* Checks a completed receive: status, count, every unit, and that nothing
 * past the message or in a layout's gaps was written. */
static void check_recv(struct msg *m, const MPI_Status *st, int round, int i)
{
    const char *d = describe(m, round, i);
    if (m->trunc) {
        CHECK_ALL ("%s: status source %d tag %d", d, st->MPI_SOURCE, st->MPI_TAG) {
            CHECK_EQ_INT(st->MPI_SOURCE, crank[m->c][m->src]);
            CHECK_EQ_INT(st->MPI_TAG, m->tag);
        }
    } else {
        int count = -1;
        CK(MPI_Get_count(st, side_type(m, m->rtype), &count));
        CHECK_ALL ("%s: status source %d tag %d count %d, expected %d %d %d", d, st->MPI_SOURCE,
                   st->MPI_TAG, count, crank[m->c][m->src], m->tag, side_count(m, m->rtype)) {
            CHECK_EQ_INT(st->MPI_SOURCE, crank[m->c][m->src]);
            CHECK_EQ_INT(st->MPI_TAG, m->tag);
            CHECK_EQ_INT(count, side_count(m, m->rtype));
        }
    }
    unsigned char *b = (unsigned char *)m->rbuf;
    if (m->elem == T_BYTE) {
        size_t got = m->trunc ? (size_t)m->rcount : m->n;
        for (size_t j = 0; j < got; j++)
            if (b[j] != byte_at(m->base, j)) {
                CHECK_TRUE(0, "%s: byte %zu is %d, expected %d", d, j, b[j], byte_at(m->base, j));
                break;
            }
        for (size_t j = got; j < m->rbytes + 64; j++)
            if (b[j] != SENTINEL) {
                CHECK_TRUE(0, "%s: byte %zu past the message written", d, j);
                break;
            }
    } else {
        int *p = (int *)m->rbuf;
        int sent;
        memset(&sent, SENTINEL, sizeof(sent));
        size_t ext = (size_t)lay_ext[m->rtype], nint = (m->rbytes + 64) / sizeof(int);
        size_t bad = 0;
        for (size_t k = 0; k < nint && !bad; k++) {
            size_t e = k / ext, off = k % ext;
            int want = sent;
            if (e < m->n)
                for (int j = 0; j < 4; j++)
                    if ((size_t)lay_pos[m->rtype][j] == off)
                        want = int_at(m->base, e * 4 + (size_t)j);
            if (p[k] != want)
                bad = k + 1;
        }
        CHECK_TRUE(!bad, "%s: int %zu wrong", d, bad - 1);
    }
    free(m->rbuf);
    m->rbuf = NULL;
}

/* The pool of outstanding requests of one rank in one round. */
struct pool {
    MPI_Request *rq;
    int *kind, *idx;
    int n, live;
};

static struct msg *msgs;
static int cur_round;
static int race_cancelled; /* the outcome of this rank's racing cancel */
/* A persistent ring, restarted every round: a send to the right, a
 * receive from the left, of ring_len bytes. */
static MPI_Request ring_req[2];
static char *ring_buf[2];
static size_t ring_len;

static void ring_check(const MPI_Status *st)
{
    int left = (mt_rank + mt_size - 1) % mt_size, count = -1;
    unsigned base = mix(seed, (unsigned)cur_round, (unsigned)left, (unsigned)mt_rank, 300000u);
    CK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK_ALL ("seed %u round %d: ring status source %d tag %d count %d", seed, cur_round,
               st->MPI_SOURCE, st->MPI_TAG, count) {
        CHECK_EQ_INT(st->MPI_SOURCE, left);
        CHECK_EQ_INT(st->MPI_TAG, 7);
        CHECK_EQ_INT(count, (int)ring_len);
    }
    for (size_t j = 0; j < ring_len; j++)
        if ((unsigned char)ring_buf[1][j] != byte_at(base, j)) {
            CHECK_TRUE(0, "seed %u round %d: ring byte %zu wrong", seed, cur_round, j);
            break;
        }
}

static void pool_add(struct pool *p, MPI_Request r, int kind, int idx)
{
    p->rq[p->n] = r;
    p->kind[p->n] = kind;
    p->idx[p->n] = idx;
    p->n++;
    p->live++;
}

/* Handles entry k of the pool once its request completed with status st;
 * persistent requests are freed here. */
static void pool_done(struct pool *p, int k, MPI_Status *st, MPI_Request done)
{
    struct msg *m = p->idx[k] >= 0 ? &msgs[p->idx[k]] : NULL;
    int flag = -1;
    switch (p->kind[k]) {
    case E_RECV:
        if (m->rkind == R_PERS || m->rkind == R_PALL || m->rkind == L_PERS)
            CK(MPI_Request_free(&done));
        check_recv(m, st, cur_round, p->idx[k]);
        break;
    case E_SEND:
        if (m->skind == S_PSEND)
            CK(MPI_Request_free(&done));
        free(m->sbuf);
        m->sbuf = NULL;
        break;
    case E_CANCEL_RECV:
    case E_CANCEL_SEND:
        CK(MPI_Test_cancelled(st, &flag));
        CHECK_EQ_INT(flag, 1, "seed %u round %d: a %s that nothing matches was not cancelled", seed,
                     cur_round, p->kind[k] == E_CANCEL_RECV ? "receive" : "send");
        break;
    case E_RACE: CK(MPI_Test_cancelled(st, &race_cancelled)); break;
    case E_RING:
        if (p->idx[k] == 1)
            ring_check(st);
        break;
    default: break;
    }
    p->rq[k] = MPI_REQUEST_NULL;
    p->live--;
}

/* Completes what is ready (poll) or everything (!poll) with a drawn call. */
static void pool_progress(struct pool *p, uint64_t *s, int poll)
{
    int n = p->n, how = (int)rn(s, 8);
    MPI_Request *save = malloc(sizeof(*save) * (size_t)(n + 1));
    MPI_Status *st = malloc(sizeof(*st) * (size_t)(n + 1));
    int *ix = malloc(sizeof(int) * (size_t)(n + 1));
    volatile double work = 0;

    if (p->live == 0 || n == 0)
        goto out;
    memcpy(save, p->rq, sizeof(*save) * (size_t)n);
    if (poll && how == 0)
        how = 3; /* Waitall would block */
    if (poll && (how == 1 || how == 2))
        how += 3; /* the Test forms instead */
    if (poll && how == 6)
        how = 7;
    switch (how) {
    case 0: /* Waitall */
        CK(MPI_Waitall(n, p->rq, st));
        for (int k = 0; k < n; k++)
            if (save[k] != MPI_REQUEST_NULL)
                pool_done(p, k, &st[k], p->rq[k]);
        break;
    case 1: /* Waitany */
        while (p->live) {
            int k;
            CK(MPI_Waitany(n, p->rq, &k, &st[0]));
            if (k == MPI_UNDEFINED)
                break;
            pool_done(p, k, &st[0], p->rq[k]);
        }
        break;
    case 2: /* Waitsome */
        while (p->live) {
            int out;
            CK(MPI_Waitsome(n, p->rq, &out, ix, st));
            if (out == MPI_UNDEFINED)
                break;
            for (int j = 0; j < out; j++)
                pool_done(p, ix[j], &st[j], p->rq[ix[j]]);
        }
        break;
    case 3: /* Testall */
        for (;;) {
            int flag;
            CK(MPI_Testall(n, p->rq, &flag, st));
            if (flag) {
                for (int k = 0; k < n; k++)
                    if (save[k] != MPI_REQUEST_NULL)
                        pool_done(p, k, &st[k], p->rq[k]);
                break;
            }
            if (poll)
                break;
            for (int w = 0; w < 200; w++)
                work += w * 0.5;
        }
        break;
    case 4: /* Testany */
        while (p->live) {
            int k, flag;
            CK(MPI_Testany(n, p->rq, &k, &flag, &st[0]));
            if (flag && k != MPI_UNDEFINED)
                pool_done(p, k, &st[0], p->rq[k]);
            else if (poll || (flag && k == MPI_UNDEFINED))
                break;
            for (int w = 0; w < 100; w++)
                work += w * 0.5;
        }
        break;
    case 5: /* Testsome */
        while (p->live) {
            int out;
            CK(MPI_Testsome(n, p->rq, &out, ix, st));
            if (out == MPI_UNDEFINED)
                break;
            for (int j = 0; j < out; j++)
                pool_done(p, ix[j], &st[j], p->rq[ix[j]]);
            if (poll)
                break;
        }
        break;
    case 6:   /* Wait, one at a time from a random start */
    case 7: { /* Test, round robin */
        int start = (int)rn(s, (unsigned)n);
        for (int j = 0; j < n && p->live; j++) {
            int k = (start + j) % n;
            if (p->rq[k] == MPI_REQUEST_NULL)
                continue;
            if (how == 6) {
                CK(MPI_Wait(&p->rq[k], &st[0]));
                pool_done(p, k, &st[0], save[k]);
            } else {
                int flag;
                CK(MPI_Test(&p->rq[k], &flag, &st[0]));
                if (flag)
                    pool_done(p, k, &st[0], save[k]);
                else if (!poll)
                    j--, work += 1; /* stay on it */
            }
        }
        break;
    }
    }
out:
    free(save);
    free(st);
    free(ix);
}

static size_t pick_bytes(uint64_t *s, int *big_left)
{
    static const size_t edges[] = {0, 1, 64, 32767, 32768, 32769, 131072, 262143, 262144, 262145};
    unsigned r = rn(s, 200);
    if (r < 60)
        return rn(s, 200);
    if (r < 80)
        return edges[rn(s, 3)];
    if (r < 115)
        return 4095 + rn(s, 19);
    if (r < 135)
        return edges[3 + rn(s, 7)];
    if (r < 175)
        return rn(s, 70000);
    if (r < 198 || !*big_left)
        return rn(s, 300000);
    --*big_left;
    return (1u << 20) + rn(s, 3u << 20);
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const struct msg *)a)->key, y = ((const struct msg *)b)->key;
    return x < y ? -1 : x > y;
}

/* Draws round r's messages; every rank draws the same. */
static int draw_round(uint64_t *s, struct msg **out)
{
    int np = mt_size, cap = 64, n = 0, big_left = 1;
    struct msg *m = calloc((size_t)cap, sizeof(*m));
    for (int src = 0; src < np; src++)
        for (int dst = 0; dst < np; dst++) {
            int k = (int)rn(s, src == dst ? 3 : 8);
            int burst = rn(s, 10) == 0 ? 30 + (int)rn(s, 170) : 0;
            /* Bursts of 3-4 KiB messages use up the default credits. */
            int burst_big = (int)rn(s, 2);
            uint64_t burst_key = rnd(s) & ~0xffffull;
            for (int j = 0; j < k + burst; j++) {
                if (n == cap)
                    m = realloc(m, sizeof(*m) * (size_t)(cap *= 2));
                struct msg *x = &m[n++];
                memset(x, 0, sizeof(*x));
                x->src = src;
                x->dst = dst;
                x->tag = j < k ? 0 : -1; /* -1 marks a burst message */
                size_t bytes = j < k       ? pick_bytes(s, &big_left)
                               : burst_big ? 3000 + rn(s, 1114)
                                           : rn(s, 65);
                x->key = j < k ? rnd(s) : burst_key + (uint64_t)(j - k);
                x->elem = rn(s, 3) == 0 ? (int)(T_INT + rn(s, 4)) : T_BYTE;
                x->stype = x->elem == T_BYTE ? T_BYTE : (int)(T_INT + rn(s, 4));
                x->rtype = x->elem == T_BYTE ? T_BYTE : (int)(T_INT + rn(s, 4));
                x->n = x->elem == T_BYTE ? bytes : bytes / 16;
            }
        }
    /* Shuffle, but keep each burst together and in order. */
    qsort(m, (size_t)n, sizeof(*m), by_key);
    *out = m;
    return n;
}

/* Per-stream and per-message choices, from the drawn order. */
static void choose(uint64_t *s, struct msg *m, int n)
{
    static int next[NCOMM][MAXR][MAXR], prefix[NCOMM][MAXR][MAXR], btag[MAXR][MAXR];
    static int total[NCOMM][MAXR][MAXR], closed[NCOMM][MAXR][MAXR];
    memset(next, 0, sizeof(next));
    memset(closed, 0, sizeof(closed));
    memset(total, 0, sizeof(total));
    memset(btag, 0, sizeof(btag));
    for (int i = 0; i < n; i++) {
        struct msg *x = &m[i];
        int burst = x->tag < 0;
        x->c = burst ? (int)(const int[]){CA, CB, CN}[rn(s, 3)] : (int)rn(s, NCOMM);
        if (x->c == CH && x->src % 2 != x->dst % 2)
            x->c = CA;
        if (x->c != CB)
            total[x->c][x->src][x->dst]++;
    }
    for (int c = 0; c < NCOMM; c++)
        for (int a = 0; a < mt_size; a++)
            for (int b = 0; b < mt_size; b++)
                prefix[c][a][b] = (int)rn(s, (unsigned)total[c][a][b] + 1);
    for (int i = 0; i < n; i++) {
        struct msg *x = &m[i];
        int burst = x->tag < 0;
        x->base = mix(seed, (unsigned)cur_round, (unsigned)x->src, (unsigned)x->dst, (unsigned)i);
        if (x->c == CB) {
            x->tag = 1000 + x->src * 2000 + btag[x->src][x->dst]++;
            x->pre = burst ? 0 : (int)rn(s, 2);
            x->anysrc = rn(s, 3) == 0;
        } else {
            int k = next[x->c][x->src][x->dst]++;
            x->tag = k;
            /* Pre-posted receives are a prefix of the stream. */
            x->pre = !burst && !closed[x->c][x->src][x->dst] && k < prefix[x->c][x->src][x->dst];
            closed[x->c][x->src][x->dst] |= !x->pre;
            x->anytag = rn(s, 3) == 0;
        }
        x->trunc = x->elem == T_BYTE && x->n > 0 && !burst && rn(s, 16) == 0;
        x->bigger = !x->trunc && rn(s, 5) == 0;
        if (x->pre) {
            x->rkind = x->trunc ? R_IRECV : (int)rn(s, x->c == CB ? 3 : 2);
            x->skind = (int)rn(s, NSK);
        } else {
            x->rkind = x->trunc ? L_RECV : L_RECV + (int)rn(s, 7);
            static const int late_ok[] = {S_SEND, S_ISEND, S_ISSEND, S_BSEND, S_IBSEND, S_PSEND};
            x->skind = late_ok[rn(s, 6)];
            if (x->skind == S_SEND && (strict || lay_bytes(x, x->stype) > SMALL_SEND))
                x->skind = S_ISEND;
        }
        if (burst)
            x->skind = rn(s, 4) || strict || lay_bytes(x, x->stype) > SMALL_SEND ? S_ISEND : S_SEND;
    }
}

static void post_recv(struct msg *m, int i, struct pool *p, MPI_Request *all, int *alli, int *nall)
{
    int src = m->anysrc ? MPI_ANY_SOURCE : crank[m->c][m->src];
    int tag = m->anytag ? MPI_ANY_TAG : m->tag;
    MPI_Request r;
    alloc_recv(m);
    if (m->rkind == R_IRECV) {
        CK(MPI_Irecv(m->rbuf, m->rcount, side_type(m, m->rtype), src, tag, comm[m->c], &r));
        if (m->trunc) {
            m->rreq = r; /* completed on its own: it ends in an error */
            return;
        }
    } else {
        CK(MPI_Recv_init(m->rbuf, m->rcount, side_type(m, m->rtype), src, tag, comm[m->c], &r));
        if (m->rkind == R_PALL) { /* joins the pool once started */
            alli[*nall] = i;
            all[(*nall)++] = r;
            return;
        }
        CK(MPI_Start(&r));
    }
    pool_add(p, r, E_RECV, i);
}

static void expect_truncate(int rc, struct msg *m, int i)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TRUNCATE, "%s: error class %d, expected MPI_ERR_TRUNCATE",
                 describe(m, cur_round, i), cls);
}

/* A late receive: blocking ones are checked here, others join the pool. */
static void late_recv(struct msg *m, int i, struct pool *p, uint64_t *s)
{
    int src = m->anysrc ? MPI_ANY_SOURCE : crank[m->c][m->src];
    int tag = m->anytag ? MPI_ANY_TAG : m->tag;
    MPI_Datatype t = side_type(m, m->rtype);
    MPI_Status st;
    MPI_Request r;
    MPI_Message msg;
    int flag = 0, count = -1;

    alloc_recv(m);
    switch (m->rkind) {
    case L_RECV: {
        int rc = MPI_Recv(m->rbuf, m->rcount, t, src, tag, comm[m->c], &st);
        if (m->trunc)
            expect_truncate(rc, m, i);
        else
            CHECK_MPI(rc, "%s: MPI_Recv returned %d", describe(m, cur_round, i), rc);
        check_recv(m, &st, cur_round, i);
        return;
    }
    case L_IRECV:
        CK(MPI_Irecv(m->rbuf, m->rcount, t, src, tag, comm[m->c], &r));
        pool_add(p, r, E_RECV, i);
        return;
    case L_PERS:
        CK(MPI_Recv_init(m->rbuf, m->rcount, t, src, tag, comm[m->c], &r));
        CK(MPI_Start(&r));
        pool_add(p, r, E_RECV, i);
        return;
    case L_PROBE:
    case L_IPROBE:
        if (m->rkind == L_PROBE)
            CK(MPI_Probe(src, tag, comm[m->c], &st));
        else
            while (!flag) {
                CK(MPI_Iprobe(src, tag, comm[m->c], &flag, &st));
                if (!flag && rn(s, 8) == 0)
                    pool_progress(p, s, 1);
            }
        CK(MPI_Get_count(&st, t, &count));
        CHECK_ALL ("%s: probe source %d tag %d count %d", describe(m, cur_round, i), st.MPI_SOURCE,
                   st.MPI_TAG, count) {
            CHECK_EQ_INT(st.MPI_SOURCE, crank[m->c][m->src]);
            CHECK_EQ_INT(st.MPI_TAG, m->tag);
            CHECK_EQ_INT(count, side_count(m, m->rtype));
        }
        CK(MPI_Recv(m->rbuf, m->rcount, t, st.MPI_SOURCE, st.MPI_TAG, comm[m->c], &st));
        check_recv(m, &st, cur_round, i);
        return;
    case L_MPROBE:
    case L_IMPROBE:
        if (m->rkind == L_MPROBE)
            CK(MPI_Mprobe(src, tag, comm[m->c], &msg, &st));
        else
            while (!flag) {
                CK(MPI_Improbe(src, tag, comm[m->c], &flag, &msg, &st));
                if (!flag && rn(s, 8) == 0)
                    pool_progress(p, s, 1);
            }
        CK(MPI_Get_count(&st, t, &count));
        CHECK_ALL ("%s: mprobe source %d tag %d count %d", describe(m, cur_round, i), st.MPI_SOURCE,
                   st.MPI_TAG, count) {
            CHECK_EQ_INT(st.MPI_SOURCE, crank[m->c][m->src]);
            CHECK_EQ_INT(st.MPI_TAG, m->tag);
            CHECK_EQ_INT(count, side_count(m, m->rtype));
        }
        if (m->rkind == L_MPROBE) {
            CK(MPI_Mrecv(m->rbuf, m->rcount, t, &msg, &st));
            check_recv(m, &st, cur_round, i);
        } else {
            CK(MPI_Imrecv(m->rbuf, m->rcount, t, &msg, &r));
            pool_add(p, r, E_RECV, i);
        }
        return;
    }
}

static void do_send(struct msg *m, int i, struct pool *p, MPI_Request *all, int *alli, int *nall)
{
    int dst = crank[m->c][m->dst], cnt = side_count(m, m->stype);
    MPI_Datatype t = side_type(m, m->stype);
    MPI_Comm cm = comm[m->c];
    MPI_Request r = MPI_REQUEST_NULL;
    fill_send(m, 0x5c);
    switch (m->skind) {
    case S_SEND: CK(MPI_Send(m->sbuf, cnt, t, dst, m->tag, cm)); break;
    case S_SSEND: CK(MPI_Ssend(m->sbuf, cnt, t, dst, m->tag, cm)); break;
    case S_BSEND: CK(MPI_Bsend(m->sbuf, cnt, t, dst, m->tag, cm)); break;
    case S_RSEND: CK(MPI_Rsend(m->sbuf, cnt, t, dst, m->tag, cm)); break;
    case S_ISEND: CK(MPI_Isend(m->sbuf, cnt, t, dst, m->tag, cm, &r)); break;
    case S_ISSEND: CK(MPI_Issend(m->sbuf, cnt, t, dst, m->tag, cm, &r)); break;
    case S_IBSEND: CK(MPI_Ibsend(m->sbuf, cnt, t, dst, m->tag, cm, &r)); break;
    case S_IRSEND: CK(MPI_Irsend(m->sbuf, cnt, t, dst, m->tag, cm, &r)); break;
    case S_PSEND:
        CK(MPI_Send_init(m->sbuf, cnt, t, dst, m->tag, cm, &r));
        /* On B, where order does not matter, persistent sends start
         * together after the others, and join the pool then. */
        if (m->c == CB) {
            alli[*nall] = i;
            all[(*nall)++] = r;
            return;
        }
        CK(MPI_Start(&r));
        break;
    }
    if (r == MPI_REQUEST_NULL) {
        free(m->sbuf);
        m->sbuf = NULL;
        return;
    }
    pool_add(p, r, E_SEND, i);
}

static void maybe_sleep(uint64_t *s, int who, int when, int here)
{
    unsigned us = rn(s, 3000);
    if (who == mt_rank && when == here)
        usleep(us);
}

static void run_round(uint64_t *gs)
{
    struct msg *m;
    int n = draw_round(gs, &m);
    choose(gs, m, n);
    msgs = m;
    int sleeper = (int)rn(gs, (unsigned)mt_size), when = (int)rn(gs, 5);
    uint64_t ls = rnd(gs) ^ (uint64_t)mt_rank * 0x1234567ull; /* this rank's own draws */
    /* Sendrecv events, in one global order. */
    int nev = (int)rn(gs, (unsigned)mt_size * 2);
    int ev[64][4];
    for (int e = 0; e < nev && e < 64; e++) {
        ev[e][0] = (int)rn(gs, (unsigned)mt_size);
        ev[e][1] = (int)rn(gs, (unsigned)mt_size);
        ev[e][2] = (int)pick_bytes(gs, &(int){0});
        ev[e][3] = (int)rn(gs, 6); /* odd: _replace; 4, 5: the Isendrecv forms */
    }
    /* Racing cancels: rank r sends race[r] bytes to rdst[r] (-1: none)
     * and cancels; the receive is posted early or late. */
    int rdst[MAXR], rpre[MAXR], rkind[MAXR];
    size_t rlen[MAXR];
    for (int r = 0; r < mt_size; r++) {
        rdst[r] = rn(gs, 3) ? -1 : (int)rn(gs, (unsigned)mt_size);
        rlen[r] = pick_bytes(gs, &(int){0});
        rpre[r] = (int)rn(gs, 2);
        rkind[r] = (int)rn(gs, 3);
    }
    struct msg race_in[MAXR];
    memset(race_in, 0, sizeof(race_in));
    for (int r = 0; r < mt_size; r++) {
        race_in[r].src = r;
        race_in[r].dst = mt_rank;
        race_in[r].c = CB;
        race_in[r].tag = TAG_RACE;
        race_in[r].elem = race_in[r].stype = race_in[r].rtype = T_BYTE;
        race_in[r].n = rlen[r];
        race_in[r].base = mix(seed, (unsigned)cur_round, (unsigned)r, (unsigned)rdst[r], 200000u);
        race_in[r].rreq = MPI_REQUEST_NULL;
    }
    struct pool p;
    int cap = 2 * n + 2 * mt_size + 16;
    p.rq = malloc(sizeof(MPI_Request) * (size_t)cap);
    p.kind = malloc(sizeof(int) * (size_t)cap);
    p.idx = malloc(sizeof(int) * (size_t)cap);
    p.n = p.live = 0;
    MPI_Request *all = malloc(sizeof(MPI_Request) * (size_t)cap);
    int *alli = malloc(sizeof(int) * (size_t)cap), nall = 0;
    int *token_from = calloc((size_t)mt_size, sizeof(int));
    int *token_to = calloc((size_t)mt_size, sizeof(int));
    size_t bsend_used = 0;

    if (verbose && mt_rank == 0)
        fprintf(stderr, "t_fuzz: round %d, %d messages\n", cur_round, n);
    for (int i = 0; i < n; i++) {
        if (m[i].skind == S_BSEND || m[i].skind == S_IBSEND) {
            /* Keep buffered sends within the attached buffer. */
            size_t need = lay_bytes(&m[i], m[i].stype) + MPI_BSEND_OVERHEAD + 64;
            if (m[i].src == mt_rank) {
                if (bsend_used + need > (4u << 20))
                    m[i].skind = m[i].skind == S_BSEND &&
                                         (m[i].pre ||
                                          (!strict && lay_bytes(&m[i], m[i].stype) <= SMALL_SEND))
                                     ? S_SEND
                                     : S_ISEND;
                else
                    bsend_used += need;
            }
        }
        if (m[i].skind == S_RSEND || m[i].skind == S_IRSEND) {
            token_from[m[i].dst] |= m[i].src == mt_rank;
            token_to[m[i].src] |= m[i].dst == mt_rank;
        }
    }

    maybe_sleep(gs, sleeper, when, 0);
    /* A receive nobody sends to, cancelled later. */
    MPI_Request crq = MPI_REQUEST_NULL;
    void *cbuf = malloc(16);
    if (rn(&ls, 3) == 0) {
        int c = (int)rn(&ls, NCOMM);
        int src = rn(&ls, 2) ? MPI_ANY_SOURCE : (int)rn(&ls, (unsigned)mt_size);
        if (c == CH && src != MPI_ANY_SOURCE)
            src = crank[CH][mt_rank];
        CK(MPI_Irecv(cbuf, 16, MPI_BYTE, src, TAG_CANCEL_RECV, comm[c], &crq));
    }

    for (int r = 0; r < mt_size; r++)
        if (rdst[r] == mt_rank && rpre[r]) {
            alloc_recv(&race_in[r]);
            CK(MPI_Irecv(race_in[r].rbuf, race_in[r].rcount, MPI_BYTE, crank[CB][r], TAG_RACE,
                         comm[CB], &race_in[r].rreq));
        }
    /* Pre-posted receives, in schedule order. */
    for (int i = 0; i < n; i++)
        if (m[i].dst == mt_rank && m[i].pre)
            post_recv(&m[i], i, &p, all, alli, &nall);
    if (nall)
        CK(MPI_Startall(nall, all));
    for (int k = 0; k < nall; k++)
        pool_add(&p, all[k], E_RECV, alli[k]);
    nall = 0;
    /* The persistent ring, started again. */
    for (size_t j = 0; j < ring_len; j++)
        ring_buf[0][j] = (char)byte_at(mix(seed, (unsigned)cur_round, (unsigned)mt_rank,
                                           (unsigned)((mt_rank + 1) % mt_size), 300000u),
                                       j);
    memset(ring_buf[1], 0, ring_len + 1);
    if (rn(&ls, 2))
        CK(MPI_Startall(2, ring_req));
    else
        for (int k = 1; k >= 0; k--)
            CK(MPI_Start(&ring_req[k]));
    pool_add(&p, ring_req[0], E_RING, 0);
    pool_add(&p, ring_req[1], E_RING, 1);
    for (int r = 0; r < mt_size; r++)
        if (token_to[r]) {
            MPI_Request t;
            CK(MPI_Isend(NULL, 0, MPI_BYTE, r, 0, comm_ctl, &t));
            pool_add(&p, t, E_OTHER, -1);
        }

    /* Sends in schedule order, polling now and then. */
    int half = n / 2;
    for (int i = 0; i < n; i++) {
        if (i == half)
            maybe_sleep(gs, sleeper, when, 1);
        if (m[i].src != mt_rank)
            continue;
        if ((m[i].skind == S_RSEND || m[i].skind == S_IRSEND) && token_from[m[i].dst] == 1) {
            CK(MPI_Recv(NULL, 0, MPI_BYTE, m[i].dst, 0, comm_ctl, MPI_STATUS_IGNORE));
            token_from[m[i].dst] = 2;
        }
        do_send(&m[i], i, &p, all, alli, &nall);
        if (rn(&ls, 4) == 0)
            pool_progress(&p, &ls, 1);
    }
    if (nall)
        CK(MPI_Startall(nall, all));
    for (int k = 0; k < nall; k++)
        pool_add(&p, all[k], E_SEND, alli[k]);
    /* A rendezvous send nobody receives, cancelled. */
    char *csbuf = NULL;
    if (rn(&ls, 4) == 0) {
        size_t len = rn(&ls, 2) ? rn(&ls, 5000) : 200000 + rn(&ls, 100000);
        int to = (int)rn(&ls, (unsigned)mt_size);
        MPI_Request r;
        csbuf = calloc(1, len + 1);
        if (len < 200000)
            CK(MPI_Issend(csbuf, (int)len, MPI_BYTE, to, TAG_CANCEL_SEND, comm[CB], &r));
        else
            CK(MPI_Isend(csbuf, (int)len, MPI_BYTE, to, TAG_CANCEL_SEND, comm[CB], &r));
        if (rn(&ls, 2))
            pool_progress(&p, &ls, 1);
        CK(MPI_Cancel(&r));
        pool_add(&p, r, E_CANCEL_SEND, -1);
    }

    /* The racing send: cancelled at once or after some progress. */
    struct msg race_out = race_in[mt_rank];
    race_cancelled = -1;
    if (rdst[mt_rank] >= 0) {
        MPI_Request r;
        int to = crank[CB][rdst[mt_rank]];
        race_out.dst = rdst[mt_rank];
        fill_send(&race_out, 0x5c);
        if (rkind[mt_rank] == 0)
            CK(MPI_Isend(race_out.sbuf, (int)rlen[mt_rank], MPI_BYTE, to, TAG_RACE, comm[CB], &r));
        else if (rkind[mt_rank] == 1)
            CK(MPI_Issend(race_out.sbuf, (int)rlen[mt_rank], MPI_BYTE, to, TAG_RACE, comm[CB], &r));
        else
            CK(MPI_Ibsend(race_out.sbuf, (int)rlen[mt_rank], MPI_BYTE, to, TAG_RACE, comm[CB], &r));
        for (int k = (int)rn(&ls, 4); k > 0; k--)
            pool_progress(&p, &ls, 1);
        CK(MPI_Cancel(&r));
        pool_add(&p, r, E_RACE, -1);
    }

    /* Sendrecv events. */
    maybe_sleep(gs, sleeper, when, 2);
    for (int e = 0; e < nev && e < 64; e++) {
        int a = ev[e][0], b = ev[e][1];
        for (int side = 0; side < 2; side++) {
            int me = side ? b : a, other = side ? a : b;
            if (me != mt_rank || (side && a == b))
                continue;
            struct msg x = {0}, y = {0};
            x.src = me;
            x.dst = other;
            y.src = other;
            y.dst = me;
            x.c = y.c = CA; /* for crank: comm_sr is a dup of the world */
            static const int ev_elem[6] = {T_BYTE, T_BYTE, T_INT, T_IDX, T_BYTE, T_VEC};
            x.elem = y.elem = ev_elem[ev[e][3]];
            x.n = y.n = x.elem == T_BYTE ? (size_t)ev[e][2] : (size_t)ev[e][2] / 16;
            x.stype = x.rtype = y.stype = y.rtype = x.elem;
            x.tag = y.tag = 100 + e;
            x.base = mix(seed, (unsigned)cur_round, (unsigned)me, (unsigned)other,
                         100000u + (unsigned)e);
            y.base = mix(seed, (unsigned)cur_round, (unsigned)other, (unsigned)me,
                         100000u + (unsigned)e);
            fill_send(&x, ev[e][3] % 2 ? SENTINEL : 0x5c);
            alloc_recv(&y);
            MPI_Status st;
            int cnt = side_count(&x, x.stype);
            MPI_Datatype t = side_type(&x, x.stype);
            MPI_Request r;
            if (ev[e][3] % 2)
                memcpy(y.rbuf, x.sbuf, lay_bytes(&x, x.stype));
            switch (ev[e][3]) {
            case 0:
            case 2:
                CK(MPI_Sendrecv(x.sbuf, cnt, t, other, x.tag, y.rbuf, cnt, t, other, y.tag, comm_sr,
                                &st));
                break;
            case 1:
            case 3:
                CK(MPI_Sendrecv_replace(y.rbuf, cnt, t, other, x.tag, other, y.tag, comm_sr, &st));
                break;
            case 4:
                CK(MPI_Isendrecv(x.sbuf, cnt, t, other, x.tag, y.rbuf, cnt, t, other, y.tag,
                                 comm_sr, &r));
                CK(MPI_Wait(&r, &st));
                break;
            default:
                CK(MPI_Isendrecv_replace(y.rbuf, cnt, t, other, x.tag, other, y.tag, comm_sr, &r));
                CK(MPI_Wait(&r, &st));
                break;
            }
            y.rkind = L_RECV;
            y.skind = ev[e][3] % 2 ? S_SEND : S_ISEND;
            check_recv(&y, &st, cur_round, 100000 + e);
            free(x.sbuf);
        }
    }

    /* Late receives: a random interleaving of the streams, each in order;
     * B's in any order. */
    maybe_sleep(gs, sleeper, when, 3);
    for (int r = 0; r < mt_size; r++)
        if (rdst[r] == mt_rank && !rpre[r]) {
            alloc_recv(&race_in[r]);
            CK(MPI_Irecv(race_in[r].rbuf, race_in[r].rcount, MPI_BYTE, crank[CB][r], TAG_RACE,
                         comm[CB], &race_in[r].rreq));
        }
    int *late = malloc(sizeof(int) * (size_t)(n + 1)), nl = 0;
    for (int i = 0; i < n; i++)
        if (m[i].dst == mt_rank && !m[i].pre)
            late[nl++] = i;
    while (nl) {
        int j = (int)rn(&ls, (unsigned)nl), i = late[j];
        if (m[i].c != CB) /* the first of its stream still waiting */
            for (int k = 0; k < j; k++)
                if (m[late[k]].c == m[i].c && m[late[k]].src == m[i].src) {
                    i = late[k];
                    j = k;
                    break;
                }
        memmove(&late[j], &late[j + 1], sizeof(int) * (size_t)(nl - j - 1));
        nl--;
        late_recv(&m[i], i, &p, &ls);
        if (rn(&ls, 4) == 0)
            pool_progress(&p, &ls, 1);
    }
    free(late);
    if (crq != MPI_REQUEST_NULL) {
        CK(MPI_Cancel(&crq));
        pool_add(&p, crq, E_CANCEL_RECV, -1);
    }

    /* Everything else, then the truncated pre-posted receives. */
    pool_progress(&p, &ls, 0);
    for (int i = 0; i < n; i++)
        if (m[i].dst == mt_rank && m[i].pre && m[i].trunc) {
            MPI_Status st;
            expect_truncate(MPI_Wait(&m[i].rreq, &st), &m[i], i);
            check_recv(&m[i], &st, cur_round, i);
        }
    /* The racing cancels' outcomes: a cancelled send never arrives (its
     * receive is cancelled instead), any other arrives whole. */
    if (race_cancelled >= 0) {
        CK(MPI_Send(&race_cancelled, 1, MPI_INT, rdst[mt_rank], 1, comm_ctl));
        free(race_out.sbuf);
    }
    for (int r = 0; r < mt_size; r++) {
        MPI_Status st;
        int cancelled = -1, flag = -1;
        if (rdst[r] != mt_rank)
            continue;
        CK(MPI_Recv(&cancelled, 1, MPI_INT, r, 1, comm_ctl, MPI_STATUS_IGNORE));
        if (verbose)
            fprintf(stderr, "t_fuzz: round %d: %zu bytes %d->%d by %s, receive %s: %s\n", cur_round,
                    rlen[r], r, mt_rank,
                    rkind[r] == 0   ? "Isend"
                    : rkind[r] == 1 ? "Issend"
                                    : "Ibsend",
                    rpre[r] ? "early" : "late", cancelled ? "cancelled" : "delivered");
        if (cancelled)
            CK(MPI_Cancel(&race_in[r].rreq));
        CK(MPI_Wait(&race_in[r].rreq, &st));
        CK(MPI_Test_cancelled(&st, &flag));
        if (cancelled) {
            CHECK_EQ_INT(flag, 1, "seed %u round %d: a send from %d reported cancelled arrived",
                         seed, cur_round, r);
            free(race_in[r].rbuf);
            race_in[r].rbuf = NULL;
        } else {
            check_recv(&race_in[r], &st, cur_round, 200000 + r);
        }
    }
    maybe_sleep(gs, sleeper, when, 4);
    CK(MPI_Buffer_flush());
    CK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK_TRUE(!m[i].rbuf && !m[i].sbuf, "seed %u round %d msg %d left behind", seed, cur_round,
                   i);
    free(csbuf);
    free(cbuf);
    free(token_from);
    free(token_to);
    free(all);
    free(alli);
    free(p.rq);
    free(p.kind);
    free(p.idx);
    free(m);
    msgs = NULL;
}

static void make_types(void)
{
    dtype[T_BYTE] = MPI_BYTE;
    dtype[T_INT] = MPI_INT;
    MPI_Type_vector(2, 2, 3, MPI_INT, &dtype[T_VEC]);
    int bl[3] = {1, 2, 1}, dis[3] = {0, 2, 6};
    MPI_Type_indexed(3, bl, dis, MPI_INT, &dtype[T_IDX]);
    int sbl[3] = {1, 1, 2};
    MPI_Aint sdis[3] = {0, 8, 20};
    MPI_Datatype st[3] = {MPI_INT, MPI_INT, MPI_INT}, tmp;
    MPI_Type_create_struct(3, sbl, sdis, st, &tmp);
    MPI_Type_create_resized(tmp, 0, 32, &dtype[T_STRUCT]);
    MPI_Type_free(&tmp);
    for (int t = T_VEC; t < NTYPE; t++)
        MPI_Type_commit(&dtype[t]);
}

int main(int argc, char **argv)
{
    const char *env = getenv("MT_SEED");
    int rounds = getenv("MT_ROUNDS") ? atoi(getenv("MT_ROUNDS")) : 12;

    mt_init(&argc, &argv);
    verbose = getenv("MT_VERBOSE") != NULL;
    strict = getenv("MT_STRICT") != NULL;
    if (mt_size > MAXR) {
        if (mt_rank == 0)
            printf("t_fuzz: more than %d ranks, skipped\n", MAXR);
        MPI_Finalize();
        return 0;
    }
    seed = env ? (unsigned)strtoul(env, NULL, 0) : (unsigned)time(NULL) ^ (unsigned)getpid();
    MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
    if (mt_rank == 0) {
        printf("t_fuzz: seed %u (replay with MT_SEED=%u)\n", seed, seed);
        fflush(stdout);
    }
    make_types();
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[CA]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[CB]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - 1 - mt_rank, &comm[CR]);
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &comm[CH]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_sr);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_ctl);
    MPI_Group wg, cg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int wr[MAXR];
    for (int r = 0; r < mt_size; r++)
        wr[r] = r;
    for (int c = 0; c < CN; c++) {
        MPI_Comm_set_errhandler(comm[c], MPI_ERRORS_RETURN);
        MPI_Comm_group(comm[c], &cg);
        MPI_Group_translate_ranks(wg, mt_size, wr, cg, crank[c]);
        MPI_Group_free(&cg);
    }
    memcpy(crank[CN], wr, sizeof(wr[0]) * (size_t)mt_size);
    MPI_Group_free(&wg);
    MPI_Comm_set_errhandler(comm_sr, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(comm_ctl, MPI_ERRORS_RETURN);
    int bsz = 8 << 20;
    char *battach = malloc((size_t)bsz);
    MPI_Buffer_attach(battach, bsz);

    uint64_t gs = seed;
    static const size_t ring_sizes[] = {0, 100, 4100, 40000, 300000};
    ring_len = ring_sizes[seed % 5];
    ring_buf[0] = malloc(ring_len + 1);
    ring_buf[1] = malloc(ring_len + 1);
    CK(MPI_Send_init(ring_buf[0], (int)ring_len, MPI_BYTE, (mt_rank + 1) % mt_size, 7, comm_sr,
                     &ring_req[0]));
    CK(MPI_Recv_init(ring_buf[1], (int)ring_len, MPI_BYTE, (mt_rank + mt_size - 1) % mt_size, 7,
                     comm_sr, &ring_req[1]));
    for (cur_round = 0; cur_round < rounds; cur_round++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comm[CN]);
        MPI_Comm_set_errhandler(comm[CN], MPI_ERRORS_RETURN);
        run_round(&gs);
        MPI_Comm_free(&comm[CN]);
    }

    MPI_Request_free(&ring_req[0]);
    MPI_Request_free(&ring_req[1]);
    free(ring_buf[0]);
    free(ring_buf[1]);
    void *det;
    MPI_Buffer_detach(&det, &bsz);
    free(battach);
    for (int c = 0; c < CN; c++)
        MPI_Comm_free(&comm[c]);
    MPI_Comm_free(&comm_sr);
    MPI_Comm_free(&comm_ctl);
    for (int t = T_VEC; t < NTYPE; t++)
        MPI_Type_free(&dtype[t]);
    if (mt_failed)
        fprintf(stderr, "t_fuzz: rank %d failed; replay with MT_SEED=%u\n", mt_rank, seed);
    return mt_finish("t_fuzz");
}
