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
    CHECK_TRUE(v == 4 && sv == 1, "version %d.%d", v, sv);
    MPI_Get_library_version(lib, &len);
    CHECK_TRUE(!strncmp(lib, "rdmpi", 5) && len == (int)strlen(lib), "library version: %s", lib);
    MPI_Get_processor_name(host, &len);
    CHECK_TRUE(len > 0 && len == (int)strlen(host), "processor name %s", host);
    t0 = MPI_Wtime();
    usleep(20000);
    t1 = MPI_Wtime();
    CHECK_TRUE(t1 - t0 >= 0.019 && t1 - t0 < 5, "MPI_Wtime advances (%.4f s)", t1 - t0);
    CHECK_TRUE(MPI_Wtick() > 0 && MPI_Wtick() < 1e-3, "MPI_Wtick %g", MPI_Wtick());
    CHECK_TRUE(size >= 1 && rank >= 0 && rank < size, "rank %d of %d", rank, size);
    MPI_Comm_size(MPI_COMM_SELF, &v);
    MPI_Comm_rank(MPI_COMM_SELF, &sv);
    CHECK_TRUE(v == 1 && sv == 0, "MPI_COMM_SELF is 1 rank");
    MPI_Finalized(&flag);
    CHECK_TRUE(!flag, "not finalized yet");
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK_TRUE(flag, "MPI_Finalized after finalize");
    MPI_Initialized(&flag);
    CHECK_TRUE(flag, "MPI_Initialized stays true after finalize");
    return tap_failed != 0;
}
