/* Start-up and finalize cycles: 50 sessions one after another (T_CYCLES=
 * session), after MPI_Init and MPI_Finalize (world-then), or around a
 * world that is brought up in the middle and outlived (around). Each cycle
 * talks (allreduce, an idup, a window) so every progress source the layers
 * add is in use, and the MPI_T levels rdmpi_progress_sources and
 * rdmpi_comm_services must read the same in every cycle and 0 once the
 * layers are down: no source or communicator service is registered twice
 * or left behind.
 * Every rank exits non-zero on a failure of its own. */
#include "../p2p/mpitest.h"

#define CYCLES 50

static MPI_T_pvar_session pv_session;
static MPI_T_pvar_handle pv_sources, pv_services;
static long services_up = -1;

static long pvar(MPI_T_pvar_handle h)
{
    unsigned long long v = 0;

    CHECK_MPI(MPI_T_pvar_read(pv_session, h, &v), "MPI_T_pvar_read");
    return (long)v;
}

static long sources(void)
{
    return pvar(pv_sources);
}

static long services(void)
{
    return pvar(pv_services);
}

/* The first reading while up is the reference for every later one. */
static void check_services_up(void)
{
    long n = services();

    if (services_up < 0)
        services_up = n;
    CHECK_GT_LONG(n, 0, "communicator services while up");
    CHECK_EQ_LONG(n, services_up, "communicator services while up");
}

static void pvar_alloc(const char *name, MPI_T_pvar_handle *h)
{
    int idx = -1, count;

    CHECK_MPI(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_LEVEL, &idx), "MPI_T_pvar_get_index");
    MPI_T_pvar_handle_alloc(pv_session, idx, NULL, h, &count);
}

/* One session's life; returns the number of progress sources seen while
 * it was up and busy. */
static long one_session(int cycle)
{
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL, d = MPI_COMM_NULL;
    MPI_Request r;
    MPI_Win w;
    int sum = -1, size = 0, rank = -1, buf = 0;
    long n;

    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s), "MPI_Session_init");
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    CHECK_EQ_INT(MPI_Comm_create_from_group(g, "t_cycles", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                 MPI_SUCCESS, "MPI_Comm_create_from_group");
    MPI_Group_free(&g);
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    mt_rank = rank;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK_EQ_INT(sum, size * (size - 1) / 2, "allreduce of ranks");
    CHECK_MPI(MPI_Comm_idup(c, &d, &r), "MPI_Comm_idup");
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Win_create(&buf, sizeof(buf), sizeof(buf), MPI_INFO_NULL, d, &w);
    MPI_Win_fence(0, w);
    MPI_Put(&cycle, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, w);
    MPI_Win_fence(0, w);
    CHECK_EQ_INT(buf, cycle, "put from the left neighbour");
    n = sources();
    check_services_up();
    MPI_Win_free(&w);
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    CHECK_MPI(MPI_Session_finalize(&s), "MPI_Session_finalize");
    return n;
}

/* Without MPI_Init the layers stay up between sessions; once MPI_Finalize
 * ran, the last session takes them down and the next brings them up. */
static void sessions(int count, long *first, int world_done)
{
    for (int i = 0; i < count && !mt_failed; i++) {
        long n = one_session(i);
        if (*first < 0)
            *first = n;
        CHECK_EQ_LONG(n, *first, "progress sources while a session is up");
        CHECK_EQ_LONG(sources(), world_done ? 0 : *first, "progress sources after the session");
        CHECK_EQ_LONG(services(), world_done ? 0 : services_up,
                      "communicator services after the session");
    }
}

int main(int argc, char **argv)
{
    const char *mode = getenv("T_CYCLES");
    int provided;
    long first = -1;
    MPI_Session s;

    if (!mode ||
        (strcmp(mode, "session") && strcmp(mode, "world-then") && strcmp(mode, "around"))) {
        fprintf(stderr, "t_cycles: set T_CYCLES to session, world-then or around\n");
        return 2;
    }
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_pvar_session_create(&pv_session);
    pvar_alloc("rdmpi_progress_sources", &pv_sources);
    pvar_alloc("rdmpi_comm_services", &pv_services);
    CHECK_EQ_LONG(services(), 0, "communicator services before start-up");
    if (!strcmp(mode, "world-then")) {
        MPI_Init(&argc, &argv);
        MPI_Finalize();
        CHECK_EQ_LONG(sources(), 0, "progress sources after MPI_Finalize");
        CHECK_EQ_LONG(services(), 0, "communicator services after MPI_Finalize");
    }
    if (!strcmp(mode, "around")) {
        sessions(CYCLES / 2, &first, 0);
        /* A session opened before MPI_Init and closed after MPI_Finalize,
         * with sessions coming and going while the world is up. */
        MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
        MPI_Init(&argc, &argv);
        for (int i = 0; i < CYCLES / 2 && !mt_failed; i++)
            CHECK_EQ_LONG(one_session(i), first, "progress sources with the world up");
        MPI_Finalize();
        CHECK_MPI(MPI_Session_finalize(&s), "MPI_Session_finalize");
        CHECK_EQ_LONG(sources(), 0, "progress sources after the world and its session");
        CHECK_EQ_LONG(services(), 0, "communicator services after the world and its session");
    }
    sessions(CYCLES, &first, strcmp(mode, "session") != 0);
    MPI_T_pvar_handle_free(pv_session, &pv_sources);
    MPI_T_pvar_handle_free(pv_session, &pv_services);
    MPI_T_pvar_session_free(&pv_session);
    MPI_T_finalize();
    if (mt_rank == 0)
        printf("t_cycles %s: %d failures on rank 0\n", mode, mt_failed);
    return mt_failed != 0;
}
