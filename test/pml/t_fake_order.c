/* MPI order over a BTL that reorders: messages that overtake each other on
 * the wire are matched in the order they were sent, by named, wildcard,
 * posted and unexpected receives and by probes, at the eager/rendezvous
 * boundaries. One process, to itself, over the fake BTL. */
#include "fake_test.h"
#include "pml.h"

#include <stdlib.h>

/* Two eager messages, the first overtaken: posted receives take them in
 * send order, and the pml counts one early arrival. */
static void swap_posted(void)
{
    unsigned long long ooo = pvar("ooo_msgs");
    int a = 1, b = 2, r1 = 0, r2 = 0;
    MPI_Request rq[4];

    RULE(.op = FAKE_MSG, .type = PML_HDR_MATCH, .times = 1, .act = FAKE_SWAP);
    MPI_Isend(&a, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(&b, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq[1]);
    MPI_Irecv(&r1, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq[2]);
    MPI_Irecv(&r2, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    CHECK_EQ_LONG(fake_counts.swapped, 1);
    CHECK_EQ_INT(r1, 1);
    CHECK_EQ_INT(r2, 2);
    CHECK_EQ_LONG(pvar("ooo_msgs") - ooo, 1);
    fake_clear();
}

/* The first of three held while the others arrive: no probe sees the later
 * ones first, and wildcard receives take them in send order. */
static void hold_unexpected(void)
{
    unsigned long long ooo = pvar("ooo_msgs");
    int v[3] = {10, 11, 12}, got[3] = {0}, flag = 0, polls = 0;
    MPI_Status st;

    RULE(.op = FAKE_MSG, .type = PML_HDR_MATCH, .times = 1, .act = FAKE_HOLD, .arg = 5);
    for (int i = 0; i < 3; i++)
        MPI_Send(&v[i], 1, MPI_INT, 0, 3 + i, MPI_COMM_WORLD);
    /* The later two came at once and wait unseen: the first probe that
     * finds anything finds the first message. */
    do {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        polls += !flag;
    } while (!flag);
    CHECK_GT_LONG(polls, 0, "nothing visible while the first message was held");
    CHECK_EQ_INT(st.MPI_TAG, 3);
    for (int i = 0; i < 3; i++) {
        MPI_Recv(&got[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK_EQ_INT(st.MPI_TAG, 3 + i);
        CHECK_EQ_INT(got[i], v[i]);
    }
    CHECK_EQ_LONG(pvar("ooo_msgs") - ooo, 2);
    fake_clear();
}

/* Wildcard and named receives posted before the arrivals: each message
 * goes to the earliest posted receive that matches it, judged in send
 * order, not in wire order. */
static void wildcard_posted(void)
{
    int v[3] = {20, 21, 22}, got[3] = {-1, -1, -1};
    int tags[3] = {9, 9, 5};
    MPI_Request rq[6];
    MPI_Status st[6];

    RULE(.op = FAKE_MSG, .type = PML_HDR_MATCH, .times = 1, .act = FAKE_SWAP);
    MPI_Irecv(&got[0], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(&got[1], 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &rq[1]);
    MPI_Irecv(&got[2], 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[2]);
    for (int i = 0; i < 3; i++)
        MPI_Isend(&v[i], 1, MPI_INT, 0, tags[i], MPI_COMM_WORLD, &rq[3 + i]);
    MPI_Waitall(6, rq, st);
    CHECK_EQ_INT(got[0], 20);
    CHECK_EQ_INT(got[1], 21);
    CHECK_EQ_INT(got[2], 22);
    CHECK_EQ_INT(st[2].MPI_TAG, 5);
    CHECK_EQ_INT(st[0].MPI_SOURCE, 0);
    fake_clear();
}

/* Two messages of each size around the limits (sendi 1024, eager 4096,
 * both with the 16-byte header), the first overtaken by the second: data
 * intact, in order, by the protocol the size calls for. */
static void boundaries(void)
{
    static const size_t sizes[] = {0, 1, 1008, 1009, 4079, 4080, 4081, 4096, 65536 + 3};
    const size_t eager_max = fake_btl_module.eager_limit - sizeof(struct pml_hdr_match);

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        int eager = n <= eager_max;
        unsigned char *s0 = malloc(n + 1), *s1 = malloc(n + 1), *r0 = calloc(1, n + 1),
                      *r1 = calloc(1, n + 1);
        unsigned long long em = pvar("eager_msgs"), rm = pvar("rndv_msgs");
        unsigned long long ooo = pvar("ooo_msgs");
        MPI_Request rq[4];
        MPI_Status st[4];
        int c0 = -1, c1 = -1;

        pattern(s0, n, (unsigned)k);
        pattern(s1, n, (unsigned)k + 100);
        RULE(.op = FAKE_MSG, .type = eager ? PML_HDR_MATCH : PML_HDR_RNDV, .times = 1,
             .act = FAKE_SWAP);
        MPI_Isend(s0, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(s1, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[1]);
        /* The second receive is posted late: one unexpected, one posted. */
        MPI_Irecv(r0, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &rq[2]);
        fake_drain();
        MPI_Irecv(r1, (int)n, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &rq[3]);
        MPI_Waitall(4, rq, st);
        MPI_Get_count(&st[2], MPI_BYTE, &c0);
        MPI_Get_count(&st[3], MPI_BYTE, &c1);
        CHECK_ALL ("%zu bytes swapped on the wire: both intact, in order", n) {
            CHECK_EQ_INT(c0, (int)n);
            CHECK_EQ_INT(c1, (int)n);
            CHECK_LT_LONG(pattern_bad(r0, n, (unsigned)k), 0);
            CHECK_LT_LONG(pattern_bad(r1, n, (unsigned)k + 100), 0);
        }
        CHECK_ALL ("%zu bytes: both %s", n, eager ? "eager" : "by rendezvous") {
            CHECK_EQ_LONG(pvar(eager ? "eager_msgs" : "rndv_msgs") - (eager ? em : rm), 2);
            CHECK_EQ_LONG(pvar(eager ? "rndv_msgs" : "eager_msgs") - (eager ? rm : em), 0);
        }
        CHECK_EQ_LONG(pvar("ooo_msgs") - ooo, 1);
        fake_clear();
        free(s0);
        free(s1);
        free(r0);
        free(r1);
    }
}

/* Inline sends use sendi, larger eager ones alloc + send: both paths ran. */
static void paths(void)
{
    char small[100] = "x", big[2000] = "y", r[2000];
    unsigned long sendi = fake_counts.sendi, alloc = fake_counts.alloc;

    MPI_Send(small, sizeof(small), MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    MPI_Recv(r, sizeof(r), MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_ALL ("a 100-byte send by sendi") {
        CHECK_GT_LONG(fake_counts.sendi, sendi);
        CHECK_EQ_LONG(fake_counts.alloc, alloc);
    }
    sendi = fake_counts.sendi;
    MPI_Send(big, sizeof(big), MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    MPI_Recv(r, sizeof(r), MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_GT_LONG(fake_counts.alloc, alloc, "a 2000-byte send by alloc + send");
}

/* A stream in which every message is overtaken by the next: the wire
 * order is the send order reversed (the last one comes after a delay). */
static void reversed(void)
{
    enum { N = 300 };
    int v[N], got[N], bad = -1;
    unsigned long long ooo = pvar("ooo_msgs");
    MPI_Request rq[2 * N];

    RULE(.op = FAKE_MSG, .type = PML_HDR_MATCH, .act = FAKE_SWAP);
    for (int i = 0; i < N; i++) {
        v[i] = i * 3 + 1;
        got[i] = -1;
        MPI_Isend(&v[i], 1, MPI_INT, 0, i % 2 ? 11 : 12, MPI_COMM_WORLD, &rq[i]);
    }
    for (int i = 0; i < N; i++)
        MPI_Irecv(&got[i], 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[N + i]);
    MPI_Waitall(2 * N, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N && bad < 0; i++)
        if (got[i] != v[i])
            bad = i;
    CHECK_EQ_INT(bad, -1);
    CHECK_EQ_LONG(fake_counts.swapped, N);
    CHECK_EQ_LONG(pvar("ooo_msgs") - ooo, N - 2);
    fake_clear();
}

/* A rendezvous envelope held while eager messages overtake it, found by
 * MPI_Mprobe and wildcard receives in send order. */
static void mixed(void)
{
    enum { BIG = 65536 };
    unsigned char *big = malloc(BIG), *got = calloc(1, BIG);
    int small[3] = {31, 32, 33}, r = 0, count = -1;
    MPI_Request s;
    MPI_Message m;
    MPI_Status st;

    pattern(big, BIG, 9);
    RULE(.op = FAKE_MSG, .type = PML_HDR_RNDV, .times = 1, .act = FAKE_HOLD, .arg = 5);
    MPI_Isend(big, BIG, MPI_BYTE, 0, 40, MPI_COMM_WORLD, &s);
    for (int i = 0; i < 3; i++)
        MPI_Send(&small[i], 1, MPI_INT, 0, 41 + i, MPI_COMM_WORLD);
    MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_EQ_INT(st.MPI_TAG, 40);
    CHECK_EQ_INT(count, BIG);
    MPI_Mrecv(got, BIG, MPI_BYTE, &m, MPI_STATUS_IGNORE);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    CHECK_EQ_LONG(pattern_bad(got, BIG, 9), -1);
    for (int i = 0; i < 3; i++) {
        MPI_Recv(&r, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK_EQ_INT(st.MPI_TAG, 41 + i);
        CHECK_EQ_INT(r, small[i]);
    }
    CHECK_EQ_LONG(fake_counts.held, 1);
    fake_clear();
    free(big);
    free(got);
}

/* The pml's sequence state for messages to self on c. */
static struct pml_comm_peer *seq_of(MPI_Comm c)
{
    return &((struct pml_comm *)rt_comm_get(c)->pml)->peers[0];
}

/* Sequence numbers are 16 bits: a reversed stream across their wrap is
 * still put back in order. */
static void wrap(void)
{
    enum { N = 40 };
    int v[N], got[N], bad = -1, flag = 0;
    MPI_Request rq[2 * N];
    MPI_Comm c;

    /* A fresh communicator starts at 0: bring it to just before the wrap. */
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    for (int i = 0; i < 65536 - N / 2; i++) {
        MPI_Send(NULL, 0, MPI_INT, 0, 1, c);
        MPI_Recv(NULL, 0, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE);
    }
    CHECK_EQ_INT(seq_of(c)->send_seq, 65536 - N / 2);
    RULE(.op = FAKE_MSG, .type = PML_HDR_MATCH, .act = FAKE_SWAP);
    for (int i = 0; i < N; i++) {
        v[i] = 1000 + i;
        got[i] = -1;
        MPI_Isend(&v[i], 1, MPI_INT, 0, 2, c, &rq[i]);
    }
    for (int i = 0; i < N; i++)
        MPI_Irecv(&got[i], 1, MPI_INT, 0, 2, c, &rq[N + i]);
    MPI_Waitall(2 * N, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N && bad < 0; i++)
        if (got[i] != v[i])
            bad = i;
    CHECK_EQ_INT(bad, -1);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(flag, 0);
    CHECK_EQ_INT(seq_of(c)->recv_seq, N / 2);
    fake_clear();
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    fake_test_init(&argc, &argv, 60);
    swap_posted();
    hold_unexpected();
    wildcard_posted();
    boundaries();
    paths();
    fake_counts_reset();
    reversed();
    mixed();
    wrap();
    fake_test_fini();
    return done_testing();
}
