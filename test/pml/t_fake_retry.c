/* The pml's retry and fallback paths over a BTL that refuses and fails on
 * command: sends and control messages refused (-EAGAIN) are retried in
 * order, reads refused are retried, a read or registration that fails
 * falls back to the copy pipeline (docs/pml.md), the RDMA helper of the
 * layers above retries and reports failures, and withheld or lost eager
 * credits slow the sender but lose nothing. One process, to itself. */
#include "fake_test.h"
#include "pml_api.h"

#include <errno.h>
#include <stdlib.h>

#define BIG 65536

static unsigned char *sbuf, *rbuf;

/* One message of n bytes to self, started before its receive; 1 if it
 * arrived whole. */
static int roundtrip(size_t n, unsigned seed)
{
    MPI_Request rq[2];
    MPI_Status st;
    int count = -1;

    pattern(sbuf, n, seed);
    memset(rbuf, 0, n);
    MPI_Isend(sbuf, (int)n, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(rbuf, (int)n, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &rq[1]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Wait(&rq[1], &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    return count == (int)n && pattern_bad(rbuf, n, seed) < 0;
}

/* Eager sends refused by sendi and alloc wait in the peer's queue, and the
 * sends behind them keep their order. */
static void refused_sends(void)
{
    enum { N = 10 };
    unsigned char s[N][100], r[N][100];
    MPI_Request rq[2 * N];
    int bad = -1;

    fake_counts_reset();
    RULE(.op = FAKE_SENDI, .type = PML_HDR_MATCH, .times = 3, .act = FAKE_EAGAIN);
    RULE(.op = FAKE_ALLOC, .times = 2, .act = FAKE_EAGAIN);
    for (int i = 0; i < N; i++) {
        pattern(s[i], sizeof(s[i]), (unsigned)i);
        MPI_Isend(s[i], sizeof(s[i]), MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq[i]);
    }
    for (int i = 0; i < N; i++)
        MPI_Irecv(r[i], sizeof(r[i]), MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq[N + i]);
    MPI_Waitall(2 * N, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N && bad < 0; i++)
        if (pattern_bad(r[i], sizeof(r[i]), (unsigned)i) >= 0)
            bad = i;
    CHECK_EQ_INT(bad, -1);
    /* The first send: sendi in pml_send_now, then sendi and alloc twice. */
    CHECK_EQ_LONG(fake_counts.eagain, 5);
    fake_clear();

    /* A blocking send refused, and a sendi that fails outright (the pml
     * takes any sendi error as "not now" and tries alloc). */
    RULE(.op = FAKE_SENDI, .type = PML_HDR_MATCH, .times = 2, .act = FAKE_EAGAIN);
    RULE(.op = FAKE_ALLOC, .times = 2, .act = FAKE_EAGAIN);
    pattern(sbuf, 500, 7);
    MPI_Send(sbuf, 500, MPI_BYTE, 0, 6, MPI_COMM_WORLD);
    MPI_Recv(rbuf, 500, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_EQ_LONG(pattern_bad(rbuf, 500, 7), -1);
    fake_clear();
    RULE(.op = FAKE_SENDI, .type = PML_HDR_MATCH, .times = 1, .act = FAKE_FAIL, .arg = -EIO);
    CHECK_TRUE(roundtrip(500, 8), "a sendi that fails with -EIO: the message goes by alloc");
    CHECK_EQ_LONG(fake_counts.failed, 1);
    fake_clear();
}

/* Control messages refused: the FIN of a rendezvous, the CTS of the copy
 * pipeline, and the envelope itself. */
static void refused_control(void)
{
    fake_counts_reset();
    RULE(.op = FAKE_SENDI, .type = PML_HDR_FIN, .times = 4, .act = FAKE_EAGAIN);
    CHECK_TRUE(roundtrip(BIG, 1), "rendezvous whose FIN is refused 4 times");
    CHECK_EQ_LONG(fake_counts.eagain, 4);
    fake_clear();

    fake_counts_reset();
    fake_btl_module.flags &= ~BTL_CAP_GET;
    RULE(.op = FAKE_SENDI, .type = PML_HDR_CTS, .times = 4, .act = FAKE_EAGAIN);
    RULE(.op = FAKE_ALLOC, .after = 3, .times = 3, .act = FAKE_EAGAIN);
    CHECK_TRUE(roundtrip(BIG, 2), "copy pipeline whose CTS and some FRAGs are refused");
    CHECK_EQ_LONG(fake_counts.eagain, 4 + 3);
    fake_btl_module.flags |= BTL_CAP_GET;
    fake_clear();
}

/* Reads refused part-way through a chunked rendezvous are retried. */
static void refused_gets(void)
{
    unsigned long long fb = pvar("fb_read");

    fake_counts_reset();
    fake_btl_module.get_limit = 8192;
    RULE(.op = FAKE_GET, .after = 2, .times = 3, .act = FAKE_EAGAIN);
    CHECK_TRUE(roundtrip(BIG, 3), "a 64 KiB read in 8 KiB chunks, the third refused 3 times");
    CHECK_EQ_LONG(fake_counts.eagain, 3);
    CHECK_EQ_LONG(fake_counts.gets, BIG / 8192 + 3);
    CHECK_EQ_LONG(pvar("fb_read") - fb, 0);
    fake_clear();
}

/* A read that fails, at once or at completion, first or mid-message: one
 * fallback to the copy pipeline, the message whole. */
static void failed_gets(void)
{
    static const struct {
        int after, act;
        const char *what;
    } c[] = {
        {0, FAKE_FAIL, "the first read returns -EIO"},
        {0, FAKE_CFAIL, "the first read completes with -EIO"},
        {3, FAKE_CFAIL, "the fourth of eight reads completes with -EIO"},
        {7, FAKE_FAIL, "the last of eight reads returns -EIO"},
    };

    fake_btl_module.get_limit = 8192;
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        unsigned long long fb = pvar("fb_read");

        RULE(.op = FAKE_GET, .after = c[i].after, .times = 1, .act = c[i].act, .arg = -EIO);
        CHECK_TRUE(roundtrip(BIG, 10 + (unsigned)i), "%s: the copy pipeline delivers it",
                   c[i].what);
        CHECK_EQ_LONG(pvar("fb_read") - fb, 1);
        fake_clear();
    }
    /* Read completions out of order, none failed: no fallback. */
    {
        unsigned long long fb = pvar("fb_read");

        RULE(.op = FAKE_GET, .times = 2, .act = FAKE_HOLD, .arg = 3);
        RULE(.op = FAKE_GET, .act = FAKE_SWAP);
        CHECK_TRUE(roundtrip(BIG, 20), "read completions delayed and reordered");
        CHECK_EQ_LONG(pvar("fb_read") - fb, 0);
        fake_clear();
    }
    fake_btl_module.get_limit = SIZE_MAX;
}

/* Registration refused: the sender offers no address, the copy pipeline. */
static void failed_reg(void)
{
    unsigned long long nordma = pvar("fb_nordma");

    RULE(.op = FAKE_REG, .times = 1, .act = FAKE_FAIL, .arg = -ENOMEM);
    CHECK_TRUE(roundtrip(BIG, 30), "registration fails: the copy pipeline delivers it");
    CHECK_EQ_LONG(pvar("fb_nordma") - nordma, 1);
    fake_clear();
}

/* The blocking RDMA helper osc uses (pml_rdma): refused puts and gets are
 * retried, a failed completion is returned to the caller. */
static void rdma_helper(void)
{
    enum { N = 20000 };
    unsigned char *a = malloc(N), *b = calloc(1, N);
    uint64_t raddr = (uint64_t)(uintptr_t)b;
    int rc;

    CHECK_TRUE(pml_direct_ok(0), "the fake BTL reads and writes this process without registration");
    fake_counts_reset();
    fake_btl_module.get_limit = fake_btl_module.put_limit = 8192;
    pattern(a, N, 50);
    RULE(.op = FAKE_PUT, .after = 1, .times = 3, .act = FAKE_EAGAIN);
    rc = pml_rdma(0, a, raddr, N, true);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_LONG(pattern_bad(b, N, 50), -1);
    CHECK_EQ_LONG(fake_counts.eagain, 3);
    CHECK_EQ_LONG(fake_counts.puts, N / 8192 + 1 + 3);
    fake_clear();

    memset(a, 0, N);
    RULE(.op = FAKE_GET, .times = 2, .act = FAKE_EAGAIN);
    CHECK_EQ_INT(pml_rdma(0, a, raddr, N, false), 0);
    CHECK_EQ_LONG(pattern_bad(a, N, 50), -1);
    fake_clear();

    RULE(.op = FAKE_GET, .after = 1, .times = 1, .act = FAKE_CFAIL, .arg = -EIO);
    CHECK_EQ_INT(pml_rdma(0, a, raddr, N, false), -EIO);
    fake_clear();
    RULE(.op = FAKE_PUT, .times = 1, .act = FAKE_FAIL, .arg = -EFAULT);
    CHECK_EQ_INT(pml_rdma(0, a, raddr, N, true), -EFAULT);
    fake_clear();
    fake_btl_module.get_limit = fake_btl_module.put_limit = SIZE_MAX;
    free(a);
    free(b);
}

/* Many eager-sized messages, each received after it is sent, while the
 * credits the receiver returns are held back (or, act DROP, lost): all
 * arrive whole and in order. */
static int credit_stream(int act, int arg)
{
    enum { N = 200, LEN = 4000 };
    int bad = -1;

    RULE(.op = FAKE_MSG, .type = PML_HDR_CREDIT, .act = act, .arg = arg);
    for (int i = 0; i < N && bad < 0; i++) {
        pattern(sbuf, LEN, (unsigned)i);
        MPI_Send(sbuf, LEN, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
        memset(rbuf, 0, LEN);
        MPI_Recv(rbuf, LEN, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (pattern_bad(rbuf, LEN, (unsigned)i) >= 0)
            bad = i;
    }
    fake_clear();
    return bad;
}

static void credits(void)
{
    unsigned long long fc;

    fake_counts_reset();
    CHECK_EQ_INT(credit_stream(FAKE_HOLD, 200), -1);
    CHECK_GT_LONG(fake_counts.held, 0, "CREDIT messages held 200 polls");

    /* Lost credits never come back: once the window is spent the sends go
     * by rendezvous, counted as fb_credit, and still arrive. Last, since
     * this process's window stays empty. */
    fc = pvar("fb_credit");
    CHECK_EQ_INT(credit_stream(FAKE_DROP, 0), -1);
    CHECK_GT_LONG(fake_counts.dropped, 0, "CREDIT messages dropped");
    CHECK_GT_LONG(pvar("fb_credit") - fc, 100, "sends by rendezvous for lack of credits");
    CHECK_TRUE(roundtrip(100, 40), "a small message still arrives with no credits left");
}

int main(int argc, char **argv)
{
    sbuf = malloc(BIG);
    rbuf = malloc(BIG);
    fake_test_init(&argc, &argv, 60);
    refused_sends();
    refused_control();
    refused_gets();
    failed_gets();
    failed_reg();
    rdma_helper();
    credits();
    fake_test_fini();
    free(sbuf);
    free(rbuf);
    return done_testing();
}
