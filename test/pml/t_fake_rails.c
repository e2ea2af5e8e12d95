/* Multi-rail over three fake modules of one kind (rails 0, 1, 2): a large
 * rendezvous is read (or written) in chunks over all of them, each rail's
 * share following its bandwidth_mbs; chunks completing out of order
 * reassemble; a rail lost mid-message (its error callback, or a failed
 * chunk) leaves the peer's list and its chunks go over the others, with
 * eager traffic moving to the next rail when the first is lost; only when
 * no rail is left do the requests fail. Sizes are no multiple of the
 * chunk; contiguous and vector datatypes; every byte checked. One
 * process, to itself. */
#include "fake_test.h"
#include "pml.h"

#include <errno.h>
#include <stdlib.h>

#define CHUNK (256u << 10) /* RDMPI_PML_GET_CHUNK */
#define BIG   ((8u << 20) + 12345)

static unsigned char *sbuf, *rbuf;

static unsigned long bytes_on(int k)
{
    return fake_module_counts[k].get_bytes + fake_module_counts[k].put_bytes;
}

/* n bytes to self; 1 if they all arrived right and both requests
 * succeeded. */
static int roundtrip(size_t n, unsigned seed)
{
    MPI_Request rq[2];
    MPI_Status st[2];
    int count = -1, rc;

    pattern(sbuf, n, seed);
    memset(rbuf, 0, n + 1);
    memset(st, 0, sizeof(st));
    MPI_Irecv(rbuf, (int)n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(sbuf, (int)n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq[0]);
    rc = MPI_Waitall(2, rq, st);
    MPI_Get_count(&st[1], MPI_BYTE, &count);
    return rc == MPI_SUCCESS && (size_t)count == n && pattern_bad(rbuf, n, seed) == -1 &&
           rbuf[n] == 0;
}

/* Each rail's share of total within a chunk of bw[k] / sum. */
static void shares(const char *what, size_t total, const unsigned bw[3])
{
    unsigned sum = bw[0] + bw[1] + bw[2];

    for (int k = 0; k < 3; k++) {
        long want = (long)((double)total * bw[k] / sum), got = (long)bytes_on(k);

        CHECK_ALL ("%s: rail %d (%u MB/s) carried %ld of %zu bytes, about %ld", what, k, bw[k], got,
                   total, want) {
            CHECK_LE_LONG(labs(got - want), (long)CHUNK);
        }
    }
    CHECK_EQ_LONG(bytes_on(0) + bytes_on(1) + bytes_on(2), total, "%s: every byte once", what);
}

static void set_bw(const unsigned bw[3])
{
    for (int k = 0; k < 3; k++)
        fake_module(k)->bandwidth_mbs = bw[k];
}

static void striping(void)
{
    static const unsigned even[3] = {1000, 1000, 1000}, skew[3] = {2000, 1000, 500};
    unsigned long long fb = pvar("fb_read");

    CHECK_ALL ("the peer's rails: three fake modules, the first carrying eager traffic") {
        CHECK_EQ_INT(pml_peers[0].nroutes, 3);
        CHECK_TRUE(pml_peers[0].btl == fake_module(0));
        CHECK_EQ_INT(pml_nbtls, 3);
    }
    set_bw(even);
    fake_counts_reset();
    CHECK_TRUE(roundtrip(BIG, 1), "%u bytes read over three equal rails", BIG);
    shares("equal rails, read", BIG, even);

    set_bw(skew);
    fake_counts_reset();
    CHECK_TRUE(roundtrip(BIG, 2), "%u bytes read over rails of 2000, 1000, 500 MB/s", BIG);
    shares("weighted rails, read", BIG, skew);

    fake_counts_reset();
    CHECK_TRUE(roundtrip(4000, 3), "an eager message goes on the first rail only");
    CHECK_ALL ("eager: %lu messages on rail 0, %lu and %lu on the others",
               fake_module_counts[0].msgs, fake_module_counts[1].msgs, fake_module_counts[2].msgs) {
        CHECK_GT_LONG(fake_module_counts[0].msgs, 0);
        CHECK_EQ_LONG(fake_module_counts[1].msgs + fake_module_counts[2].msgs, 0);
        CHECK_EQ_LONG(bytes_on(0) + bytes_on(1) + bytes_on(2), 0);
    }

    /* Completions out of order, and held on one rail while the others go
     * on: the chunks still land at their offsets. */
    set_bw(even);
    fake_counts_reset();
    RULE(.op = FAKE_GET, .module = 2, .times = 3, .act = FAKE_HOLD, .arg = 40);
    RULE(.op = FAKE_GET, .act = FAKE_SWAP);
    CHECK_TRUE(roundtrip(BIG, 4), "chunks completing reversed, one rail held: reassembled");
    CHECK_GT_LONG(fake_counts.swapped, 0, "the fake reordered completions");
    fake_clear();
    CHECK_EQ_LONG(pvar("fb_read") - fb, 0, "no fallback to the copy pipeline");
}

/* The write rendezvous over the same rails: no rail reads, all register. */
static void writes(void)
{
    static const unsigned skew[3] = {1000, 2000, 1000};
    const uint32_t was = fake_btl_module.flags;

    for (int k = 0; k < 3; k++)
        fake_module(k)->flags = (was & ~(uint32_t)BTL_CAP_GET) | BTL_CAP_NEED_REG;
    set_bw(skew);
    fake_counts_reset();
    CHECK_TRUE(roundtrip(BIG, 5), "%u bytes written over three rails", BIG);
    shares("weighted rails, write", BIG, skew);

    /* Vector send: packed chunk by chunk into staging slots registered on
     * every rail; vector receive unpacked at the end. */
    MPI_Datatype vec;
    MPI_Request rq[2];
    const int blocks = 1 << 16, blen = 40, stride = 48; /* 2.5 MiB of data in 3 MiB */
    size_t span = (size_t)blocks * stride, bad = 0;

    MPI_Type_vector(blocks, blen, stride, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    pattern(sbuf, span, 6);
    memset(rbuf, 0xee, span);
    fake_counts_reset();
    MPI_Irecv(rbuf, 1, vec, 0, 4, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(sbuf, 1, vec, 0, 4, MPI_COMM_WORLD, &rq[0]);
    CHECK_EQ_INT(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS, "vector over rails");
    for (size_t i = 0; i < span; i++)
        bad += (i % stride < (size_t)blen) ? rbuf[i] != sbuf[i] : rbuf[i] != 0xee;
    CHECK_EQ_LONG(bad, 0, "vector: every block and every gap right");
    CHECK_ALL ("vector: rails carried %lu, %lu, %lu bytes", bytes_on(0), bytes_on(1), bytes_on(2)) {
        CHECK_GT_LONG(bytes_on(0), 0);
        CHECK_GT_LONG(bytes_on(1), 0);
        CHECK_GT_LONG(bytes_on(2), 0);
    }
    MPI_Type_free(&vec);
    for (int k = 0; k < 3; k++)
        fake_module(k)->flags = was;
}

/* Reads of a non-contiguous receive from a contiguous send, over rails. */
static void vector_reads(void)
{
    MPI_Datatype vec;
    MPI_Request rq[2];
    const int blocks = 50000, blen = 100, stride = 112;
    size_t span = (size_t)blocks * stride, n = (size_t)blocks * blen, bad = 0;

    MPI_Type_vector(blocks, blen, stride, MPI_BYTE, &vec);
    MPI_Type_commit(&vec);
    pattern(sbuf, n, 7);
    memset(rbuf, 0xee, span);
    fake_counts_reset();
    MPI_Irecv(rbuf, 1, vec, 0, 5, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(sbuf, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq[0]);
    CHECK_EQ_INT(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS,
                 "contiguous send into a vector receive, read over rails");
    for (size_t i = 0, j = 0; i < span; i++)
        bad += (i % stride < (size_t)blen) ? rbuf[i] != sbuf[j++] : rbuf[i] != 0xee;
    CHECK_EQ_LONG(bad, 0, "every byte in its block, every gap untouched");
    CHECK_TRUE(bytes_on(1) && bytes_on(2), "the receive's reads went over the other rails too");
    MPI_Type_free(&vec);
}

static void failover(void)
{
    unsigned long long fb = pvar("fb_read");
    MPI_Request rq[2];
    MPI_Status st[2];

    /* Rail 1 lost mid-message through its error callback: its chunk goes
     * again on the others, and it carries nothing more. */
    fake_counts_reset();
    RULE(.op = FAKE_GET, .module = 2, .after = 1, .times = 1, .act = FAKE_ERROR);
    CHECK_TRUE(roundtrip(BIG, 8), "rail 1 lost mid-message: the message arrives whole");
    fake_clear();
    CHECK_ALL ("rail 1 left the peer's list; no fallback") {
        CHECK_EQ_LONG(fake_counts.errors, 1);
        CHECK_EQ_INT(pml_peers[0].nroutes, 2);
        CHECK_TRUE(!pml_route_has(0, fake_module(1)));
        CHECK_EQ_LONG(pvar("fb_read") - fb, 0);
    }
    fake_counts_reset();
    CHECK_TRUE(roundtrip(BIG, 9), "the next message over the two rails left");
    CHECK_ALL ("rails 0 and 2 carried it all (%lu, %lu, %lu)", bytes_on(0), bytes_on(1),
               bytes_on(2)) {
        CHECK_EQ_LONG(bytes_on(1), 0);
        CHECK_EQ_LONG(bytes_on(0) + bytes_on(2), BIG);
    }

    /* The first rail fails a chunk (no callback): it leaves the list, its
     * chunk goes on rail 2, which carries the eager traffic from now on. */
    fake_counts_reset();
    RULE(.op = FAKE_GET, .module = 1, .times = 1, .act = FAKE_CFAIL, .arg = -EIO);
    CHECK_TRUE(roundtrip(BIG, 10), "rail 0 fails a chunk: the message arrives whole");
    fake_clear();
    CHECK_ALL ("rail 2 is the peer's first now") {
        CHECK_EQ_INT(pml_peers[0].nroutes, 1);
        CHECK_TRUE(pml_peers[0].btl == fake_module(2));
        CHECK_EQ_LONG(pvar("fb_read") - fb, 0);
    }
    fake_counts_reset();
    CHECK_TRUE(roundtrip(100, 11), "an eager message after the first rail's loss");
    CHECK_ALL ("it went on rail 2 (%lu messages on rail 0, %lu on rail 2)",
               fake_module_counts[0].msgs, fake_module_counts[2].msgs) {
        CHECK_EQ_LONG(fake_module_counts[0].msgs, 0);
        CHECK_GT_LONG(fake_module_counts[2].msgs, 0);
    }

    /* The last rail lost mid-message: the peer is failed, both requests
     * complete in error, no copy pipeline. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    pattern(sbuf, BIG, 12);
    RULE(.op = FAKE_GET, .module = 3, .after = 2, .times = 1, .act = FAKE_ERROR);
    memset(st, 0, sizeof(st));
    MPI_Irecv(rbuf, BIG, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(sbuf, BIG, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq[0]);
    CHECK_ALL ("no rail left: the send and the receive fail") {
        CHECK_EQ_INT(MPI_Waitall(2, rq, st), MPI_ERR_IN_STATUS);
        CHECK_EQ_INT(st[0].MPI_ERROR, MPI_ERR_OTHER);
        CHECK_EQ_INT(st[1].MPI_ERROR, MPI_ERR_OTHER);
        CHECK_TRUE(pml_peers[0].failed);
        CHECK_EQ_LONG(pvar("fb_read") - fb, 0);
    }
    fake_clear();
}

int main(int argc, char **argv)
{
    setenv("RDMPI_PML_GET_CHUNK", "256k", 1);
    sbuf = malloc(BIG + 1);
    rbuf = malloc(BIG + 1);
    if (!sbuf || !rbuf)
        bail_out("out of memory");
    fake_btl_modules(3);
    fake_test_init(&argc, &argv, 120);
    plan(36);
    striping();
    writes();
    vector_reads();
    failover(); /* last: it loses the peer for good */
    fake_test_fini();
    free(sbuf);
    free(rbuf);
    return tap_failed != 0;
}
