/* Dynamic processes end to end (runtime/dpm_*.c, pml/pml_procs.c): one
 * program, its mode in argv[1]; t_dpm_conn.sh runs every mode over sm and
 * over ofi/tcp.
 *   self         the even ranks accept, the odd ones connect (one job)
 *   join         ranks 0 and 1 join over a socket of their own
 *   spawn N R    spawn N children of this program, R rounds, each
 *                checked and disconnected; fds are counted across rounds
 *   nested       a child spawns a grandchild, which talks to both
 *   multi        MPI_Comm_spawn_multiple of two commands with their args
 *   errors       refused spawns and a dead port: classes, nothing started
 *   server F / client F   two mpirun jobs meet through the port in file F
 * On each intercommunicator: point-to-point both ways (eager and
 * rendezvous sizes), a broadcast and an allreduce across, then
 * MPI_Intercomm_merge and an allreduce and barrier on the result, and a
 * window on it that every process puts into. */
#include "../p2p/mpitest.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define BIG (256 << 10)

static int class_of(int rc)
{
    int c = rc;

    MPI_Error_class(rc, &c);
    return c;
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Everything across an intercommunicator; high: this side goes second
 * in the merge. */
static void exercise(MPI_Comm ic, int high, const char *what)
{
    int rank, size, rsize, sum = 0, want = 0, flag = 0, v;
    char *big = malloc(BIG);
    MPI_Comm m;

    MPI_Comm_test_inter(ic, &flag);
    CHECK_EQ_INT(flag, 1, "%s: an intercommunicator", what);
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_size(ic, &size);
    MPI_Comm_remote_size(ic, &rsize);
    /* Every local rank with every remote one, both ways, receives first. */
    char *ins = malloc((size_t)rsize * BIG);
    int *vs = calloc((size_t)rsize, sizeof(int));
    MPI_Request *rq = malloc(4 * (size_t)rsize * sizeof(*rq));

    mt_fill(big, BIG, (unsigned)(high * 1000 + rank));
    for (int s = 0; s < rsize; s++) {
        MPI_Irecv(&vs[s], 1, MPI_INT, s, 1, ic, &rq[4 * s]);
        MPI_Irecv(ins + (size_t)s * BIG, BIG, MPI_BYTE, s, 2, ic, &rq[4 * s + 1]);
        MPI_Isend(&rank, 1, MPI_INT, s, 1, ic, &rq[4 * s + 2]);
        MPI_Isend(big, BIG, MPI_BYTE, s, 2, ic, &rq[4 * s + 3]);
    }
    CHECK_MPI(MPI_Waitall(4 * rsize, rq, MPI_STATUSES_IGNORE), "%s: point-to-point", what);
    for (int s = 0; s < rsize; s++) {
        CHECK_EQ_INT(vs[s], s, "%s: the small message came from remote rank %d", what, s);
        CHECK_EQ_INT((int)mt_verify(ins + (size_t)s * BIG, BIG, (unsigned)((!high) * 1000 + s)), 0,
                     "%s: %d bytes from remote rank %d intact", what, BIG, s);
    }
    free(ins);
    free(vs);
    free(rq);
    /* A broadcast from the low side's rank 0, and an allreduce across. */
    v = high ? -1 : 4242;
    CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, high ? 0 : (rank == 0 ? MPI_ROOT : MPI_PROC_NULL), ic),
              "%s: bcast", what);
    if (high)
        CHECK_EQ_INT(v, 4242, "%s: the broadcast across arrived", what);
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ic), "%s: allreduce", what);
    CHECK_EQ_INT(sum, rsize * (rsize - 1) / 2, "%s: the allreduce sums the remote ranks", what);
    /* Merged: the low side first. */
    CHECK_MPI(MPI_Intercomm_merge(ic, high, &m), "%s: merge", what);
    MPI_Comm_rank(m, &v);
    CHECK_EQ_INT(v, high ? rsize + rank : rank, "%s: merged rank, the low side first", what);
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, m), "%s: allreduce merged", what);
    want = (size + rsize) * (size + rsize - 1) / 2;
    CHECK_EQ_INT(sum, want, "%s: the merged allreduce", what);
    CHECK_MPI(MPI_Barrier(m), "%s: barrier merged", what);
    /* One-sided across: every process puts its merged rank into its slot
     * of every other's window. */
    {
        int n = size + rsize, *slots = calloc((size_t)n, sizeof(int)), bad = 0;
        MPI_Win w;

        CHECK_MPI(
            MPI_Win_create(slots, (MPI_Aint)(n * sizeof(int)), sizeof(int), MPI_INFO_NULL, m, &w),
            "%s: window on the merged communicator", what);
        MPI_Win_fence(0, w);
        for (int t = 0; t < n; t++)
            MPI_Put(&v, 1, MPI_INT, t, v, 1, MPI_INT, w);
        MPI_Win_fence(0, w);
        for (int t = 0; t < n; t++)
            bad += slots[t] != t;
        CHECK_EQ_INT(bad, 0, "%s: every put arrived in its slot", what);
        MPI_Win_free(&w);
        free(slots);
    }
    MPI_Comm_free(&m);
    free(big);
}

