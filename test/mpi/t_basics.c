/* Runtime basics: init state, versions, clocks, names, thread queries. */
#include "../tap.h"

#include <mpi.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int flag, v, sv, len, rank, size, provided;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME];
    double t0, t1;

    MPI_Initialized(&flag);
    if (flag)
        bail_out("initialized before MPI_Init");
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        plan(14);
    else
        fclose(stdout); /* one TAP stream: rank 0 speaks for the job */

    CHECK_EQ_INT(provided, MPI_THREAD_FUNNELED, "provided FUNNELED as asked (%d)", provided);
    MPI_Query_thread(&v);
    CHECK_EQ_INT(v, provided, "MPI_Query_thread agrees");
    MPI_Is_thread_main(&flag);
    CHECK_TRUE(flag, "main thread is the main thread");
    MPI_Initialized(&flag);
    CHECK_TRUE(flag, "MPI_Initialized after init");
    MPI_Get_version(&v, &sv);
    CHECK_ALL ("version %d.%d", v, sv) {
        CHECK_EQ_INT(v, 4);
        CHECK_EQ_INT(sv, 1);
    }
    MPI_Get_library_version(lib, &len);
    CHECK_ALL ("library version: %s", lib) {
        CHECK_TRUE(!strncmp(lib, "rdmpi", 5));
        CHECK_EQ_INT(len, (int)strlen(lib));
    }
    MPI_Get_processor_name(host, &len);
    CHECK_ALL ("processor name %s", host) {
        CHECK_GT_LONG(len, 0);
        CHECK_EQ_INT(len, (int)strlen(host));
    }
    t0 = MPI_Wtime();
    usleep(20000);
    t1 = MPI_Wtime();
    CHECK_ALL ("MPI_Wtime advances (%.4f s)", t1 - t0) {
        CHECK_TRUE(t1 - t0 >= 0.019);
        CHECK_TRUE(t1 - t0 < 5);
    }
    CHECK_ALL ("MPI_Wtick %g", MPI_Wtick()) {
        CHECK_TRUE(MPI_Wtick() > 0);
        CHECK_TRUE(MPI_Wtick() < 1e-3);
    }
    CHECK_ALL ("rank %d of %d", rank, size) {
        CHECK_GE_LONG(size, 1);
        CHECK_GE_LONG(rank, 0);
        CHECK_LT_LONG(rank, size);
    }
    MPI_Comm_size(MPI_COMM_SELF, &v);
    MPI_Comm_rank(MPI_COMM_SELF, &sv);
    CHECK_ALL ("MPI_COMM_SELF is 1 rank") {
        CHECK_EQ_INT(v, 1);
        CHECK_EQ_INT(sv, 0);
    }
    MPI_Finalized(&flag);
    CHECK_TRUE(!flag, "not finalized yet");
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK_TRUE(flag, "MPI_Finalized after finalize");
    MPI_Initialized(&flag);
    CHECK_TRUE(flag, "MPI_Initialized stays true after finalize");
    return tap_failed != 0;
}
