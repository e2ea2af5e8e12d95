/* One-sided communication: every window flavor (create, allocate,
 * allocate_shared, dynamic), every synchronization (fence, post-start-
 * complete-wait, lock/unlock, lock_all with flush and request-based
 * calls), every operation (put, get, accumulate with MPI_SUM, MPI_REPLACE
 * and MINLOC on a pair type, get_accumulate, fetch_and_op,
 * compare_and_swap), strided target datatypes, a 1 MiB put and get,
 * the window attributes, the error classes of bad calls, an accumulate
 * completed only locally being applied by the next barrier, and the round
 * trips that flush and unlock cost. */
#include "../p2p/mpitest.h"

#include <stdint.h>

#define N 64

static int next, prev;

static void fence_ops(void)
{
    int *buf, *got = calloc((size_t)mt_size, sizeof(int)), bad = 0;
    MPI_Win win;

    MPI_Win_allocate((MPI_Aint)(mt_size + 1) * sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &buf, &win);
    for (int i = 0; i <= mt_size; i++)
        buf[i] = -1;
    MPI_Win_fence(0, win);
    /* Every rank writes its rank into slot [rank] of every window. */
    for (int t = 0; t < mt_size; t++)
        MPI_Put(&mt_rank, 1, MPI_INT, t, mt_rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < mt_size; i++)
        bad += buf[i] != i;
    CHECK_TRUE(!bad, "fence put: %d slots wrong", bad);
    /* Read the next rank's slots back; sum into slot [size] of rank 0. */
    MPI_Get(got, mt_size, MPI_INT, next, 0, mt_size, MPI_INT, win);
    buf[mt_size] = 0;
    MPI_Win_fence(0, win);
    MPI_Accumulate(&mt_rank, 1, MPI_INT, 0, mt_size, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int i = 0; i < mt_size; i++)
        bad += got[i] != i;
    CHECK_TRUE(!bad, "fence get: %d slots wrong", bad);
    if (mt_rank == 0)
        CHECK_EQ_INT(buf[mt_size], mt_size * (mt_size - 1) / 2, "accumulate sum: %d", buf[mt_size]);
    MPI_Win_free(&win);
    CHECK_EQ_PTR(win, MPI_WIN_NULL, "MPI_Win_free sets the handle to null");
    free(got);
}

/* Strided target data (every other int) and a 1 MiB transfer. */
static void datatypes(void)
{
    int *mem = calloc(2 * N, sizeof(int)), src[N], back[N], bad = 0;
    size_t big = 1u << 20;
    char *bmem = calloc(1, big), *bsrc = malloc(big), *bback = malloc(big);
    MPI_Datatype every_other;
    MPI_Win win, bwin;

    MPI_Type_vector(N, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Win_create(mem, 2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_create(bmem, (MPI_Aint)big, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bwin);
    for (int i = 0; i < N; i++)
        src[i] = mt_rank * 1000 + i;
    mt_fill(bsrc, big, (unsigned)mt_rank);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, bwin);
    MPI_Put(src, N, MPI_INT, next, 0, 1, every_other, win);
    MPI_Put(bsrc, (int)big, MPI_BYTE, next, 0, (int)big, MPI_BYTE, bwin);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, bwin);
    for (int i = 0; i < 2 * N; i++)
        bad += mem[i] != (i & 1 ? 0 : prev * 1000 + i / 2);
    CHECK_TRUE(!bad, "strided put: %d ints wrong", bad);
    CHECK_TRUE(!mt_verify(bmem, big, (unsigned)prev), "1 MiB put corrupt");
    MPI_Get(back, N, MPI_INT, next, 0, 1, every_other, win);
    MPI_Get(bback, (int)big, MPI_BYTE, prev, 0, (int)big, MPI_BYTE, bwin);
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, bwin);
    for (int i = 0; i < N; i++)
        bad += back[i] != mt_rank * 1000 + i;
    CHECK_TRUE(!bad, "strided get: %d ints wrong", bad);
    CHECK_TRUE(!mt_verify(bback, big, (unsigned)((prev + mt_size - 1) % mt_size)),
               "1 MiB get corrupt");
    MPI_Win_free(&win);
    MPI_Win_free(&bwin);
    MPI_Type_free(&every_other);
    free(mem);
    free(bmem);
    free(bsrc);
    free(bback);
}

