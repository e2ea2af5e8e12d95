/* Randomized stress: every rank sends a random schedule of messages (sizes
 * across every threshold, random tags) to random peers; receivers post a mix
 * of specific and ANY_SOURCE receives. Every byte is checked. The seed is
 * printed so a failure can be replayed with MT_SEED=... */
#include "mpitest.h"

#include <time.h>

#define MAXMSG 2000

static unsigned rng(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static size_t pick_size(unsigned *s)
{
    static const size_t edges[] = {0,    1,    8,     1023,  1024,   1025,   4095,
                                   4096, 4097, 16384, 65537, 300000, 1048577};
    unsigned r = rng(s);
    if (r % 4 == 0)
        return edges[rng(s) % (sizeof(edges) / sizeof(edges[0]))];
    return rng(s) % 5000;
}

/* The schedule is a function of the seed, so every rank can compute what
 * every other rank sends it. */
struct msg {
    int src, dst, tag;
    size_t size;
    unsigned seed;
};

int main(int argc, char **argv)
{
    unsigned seed, s;
    int nmsg;
    const char *env = getenv("MT_SEED");

    mt_init(&argc, &argv);
    seed = env ? (unsigned)strtoul(env, NULL, 0) : (unsigned)time(NULL);
    /* Everyone uses rank 0's seed. */
    if (mt_rank == 0)
        for (int r = 1; r < mt_size; r++)
            MPI_Send(&seed, 1, MPI_UNSIGNED, r, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(&seed, 1, MPI_UNSIGNED, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    s = seed;
    nmsg = 300 + (int)(rng(&s) % 300);
    struct msg *m = malloc(sizeof(*m) * (size_t)nmsg);
    for (int i = 0; i < nmsg; i++) {
        m[i].src = (int)(rng(&s) % (unsigned)mt_size);
        m[i].dst = (int)(rng(&s) % (unsigned)mt_size);
        m[i].tag = (int)(rng(&s) % 4);
        m[i].size = pick_size(&s);
        m[i].seed = rng(&s);
    }

    /* Post all receives first (some ANY_SOURCE, some ANY_TAG), then send. */
    MPI_Request *rq = malloc(sizeof(*rq) * (size_t)nmsg * 2);
    char **rbuf = calloc((size_t)nmsg, sizeof(char *));
    char **sbuf = calloc((size_t)nmsg, sizeof(char *));
    int *any = calloc((size_t)nmsg, sizeof(int));
    int nr = 0;
    size_t maxsz = 0;
    for (int i = 0; i < nmsg; i++)
        if (m[i].size > maxsz)
            maxsz = m[i].size;
    /* ANY_SOURCE receives get a tag of their own, so whatever order the
     * wildcard matches in, the expected message is known. Specific
     * receives are posted in schedule order and match in it. */
    s = seed ^ 0x5a5a5a5a;
    for (int i = 0; i < nmsg; i++) {
        any[i] = (rng(&s) % 5 == 0);
        if (any[i])
            m[i].tag = 100 + i;
    }
    for (int i = 0; i < nmsg; i++) {
        if (m[i].dst != mt_rank)
            continue;
        rbuf[i] = malloc(maxsz + 1);
        MPI_Irecv(rbuf[i], (int)maxsz, MPI_BYTE, any[i] ? MPI_ANY_SOURCE : m[i].src, m[i].tag,
                  MPI_COMM_WORLD, &rq[nr++]);
    }
    for (int i = 0; i < nmsg; i++) {
        if (m[i].src != mt_rank)
            continue;
        sbuf[i] = malloc(m[i].size + 1);
        mt_fill(sbuf[i], m[i].size, m[i].seed);
        MPI_Isend(sbuf[i], (int)m[i].size, MPI_BYTE, m[i].dst, m[i].tag, MPI_COMM_WORLD, &rq[nr++]);
    }
    MPI_Status *st = malloc(sizeof(*st) * (size_t)nr);
    MPI_Waitall(nr, rq, st);
    int k = 0;
    for (int i = 0; i < nmsg; i++) {
        if (m[i].dst != mt_rank)
            continue;
        int count;
        MPI_Get_count(&st[k], MPI_BYTE, &count);
        CHECK_ALL ("seed %u msg %d: source %d tag %d count %d, expected %d %d %zu", seed, i,
                   st[k].MPI_SOURCE, st[k].MPI_TAG, count, m[i].src, m[i].tag, m[i].size) {
            CHECK_EQ_INT(st[k].MPI_SOURCE, m[i].src);
            CHECK_EQ_INT(st[k].MPI_TAG, m[i].tag);
            CHECK_EQ_INT(count, (int)m[i].size);
        }
        size_t bad = mt_verify(rbuf[i], m[i].size, m[i].seed);
        CHECK_TRUE(!bad, "seed %u msg %d (%zu bytes from %d): byte %zu wrong", seed, i, m[i].size,
                   m[i].src, bad - 1);
        k++;
    }
    if (mt_failed && mt_rank == 0)
        fprintf(stderr, "t_stress: replay with MT_SEED=%u\n", seed);
    for (int i = 0; i < nmsg; i++) {
        free(rbuf[i]);
        free(sbuf[i]);
    }
    free(rbuf);
    free(sbuf);
    free(any);
    free(rq);
    free(st);
    free(m);
    if (mt_rank == 0)
        printf("t_stress: seed %u, %d messages\n", seed, nmsg);
    return mt_finish("t_stress");
}