static void self_mode(void)
{
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm half, ic;
    int color = mt_rank % 2, hr;

    if (mt_size < 2) {
        printf("# self needs 2 ranks\n");
        return;
    }
    MPI_Comm_split(MPI_COMM_WORLD, color, mt_rank, &half);
    MPI_Comm_rank(half, &hr);
    for (int round = 0; round < 3; round++) {
        if (mt_rank == 0)
            CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port), "Open_port");
        MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (color == 0)
            CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &ic), "accept");
        else
            CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &ic), "connect");
        exercise(ic, color, "accept/connect in one job");
        CHECK_MPI(MPI_Comm_disconnect(&ic), "disconnect");
        CHECK_TRUE(ic == MPI_COMM_NULL, "disconnect sets MPI_COMM_NULL");
        if (mt_rank == 0)
            CHECK_MPI(MPI_Close_port(port), "Close_port");
    }
    MPI_Comm_free(&half);
}

static void join_mode(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sa);
    int fd = -1, lfd, port = 0;
    MPI_Comm ic;

    if (mt_rank == 0) {
        lfd = socket(AF_INET, SOCK_STREAM, 0);
        bind(lfd, (struct sockaddr *)&sa, sizeof(sa));
        listen(lfd, 1);
        getsockname(lfd, (struct sockaddr *)&sa, &sl);
        port = ntohs(sa.sin_port);
        MPI_Send(&port, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        fd = accept(lfd, NULL, NULL);
        close(lfd);
    } else if (mt_rank == 1) {
        MPI_Recv(&port, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        sa.sin_port = htons((uint16_t)port);
        CHECK_EQ_INT(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "socket connect");
    }
    if (mt_rank < 2) {
        CHECK_MPI(MPI_Comm_join(fd, &ic), "join");
        exercise(ic, mt_rank, "join");
        CHECK_MPI(MPI_Comm_disconnect(&ic), "disconnect after join");
        close(fd);
    }
}

static void child_mode(int argc, char **argv)
{
    MPI_Comm parent, inner;
    char what[64];
    int appnum = -1, *p, flag;

    MPI_Comm_get_parent(&parent);
    CHECK_TRUE(parent != MPI_COMM_NULL, "a child has a parent");
    if (parent == MPI_COMM_NULL)
        return;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag);
    if (flag)
        appnum = *p;
    snprintf(what, sizeof(what), "child (%s)", argc > 2 ? argv[2] : "-");
    if (argc > 2 && !strcmp(argv[2], "multi")) {
        /* argv[3] is the command's own argument: "a" for app 0, "b" for 1 */
        CHECK_TRUE(argc > 3 && argv[3][0] == (appnum ? 'b' : 'a'),
                   "the child of app %d got its own arguments", appnum);
        int sum = 0;
        MPI_Allreduce(&appnum, &sum, 1, MPI_INT, MPI_SUM, parent);
    } else if (argc > 2 && !strcmp(argv[2], "nested") && argc > 3 && !strcmp(argv[3], "1")) {
        /* The child spawns a grandchild and checks it, then its parent. */
        char *args[] = {"child", "nested", "2", NULL};
        int err;

        CHECK_MPI(MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inner, &err),
                  "the child spawns");
        exercise(inner, 0, "child and grandchild");
        MPI_Comm_disconnect(&inner);
        exercise(parent, 1, what);
    } else {
        exercise(parent, 1, what);
    }
    CHECK_MPI(MPI_Comm_disconnect(&parent), "the child disconnects");
    MPI_Comm_get_parent(&parent);
    CHECK_TRUE(parent == MPI_COMM_NULL, "after disconnect, get_parent gives MPI_COMM_NULL");
}

