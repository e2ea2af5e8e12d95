/* Communicator constructors against hand-computed expectations: dup, split
 * (colors, keys, MPI_UNDEFINED), create, create_group, split_type, compare,
 * names, freeing with a receive pending, create/free loops, non-blocking
 * dups that ranks start in different orders, and traffic and collectives
 * on every new communicator. */
#include "../p2p/mpitest.h"

#include <unistd.h>

static int sum_of_world_ranks(MPI_Comm c)
{
    int v = mt_rank, s = -1;

    MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, c);
    return s;
}

/* A dup'ed communicator is a separate matching space: the same tag on
 * both, received in the opposite order, must not cross. */
static void test_dup(void)
{
    MPI_Comm d;
    int r, cmp, a = -1, b = -1, len;
    char name[MPI_MAX_OBJECT_NAME];

    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_rank(d, &r);
    CHECK_EQ_INT(r, mt_rank, "dup rank %d", r);
    MPI_Comm_compare(MPI_COMM_WORLD, d, &cmp);
    CHECK_EQ_INT(cmp, MPI_CONGRUENT, "compare(world, dup) = %d", cmp);
    MPI_Comm_compare(d, d, &cmp);
    CHECK_EQ_INT(cmp, MPI_IDENT, "compare(dup, dup) = %d", cmp);
    MPI_Comm_get_name(d, name, &len);
    CHECK_ALL ("a new communicator has name '%s'", name) {
        CHECK_EQ_INT(len, 0);
        CHECK_TRUE(!name[0]);
    }
    MPI_Comm_set_name(d, "my dup");
    MPI_Comm_get_name(d, name, &len);
    CHECK_ALL ("name '%s'", name) {
        CHECK_EQ_STR(name, "my dup");
        CHECK_EQ_INT(len, 6);
    }
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK_EQ_STR(name, "MPI_COMM_WORLD", "world name '%s'", name);
    /* MPI-4.1: the null handle has a name too. */
    len = -1;
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_NULL, name, &len), "MPI_Comm_get_name(MPI_COMM_NULL)");
    CHECK_EQ_STR(name, "MPI_COMM_NULL", "the name of MPI_COMM_NULL");
    CHECK_EQ_INT(len, 13, "its length");
    if (mt_size > 1) {
        int peer = mt_rank ^ 1;
        if (peer < mt_size) {
            int x = 100 + mt_rank, y = 200 + mt_rank;
            MPI_Request q[2];
            MPI_Isend(&x, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &q[0]);
            MPI_Isend(&y, 1, MPI_INT, peer, 5, d, &q[1]);
            MPI_Recv(&b, 1, MPI_INT, peer, 5, d, MPI_STATUS_IGNORE);
            MPI_Recv(&a, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
            CHECK_ALL ("dup crossed: world %d dup %d", a, b) {
                CHECK_EQ_INT(a, 100 + peer);
                CHECK_EQ_INT(b, 200 + peer);
            }
        }
    }
    CHECK_EQ_INT(sum_of_world_ranks(d), mt_size * (mt_size - 1) / 2, "allreduce on dup");
    MPI_Comm_free(&d);
    CHECK_EQ_PTR(d, MPI_COMM_NULL, "free sets MPI_COMM_NULL");
}

/* color = rank % 3, key = -rank: each color's ranks in reverse order; the
 * last rank opts out with MPI_UNDEFINED. */
