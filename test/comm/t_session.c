/* The sessions model: MPI_Session_init without MPI_Init, the process sets
 * mpi://WORLD and mpi://SELF, communicators from their groups, traffic and
 * collectives on them, a window and puts on one, an intercommunicator
 * between even and odd ranks, the session's error handler, a second session
 * after the first is finalized, only MPI_TAG_UB among the predefined
 * attributes on its communicators; with T_SESSION=mixed, alongside MPI_Init,
 * MPI_Comm_compare refusing a session and a world communicator, a session
 * outliving MPI_Finalize; with T_SESSION=init-after, MPI_Init and
 * MPI_Finalize once every session is finalized. Rank 0 of the world set prints the
 * failure count; every rank exits non-zero on a failure of its own. */
#include "../p2p/mpitest.h"

static int session_errors;

static void on_error(MPI_Session *s, int *code, ...)
{
    (void)s;
    (void)code;
    session_errors++;
}

/* Names, sizes and a communicator over each process set; returns the
 * world one (the caller frees it). */
static MPI_Comm world_from(MPI_Session s, const char *tag)
{
    int n = 0, wsize = -1, len, flag, size, rank, sum = -1;
    char name[64], v[32];
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL, self = MPI_COMM_NULL;
    MPI_Info info;

    MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
    CHECK_GE_LONG(n, 2, "%d process sets", n);
    for (int i = 0; i < n; i++) {
        len = 0;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
        CHECK_ALL ("pset %d: length %d", i, len) {
            CHECK_GT_LONG(len, 1);
            CHECK_LE_LONG(len, (int)sizeof(name));
        }
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
        CHECK_EQ_INT((int)strlen(name), len - 1, "pset %d: \"%s\", length %d", i, name, len);
    }
    MPI_Session_get_pset_info(s, "mpi://WORLD", &info);
    len = sizeof(v);
    MPI_Info_get_string(info, "mpi_size", &len, v, &flag);
    CHECK_TRUE(flag, "mpi://WORLD info has mpi_size");
    wsize = atoi(v);
    MPI_Info_free(&info);

    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Group_size(g, &size);
    MPI_Group_rank(g, &rank);
    CHECK_EQ_INT(size, wsize, "world group size %d, mpi_size %d", size, wsize);
    MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Group_free(&g);
    MPI_Comm_rank(c, &mt_rank);
    MPI_Comm_size(c, &size);
    CHECK_ALL ("world comm: rank %d of %d", mt_rank, size) {
        CHECK_EQ_INT(size, wsize);
        CHECK_EQ_INT(mt_rank, rank);
    }
    MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK_EQ_INT(sum, size * (size - 1) / 2, "allreduce of ranks: %d", sum);
    {
        /* Only MPI_TAG_UB is cached on a communicator from a session. */
        static const int world_only[] = {
            MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE};
        void *val;

        MPI_Comm_get_attr(c, MPI_TAG_UB, &val, &flag);
        CHECK_ALL ("MPI_TAG_UB on a session communicator") {
            CHECK_TRUE(flag);
            CHECK_GE_LONG(*(int *)val, 32767);
        }
        for (size_t i = 0; i < sizeof(world_only) / sizeof(world_only[0]); i++) {
            MPI_Comm_get_attr(c, world_only[i], &val, &flag);
            CHECK_TRUE(!flag, "keyval %d is cached on a session communicator", world_only[i]);
        }
    }
    {
        int next = (mt_rank + 1) % size, prev = (mt_rank + size - 1) % size, got = -1;
        MPI_Sendrecv(&mt_rank, 1, MPI_INT, next, 3, &got, 1, MPI_INT, prev, 3, c,
                     MPI_STATUS_IGNORE);
        CHECK_EQ_INT(got, prev, "ring: got %d from %d", got, prev);
    }

    MPI_Group_from_session_pset(s, "mpi://SELF", &g);
    MPI_Comm_create_from_group(g, "t_session.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &self);
    MPI_Group_free(&g);
    MPI_Comm_size(self, &size);
    CHECK_EQ_INT(size, 1, "self comm size %d", size);
    MPI_Comm_free(&self);
    return c;
}

/* Even and odd world ranks as the two sides of an intercommunicator. */
static void inter(MPI_Session s)
{
    MPI_Group world, side[2];
    MPI_Comm ic;
    int size, rank, n[2] = {0, 0}, *r[2], rsize = -1, sum = -1, want = 0;

    MPI_Group_from_session_pset(s, "mpi://WORLD", &world);
    MPI_Group_size(world, &size);
    MPI_Group_rank(world, &rank);
    if (size < 2) {
        MPI_Group_free(&world);
        return;
    }
    for (int k = 0; k < 2; k++)
        r[k] = malloc((size_t)size * sizeof(int));
    for (int i = 0; i < size; i++)
        r[i & 1][n[i & 1]++] = i;
    for (int k = 0; k < 2; k++)
        MPI_Group_incl(world, n[k], r[k], &side[k]);
    MPI_Intercomm_create_from_groups(side[rank & 1], 0, side[!(rank & 1)], 0, "t_session.inter",
                                     MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic);
    MPI_Comm_remote_size(ic, &rsize);
    CHECK_EQ_INT(rsize, n[!(rank & 1)], "intercomm remote size %d, want %d", rsize, n[!(rank & 1)]);
    /* Each side's sum of world ranks arrives at the other side. */
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ic);
    for (int i = 0; i < n[!(rank & 1)]; i++)
        want += r[!(rank & 1)][i];
    CHECK_EQ_INT(sum, want, "intercomm allreduce: %d, want %d", sum, want);
    MPI_Comm_free(&ic);
    for (int k = 0; k < 2; k++) {
        MPI_Group_free(&side[k]);
        free(r[k]);
    }
    MPI_Group_free(&world);
}

