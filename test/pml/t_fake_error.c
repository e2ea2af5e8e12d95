/* The BTL error callback: a send the fake BTL fails after accepting it (as
 * a failed send completion) makes the pml fail what waits on that peer -
 * a receive naming it, a rendezvous send waiting for its FIN, a receive
 * waiting for a writer's PUTFIN, a receive whose RDMA read then fails (no copy pipeline to a lost
 * peer) - and every later operation with it, with MPI_ERR_OTHER under MPI_ERRORS_RETURN, while a
 * receive from MPI_ANY_SOURCE stays posted; first, that the pml lists the fake module as the peer's
 * first. With no argument the TAP scenarios; "fatal": the same failure under MPI_ERRORS_ARE_FATAL,
 * which must end the process with the BTL's message; "version": a fake module of another interface
 * version, which btl_open_all must refuse. t_fake_error.sh runs all three. One process, to itself.
 */
#include "fake_test.h"
#include "pml.h"

#include <errno.h>
#include <stdlib.h>

#define BIG 65536

static unsigned char sbuf[BIG], rbuf[BIG], rread[BIG], rwrite[BIG];

/* A rendezvous send whose header is lost, then an eager send that fails. */
static void fail_peer(MPI_Request *big)
{
    RULE(.op = FAKE_MSG, .type = PML_HDR_RNDV, .times = 1, .act = FAKE_DROP);
    RULE(.op = FAKE_MSG, .type = PML_HDR_MATCH, .times = 1, .act = FAKE_ERROR);
    MPI_Isend(sbuf, BIG, MPI_BYTE, 0, 4, MPI_COMM_WORLD, big);
    MPI_Send(sbuf, 8, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
}

static void scenarios(void)
{
    MPI_Request named, any, big, s, read_r, read_s, write_r, write_s;
    const uint32_t flags = fake_btl_module.flags;
    unsigned long long fb_read = pvar("fb_read");
    MPI_Status st;
    int flag = -1, err;

    CHECK_ALL ("the peer's list of modules: the fake's one, which carries its traffic") {
        CHECK_EQ_INT(pml_peers[0].nroutes, 1);
        CHECK_TRUE(pml_peers[0].routes[0].btl == &fake_btl_module);
        CHECK_TRUE(pml_peers[0].btl == pml_peers[0].routes[0].btl);
        CHECK_TRUE(pml_peers[0].ep == pml_peers[0].routes[0].ep);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Irecv(rbuf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &named);
    MPI_Irecv(rbuf + 8, 8, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &any);
    /* A write rendezvous whose receiver waits for the PUTFIN (the writes
     * held) when the peer is lost. */
    fake_btl_module.flags = (flags & ~(uint32_t)BTL_CAP_GET) | BTL_CAP_NEED_REG;
    RULE(.op = FAKE_PUT, .act = FAKE_HOLD, .arg = 1 << 30);
    MPI_Irecv(rwrite, BIG, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &write_r);
    MPI_Isend(sbuf, BIG, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &write_s);
    while (!fake_counts.puts)
        MPI_Test(&write_r, &flag, MPI_STATUS_IGNORE);
    fake_btl_module.flags = flags;
    /* A rendezvous whose read is in flight when the peer is lost, and
     * then fails. */
    MPI_Irecv(rread, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &read_r);
    MPI_Isend(sbuf, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &read_s);
    RULE(.op = FAKE_GET, .times = 1, .act = FAKE_CFAIL, .arg = -EIO);
    fail_peer(&big);

    err = MPI_Wait(&named, &st);
    CHECK_ALL ("a receive naming the failed peer completes in error") {
        CHECK_EQ_INT(err, MPI_ERR_OTHER);
        CHECK_EQ_LONG(fake_counts.errors, 1);
        CHECK_EQ_LONG(fake_counts.dropped, 1);
    }
    CHECK_EQ_INT(MPI_Wait(&big, MPI_STATUS_IGNORE), MPI_ERR_OTHER,
                 "a rendezvous send waiting for the peer's FIN completes in error");
    CHECK_ALL ("a read failing after the peer was lost fails its receive, no copy pipeline") {
        CHECK_EQ_INT(MPI_Wait(&read_r, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
        CHECK_EQ_INT(MPI_Wait(&read_s, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
        CHECK_EQ_LONG(fake_counts.cfailed, 1);
        CHECK_EQ_LONG(pvar("fb_read") - fb_read, 0);
    }
    CHECK_ALL ("a receive waiting for the writer's PUTFIN fails, and the writing send") {
        CHECK_EQ_INT(MPI_Wait(&write_r, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
        CHECK_EQ_INT(MPI_Wait(&write_s, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
    }
    MPI_Test(&any, &flag, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(flag, 0, "a receive from MPI_ANY_SOURCE is not failed with the peer");
    MPI_Cancel(&any);
    MPI_Wait(&any, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK_EQ_INT(flag, 1, "and it can still be cancelled");

    MPI_Isend(sbuf, 8, MPI_BYTE, 0, 6, MPI_COMM_WORLD, &s);
    CHECK_EQ_INT(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_ERR_OTHER, "a later Isend fails");
    CHECK_EQ_INT(MPI_Ssend(sbuf, 8, MPI_BYTE, 0, 6, MPI_COMM_WORLD), MPI_ERR_OTHER,
                 "a later Ssend fails");
    CHECK_EQ_INT(MPI_Send(sbuf, BIG, MPI_BYTE, 0, 6, MPI_COMM_WORLD), MPI_ERR_OTHER,
                 "a later rendezvous Send fails");
    CHECK_EQ_INT(MPI_Recv(rbuf, 8, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_ERR_OTHER, "a later Recv from the peer fails");
    CHECK_EQ_LONG(fake_counts.errors, 1, "the BTL was not asked to carry any of them");
    fake_clear();
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    if (!strcmp(mode, "version"))
        fake_btl_module.version = BTL_IFACE_VERSION - 1;
    fake_test_init(&argc, &argv, 60);
    if (!strcmp(mode, "fatal")) {
        MPI_Request big, r;

        MPI_Irecv(rbuf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r);
        fail_peer(&big);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        bail_out("the failure under MPI_ERRORS_ARE_FATAL returned");
    }
    plan(12);
    scenarios();
    fake_test_fini();
    return tap_failed != 0;
}