/* A counter on rank 0 incremented under exclusive locks, by fetch-and-op
 * under shared ones, and a compare-and-swap token. */
static void passive(void)
{
    long *ctr;
    long one = 1, old = -1, sum = 0;
    int iters = 20, token = -1, mine = mt_rank + 1, expect = 0;
    MPI_Win win;

    MPI_Win_allocate(3 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &ctr, &win);
    ctr[0] = ctr[1] = ctr[2] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++) {
        long v;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
    }
    for (int i = 0; i < iters; i++) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 1, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        sum += old;
    }
    /* Ranks take turns swapping the token from the previous rank's number. */
    for (int done = 0; !done;) {
        long cmp = mt_rank, nv = mt_rank + 1, res = -1;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Compare_and_swap(&nv, &cmp, &res, MPI_LONG, 0, 2, win);
        MPI_Win_unlock(0, win);
        done = res == cmp;
    }
    (void)token, (void)mine;
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0) {
        CHECK_EQ_LONG(ctr[0], (long)mt_size * iters, "locked read-modify-write: %ld, want %ld",
                      ctr[0], (long)mt_size * iters);
        CHECK_EQ_LONG(ctr[1], (long)mt_size * iters, "fetch_and_op: %ld", ctr[1]);
        CHECK_EQ_LONG(ctr[2], mt_size, "compare_and_swap token: %ld", ctr[2]);
    }
    /* Every fetched value is distinct: their sum is 0 + 1 + ... + n*iters - 1. */
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    expect = mt_size * iters;
    CHECK_EQ_LONG(sum, (long)expect * (expect - 1) / 2, "fetched values sum to %ld", sum);
    MPI_Win_free(&win);
}

/* Synchronization costs only the round trips it needs, counted by the
 * pvar rdmpi_osc_round_trips, and stays right: a flush after a fetching
 * operation needs none (its answer came after the target applied it and
 * everything before it), so each get_accumulate must still see the put
 * before it; an unlock whose operations are complete needs none (the
 * UNLOCK goes without an answer), so exclusive read-modify-write epochs
 * must lose no increment, and MPI_Win_free right after must wait for the
 * last UNLOCKs. */
static void round_trips(void)
{
    enum { ITERS = 100 };
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    unsigned long long before = 0, after = 0;
    long *w, add[2] = {0, 1}, res[2], v, check;
    int idx = -1, count, provided, bad = 0;
    MPI_Win win;

    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    CHECK_MPI(MPI_T_pvar_get_index("rdmpi_osc_round_trips", MPI_T_PVAR_CLASS_COUNTER, &idx),
              "MPI_T_pvar_get_index(rdmpi_osc_round_trips)");
    MPI_T_pvar_session_create(&s);
    MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count);
    MPI_Win_allocate(3 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
    w[0] = w[1] = w[2] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    MPI_T_pvar_read(s, h, &before);
    for (long i = 1; i <= ITERS; i++) {
        MPI_Put(&i, 1, MPI_LONG, next, 0, 1, MPI_LONG, win);
        MPI_Get_accumulate(add, 2, MPI_LONG, res, 2, MPI_LONG, next, 0, 2, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush(next, win);
        bad += res[0] != i || res[1] != i - 1;
    }
    MPI_T_pvar_read(s, h, &after);
    MPI_Win_unlock_all(win);
    CHECK_EQ_INT(bad, 0, "get_accumulates that missed the put or the sum before them");
    CHECK_EQ_U64(after - before, 0, "round trips of 100 flushes after a get_accumulate");

    MPI_T_pvar_read(s, h, &before);
    for (int i = 0; i < ITERS; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win);
        MPI_Get(&check, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
        bad += check != v;
    }
    MPI_T_pvar_read(s, h, &after);
    CHECK_EQ_INT(bad, 0, "exclusive epochs whose get missed their own put");
    CHECK_EQ_U64(after - before, ITERS, "round trips of 100 lock-get-put-get-unlock epochs");
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0)
        CHECK_EQ_LONG(w[2], (long)mt_size * ITERS, "increments under the exclusive lock");
    MPI_Win_free(&win);
    MPI_T_pvar_handle_free(s, &h);
    MPI_T_pvar_session_free(&s);
    MPI_T_finalize();
}