static void test_split(void)
{
    int color = mt_rank % 3, undef = mt_size > 1 && mt_rank == mt_size - 1;
    int r, n, expect_n = 0, expect_r = 0, expect_sum = 0;
    MPI_Comm s;

    MPI_Comm_split(MPI_COMM_WORLD, undef ? MPI_UNDEFINED : color, -mt_rank, &s);
    if (undef) {
        CHECK_EQ_PTR(s, MPI_COMM_NULL, "MPI_UNDEFINED gives MPI_COMM_NULL");
        return;
    }
    for (int i = 0; i < mt_size - (mt_size > 1); i++) {
        if (i % 3 != color)
            continue;
        expect_n++;
        expect_sum += i;
        if (i > mt_rank)
            expect_r++;
    }
    MPI_Comm_size(s, &n);
    MPI_Comm_rank(s, &r);
    CHECK_ALL ("split: size %d rank %d, expected %d %d", n, r, expect_n, expect_r) {
        CHECK_EQ_INT(n, expect_n);
        CHECK_EQ_INT(r, expect_r);
    }
    CHECK_EQ_INT(sum_of_world_ranks(s), expect_sum, "allreduce on split");
    /* ring over the split communicator */
    {
        int right = (r + 1) % n, left = (r - 1 + n) % n, got = -1;
        MPI_Sendrecv(&mt_rank, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left, 1, s,
                     MPI_STATUS_IGNORE);
        int g_left;
        MPI_Group wg, sg;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Comm_group(s, &sg);
        MPI_Group_translate_ranks(sg, 1, &left, wg, &g_left);
        CHECK_EQ_INT(got, g_left, "split ring got %d expected %d", got, g_left);
        MPI_Group_free(&wg);
        MPI_Group_free(&sg);
    }
    MPI_Comm_free(&s);
}

static void test_create(void)
{
    MPI_Group wg, even, odd;
    MPI_Comm c;
    int ranges[1][3] = {{0, mt_size - 1, 2}}, n;

    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_range_incl(wg, 1, ranges, &even);
    MPI_Group_difference(wg, even, &odd);
    MPI_Comm_create(MPI_COMM_WORLD, even, &c);
    if (mt_rank % 2) {
        CHECK_EQ_PTR(c, MPI_COMM_NULL, "create: odd rank got a communicator");
    } else {
        MPI_Comm_size(c, &n);
        CHECK_EQ_INT(n, (mt_size + 1) / 2, "create: size %d", n);
        CHECK_EQ_INT(sum_of_world_ranks(c), ((mt_size + 1) / 2) * ((mt_size + 1) / 2 - 1),
                     "allreduce on create");
        MPI_Comm_free(&c);
    }
    /* create_group: only the odd ranks call it. */
    if (mt_rank % 2) {
        MPI_Comm_create_group(MPI_COMM_WORLD, odd, 42, &c);
        MPI_Comm_size(c, &n);
        CHECK_EQ_INT(n, mt_size / 2, "create_group: size %d", n);
        int k = mt_size / 2, expect = k * k; /* sum of the first k odd numbers */
        CHECK_EQ_INT(sum_of_world_ranks(c), expect, "allreduce on create_group");
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&odd);
    MPI_Group_free(&even);
    MPI_Group_free(&wg);
}

/* One communicator per host: every member sees the same size, the hosts'
 * sizes add up to the world, and HW_UNGUIDED gives the host only when the
 * job spans several. */
static void test_split_type(void)
{
    MPI_Comm c, u;
    int n, r, flag, lo, hi, lead[2], tot[2];

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    MPI_Allreduce(&n, &lo, 1, MPI_INT, MPI_MIN, c);
    MPI_Allreduce(&n, &hi, 1, MPI_INT, MPI_MAX, c);
    CHECK_ALL ("split_type shared: members disagree on the size") {
        CHECK_EQ_INT(lo, n);
        CHECK_EQ_INT(hi, n);
    }
    lead[0] = r == 0;
    lead[1] = r == 0 ? n : 0;
    MPI_Allreduce(lead, tot, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ_INT(tot[1], mt_size, "split_type shared: host sizes add up to %d", tot[1]);
    MPI_Comm_test_inter(c, &flag);
    CHECK_TRUE(!flag, "test_inter on an intracomm");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &u);
    if (tot[0] == 1) {
        CHECK_EQ_PTR(u, MPI_COMM_NULL, "hw_unguided on one host: no strict subset");
    } else {
        int m = -1;
        if (u != MPI_COMM_NULL)
            MPI_Comm_size(u, &m);
        CHECK_EQ_INT(m, n, "hw_unguided over %d hosts: the host (%d of %d)", tot[0], m, n);
        if (u != MPI_COMM_NULL)
            MPI_Comm_free(&u);
    }
    MPI_Comm_free(&c);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c);
    CHECK_EQ_PTR(c, MPI_COMM_NULL, "split_type MPI_UNDEFINED");
}

