/* Rendezvous over a BTL that delays and reorders: a send completes only
 * when its FIN (or an Ssend's match acknowledgement) arrives, however late;
 * the copy pipeline takes its CTS late and its FRAGs in any order; and
 * MPI_Cancel of a send the BTL still holds either withdraws it or leaves
 * it to complete when received, never both and never a hang. One process,
 * to itself. */
#include "fake_test.h"

#include <stdlib.h>

#define BIG 65536

static unsigned char *sbuf, *rbuf;

/* A send whose FIN, CTS or Ssend acknowledgement (type) is held: the
 * send does not complete until that message comes. */
static void late_completion(int type, int mode, size_t n, const char *what)
{
    MPI_Request s, r;
    int flag = 0, early = 0, tests = 0;

    pattern(sbuf, n, (unsigned)n);
    memset(rbuf, 0, n);
    RULE(.op = FAKE_MSG, .type = type, .times = 1, .act = FAKE_HOLD, .arg = 30);
    if (mode)
        MPI_Issend(sbuf, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &s);
    else
        MPI_Isend(sbuf, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &s);
    MPI_Irecv(rbuf, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &r);
    /* Until the message was held and let go. */
    while (!fake_counts.held || fake_held()) {
        MPI_Test(&s, &flag, MPI_STATUS_IGNORE);
        early += flag;
        tests += fake_held();
    }
    CHECK_ALL ("%s: the send waits for it", what) {
        CHECK_GT_LONG(tests, 0);
        CHECK_EQ_INT(early, 0);
    }
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK_EQ_LONG(pattern_bad(rbuf, n, (unsigned)n), -1);
    CHECK_EQ_LONG(fake_counts.held, 1);
    fake_clear();
    fake_counts_reset();
}

