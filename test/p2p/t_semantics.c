/* Probe and matched probe, cancel (of receives and of rendezvous sends),
 * persistent requests, the completion
 * family and the Request_get_status forms, synchronous-send completion,
 * buffered sends, truncation and MPI_PROC_NULL, between ranks 0 and 1. */
#include "mpitest.h"

#include <unistd.h>

static void probes(void)
{
    int v = 0, flag;
    MPI_Status st;
    MPI_Message msg;

    if (mt_rank > 1)
        return;
    if (mt_rank == 1) {
        for (int i = 0; i < 4; i++) {
            v = 40 + i;
            MPI_Send(&v, 1, MPI_INT, 0, 7 + i, MPI_COMM_WORLD);
        }
        static char big[100000];
        mt_fill(big, sizeof(big), 9);
        MPI_Send(big, sizeof(big), MPI_BYTE, 0, 20, MPI_COMM_WORLD);
        return;
    }
    MPI_Probe(1, 7, MPI_COMM_WORLD, &st);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_ALL ("Probe status") {
        CHECK_EQ_INT(st.MPI_SOURCE, 1);
        CHECK_EQ_INT(st.MPI_TAG, 7);
        CHECK_EQ_INT(count, 1);
    }
    do
        MPI_Iprobe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &flag, &st);
    while (!flag);
    CHECK_EQ_INT(st.MPI_TAG, 8, "Iprobe tag %d", st.MPI_TAG);
    MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(v, 40, "Recv after Probe: %d", v);
    MPI_Mprobe(1, 8, MPI_COMM_WORLD, &msg, &st);
    /* A matched message is gone from the queue: Iprobe does not see it. */
    MPI_Iprobe(1, 8, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK_TRUE(!flag, "Mprobe'd message still visible to Iprobe");
    MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
    CHECK_ALL ("Mrecv got %d", v) {
        CHECK_EQ_INT(v, 41);
        CHECK_EQ_PTR(msg, MPI_MESSAGE_NULL);
    }
    do
        MPI_Improbe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    while (!flag);
    MPI_Request rq;
    MPI_Imrecv(&v, 1, MPI_INT, &msg, &rq);
    MPI_Wait(&rq, &st);
    CHECK_ALL ("Imrecv got %d tag %d", v, st.MPI_TAG) {
        CHECK_EQ_INT(v, 42);
        CHECK_EQ_INT(st.MPI_TAG, 9);
    }
    MPI_Recv(&v, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* A rendezvous message probed, then received. */
    static char in[100000];
    MPI_Mprobe(1, 20, MPI_COMM_WORLD, &msg, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_EQ_INT(count, (int)sizeof(in), "Mprobe of a large message: count %d", count);
    MPI_Mrecv(in, sizeof(in), MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    CHECK_TRUE(!mt_verify(in, sizeof(in), 9), "large Mrecv data");
    MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    CHECK_ALL ("Probe(PROC_NULL)") {
        CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
        CHECK_EQ_INT(st.MPI_TAG, MPI_ANY_TAG);
    }
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st);
    CHECK_EQ_PTR(msg, MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) gives MPI_MESSAGE_NO_PROC");
    MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL, "Mrecv(NO_PROC)");
}

static void cancel_and_requests(void)
{
    MPI_Request rq, rs[4];
    MPI_Status st, sts[4];
    int v = 0, flag, idx, out, idxs[4];

    /* An unmatched receive cancels; its status says so. */
    MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK_ALL ("receive cancel") {
        CHECK_TRUE(flag);
        CHECK_EQ_PTR(rq, MPI_REQUEST_NULL);
    }

    /* Request_get_status does not free; Request_free of a pending receive
     * still lets the message be consumed. */
    if (mt_rank == 0) {
        MPI_Irecv(&v, 1, MPI_INT, 1, 30, MPI_COMM_WORLD, &rq);
        MPI_Barrier(MPI_COMM_WORLD);
        do
            MPI_Request_get_status(rq, &flag, &st);
        while (!flag);
        CHECK_ALL ("Request_get_status left the request") {
            CHECK_NE_PTR(rq, MPI_REQUEST_NULL);
            CHECK_EQ_INT(v, 30);
        }
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else if (mt_rank == 1) {
        v = 30;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&v, 1, MPI_INT, 0, 30, MPI_COMM_WORLD);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* Waitany/Waitsome/Testany/Testsome/Testall over a mix of null and real. */
    if (mt_rank <= 1) {
        int peer = 1 - mt_rank, vals[4] = {0}, mine[4] = {1, 2, 3, 4};
        MPI_Request all[6];
        for (int i = 0; i < 4; i++)
            MPI_Irecv(&vals[i], 1, MPI_INT, peer, 50 + i, MPI_COMM_WORLD, &all[i]);
        all[4] = MPI_REQUEST_NULL;
        MPI_Isend(mine, 4, MPI_INT, peer, 60, MPI_COMM_WORLD, &all[5]);
        for (int i = 0; i < 4; i++)
            MPI_Send(&mine[i], 1, MPI_INT, peer, 50 + i, MPI_COMM_WORLD);
        MPI_Waitany(6, all, &idx, &st);
        CHECK_ALL ("Waitany index %d", idx) {
            CHECK_GE_LONG(idx, 0);
            CHECK_LT_LONG(idx, 6);
            CHECK_NE_INT(idx, 4);
        }
        MPI_Waitsome(6, all, &out, idxs, sts);
        CHECK_GE_LONG(out, 0, "Waitsome outcount %d", out);
        do
            MPI_Testall(6, all, &flag, MPI_STATUSES_IGNORE);
        while (!flag);
        MPI_Testany(6, all, &idx, &flag, &st);
        CHECK_ALL ("Testany on all-null: flag %d idx %d", flag, idx) {
            CHECK_TRUE(flag);
            CHECK_EQ_INT(idx, MPI_UNDEFINED);
        }
        MPI_Testsome(6, all, &out, idxs, MPI_STATUSES_IGNORE);
        CHECK_EQ_INT(out, MPI_UNDEFINED, "Testsome on all-null: %d", out);
        MPI_Waitsome(6, all, &out, idxs, MPI_STATUSES_IGNORE);
        CHECK_EQ_INT(out, MPI_UNDEFINED, "Waitsome on all-null: %d", out);
        for (int i = 0; i < 4; i++)
            CHECK_EQ_INT(vals[i], i + 1, "mixed completion value %d = %d", i, vals[i]);
        int got[4];
        MPI_Recv(got, 4, MPI_INT, peer, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ_INT(got[3], 4, "isend of 4 ints");
    }
    (void)rs;
}

/* Cancel of a rendezvous send (MPICH's cancelrecv, scancel, pscancel): a
 * wait after the cancel must return without the receive being posted. An
 * unmatched one is cancelled and never arrives; Isend, Issend and a
 * persistent send; one already received completes normally. */
static void send_cancel(void)
{
    enum { LEN = 1 << 20 };
    char *big = malloc(LEN);
    MPI_Request rq;
    MPI_Status st;
    int flag, found;

    mt_fill(big, LEN, 5);
    if (mt_rank == 0) {
        for (int kind = 0; kind < 3; kind++) {
            if (kind == 0)
                MPI_Isend(big, LEN, MPI_BYTE, 1, 70, MPI_COMM_WORLD, &rq);
            else if (kind == 1)
                MPI_Issend(big, LEN, MPI_BYTE, 1, 70, MPI_COMM_WORLD, &rq);
            else {
                MPI_Send_init(big, LEN, MPI_BYTE, 1, 70, MPI_COMM_WORLD, &rq);
                MPI_Start(&rq);
            }
            MPI_Cancel(&rq);
            MPI_Wait(&rq, &st);
            MPI_Test_cancelled(&st, &flag);
            CHECK_TRUE(flag, "unmatched rendezvous send %d cancelled", kind);
            if (kind == 2)
                MPI_Request_free(&rq);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Isend(big, LEN, MPI_BYTE, 1, 71, MPI_COMM_WORLD, &rq);
        MPI_Barrier(MPI_COMM_WORLD); /* rank 1 has received it */
        MPI_Cancel(&rq);
        MPI_Wait(&rq, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK_TRUE(!flag, "a received send reported cancelled");
    } else if (mt_rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Iprobe(0, 70, MPI_COMM_WORLD, &found, MPI_STATUS_IGNORE);
        CHECK_TRUE(!found, "a cancelled send still arrived");
        MPI_Recv(big, LEN, MPI_BYTE, 0, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_EQ_LONG(mt_verify(big, LEN, 5), 0, "data of the send not cancelled");
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(big);
}

/* A send to this process that nothing matched is withdrawn by MPI_Cancel
 * at once, so the very next status query reports it complete and
 * cancelled (Issend and a large Isend, alone or after a probe matched
 * it), and no receive can get it after. */
static void self_cancel(void)
{
    enum { BIG = 1 << 20 };
    char *buf = malloc(BIG);
    static const char *what[] = {"Issend of 1 byte", "Isend of 1 MiB", "Issend of 0 bytes",
                                 "Issend of 1 byte, probed first"};

    for (int kind = 0; kind < 8; kind++) {
        MPI_Request rq;
        MPI_Status st;
        int flag = -1, cancelled = -1, pending = -1, k = kind % 4;
        const char *q = kind < 4 ? "MPI_Request_get_status" : "MPI_Test";

        if (k == 1)
            MPI_Isend(buf, BIG, MPI_BYTE, 0, 90, MPI_COMM_SELF, &rq);
        else
            MPI_Issend(buf, k == 2 ? 0 : 1, MPI_BYTE, 0, 90, MPI_COMM_SELF, &rq);
        if (k == 3) {
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st);
            CHECK_EQ_INT(st.MPI_TAG, 90, "tag of the probed send to self");
        }
        MPI_Cancel(&rq);
        if (kind < 4)
            MPI_Request_get_status(rq, &flag, &st);
        else
            MPI_Test(&rq, &flag, &st);
        CHECK_EQ_INT(flag, 1, "%s after cancelling an unmatched %s to self: flag %d, want 1", q,
                     what[k], flag);
        if (flag == 1) {
            MPI_Test_cancelled(&st, &cancelled);
            CHECK_EQ_INT(cancelled, 1, "%s: %s to self not reported cancelled (%d)", q, what[k],
                         cancelled);
        }
        MPI_Iprobe(0, 90, MPI_COMM_SELF, &pending, MPI_STATUS_IGNORE);
        CHECK_EQ_INT(pending, 0, "a cancelled send to self still receivable");
        if (rq != MPI_REQUEST_NULL)
            MPI_Wait(&rq, &st);
        if (pending) /* do not leave it for the next case */
            MPI_Recv(buf, BIG, MPI_BYTE, 0, 90, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    }
    free(buf);
}

/* Cancel of a send still queued behind others (out of eager credits, or
 * the ring full): it goes out as a rendezvous later, and the cancel must
 * follow it, or the wait hangs on an Issend nobody receives. */
static void queued_send_cancel(void)
{
    enum { N = 100, LEN = 4000 };
    char *buf = malloc((size_t)N * LEN);
    MPI_Request rq[N], c;
    MPI_Status st;
    int flag = 0;

    if (mt_rank == 0) {
        for (int i = 0; i < N; i++)
            MPI_Isend(buf + (size_t)i * LEN, LEN, MPI_BYTE, 1, 80, MPI_COMM_WORLD, &rq[i]);
        MPI_Issend(buf, 10, MPI_BYTE, 1, 81, MPI_COMM_WORLD, &c);
        MPI_Cancel(&c);
        MPI_Wait(&c, &st);
        MPI_Test_cancelled(&st, &flag);
        CHECK_TRUE(flag, "an unmatched Issend queued behind a burst was not cancelled");
        MPI_Send(NULL, 0, MPI_BYTE, 1, 82, MPI_COMM_WORLD);
        MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
    } else if (mt_rank == 1) {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 82, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            MPI_Recv(buf + (size_t)i * LEN, LEN, MPI_BYTE, 0, 80, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Iprobe(0, 81, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK_TRUE(!flag, "a cancelled queued Issend still arrived");
    }
    free(buf);
}

/* Cancel of a rendezvous sent on a communicator its receiver has not
 * finished creating: the envelope is parked there (the last rank tends to
 * leave MPI_Comm_dup last) and must be dropped all the same, or the wait
 * hangs. */
static void parked_send_cancel(void)
{
    static char big[300000];
    int last = mt_size - 1, bad = 0;

    for (int it = 0; it < 40; it++) {
        MPI_Comm c;
        MPI_Request r;
        MPI_Status st;
        int flag = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        if (mt_rank == 0) {
            MPI_Issend(big, it % 2 ? 10 : (int)sizeof(big), MPI_BYTE, last, 5, c, &r);
            MPI_Cancel(&r);
            MPI_Wait(&r, &st);
            MPI_Test_cancelled(&st, &flag);
            bad += !flag;
        }
        MPI_Barrier(c);
        if (mt_rank == last) {
            MPI_Iprobe(0, 5, c, &flag, MPI_STATUS_IGNORE);
            bad += flag;
        }
        MPI_Comm_free(&c);
    }
    CHECK_TRUE(!bad, "%d Issends on a new communicator not cancelled (or still arriving)", bad);
}

/* A small blocking send queued behind sends waiting for credits: they
 * spend the credits it saw, so it must still complete from a copy, not
 * become a rendezvous that waits for rank 1's receive (posted only after
 * the "go" this rank sends next). */
static void queued_small_send(void)
{
    enum { N = 100, LEN = 4000, SMALL = 8 };
    char *buf = malloc((size_t)N * LEN);
    MPI_Request rq[N + SMALL];

    if (mt_rank == 0) {
        for (int i = 0; i < N; i++)
            MPI_Isend(buf + (size_t)i * LEN, LEN, MPI_BYTE, 1, 83, MPI_COMM_WORLD, &rq[i]);
        for (int i = 0; i < SMALL; i++) /* they take the last credits */
            MPI_Isend(NULL, 0, MPI_BYTE, 1, 84, MPI_COMM_WORLD, &rq[N + i]);
        MPI_Send(NULL, 0, MPI_BYTE, 1, 85, MPI_COMM_WORLD);
        MPI_Send(NULL, 0, MPI_BYTE, 1, 86, MPI_COMM_WORLD); /* go */
        MPI_Waitall(N + SMALL, rq, MPI_STATUSES_IGNORE);
    } else if (mt_rank == 1) {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 86, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            MPI_Recv(buf + (size_t)i * LEN, LEN, MPI_BYTE, 0, 83, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < SMALL + 1; i++)
            MPI_Recv(NULL, 0, MPI_BYTE, 0, i < SMALL ? 84 : 85, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(buf);
}

/* MPI_Request_get_status_all/any/some (MPI-4.1): statuses of completed
 * requests, nothing freed or deactivated; null and inactive requests.
 * Ranks 0 and 1 do the same towards each other. */
static void get_status_forms(void)
{
    int peer = 1 - mt_rank, vals[3] = {0}, send[3] = {70, 71, 72};
    int flag = 0, idx = -1, out = 0, idxs[4], n = 0;
    MPI_Request q[4];
    MPI_Status sts[4], st;

    if (mt_rank > 1)
        return;
    q[0] = MPI_REQUEST_NULL;
    for (int i = 0; i < 3; i++)
        MPI_Irecv(&vals[i], 1, MPI_INT, peer, 70 + i, MPI_COMM_WORLD, &q[i + 1]);
    MPI_Request_get_status_all(4, q, &flag, sts);
    MPI_Request_get_status_some(4, q, &out, idxs, sts);
    CHECK_ALL ("before any send: get_status_all flag %d, _some outcount %d", flag, out) {
        CHECK_TRUE(!flag);
        CHECK_EQ_INT(out, 0);
    }
    MPI_Sendrecv(NULL, 0, MPI_INT, peer, 69, NULL, 0, MPI_INT, peer, 69, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Send(&send[1], 1, MPI_INT, peer, 71, MPI_COMM_WORLD);
    do
        MPI_Request_get_status_any(4, q, &idx, &flag, &st);
    while (!flag);
    CHECK_ALL ("get_status_any: index %d tag %d source %d, request kept", idx, st.MPI_TAG,
               st.MPI_SOURCE) {
        CHECK_EQ_INT(idx, 2);
        CHECK_EQ_INT(st.MPI_TAG, 71);
        CHECK_EQ_INT(st.MPI_SOURCE, peer);
        CHECK_NE_PTR(q[2], MPI_REQUEST_NULL);
    }
    MPI_Request_get_status_some(4, q, &out, idxs, sts);
    CHECK_ALL ("get_status_some: %d done, first index %d", out, idxs[0]) {
        CHECK_EQ_INT(out, 1);
        CHECK_EQ_INT(idxs[0], 2);
        CHECK_EQ_INT(sts[0].MPI_TAG, 71);
    }
    MPI_Request_get_status_all(4, q, &flag, MPI_STATUSES_IGNORE);
    CHECK_TRUE(!flag, "get_status_all with two pending: flag %d", flag);
    MPI_Sendrecv(NULL, 0, MPI_INT, peer, 69, NULL, 0, MPI_INT, peer, 69, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Send(&send[0], 1, MPI_INT, peer, 70, MPI_COMM_WORLD);
    MPI_Send(&send[2], 1, MPI_INT, peer, 72, MPI_COMM_WORLD);
    do
        MPI_Request_get_status_all(4, q, &flag, sts);
    while (!flag);
    for (int i = 1; i < 4; i++)
        n += q[i] != MPI_REQUEST_NULL && sts[i].MPI_TAG == 69 + i && sts[i].MPI_SOURCE == peer;
    CHECK_ALL ("get_status_all: %d of 3 statuses right and kept, null entry empty", n) {
        CHECK_EQ_INT(n, 3);
        CHECK_EQ_INT(sts[0].MPI_SOURCE, MPI_ANY_SOURCE);
        CHECK_EQ_INT(sts[0].MPI_TAG, MPI_ANY_TAG);
    }
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    CHECK_ALL ("values %d %d %d", vals[0], vals[1], vals[2]) {
        CHECK_EQ_INT(vals[0], 70);
        CHECK_EQ_INT(vals[1], 71);
        CHECK_EQ_INT(vals[2], 72);
    }
    MPI_Request_get_status_any(4, q, &idx, &flag, &st);
    CHECK_ALL ("get_status_any on all-null: flag %d idx %d", flag, idx) {
        CHECK_TRUE(flag);
        CHECK_EQ_INT(idx, MPI_UNDEFINED);
    }
    MPI_Request_get_status_some(4, q, &out, idxs, sts);
    CHECK_EQ_INT(out, MPI_UNDEFINED, "get_status_some on all-null: %d", out);
}

static void persistent(void)
{
    if (mt_rank > 1)
        return;
    int peer = 1 - mt_rank, sv = 0, rv = -1;
    MPI_Request rq[2];
    MPI_Send_init(&sv, 1, MPI_INT, peer, 70, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_init(&rv, 1, MPI_INT, peer, 70, MPI_COMM_WORLD, &rq[1]);
    for (int i = 0; i < 500; i++) {
        sv = i * 3 + mt_rank;
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        CHECK_EQ_INT(rv, i * 3 + peer, "persistent round %d: %d", i, rv);
        CHECK_NE_PTR(rq[0], MPI_REQUEST_NULL, "persistent request kept");
    }
    /* A completed persistent request waits again at once (inactive). */
    MPI_Status st;
    MPI_Wait(&rq[1], &st);
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_ANY_SOURCE, "inactive request gives an empty status");
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    /* Persistent synchronous and ready sends too. */
    MPI_Request ps;
    if (mt_rank == 0) {
        MPI_Ssend_init(&sv, 1, MPI_INT, 1, 71, MPI_COMM_WORLD, &ps);
        for (int i = 0; i < 10; i++) {
            sv = i;
            MPI_Start(&ps);
            MPI_Wait(&ps, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&ps);
    } else {
        for (int i = 0; i < 10; i++) {
            MPI_Recv(&rv, 1, MPI_INT, 0, 71, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_EQ_INT(rv, i, "persistent Ssend %d", rv);
        }
    }
}

static void ssend(void)
{
    if (mt_rank > 1)
        return;
    /* An Issend must not complete before the receive is posted: rank 1
     * waits for rank 0's "tested, not done" note before receiving. */
    int v = 5, flag = 0, note;
    for (int size = 1; size <= 100000; size *= 100) {
        char *buf = calloc((size_t)size, 1);
        if (mt_rank == 0) {
            MPI_Request rq;
            MPI_Issend(buf, size, MPI_BYTE, 1, 80, MPI_COMM_WORLD, &rq);
            for (int i = 0; i < 100; i++)
                MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
            CHECK_TRUE(!flag, "Issend of %d bytes completed before the receive", size);
            MPI_Send(&flag, 1, MPI_INT, 1, 81, MPI_COMM_WORLD);
            if (!flag)
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&note, 1, MPI_INT, 0, 81, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(buf, size, MPI_BYTE, 0, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        free(buf);
    }
    if (mt_rank == 0)
        MPI_Ssend(&v, 1, MPI_INT, 1, 82, MPI_COMM_WORLD);
    else
        MPI_Recv(&v, 1, MPI_INT, 0, 82, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(v, 5, "Ssend value");
}

static void buffered(void)
{
    if (mt_rank > 1)
        return;
    int size = 10 * (1000 + MPI_BSEND_OVERHEAD), sz;
    void *buf = malloc((size_t)size), *old;
    char data[1000];
    MPI_Buffer_attach(buf, size);
    for (int round = 0; round < 3; round++) {
        if (mt_rank == 0) {
            for (int i = 0; i < 10; i++) {
                mt_fill(data, sizeof(data), (unsigned)(i + round));
                if (i % 2)
                    MPI_Bsend(data, sizeof(data), MPI_BYTE, 1, 90, MPI_COMM_WORLD);
                else {
                    MPI_Request rq;
                    MPI_Ibsend(data, sizeof(data), MPI_BYTE, 1, 90, MPI_COMM_WORLD, &rq);
                    MPI_Wait(&rq, MPI_STATUS_IGNORE);
                }
                memset(data, 0, sizeof(data)); /* the copy must be independent */
            }
        } else {
            for (int i = 0; i < 10; i++) {
                MPI_Recv(data, sizeof(data), MPI_BYTE, 0, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK_TRUE(!mt_verify(data, sizeof(data), (unsigned)(i + round)), "Bsend data %d",
                           i);
            }
        }
    }
    MPI_Buffer_detach(&old, &sz);
    CHECK_ALL ("detach returns the buffer") {
        CHECK_EQ_PTR(old, buf);
        CHECK_EQ_INT(sz, size);
    }
    free(buf);
}

static void truncation_and_null(void)
{
    int v[4] = {1, 2, 3, 4}, r[2] = {0, 0}, rc, count;
    MPI_Status st;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (mt_rank == 1) {
        MPI_Send(v, 4, MPI_INT, 0, 100, MPI_COMM_WORLD);
        MPI_Send(v, 1, MPI_INT, 0, 101, MPI_COMM_WORLD);
        static char big[200000];
        MPI_Send(big, sizeof(big), MPI_BYTE, 0, 102, MPI_COMM_WORLD);
        MPI_Send(v, 1, MPI_INT, 0, 103, MPI_COMM_WORLD);
    } else if (mt_rank == 0) {
        rc = MPI_Recv(r, 2, MPI_INT, 1, 100, MPI_COMM_WORLD, &st);
        CHECK_EQ_INT(rc, MPI_ERR_TRUNCATE, "truncated eager receive returns %d", rc);
        CHECK_ALL ("truncated data keeps what fits") {
            CHECK_EQ_INT(r[0], 1);
            CHECK_EQ_INT(r[1], 2);
        }
        /* The message was consumed: the next one is the next message. */
        rc = MPI_Recv(r, 2, MPI_INT, 1, 101, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK_ALL ("after truncation: rc %d count %d", rc, count) {
            CHECK_MPI(rc);
            CHECK_EQ_INT(count, 1);
        }
        static char small[1000];
        rc = MPI_Recv(small, sizeof(small), MPI_BYTE, 1, 102, MPI_COMM_WORLD, &st);
        CHECK_EQ_INT(rc, MPI_ERR_TRUNCATE, "truncated rendezvous receive returns %d", rc);
        rc = MPI_Recv(r, 1, MPI_INT, 1, 103, MPI_COMM_WORLD, &st);
        CHECK_MPI(rc, "after rendezvous truncation rc %d", rc);
    }
    /* An empty message may name MPI_DATATYPE_NULL (MPICH's recvnull, pssend). */
    if (mt_rank <= 1) {
        MPI_Request q;
        rc = MPI_Ssend_init(NULL, 0, MPI_DATATYPE_NULL, 1 - mt_rank, 104, MPI_COMM_WORLD, &q);
        rc |= MPI_Start(&q);
        rc |= MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, 1 - mt_rank, 104, MPI_COMM_WORLD, &st);
        rc |= MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Request_free(&q);
        rc |= MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q);
        rc |= MPI_Wait(&q, &st);
        CHECK_ALL ("zero-count messages of MPI_DATATYPE_NULL: rc %d", rc) {
            CHECK_MPI(rc);
            CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
        }
    }
    rc = MPI_Send(v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    CHECK_MPI(rc, "send to PROC_NULL");
    rc = MPI_Recv(v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_ALL ("recv from PROC_NULL status") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
        CHECK_EQ_INT(st.MPI_TAG, MPI_ANY_TAG);
        CHECK_EQ_INT(count, 0);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Single-status calls leave MPI_ERROR alone; only the calls returning
 * several statuses set it (MPI-4.1 section 3.2.5). */
static void status_error_field(void)
{
    int peer = 1 - mt_rank, v = 0, bad = 0;
    MPI_Message msg;
    MPI_Request rq;
    MPI_Status st;

    if (mt_rank > 1)
        return;
    for (int round = 0; round < 5; round++) {
        st.MPI_ERROR = 4242;
        if (mt_rank == 0) {
            MPI_Send(&v, 1, MPI_INT, peer, 60, MPI_COMM_WORLD);
            continue;
        }
        if (round == 0)
            MPI_Recv(&v, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, &st);
        else if (round == 1) {
            MPI_Probe(peer, 60, MPI_COMM_WORLD, &st);
            bad += st.MPI_ERROR != 4242;
            MPI_Recv(&v, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, &st);
        } else if (round == 2) {
            MPI_Mprobe(peer, 60, MPI_COMM_WORLD, &msg, &st);
            bad += st.MPI_ERROR != 4242;
            MPI_Mrecv(&v, 1, MPI_INT, &msg, &st);
        } else if (round == 3) {
            MPI_Irecv(&v, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, &rq);
            MPI_Wait(&rq, &st);
        } else {
            MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 60, MPI_COMM_WORLD, &st);
            bad += st.MPI_ERROR != 4242;
            MPI_Recv(&v, 1, MPI_INT, peer, 60, MPI_COMM_WORLD, &st);
        }
        bad += st.MPI_ERROR != 4242;
    }
    CHECK_TRUE(!bad, "%d single-status calls changed MPI_ERROR", bad);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2) {
        printf("t_semantics: needs 2 ranks, skipped\n");
        MPI_Finalize();
        return 0;
    }
    probes();
    MPI_Barrier(MPI_COMM_WORLD);
    cancel_and_requests();
    MPI_Barrier(MPI_COMM_WORLD);
    send_cancel();
    MPI_Barrier(MPI_COMM_WORLD);
    self_cancel();
    MPI_Barrier(MPI_COMM_WORLD);
    queued_send_cancel();
    MPI_Barrier(MPI_COMM_WORLD);
    queued_small_send();
    MPI_Barrier(MPI_COMM_WORLD);
    parked_send_cancel();
    MPI_Barrier(MPI_COMM_WORLD);
    get_status_forms();
    MPI_Barrier(MPI_COMM_WORLD);
    persistent();
    MPI_Barrier(MPI_COMM_WORLD);
    ssend();
    MPI_Barrier(MPI_COMM_WORLD);
    buffered();
    MPI_Barrier(MPI_COMM_WORLD);
    truncation_and_null();
    MPI_Barrier(MPI_COMM_WORLD);
    status_error_field();
    return mt_finish("t_semantics");
}