static void spawn_mode(const char *self, int n, int rounds)
{
    char *args[] = {"child", "spawn", NULL};
    int fds0 = 0, errs[8];
    MPI_Comm ic;

    for (int round = 0; round < rounds; round++) {
        CHECK_MPI(MPI_Comm_spawn(self, args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, errs),
                  "spawn of %d, round %d", n, round);
        if (mt_rank == 0)
            for (int i = 0; i < n; i++)
                CHECK_EQ_INT(errs[i], MPI_SUCCESS, "errcode %d", i);
        exercise(ic, 0, "parent");
        CHECK_MPI(MPI_Comm_disconnect(&ic), "the parent disconnects, round %d", round);
        if (round == 0)
            fds0 = open_fds();
    }
    if (rounds > 1)
        CHECK_EQ_INT(open_fds(), fds0, "no descriptor left after %d rounds", rounds);
}

static void nested_mode(const char *self)
{
    char *args[] = {"child", "nested", "1", NULL};
    MPI_Comm ic;

    CHECK_MPI(
        MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE),
        "spawn of a child that spawns");
    exercise(ic, 0, "parent of a spawning child");
    MPI_Comm_disconnect(&ic);
}

static void multi_mode(const char *self)
{
    char *a0[] = {"child", "multi", "a", NULL}, *a1[] = {"child", "multi", "b", NULL};
    char *cmds[2] = {(char *)self, (char *)self}, **argvs[2] = {a0, a1};
    int np[2] = {1, 2}, errs[3], sum = 0, zero = 0, rsize = 0;
    MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
    MPI_Comm ic;

    CHECK_MPI(MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &ic, errs),
              "spawn_multiple");
    MPI_Comm_remote_size(ic, &rsize);
    CHECK_EQ_INT(rsize, 3, "three children from two commands");
    MPI_Allreduce(&zero, &sum, 1, MPI_INT, MPI_SUM, ic);
    CHECK_EQ_INT(sum, 2, "the children's MPI_APPNUM: 0 for one, 1 for two");
    MPI_Comm_disconnect(&ic);
}

