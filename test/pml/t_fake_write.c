/* The write rendezvous and the staging of non-contiguous rendezvous over a
 * BTL that needs registration (the fake, flagged so): a receiver that is
 * offered no readable region registers its buffer and the sender writes
 * (docs/pml.md); writes refused with -EAGAIN are retried, a write that
 * fails falls back once to the copy pipeline, as does a receiver whose
 * registration fails; a truncated receive takes what fits; a
 * non-contiguous send is packed chunk by chunk into staging slots as it
 * is written, and a non-contiguous receive unpacked chunk by chunk as it
 * is read. One process, to itself. */
#include "fake_test.h"
#include "pml_api.h"

#include <errno.h>
#include <stdlib.h>

#define BIG 65536
/* The fake's message window (btl_module.peer_msgs), as btl/ofi states one. */
#define WINDOW 4

static unsigned char *sbuf, *rbuf;

/* One message of n bytes to self, received into a buffer of cap bytes; 1
 * if what fits arrived whole (and the status says so). */
static int roundtrip(size_t n, size_t cap, unsigned seed)
{
    MPI_Request rq[2];
    MPI_Status st[2];
    int count = -1;

    pattern(sbuf, n, seed);
    memset(rbuf, 0, BIG);
    memset(st, 0, sizeof(st)); /* MPI_ERROR is set only on MPI_ERR_IN_STATUS */
    MPI_Isend(sbuf, (int)n, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(rbuf, (int)cap, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, st);
    MPI_Get_count(&st[1], MPI_BYTE, &count);
    return (size_t)count == (n < cap ? n : cap) && pattern_bad(rbuf, (size_t)count, seed) == -1 &&
           (cap >= BIG || rbuf[cap] == 0) &&
           st[1].MPI_ERROR == (n > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
}

/* No read offered (the BTL cannot GET): the receiver asks for writes. */
static void writes(void)
{
    unsigned long long nordma = pvar("fb_nordma"), fb = pvar("fb_read");

    fake_counts_reset();
    CHECK_TRUE(roundtrip(BIG, BIG, 1), "no GET: the sender writes the message");
    CHECK_ALL ("one write of %lu, no read, no fallback", fake_counts.puts) {
        CHECK_EQ_LONG(fake_counts.puts, 1);
        CHECK_EQ_LONG(fake_counts.gets, 0);
        CHECK_EQ_LONG(pvar("fb_nordma") - nordma, 0);
        CHECK_EQ_LONG(pvar("fb_read") - fb, 0);
    }

    fake_counts_reset();
    fake_btl_module.put_limit = 8192;
    RULE(.op = FAKE_PUT, .after = 2, .times = 3, .act = FAKE_EAGAIN);
    CHECK_TRUE(roundtrip(BIG, BIG, 2), "8 KiB put limit, 3 writes refused: retried");
    CHECK_EQ_LONG(fake_counts.eagain, 3);
    CHECK_EQ_LONG(fake_counts.puts, BIG / 8192 + 3);
    fake_clear();

    RULE(.op = FAKE_PUT, .after = 1, .times = 2, .act = FAKE_HOLD, .arg = 3);
    RULE(.op = FAKE_PUT, .act = FAKE_SWAP);
    CHECK_TRUE(roundtrip(BIG, BIG, 3), "write completions delayed and reordered");
    CHECK_EQ_LONG(pvar("fb_read") - fb, 0);
    fake_clear();

    CHECK_TRUE(roundtrip(BIG, BIG / 2 + 1, 4), "truncated: what fits is written, no more");
    fake_btl_module.put_limit = SIZE_MAX;

    /* A WCTS takes a place in the message window like any message but a
     * CREDIT, and its arrival must give it back: else the receiver's
     * window runs dry after WINDOW write rendezvous. */
    int whole = 1;

    for (unsigned i = 0; i < 4 * WINDOW; i++)
        whole &= roundtrip(BIG, BIG, 10 + i);
    CHECK_TRUE(whole, "%d write rendezvous through a %d-message window", 4 * WINDOW, WINDOW);
}

/* A write fails (at once, or in its completion), or the receiver cannot
 * register: one fallback to the copy pipeline, every byte still right. */
static void failures(void)
{
    unsigned long long fb = pvar("fb_read"), nordma = pvar("fb_nordma");

    fake_btl_module.put_limit = 8192;
    RULE(.op = FAKE_PUT, .after = 2, .times = 1, .act = FAKE_CFAIL, .arg = -EIO);
    CHECK_TRUE(roundtrip(BIG, BIG, 5), "a write completes with -EIO: the copy pipeline delivers");
    CHECK_EQ_LONG(pvar("fb_read") - fb, 1);
    fake_clear();
    RULE(.op = FAKE_PUT, .after = 1, .times = 1, .act = FAKE_FAIL, .arg = -EFAULT);
    CHECK_TRUE(roundtrip(BIG, BIG, 6), "a write refused with -EFAULT: the copy pipeline delivers");
    CHECK_EQ_LONG(pvar("fb_read") - fb, 2);
    fake_clear();
    fake_btl_module.put_limit = SIZE_MAX;

    RULE(.op = FAKE_REG, .times = 1, .act = FAKE_FAIL, .arg = -ENOMEM);
    CHECK_TRUE(roundtrip(BIG, BIG, 7), "the receiver cannot register: the copy pipeline");
    CHECK_EQ_LONG(pvar("fb_nordma") - nordma, 1);
    fake_clear();
}

/* A vector of n 3-byte blocks at a stride of 5, sent or received against
 * contiguous bytes: staged in 4 KiB slots (RDMPI_PML_PACK_CHUNK), each
 * slot's chunk (un)packed at its offset. */
static void strided(void)
{
    enum { N = 40000, BL = 3, STRIDE = 5 };
    unsigned char *v = calloc(N, STRIDE), *c = malloc(N * BL);
    MPI_Datatype t;
    MPI_Request rq[2];
    long bad = -1;

    MPI_Type_vector(N, BL, STRIDE, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    fake_btl_module.get_limit = fake_btl_module.put_limit = 8192;

    /* Sent as a vector: no read offered, the sender packs as it writes. */
    fake_counts_reset();
    for (size_t i = 0; i < (size_t)N * STRIDE; i++)
        v[i] = (unsigned char)(i * 13 + (i >> 7));
    MPI_Irecv(c, N * BL, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(v, 1, t, 0, 9, MPI_COMM_WORLD, &rq[0]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    for (size_t i = 0; i < (size_t)N * BL && bad < 0; i++)
        if (c[i] !=
            (unsigned char)((i / BL * STRIDE + i % BL) * 13 + ((i / BL * STRIDE + i % BL) >> 7)))
            bad = (long)i;
    CHECK_ALL ("vector send: written in %lu staged chunks, no read, every byte right",
               fake_counts.puts) {
        CHECK_EQ_LONG(bad, -1);
        CHECK_EQ_LONG(fake_counts.puts, (N * BL + 4095) / 4096);
        CHECK_EQ_LONG(fake_counts.gets, 0);
    }

    /* Received as a vector from contiguous bytes: read chunk by chunk into
     * slots and unpacked from each. */
    fake_counts_reset();
    fake_btl_module.flags |= BTL_CAP_GET;
    memset(v, 0, (size_t)N * STRIDE);
    for (size_t i = 0; i < (size_t)N * BL; i++)
        c[i] = (unsigned char)(i * 29 + 1);
    MPI_Irecv(v, 1, t, 0, 10, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(c, N * BL, MPI_BYTE, 0, 10, MPI_COMM_WORLD, &rq[0]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    bad = -1;
    for (size_t i = 0; i < (size_t)N * STRIDE && bad < 0; i++)
        if (v[i] !=
            (i % STRIDE < BL ? (unsigned char)((i / STRIDE * BL + i % STRIDE) * 29 + 1) : 0))
            bad = (long)i;
    CHECK_ALL ("vector receive: read in %lu staged chunks, unpacked, gaps untouched",
               fake_counts.gets) {
        CHECK_EQ_LONG(bad, -1);
        CHECK_EQ_LONG(fake_counts.gets, (N * BL + 4095) / 4096);
        CHECK_EQ_LONG(fake_counts.puts, 0);
    }
    fake_btl_module.flags &= ~BTL_CAP_GET;
    fake_btl_module.get_limit = fake_btl_module.put_limit = SIZE_MAX;
    MPI_Type_free(&t);
    free(v);
    free(c);
}

int main(int argc, char **argv)
{
    sbuf = malloc(BIG);
    rbuf = malloc(BIG);
    setenv("RDMPI_PML_PACK_CHUNK", "4k", 1);
    fake_btl_module.flags = (fake_btl_module.flags | BTL_CAP_NEED_REG) & ~BTL_CAP_GET;
    fake_btl_module.peer_msgs = WINDOW;
    fake_test_init(&argc, &argv, 60);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    writes();
    failures();
    strided();
    fake_test_fini();
    free(sbuf);
    free(rbuf);
    return done_testing();
}