static void pscw_and_requests(void)
{
    int mem[4] = {0}, v = mt_rank + 100, got = -1, bad = 0;
    MPI_Group world, g_next, g_prev;
    MPI_Request r[3];
    MPI_Win win;

    MPI_Win_create(mem, sizeof(mem), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &next, &g_next);
    MPI_Group_incl(world, 1, &prev, &g_prev);
    for (int round = 0; round < 3; round++) {
        MPI_Win_post(g_prev, 0, win);
        MPI_Win_start(g_next, 0, win);
        MPI_Put(&v, 1, MPI_INT, next, round, 1, MPI_INT, win);
        MPI_Win_complete(win);
        if (round == 1) {
            int flag = 0;
            while (!flag)
                MPI_Win_test(win, &flag);
        } else {
            MPI_Win_wait(win);
        }
        bad += mem[round] != prev + 100;
    }
    CHECK_TRUE(!bad, "post/start/complete/wait: %d rounds wrong", bad);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Request-based calls in a lock_all epoch. */
    MPI_Win_lock_all(0, win);
    MPI_Rput(&v, 1, MPI_INT, next, 3, 1, MPI_INT, win, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Win_flush(next, win);
    MPI_Rget(&got, 1, MPI_INT, next, 3, 1, MPI_INT, win, &r[1]);
    MPI_Raccumulate(&v, 1, MPI_INT, next, 3, 1, MPI_INT, MPI_REPLACE, win, &r[2]);
    MPI_Waitall(2, &r[1], MPI_STATUSES_IGNORE);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    CHECK_EQ_INT(got, mt_rank + 100, "Rget after a flushed Rput: %d", got);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_EQ_INT(mem[3], prev + 100, "Raccumulate REPLACE: %d", mem[3]);
    MPI_Group_free(&g_next);
    MPI_Group_free(&g_prev);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
}

/* An accumulate completed only locally (MPI_Win_flush_local), then a
 * barrier: the target finds it applied, as OSU's osu_acc_latency -c
 * -s flush_local checks. Enough barriers first that the communicator's
 * barrier goes through the shared segment, not messages. */
static void flush_local_then_barrier(void)
{
    int *mem, bad = 0;
    MPI_Win win;

    if (mt_size == 1) /* a barrier of one waits for no one's messages */
        return;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    *mem = 0;
    for (int i = 0; i < 20; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    for (int i = 1; i <= 50; i++) {
        MPI_Accumulate(&i, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_flush_local(next, win);
        MPI_Barrier(MPI_COMM_WORLD);
        bad += *mem != i * (i + 1) / 2;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_unlock(next, win);
    CHECK_EQ_INT(bad, 0, "accumulates after flush_local and a barrier: %d of 50 not applied", bad);
    MPI_Win_free(&win);
}

static void minloc(void)
{
    struct {
        double v;
        int i;
    } mem = {1e300, -1}, mine = {(double)(mt_size - mt_rank), mt_rank};
    MPI_Win win;

    MPI_Win_create(&mem, sizeof(mem), sizeof(mem), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Accumulate(&mine, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, MPI_MINLOC, win);
    MPI_Win_fence(0, win);
    if (mt_rank == 0)
        CHECK_ALL ("MINLOC accumulate: %g at %d", mem.v, mem.i) {
            CHECK_TRUE(mem.v == 1.0);
            CHECK_EQ_INT(mem.i, mt_size - 1);
        }
    MPI_Win_free(&win);
}

static void shared_and_dynamic(void)
{
    MPI_Comm node;
    MPI_Win win, dyn;
    MPI_Aint size, addr, *addrs = malloc(sizeof(MPI_Aint) * (size_t)mt_size);
    int *base, *other, du, nrank, nsize, local[2] = {0, 0}, v = mt_rank, cls;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, &win);
    *base = 7000 + nrank;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    MPI_Win_shared_query(win, (nrank + 1) % nsize, &size, &du, &other);
    CHECK_ALL ("shared query: size %lld unit %d value %d", (long long)size, du, *other) {
        CHECK_EQ_LONG(size, sizeof(int));
        CHECK_EQ_LONG(du, sizeof(int));
        CHECK_EQ_INT(*other, 7000 + (nrank + 1) % nsize);
    }
    MPI_Win_shared_query(win, 0, &size, &du, &other);
    CHECK_EQ_PTR(other + nrank, base, "shared memory is contiguous by rank");
    MPI_Barrier(node);
    MPI_Win_free(&win);
    /* Odd ranks allocate nothing: their segments read as size 0, NULL. */
    MPI_Win_allocate_shared(nrank % 2 ? 0 : sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base,
                            &win);
    for (int r = 1; r < nsize; r += 2) {
        other = (int *)&size;
        MPI_Win_shared_query(win, r, &size, &du, &other);
        CHECK_EQ_LONG(size, 0, "size of a shared segment of 0 bytes");
        CHECK_EQ_PTR(other, NULL, "base of rank %d's 0-byte shared segment: %p, want NULL", r,
                     (void *)other);
    }
    MPI_Win_free(&win);
    MPI_Comm_free(&node);

    /* MPI-4.1: created windows can be queried; only our own segment is
     * in our address space. Dynamic ones have no segments. */
    MPI_Win_create(local, sizeof(local), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_shared_query(win, mt_rank, &size, &du, &other);
    CHECK_ALL ("shared query of our created window: size %lld", (long long)size) {
        CHECK_EQ_PTR(other, local);
        CHECK_EQ_LONG(size, sizeof(local));
        CHECK_EQ_LONG(du, sizeof(int));
    }
    other = local;
    MPI_Win_shared_query(win, next, &size, &du, &other);
    CHECK_TRUE(mt_size == 1 || (!other && size == 0),
               "shared query of another's created "
               "window: size %lld",
               (long long)size);
    MPI_Win_free(&win);

    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn);
    MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Win_shared_query(dyn, mt_rank, &size, &du, &other), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_RMA_FLAVOR, "shared query of a dynamic window: class %d", cls);
    MPI_Win_attach(dyn, local, sizeof(local));
    MPI_Get_address(&local[1], &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_fence(0, dyn);
    MPI_Put(&v, 1, MPI_INT, next, addrs[next], 1, MPI_INT, dyn);
    MPI_Win_fence(0, dyn);
    CHECK_ALL ("dynamic window put: %d %d", local[0], local[1]) {
        CHECK_EQ_INT(local[1], prev);
        CHECK_EQ_INT(local[0], 0);
    }
    MPI_Win_detach(dyn, local);
    MPI_Win_free(&dyn);
    free(addrs);
}

/* Operations on a dynamic window whose target range spans two adjacent,
 * separately attached regions: every byte is attached (contiguous and
 * strided puts, a get). */
enum { SPAN_N = 64 };

/* What int i of the region holds after both puts from rank `from`. */
static int span_want(int i, int from)
{
    if (i % 2 == 0)
        return 1000 * from + i / 2;
    return i < SPAN_N + SPAN_N / 2 ? 1000 * from + i : 0;
}

static void dynamic_span(void)
{
    int *region = calloc(2 * SPAN_N, sizeof(int)), src[2 * SPAN_N], got[2 * SPAN_N];
    MPI_Aint base, *bases = malloc((size_t)mt_size * sizeof(MPI_Aint));
    MPI_Datatype every_other;
    MPI_Win dyn;
    int bad = -1;

    for (int i = 0; i < 2 * SPAN_N; i++)
        src[i] = 1000 * mt_rank + i;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn);
    MPI_Win_attach(dyn, region, SPAN_N * sizeof(int));
    MPI_Win_attach(dyn, region + SPAN_N, SPAN_N * sizeof(int));
    MPI_Get_address(region, &base);
    MPI_Allgather(&base, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Type_vector(SPAN_N, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);

    MPI_Win_fence(0, dyn);
    MPI_Put(src, SPAN_N + SPAN_N / 2, MPI_INT, next, bases[next], SPAN_N + SPAN_N / 2, MPI_INT,
            dyn);
    MPI_Win_fence(0, dyn);
    for (int i = 0; i < 2 * SPAN_N && bad < 0; i++)
        if (region[i] != (i < SPAN_N + SPAN_N / 2 ? 1000 * prev + i : 0))
            bad = i;
    CHECK_EQ_INT(bad, -1, "first wrong int after a put spanning two attachments");
    MPI_Win_fence(0, dyn);
    MPI_Put(src, SPAN_N, MPI_INT, next, bases[next], 1, every_other, dyn);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, dyn);
    for (int i = 0; i < 2 * SPAN_N && bad < 0; i++)
        if (region[i] != span_want(i, prev))
            bad = i;
    CHECK_EQ_INT(bad, -1, "first wrong int after a strided put spanning two attachments");
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, dyn);
    MPI_Get(got, 2 * SPAN_N, MPI_INT, next, bases[next], 2 * SPAN_N, MPI_INT, dyn);
    MPI_Win_unlock(next, dyn);
    for (int i = 0; i < 2 * SPAN_N && bad < 0; i++)
        if (got[i] != span_want(i, mt_rank))
            bad = i;
    CHECK_EQ_INT(bad, -1, "first wrong int of a get spanning two attachments");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_free(&every_other);
    MPI_Win_detach(dyn, region);
    MPI_Win_detach(dyn, region + SPAN_N);
    MPI_Win_free(&dyn);
    free(region);
    free(bases);
}

static int deleted, handled;

static int on_delete(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win, (void)keyval, (void)extra;
    deleted += value == (void *)&deleted;
    return MPI_SUCCESS;
}

static void on_error(MPI_Win *win, int *code, ...)
{
    (void)win, (void)code;
    handled++;
}

/* On a sub-communicator (ranks in reverse order, so window ranks are not
 * world ranks): every rank fills a slice of every other's window with
 * strided and contiguous puts of seeded values under lock_all, reads them
 * back with gets, and counts with fetch_and_op; a zero-size window and
 * zero-count operations on the way. */
static void subcomm(void)
{
    int n = 16, me, size, bad = 0, zero_mem, *mem;
    long *ctr, one = 1, got;
    MPI_Comm rev;
    MPI_Win win, cwin, zwin;
    MPI_Datatype pairs;

    MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &rev);
    MPI_Comm_rank(rev, &me);
    MPI_Comm_size(rev, &size);
    MPI_Win_allocate((MPI_Aint)(size * n) * sizeof(int), sizeof(int), MPI_INFO_NULL, rev, &mem,
                     &win);
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, rev, &ctr, &cwin);
    MPI_Win_create(&zero_mem, 0, 1, MPI_INFO_NULL, rev, &zwin);
    for (int i = 0; i < size * n; i++)
        mem[i] = -1;
    *ctr = 0;
    MPI_Type_vector(n / 2, 1, 2, MPI_INT, &pairs);
    MPI_Type_commit(&pairs);
    MPI_Barrier(rev);
    MPI_Win_lock_all(0, win);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, cwin);
    for (int t = 0; t < size; t++) {
        int vals[16];
        for (int i = 0; i < n; i++)
            vals[i] = me * 10000 + t * 100 + i;
        /* Even slots by a strided type, odd ones contiguous one by one. */
        MPI_Put(vals, n / 2, MPI_INT, t, me * n, 1, pairs, win);
        for (int i = 1; i < n; i += 2)
            MPI_Put(&vals[i], 1, MPI_INT, t, me * n + i, 1, MPI_INT, win);
        MPI_Fetch_and_op(&one, &got, MPI_LONG, t, 0, MPI_SUM, cwin);
        MPI_Put(vals, 0, MPI_INT, t, 0, 0, MPI_INT, win);
    }
    MPI_Win_flush_all(win);
    MPI_Win_flush_local_all(cwin);
    MPI_Win_unlock_all(cwin);
    MPI_Barrier(rev);
    for (int t = 0; t < size; t++) {
        int back[16];
        MPI_Get(back, n, MPI_INT, t, me * n, n, MPI_INT, win);
        MPI_Win_flush(t, win);
        for (int i = 0; i < n; i++) {
            int want = i % 2 ? me * 10000 + t * 100 + i : me * 10000 + t * 100 + i / 2;
            bad += back[i] != want;
        }
    }
    MPI_Win_unlock_all(win);
    CHECK_TRUE(!bad, "sub-communicator puts and gets: %d ints wrong", bad);
    CHECK_EQ_LONG(*ctr, size, "fetch_and_op from every rank: %ld", *ctr);
    MPI_Win_fence(0, zwin);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, zwin);
    MPI_Type_free(&pairs);
    MPI_Win_free(&zwin);
    MPI_Win_free(&cwin);
    MPI_Win_free(&win);
    MPI_Comm_free(&rev);
}