/* The copy pipeline (no RDMA read): CTS late, FRAGs refused or reversed. */
static void pipeline(void)
{
    unsigned long long nordma = pvar("fb_nordma");
    MPI_Request rq[2];

    fake_btl_module.flags &= ~BTL_CAP_GET;
    late_completion(PML_HDR_CTS, 0, BIG, "CTS held 30 polls");
    CHECK_EQ_LONG(pvar("fb_nordma") - nordma, 1);

    pattern(sbuf, BIG, 5);
    memset(rbuf, 0, BIG);
    RULE(.op = FAKE_MSG, .type = PML_HDR_FRAG, .act = FAKE_SWAP);
    MPI_Irecv(rbuf, BIG, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(sbuf, BIG, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK_GT_LONG(fake_counts.swapped, 10, "FRAGs overtaken");
    CHECK_EQ_LONG(pattern_bad(rbuf, BIG, 5), -1);
    fake_clear();

    /* Truncated, FRAGs reversed: what fits is kept, the rest dropped. */
    {
        MPI_Status st;
        int count = -1, err;

        memset(rbuf, 0, BIG);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        RULE(.op = FAKE_MSG, .type = PML_HDR_FRAG, .act = FAKE_SWAP);
        MPI_Irecv(rbuf, BIG / 2 + 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(sbuf, BIG, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        err = MPI_Wait(&rq[1], &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK_EQ_INT(err, MPI_ERR_TRUNCATE);
        CHECK_EQ_INT(count, BIG / 2 + 1);
        CHECK_EQ_LONG(pattern_bad(rbuf, BIG / 2 + 1, 5), -1);
        CHECK_EQ_INT(rbuf[BIG / 2 + 1], 0);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        fake_clear();
    }
    fake_btl_module.flags |= BTL_CAP_GET;
    fake_counts_reset();
}

/* Nothing matches `tag` any more. */
static int gone(int tag)
{
    int flag = 1;

    fake_drain();
    MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    return !flag;
}

/* MPI_Cancel of an Issend still waiting in the pml for the BTL (alloc
 * refused): it is withdrawn once its envelope goes. */
static void cancel_queued(void)
{
    MPI_Request s;
    MPI_Status st;
    int cancelled = 0;

    pattern(sbuf, 100, 1);
    RULE(.op = FAKE_ALLOC, .act = FAKE_EAGAIN);
    MPI_Issend(sbuf, 100, MPI_BYTE, 0, 20, MPI_COMM_WORLD, &s);
    MPI_Cancel(&s);
    fake_clear(); /* the BTL takes it now */
    MPI_Wait(&s, &st);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK_TRUE(cancelled, "an Issend refused by the BTL, then cancelled: withdrawn");
    CHECK_TRUE(gone(20), "and no receive can see it");
}

/* MPI_Cancel of a rendezvous whose envelope the BTL holds, so the CANCEL
 * overtakes it: the send is withdrawn (the receiver waits for the envelope
 * to drop it) or it completes when received; MPI_Wait must return without
 * a receive in the first case. */
static void cancel_overtakes(int ssend, size_t n)
{
    MPI_Request s, r;
    MPI_Status st;
    int cancelled = -1, flag = 0;

    pattern(sbuf, n, 2);
    memset(rbuf, 0, n);
    RULE(.op = FAKE_MSG, .type = PML_HDR_RNDV, .times = 1, .act = FAKE_HOLD, .arg = 10);
    if (ssend)
        MPI_Issend(sbuf, (int)n, MPI_BYTE, 0, 21, MPI_COMM_WORLD, &s);
    else
        MPI_Isend(sbuf, (int)n, MPI_BYTE, 0, 21, MPI_COMM_WORLD, &s);
    MPI_Cancel(&s);
    for (int i = 0; i < 1000 && !flag; i++)
        MPI_Test(&s, &flag, &st);
    CHECK_TRUE(flag, "%s of %zu bytes, envelope held, cancelled: complete without a receive",
               ssend ? "Issend" : "Isend", n);
    if (!flag) {
        /* Let it complete the other way, so the run goes on. */
        MPI_Irecv(rbuf, (int)n, MPI_BYTE, 0, 21, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Wait(&s, &st);
    }
    MPI_Test_cancelled(&st, &cancelled);
    CHECK_EQ_INT(cancelled, 1);
    CHECK_TRUE(gone(21), "and no receive can see it");
    CHECK_EQ_LONG(fake_counts.held, 1);
    fake_clear();
    fake_counts_reset();
}

/* The envelope arrives ahead of its turn (an earlier message held) and the
 * CANCEL finds it among the early arrivals: it only takes its turn. */
static void cancel_early(void)
{
    MPI_Request s;
    MPI_Status st;
    int v = 77, got = 0, cancelled = 0;

    pattern(sbuf, BIG, 3);
    RULE(.op = FAKE_MSG, .type = PML_HDR_MATCH, .times = 1, .act = FAKE_HOLD, .arg = 10);
    MPI_Send(&v, 1, MPI_INT, 0, 22, MPI_COMM_WORLD);
    MPI_Isend(sbuf, BIG, MPI_BYTE, 0, 22, MPI_COMM_WORLD, &s);
    MPI_Cancel(&s);
    MPI_Wait(&s, &st);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK_TRUE(cancelled, "a rendezvous that arrived early, cancelled: withdrawn");
    MPI_Recv(&got, 1, MPI_INT, 0, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(got, 77);
    CHECK_TRUE(gone(22), "the earlier message received, nothing else");
    fake_clear();
    fake_counts_reset();
}

/* A cancel that comes too late (the envelope matched, its data read): the
 * send completes normally and is not cancelled. */
static void cancel_late(void)
{
    MPI_Request s, r;
    MPI_Status st;
    int cancelled = -1;

    pattern(sbuf, BIG, 4);
    RULE(.op = FAKE_MSG, .type = PML_HDR_FIN, .times = 1, .act = FAKE_HOLD, .arg = 10);
    MPI_Isend(sbuf, BIG, MPI_BYTE, 0, 23, MPI_COMM_WORLD, &s);
    MPI_Irecv(rbuf, BIG, MPI_BYTE, 0, 23, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Cancel(&s);
    MPI_Wait(&s, &st);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK_EQ_INT(cancelled, 0);
    CHECK_EQ_LONG(pattern_bad(rbuf, BIG, 4), -1);
    fake_clear();
    fake_counts_reset();
}

int main(int argc, char **argv)
{
    sbuf = malloc(BIG);
    rbuf = malloc(BIG);
    fake_test_init(&argc, &argv, 60);
    fake_counts_reset();
    late_completion(PML_HDR_FIN, 0, BIG, "RDMA-read rendezvous, FIN held 30 polls");
    late_completion(PML_HDR_FIN, 1, 100, "small Issend, match acknowledgement held 30 polls");
    late_completion(PML_HDR_FIN, 1, BIG, "large Issend, FIN held 30 polls");
    pipeline();
    cancel_queued();
    cancel_early();
    cancel_late();
    cancel_overtakes(1, 100);
    cancel_overtakes(0, BIG);
    fake_test_fini();
    free(sbuf);
    free(rbuf);
    return done_testing();
}
