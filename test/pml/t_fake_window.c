/* The pml's per-peer message window, sized by the BTL (btl_module's
 * peer_msgs, as btl/ofi states it for its receive buffers): a sender has at
 * most that many messages in flight that have not reached the
 * receiving pml, the rest wait in the pml, and the CREDITs their arrival
 * returns let them go, in order, still eager. A receiver that polls but
 * posts no receive frees the window (its BTL buffers are free) and is
 * bounded by the credit units instead. Every message but a CREDIT takes a
 * place (rendezvous envelopes too). Reordered MATCHes and late CREDITs
 * change nothing. One process, to itself, over the fake BTL. */
#include "fake_test.h"

#include <stdlib.h>

#define WINDOW 4

/* Polls a fixed number of times: what has not moved by then is held. */
static void poll_a_while(void)
{
    int flag;

    for (int i = 0; i < 1000; i++)
        MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

/* n tiny sends before any receive. held: the BTL keeps every MATCH back
 * (a receiver that does not poll) and only WINDOW go out; else they all
 * go, arriving unexpected. Then the receives take all n in send order. */
static void window(int n, int held)
{
    unsigned long long eager = pvar("eager_msgs");
    MPI_Request *rq = malloc(sizeof(*rq) * 2 * (size_t)n);
    int *s = malloc(sizeof(int) * (size_t)n), *r = calloc((size_t)n, sizeof(int)), bad = -1;

    fake_counts_reset();
    if (held) {
        RULE(.op = FAKE_MSG, .type = PML_HDR_MATCH, .act = FAKE_HOLD, .arg = 1000000);
    } else {
        RULE(.op = FAKE_MSG, .type = PML_HDR_MATCH, .times = 3, .act = FAKE_SWAP);
        RULE(.op = FAKE_MSG, .type = PML_HDR_CREDIT, .act = FAKE_HOLD, .arg = 3);
    }
    for (int i = 0; i < n; i++) {
        s[i] = i;
        MPI_Isend(&s[i], 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &rq[i]);
    }
    poll_a_while();
    if (held) {
        CHECK_EQ_LONG(pvar("eager_msgs") - eager, WINDOW, "eager messages out, none arrived");
        CHECK_EQ_INT(fake_held(), WINDOW, "messages the BTL holds, none delivered");
        fake_clear();
    } else {
        CHECK_EQ_LONG(pvar("eager_msgs") - eager, n, "eager messages out, all arrived unmatched");
        CHECK_GT_LONG(fake_counts.swapped, 0, "MATCHes overtaken");
    }
    for (int i = 0; i < n; i++)
        MPI_Irecv(&r[i], 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &rq[n + i]);
    MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n && bad < 0; i++)
        if (r[i] != i)
            bad = i;
    CHECK_EQ_INT(bad, -1, "every receive got the message sent in its turn");
    CHECK_EQ_LONG(pvar("eager_msgs") - eager, n, "all went eager");
    fake_clear();
    free(rq);
    free(s);
    free(r);
}

/* The window covers more than eager data: rendezvous envelopes held in
 * the BTL (a receiver that does not poll) stop at WINDOW as well, and the
 * rest go, every byte right, once they arrive. */
static void window_rndv(void)
{
    enum { N = 10, LEN = 8192 };
    unsigned char *s = malloc((size_t)N * LEN), *r = calloc(N, LEN);
    MPI_Request rq[2 * N];
    int bad = -1;

    fake_counts_reset();
    RULE(.op = FAKE_MSG, .type = PML_HDR_RNDV, .act = FAKE_HOLD, .arg = 1000000);
    for (int i = 0; i < N; i++) {
        pattern(s + (size_t)i * LEN, LEN, (unsigned)i);
        MPI_Isend(s + (size_t)i * LEN, LEN, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq[i]);
    }
    poll_a_while();
    CHECK_EQ_INT(fake_held(), WINDOW, "rendezvous envelopes the BTL holds, none delivered");
    fake_clear();
    for (int i = 0; i < N; i++)
        MPI_Irecv(r + (size_t)i * LEN, LEN, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq[N + i]);
    MPI_Waitall(2 * N, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N && bad < 0; i++)
        if (pattern_bad(r + (size_t)i * LEN, LEN, (unsigned)i) >= 0)
            bad = i;
    CHECK_EQ_INT(bad, -1, "every rendezvous message whole, in its turn");
    fake_clear();
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    /* Queued sends wait for credits as long as it takes, not a time: the
     * test judges what moved, never how fast. */
    setenv("RDMPI_PML_CREDIT_WAIT", "600000000", 1);
    fake_btl_module.peer_msgs = WINDOW;
    fake_test_init(&argc, &argv, 60);
    window(10, 1);
    window(25, 0);
    window(25, 1);
    window_rndv();
    fake_test_fini();
    return done_testing();
}