static void errors_mode(const char *self)
{
    char *args[] = {"child", "spawn", NULL}, port[MPI_MAX_PORT_NAME], msg[MPI_MAX_ERROR_STRING];
    int errs[64], rc, len, usize = 0, *p, flag;
    MPI_Comm ic = MPI_COMM_SELF;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Comm_spawn("/nonexistent/rdmpi_no_such_program", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                        MPI_COMM_WORLD, &ic, errs);
    CHECK_EQ_INT(class_of(rc), MPI_ERR_SPAWN, "a program not found: MPI_ERR_SPAWN");
    CHECK_TRUE(ic == MPI_COMM_NULL, "and no intercommunicator");
    MPI_Error_string(rc, msg, &len);
    CHECK_TRUE(strstr(msg, "not found") != NULL, "the message says why: %s", msg);
    if (mt_rank == 0)
        CHECK_EQ_INT(class_of(errs[0]), MPI_ERR_SPAWN, "its errcode");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag);
    usize = flag ? *p : 0;
    rc = MPI_Comm_spawn(self, args, usize + 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, errs);
    CHECK_EQ_INT(class_of(rc), MPI_ERR_SPAWN, "more than the universe: MPI_ERR_SPAWN");
    MPI_Error_string(rc, msg, &len);
    CHECK_TRUE(strstr(msg, "universe") != NULL, "the message says why: %s", msg);
    rc = MPI_Comm_spawn(self, args, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, errs);
    CHECK_EQ_INT(class_of(rc), MPI_ERR_ARG, "maxprocs 0: MPI_ERR_ARG");
    rc = MPI_Comm_spawn(self, args, 1, MPI_INFO_NULL, mt_size, MPI_COMM_WORLD, &ic, errs);
    CHECK_EQ_INT(class_of(rc), MPI_ERR_ROOT, "a root outside comm: MPI_ERR_ROOT");
    /* A port closed before anyone connects: MPI_ERR_PORT at once. */
    if (mt_rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Close_port(port);
    }
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic);
    CHECK_EQ_INT(class_of(rc), MPI_ERR_PORT, "connect to a closed port: MPI_ERR_PORT");
    rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic);
    CHECK_EQ_INT(class_of(rc), MPI_ERR_PORT, "accept on a port not open: MPI_ERR_PORT");
    /* soft: the largest count the universe has room for. */
    {
        MPI_Info info;
        char soft[32];
        int rsize = 0;

        MPI_Info_create(&info);
        snprintf(soft, sizeof(soft), "1:%d", usize + 4);
        MPI_Info_set(info, "soft", soft);
        rc = MPI_Comm_spawn(self, args, usize + 4, info, 0, MPI_COMM_WORLD, &ic, errs);
        CHECK_MPI(rc, "soft=%s: succeeds with fewer", soft);
        if (rc == MPI_SUCCESS) {
            MPI_Comm_remote_size(ic, &rsize);
            CHECK_EQ_INT(rsize, usize - mt_size, "soft: the universe's room (%d)", usize - mt_size);
            if (mt_rank == 0)
                CHECK_EQ_INT(class_of(errs[usize + 3]), MPI_ERR_SPAWN, "errcodes past it");
            exercise(ic, 0, "soft spawn");
            MPI_Comm_disconnect(&ic);
        }
        MPI_Info_free(&info);
    }
}

static void server_mode(const char *file)
{
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm ic;

    if (mt_rank == 0) {
        FILE *f = fopen(file, "w");

        MPI_Open_port(MPI_INFO_NULL, port);
        fprintf(f, "%s\n", port);
        fclose(f);
    }
    CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic), "server accept");
    exercise(ic, 0, "server");
    CHECK_MPI(MPI_Comm_disconnect(&ic), "server disconnect");
    if (mt_rank == 0)
        MPI_Close_port(port);
}

static void client_mode(const char *file)
{
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm ic;

    if (mt_rank == 0) {
        FILE *f = NULL;

        while (!(f = fopen(file, "r")) || !fgets(port, sizeof(port), f)) {
            if (f)
                fclose(f);
            f = NULL;
            usleep(10000);
        }
        fclose(f);
        port[strcspn(port, "\n")] = 0;
    }
    CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic), "client connect");
    exercise(ic, 1, "client");
    CHECK_MPI(MPI_Comm_disconnect(&ic), "client disconnect");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "self";

    mt_init(&argc, &argv);
    if (!strcmp(mode, "child"))
        child_mode(argc, argv);
    else if (!strcmp(mode, "self"))
        self_mode();
    else if (!strcmp(mode, "join"))
        join_mode();
    else if (!strcmp(mode, "spawn"))
        spawn_mode(argv[0], argc > 2 ? atoi(argv[2]) : 1, argc > 3 ? atoi(argv[3]) : 1);
    else if (!strcmp(mode, "nested"))
        nested_mode(argv[0]);
    else if (!strcmp(mode, "multi"))
        multi_mode(argv[0]);
    else if (!strcmp(mode, "errors"))
        errors_mode(argv[0]);
    else if (!strcmp(mode, "server") && argc > 2)
        server_mode(argv[2]);
    else if (!strcmp(mode, "client") && argc > 2)
        client_mode(argv[2]);
    else
        CHECK_TRUE(0, "unknown mode %s", mode);
    /* For the script's look at /dev/shm: the job's namespace. */
    if (mt_rank == 0 && strcmp(mode, "child") && getenv("PMIX_NAMESPACE"))
        printf("# namespace %s\n", getenv("PMIX_NAMESPACE"));
    return mt_finish(mode);
}
