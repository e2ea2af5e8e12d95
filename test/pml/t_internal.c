/* The pml's entry points for internal traffic (pml_api.h): a message on an
 * internal tag reaches pml_int_iprobe and pml_int_irecv, and no user call
 * sees it, not even MPI_ANY_TAG. Every rank sends to the next one on
 * MPI_COMM_WORLD (itself when alone). Prints TAP on rank 0. */
#include "../mpitap.h"
#include "pml_api.h"

#include <string.h>

#define TAG (-5000) /* in no layer's range (pml_api.h) */

static void wait_done(struct rdmpi_request *r)
{
    while (!pml_int_done(r))
        rt_progress();
}

int main(int argc, char **argv)
{
    struct rdmpi_datatype *byte;
    struct rdmpi_request *sr, *rr;
    struct pml_comm *pc;
    MPI_Status st;
    int rank, size, flag = -1, sbuf[4], rbuf[4] = {0}, err;
    bool seen;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank)
        if (!freopen("/dev/null", "w", stdout))
            return 1;
    plan(12);
    pc = rt_comm_get(MPI_COMM_WORLD)->pml;
    byte = rt_dt_get(MPI_BYTE);
    for (int i = 0; i < 4; i++)
        sbuf[i] = 100 * rank + i;

    CHECK_TRUE(pml_tag_internal(TAG) && !pml_tag_internal(0) && !pml_tag_internal(MPI_ANY_TAG),
               "negative tags but MPI_ANY_TAG are internal");
    err = pml_int_isend(sbuf, sizeof(sbuf), byte, (rank + 1) % size, TAG, pc, &sr);
    CHECK_MPI(err);

    /* Until it arrives; then it must stay invisible to the user. */
    int from = (rank + size - 1) % size;
    while (!(seen = pml_int_iprobe(pc, MPI_ANY_SOURCE, TAG, &st)))
        rt_progress();
    CHECK_TRUE(seen, "pml_int_iprobe finds the message");
    CHECK_EQ_INT(st.MPI_SOURCE, from);
    CHECK_EQ_LONG(st.rdmpi_count, sizeof(sbuf));
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(flag, 0);

    err = pml_int_irecv(rbuf, sizeof(rbuf), byte, from, TAG, pc, &rr);
    CHECK_MPI(err);
    wait_done(rr);
    CHECK_MPI(rr->status.MPI_ERROR);
    CHECK_EQ_LONG(rr->status.rdmpi_count, sizeof(rbuf));
    CHECK_EQ_INT(rbuf[3], 100 * from + 3);
    pml_int_release(rr);
    if (sr) {
        wait_done(sr);
        pml_int_release(sr);
    }
    CHECK_TRUE(!pml_int_iprobe(pc, MPI_ANY_SOURCE, TAG, MPI_STATUS_IGNORE),
               "nothing left after it");

    /* The blocking exchange the runtime and coll use, around the ring. */
    sbuf[0] = rank;
    err = pml_comm_sendrecv(rt_comm_get(MPI_COMM_WORLD), sbuf, sizeof(int), (rank + 1) % size, rbuf,
                            sizeof(int), from, TAG - 1);
    CHECK_ALL ("pml_comm_sendrecv: err %d, got %d from rank %d", err, rbuf[0], from) {
        CHECK_TRUE(!err);
        CHECK_EQ_INT(rbuf[0], from);
    }
    MPI_Finalize();
    return tap_failed ? 1 : 0;
}