/* A window on a session's communicator, in the sessions model alone. */
static void window(MPI_Comm c)
{
    int size, rank, *mem, v, bad = 0;
    MPI_Win win;

    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    MPI_Win_allocate((MPI_Aint)size * sizeof(int), sizeof(int), MPI_INFO_NULL, c, &mem, &win);
    MPI_Win_fence(0, win);
    for (int t = 0; t < size; t++) {
        v = rank * 7 + t;
        MPI_Put(&v, 1, MPI_INT, t, rank, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    for (int i = 0; i < size; i++)
        bad += mem[i] != i * 7 + rank;
    CHECK_TRUE(!bad, "a window on a session communicator: %d slots wrong", bad);
    MPI_Win_free(&win);
}

static void errors(MPI_Session s)
{
    MPI_Errhandler e, got;
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Info info;
    int rc, cls, len = 64, flag;
    char v[64];

    rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
    MPI_Error_class(rc, &cls);
    CHECK_ALL ("unknown pset: class %d", cls) {
        CHECK_EQ_INT(cls, MPI_ERR_ARG);
        CHECK_EQ_PTR(g, MPI_GROUP_NULL);
    }
    rc = MPI_Group_from_session_pset(s, "mpi://world", &g);
    CHECK_ALL ("mpi://world (lower case): rc %d", rc) {
        CHECK_MPI(rc);
        CHECK_NE_PTR(g, MPI_GROUP_NULL);
    }
    MPI_Group_free(&g);
    MPI_Session_get_info(s, &info);
    MPI_Info_get_string(info, "thread_level", &len, v, &flag);
    CHECK_TRUE(flag && !strncmp(v, "MPI_THREAD_", 11), "session info thread_level: %s",
               flag ? v : "(none)");
    MPI_Info_free(&info);
    {
        /* A thread_level that names no level is refused, not taken as
         * MPI_THREAD_SINGLE. */
        MPI_Session s3 = MPI_SESSION_NULL;
        MPI_Info_create(&info);
        MPI_Info_set(info, "thread_level", "MPI_THREAD_ANY");
        rc = MPI_Session_init(info, MPI_ERRORS_RETURN, &s3);
        MPI_Error_class(rc, &cls);
        CHECK_ALL ("thread_level MPI_THREAD_ANY: class %d, want MPI_ERR_INFO_VALUE (%d)", cls,
                   MPI_ERR_INFO_VALUE) {
            CHECK_EQ_INT(cls, MPI_ERR_INFO_VALUE);
            CHECK_EQ_PTR(s3, MPI_SESSION_NULL);
        }
        MPI_Info_free(&info);
    }
    MPI_Session_create_errhandler(on_error, &e);
    MPI_Session_set_errhandler(s, e);
    MPI_Session_get_errhandler(s, &got);
    CHECK_EQ_PTR(got, e, "get_errhandler returns the one set");
    MPI_Errhandler_free(&got);
    MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
    MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 99, &len, v);
    CHECK_EQ_INT(session_errors, 2, "the session's handler ran %d times, want 2", session_errors);
    MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&e);
    rc = MPI_Comm_create_from_group(MPI_GROUP_NULL, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG, "NULL newcomm: class %d", cls);
}