/* A receive posted on a communicator that is then freed still completes. */
static void test_free_pending(void)
{
    MPI_Comm d;
    MPI_Request q = MPI_REQUEST_NULL;
    int v = -1;

    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    if (mt_size > 1 && mt_rank == 1)
        MPI_Irecv(&v, 1, MPI_INT, 0, 3, d, &q);
    if (mt_size > 1 && mt_rank == 0) {
        int x = 77;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&x, 1, MPI_INT, 1, 3, d);
        MPI_Comm_free(&d);
    } else {
        MPI_Comm_free(&d);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (q != MPI_REQUEST_NULL) {
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        CHECK_EQ_INT(v, 77, "receive on a freed communicator got %d", v);
    }
}

/* MPI_Comm_disconnect returns once this rank's operations on the
 * communicator are done (a large send whose request was freed, its
 * receiver late) and every member has come, and sets the handle to
 * MPI_COMM_NULL; MPI_COMM_WORLD cannot be disconnected. */
static void test_disconnect(void)
{
    enum { N = 1 << 18 };
    int *buf = malloc(N * sizeof(int)), good = 1, rc, cls;
    MPI_Comm d, w = MPI_COMM_WORLD;
    MPI_Request q;

    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    if (mt_size > 1 && mt_rank == 0) {
        for (int i = 0; i < N; i++)
            buf[i] = i;
        MPI_Isend(buf, N, MPI_INT, 1, 5, d, &q);
        MPI_Request_free(&q);
    } else if (mt_size > 1 && mt_rank == 1) {
        usleep(100000);
        MPI_Recv(buf, N, MPI_INT, 0, 5, d, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            good &= buf[i] == i;
        CHECK_TRUE(good, "a message sent before the disconnect arrived wrong");
    }
    rc = MPI_Comm_disconnect(&d);
    CHECK_ALL ("disconnect: rc %d", rc) {
        CHECK_MPI(rc);
        CHECK_EQ_PTR(d, MPI_COMM_NULL);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Comm_disconnect(&w), &cls);
    CHECK_ALL ("disconnecting MPI_COMM_WORLD: class %d", cls) {
        CHECK_EQ_INT(cls, MPI_ERR_COMM);
        CHECK_EQ_PTR(w, MPI_COMM_WORLD);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(buf);
}

/* An inactive persistent request is no pending communication (MPI-4.1
 * sec. 11.10.4): MPI_Comm_disconnect returns with one on the communicator,
 * never started or started and completed, point-to-point or collective;
 * the request is freed after. */
static void test_disconnect_inactive(void)
{
    static const char *what[] = {"MPI_Recv_init", "MPI_Send_init", "MPI_Barrier_init",
                                 "MPI_Send_init started and completed",
                                 "MPI_Barrier_init started and completed"};
    int x = 0;

    for (int k = 0; k < 5; k++) {
        MPI_Comm d;
        MPI_Request q = MPI_REQUEST_NULL;
        int rc;

        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        if (k == 0)
            MPI_Recv_init(&x, 1, MPI_INT, 0, 7, d, &q);
        else if (k == 1 || k == 3)
            MPI_Send_init(&x, 1, MPI_INT, k == 3 ? MPI_PROC_NULL : 0, 7, d, &q);
        else
            MPI_Barrier_init(d, MPI_INFO_NULL, &q);
        if (k >= 3) {
            MPI_Start(&q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        rc = MPI_Comm_disconnect(&d);
        CHECK_MPI(rc, "%s", what[k]);
        CHECK_EQ_PTR(d, MPI_COMM_NULL, "%s: the handle is not MPI_COMM_NULL after disconnect",
                     what[k]);
        rc = MPI_Request_free(&q);
        CHECK_MPI(rc, "MPI_Request_free after the disconnect");
    }
}

/* Many communicators created and freed: ids recycle, nothing leaks. */
static void test_loop(void)
{
    for (int i = 0; i < 300; i++) {
        MPI_Comm a, b;
        MPI_Comm_dup(MPI_COMM_WORLD, &a);
        MPI_Comm_split(a, mt_rank % 2, 0, &b);
        if (i % 50 == 0)
            CHECK_GE_LONG(sum_of_world_ranks(b), 0, "loop allreduce");
        MPI_Comm_free(&a);
        MPI_Comm_free(&b);
    }
    /* 100 live at once, freed in creation order. */
    MPI_Comm live[100];
    for (int i = 0; i < 100; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &live[i]);
    for (int i = 0; i < 100; i++)
        MPI_Comm_free(&live[i]);
}

static void test_badinput(void)
{
    MPI_Comm w = MPI_COMM_WORLD, c;
    int err, cls, n;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    err = MPI_Comm_free(&w);
    MPI_Error_class(err, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_COMM, "freeing MPI_COMM_WORLD: class %d", cls);
    err = MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c);
    MPI_Error_class(err, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG, "split with color -5: class %d", cls);
    err = MPI_Comm_remote_size(MPI_COMM_WORLD, &n);
    MPI_Error_class(err, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_COMM, "remote_size of an intracomm: class %d", cls);
    c = MPI_COMM_NULL;
    err = MPI_Comm_dup(c, &c);
    MPI_Error_class(err, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_COMM, "dup of MPI_COMM_NULL: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

/* MPI_Comm_idup does not wait for the other members: rank 0 receives from
 * everyone before it starts its dup while the others start theirs and then
 * send; odd ranks dup two communicators in the opposite order to even
 * ones; an intercommunicator's dup too; the info passed may be freed at
 * once. Blocking agreements here would deadlock. */
static void test_idup(void)
{
    MPI_Comm a, b, da, db, ic, dic, local;
    MPI_Request q[2];
    MPI_Info info, used;
    char v[16];
    int x = mt_rank, flag, vlen = sizeof(v), rs;

    if (mt_rank == 0) {
        for (int i = 1; i < mt_size; i++)
            MPI_Recv(&x, 1, MPI_INT, i, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_idup(MPI_COMM_WORLD, &da, &q[0]);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &da, &q[0]);
        MPI_Ssend(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    }
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    CHECK_EQ_INT(sum_of_world_ranks(da), mt_size * (mt_size - 1) / 2,
                 "idup while rank 0 waits for a message first");
    MPI_Comm_free(&da);

    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    MPI_Info_create(&info);
    MPI_Info_set(info, "t_comm_key", "yes");
    if (mt_rank % 2) {
        MPI_Comm_idup_with_info(b, info, &db, &q[1]);
        MPI_Comm_idup(a, &da, &q[0]);
    } else {
        MPI_Comm_idup(a, &da, &q[0]);
        MPI_Comm_idup_with_info(b, info, &db, &q[1]);
    }
    MPI_Info_free(&info);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    CHECK_ALL ("idups started in different orders on odd and even ranks") {
        CHECK_EQ_INT(sum_of_world_ranks(da), mt_size * (mt_size - 1) / 2);
        CHECK_EQ_INT(sum_of_world_ranks(db), mt_size * (mt_size - 1) / 2);
    }
    MPI_Comm_get_info(db, &used);
    MPI_Info_get_string(used, "t_comm_key", &vlen, v, &flag);
    CHECK_ALL ("idup_with_info keeps hints freed before completion") {
        CHECK_TRUE(flag);
        CHECK_EQ_STR(v, "yes");
    }
    MPI_Info_free(&used);
    MPI_Comm_free(&da);
    MPI_Comm_free(&db);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);

    if (mt_size < 2)
        return;
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, mt_rank % 2 ? 0 : 1, 7, &ic);
    MPI_Comm_idup(ic, &dic, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Comm_remote_size(dic, &rs);
    flag = 1;
    MPI_Allreduce(&flag, &x, 1, MPI_INT, MPI_SUM, dic);
    CHECK_ALL ("idup of an intercommunicator: remote size %d, sum %d", rs, x) {
        CHECK_EQ_INT(rs, (mt_rank % 2 ? (mt_size + 1) / 2 : mt_size / 2));
        CHECK_EQ_INT(x, rs);
    }
    MPI_Comm_free(&dic);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    test_dup();
    test_split();
    test_create();
    test_split_type();
    test_free_pending();
    test_disconnect();
    test_disconnect_inactive();
    test_loop();
    test_badinput();
    test_idup();
    return mt_finish("t_comm");
}