static int class_of(int rc)
{
    int cls;

    MPI_Error_class(rc, &cls);
    return cls;
}

static void queries_and_errors(void)
{
    int mem[4], *ip, flag, len, v = 1;
    MPI_Aint *sp;
    void *bp;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Group g;
    MPI_Info info;
    MPI_Win win;
    MPI_Op user;

    MPI_Win_create(mem, sizeof(mem), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_get_attr(win, MPI_WIN_BASE, &bp, &flag);
    CHECK_ALL ("MPI_WIN_BASE") {
        CHECK_TRUE(flag);
        CHECK_EQ_PTR(bp, mem);
    }
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &sp, &flag);
    CHECK_ALL ("MPI_WIN_SIZE") {
        CHECK_TRUE(flag);
        CHECK_EQ_LONG(*sp, sizeof(mem));
    }
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &ip, &flag);
    CHECK_ALL ("MPI_WIN_DISP_UNIT") {
        CHECK_TRUE(flag);
        CHECK_EQ_LONG(*ip, sizeof(int));
    }
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &ip, &flag);
    CHECK_ALL ("MPI_WIN_CREATE_FLAVOR") {
        CHECK_TRUE(flag);
        CHECK_EQ_INT(*ip, MPI_WIN_FLAVOR_CREATE);
    }
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &ip, &flag);
    CHECK_ALL ("MPI_WIN_MODEL") {
        CHECK_TRUE(flag);
        CHECK_EQ_INT(*ip, MPI_WIN_UNIFIED);
    }
    MPI_Win_set_name(win, "counters");
    MPI_Win_get_name(win, name, &len);
    CHECK_ALL ("window name: %s", name) {
        CHECK_EQ_STR(name, "counters");
        CHECK_EQ_INT(len, 8);
    }
    len = -1;
    CHECK_MPI(MPI_Win_get_name(MPI_WIN_NULL, name, &len), "MPI_Win_get_name(MPI_WIN_NULL)");
    CHECK_EQ_STR(name, "MPI_WIN_NULL", "the name of MPI_WIN_NULL");
    CHECK_EQ_INT(len, 12, "its length");
    MPI_Win_get_group(win, &g);
    MPI_Group_size(g, &len);
    CHECK_EQ_INT(len, mt_size, "window group size %d", len);
    MPI_Group_free(&g);
    {
        /* Standard hints come back (given or default); unknown keys do not. */
        char value[64];
        int vl = sizeof(value), have;
        MPI_Info given;
        MPI_Info_create(&given);
        MPI_Info_set(given, "no_locks", "true");
        MPI_Info_set(given, "rdmpi_no_such_hint", "1");
        MPI_Win_set_info(win, given);
        MPI_Info_free(&given);
        MPI_Win_get_info(win, &info);
        MPI_Info_get_string(info, "no_locks", &vl, value, &have);
        CHECK_ALL ("hint no_locks: %s", have ? value : "(none)") {
            CHECK_TRUE(have);
            CHECK_EQ_STR(value, "true");
        }
        vl = sizeof(value);
        MPI_Info_get_string(info, "accumulate_ops", &vl, value, &have);
        CHECK_ALL ("default accumulate_ops") {
            CHECK_TRUE(have);
            CHECK_EQ_STR(value, "same_op_no_op");
        }
        vl = sizeof(value);
        MPI_Info_get_string(info, "rdmpi_no_such_hint", &vl, value, &have);
        CHECK_TRUE(!have, "an unknown hint is not returned");
        MPI_Info_free(&info);
    }
    {
        /* Accumulates that move nothing need no common element type. */
        MPI_Datatype empty;
        int e1, e2;
        MPI_Type_contiguous(0, MPI_INT, &empty);
        MPI_Type_commit(&empty);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        e1 = MPI_Accumulate(&deleted, 0, MPI_INT, 0, 0, 0, MPI_DOUBLE, MPI_SUM, win);
        e2 = MPI_Get_accumulate(&deleted, 1, empty, &flag, 1, empty, 0, 0, 1, empty, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        CHECK_ALL ("zero-byte accumulates: %d %d", e1, e2) {
            CHECK_MPI(e1);
            CHECK_MPI(e2);
        }
        MPI_Type_free(&empty);
    }
    {
        /* A user attribute (its delete callback runs at MPI_Win_free) and
         * a user error handler. */
        int kv;
        void *val;
        MPI_Errhandler eh;
        MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &kv, NULL);
        MPI_Win_set_attr(win, kv, &deleted);
        MPI_Win_get_attr(win, kv, &val, &flag);
        CHECK_ALL ("user window attribute") {
            CHECK_TRUE(flag);
            CHECK_EQ_PTR(val, &deleted);
        }
        MPI_Win_free_keyval(&kv);
        MPI_Win_create_errhandler(on_error, &eh);
        MPI_Win_set_errhandler(win, eh);
        MPI_Errhandler_free(&eh);
        MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win); /* no epoch */
        CHECK_EQ_INT(handled, 1, "the window's handler ran %d times", handled);
    }

    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(class_of(MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win)), MPI_ERR_RMA_SYNC,
                 "put outside an epoch");
    MPI_Win_fence(0, win);
    CHECK_EQ_INT(class_of(MPI_Put(&v, 1, MPI_INT, next, 4, 1, MPI_INT, win)), MPI_ERR_RMA_RANGE,
                 "put past the window");
    CHECK_EQ_INT(class_of(MPI_Put(&v, 1, MPI_INT, mt_size, 0, 1, MPI_INT, win)), MPI_ERR_RANK,
                 "target rank out of range");
    MPI_Op_create((MPI_User_function *)(void *)1, 1, &user);
    CHECK_EQ_INT(class_of(MPI_Accumulate(&v, 1, MPI_INT, next, 0, 1, MPI_INT, user, win)),
                 MPI_ERR_OP, "accumulate with a user op");
    MPI_Op_free(&user);
    {
        /* Compare_and_swap takes predefined types, floating ones too
         * (compared bit for bit, as Open MPI does). The result arrives at
         * the next fence: static. */
        static float f, fr;
        static long l, lr;
        static int two[2], tworesult[2];
        MPI_Datatype pair;

        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        CHECK_EQ_INT(class_of(MPI_Compare_and_swap(two, two, tworesult, pair, next, 0, win)),
                     MPI_ERR_TYPE, "compare_and_swap on a derived type");
        MPI_Type_free(&pair);
        CHECK_EQ_INT(class_of(MPI_Compare_and_swap(&f, &f, &fr, MPI_FLOAT, next, 2, win)),
                     MPI_SUCCESS, "compare_and_swap on MPI_FLOAT");
        CHECK_EQ_INT(class_of(MPI_Compare_and_swap(&l, &l, &lr, MPI_AINT, next, 0, win)),
                     MPI_SUCCESS, "compare_and_swap on MPI_AINT");
    }
    CHECK_MPI(class_of(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win)),
              "put to MPI_PROC_NULL");
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    CHECK_EQ_INT(class_of(MPI_Win_lock(99, 0, 0, win)), MPI_ERR_LOCKTYPE, "bad lock type");
    CHECK_EQ_INT(class_of(MPI_Win_unlock(0, win)), MPI_ERR_RMA_SYNC, "unlock without lock");
    /* A lock after a fence means the fence opened no epoch. */
    MPI_Win_fence(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    MPI_Win_unlock(next, win);
    CHECK_EQ_INT(class_of(MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win)), MPI_ERR_RMA_SYNC,
                 "put after fence, lock, unlock");
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    /* Open epochs: no lock inside a start epoch, no free inside any. */
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    CHECK_ALL ("free with a lock held") {
        CHECK_EQ_INT(class_of(MPI_Win_free(&win)), MPI_ERR_RMA_SYNC);
        CHECK_NE_PTR(win, MPI_WIN_NULL);
    }
    MPI_Win_unlock(next, win);
    MPI_Win_get_group(win, &g);
    MPI_Win_post(g, 0, win);
    MPI_Win_start(g, 0, win);
    CHECK_EQ_INT(class_of(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win)), MPI_ERR_RMA_SYNC,
                 "lock inside a start epoch");
    CHECK_EQ_INT(class_of(MPI_Win_free(&win)), MPI_ERR_RMA_SYNC, "free inside a start epoch");
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    MPI_Group_free(&g);
    MPI_Win_free(&win);
    CHECK_EQ_INT(deleted, 1, "the attribute's delete callback ran %d times at MPI_Win_free",
                 deleted);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    next = (mt_rank + 1) % mt_size;
    prev = (mt_rank + mt_size - 1) % mt_size;
    fence_ops();
    datatypes();
    passive();
    round_trips();
    pscw_and_requests();
    minloc();
    flush_local_then_barrier();
    shared_and_dynamic();
    dynamic_span();
    subcomm();
    queries_and_errors();
    return mt_finish("t_rma");
}