static int report(MPI_Comm c)
{
    int total = 0;

    MPI_Reduce(&mt_failed, &total, 1, MPI_INT, MPI_SUM, 0, c);
    if (mt_rank == 0)
        printf("t_session: %d failures\n", total);
    return mt_failed != 0;
}

int main(int argc, char **argv)
{
    const char *mode = getenv("T_SESSION");
    int mixed = mode && !strcmp(mode, "mixed"), flag = -1, bad;
    MPI_Session s, s2;
    MPI_Comm c;

    if (mixed) {
        MPI_Init(&argc, &argv);
    } else {
        MPI_Initialized(&flag);
        CHECK_TRUE(!flag, "MPI_Initialized is %d before any session", flag);
    }
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    if (!mixed) {
        MPI_Initialized(&flag);
        CHECK_TRUE(!flag, "MPI_Initialized is %d with only a session", flag);
    }
    c = world_from(s, "t_session.world");
    window(c);
    inter(s);
    errors(s);
    if (mixed) {
        int wrank, r, cls = -1;
        MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
        CHECK_EQ_INT(wrank, mt_rank, "world rank %d, session world rank %d", wrank, mt_rank);
        /* A session's communicator and a world one never meet in a call. */
        MPI_Error_class(MPI_Comm_compare(c, MPI_COMM_WORLD, &r), &cls);
        CHECK_EQ_INT(cls, MPI_ERR_COMM, "MPI_Comm_compare of session and world: class %d", cls);
        {
            /* Nor in MPI_Intercomm_create: each rank leads its own
             * session SELF, so each sees the error before any exchange. */
            MPI_Group g;
            MPI_Comm self, ic = MPI_COMM_NULL;
            int n;

            MPI_Comm_size(MPI_COMM_WORLD, &n);
            MPI_Group_from_session_pset(s, "mpi://SELF", &g);
            MPI_Comm_create_from_group(g, "t_session.self", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                       &self);
            MPI_Group_free(&g);
            cls = -1;
            MPI_Error_class(MPI_Intercomm_create(self, 0, MPI_COMM_WORLD, (wrank + 1) % n, 7, &ic),
                            &cls);
            CHECK_ALL ("MPI_Intercomm_create of a session and the world: class %d", cls) {
                CHECK_EQ_INT(cls, MPI_ERR_COMM);
                CHECK_EQ_PTR(ic, MPI_COMM_NULL);
            }
            MPI_Comm_free(&self);
        }
        MPI_Finalize();
        /* The session outlives MPI_Finalize. */
        MPI_Barrier(c);
        bad = report(c);
        MPI_Comm_free(&c);
        MPI_Session_finalize(&s);
        return bad;
    }
    MPI_Comm_free(&c);
    MPI_Session_finalize(&s);
    CHECK_EQ_PTR(s, MPI_SESSION_NULL, "MPI_Session_finalize sets the handle to null");
    /* A second session once the first is gone, with two at once. */
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2);
    c = world_from(s2, "t_session.again");
    MPI_Session_finalize(&s2);
    bad = report(c);
    MPI_Comm_free(&c);
    MPI_Session_finalize(&s);
    if (mode && !strcmp(mode, "init-after")) {
        int size = 0;
        MPI_Init(&argc, &argv);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK_GT_LONG(size, 0, "MPI_COMM_WORLD after sessions: size %d", size);
        MPI_Finalize();
        bad |= mt_failed != 0;
    }
    return bad;
}
