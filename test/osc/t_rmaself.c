/* One-sided operations on windows over MPI_COMM_SELF while the world has
 * several ranks (mpi4py's TestRMASelf, which corrupted the heap: its
 * probes free the result buffer of an operation to itself right after the
 * call, result_at_return below): put, get, accumulate, get_accumulate, fetch_and_op and
 * compare_and_swap of many types and counts at displacements 0 and one
 * element, with fence, post/start, lock and lock_all epochs, PROC_NULL
 * targets, flushes and sync; then the same window kinds again so stale
 * state of freed windows would show. Every rank runs it alone on its own
 * window, at the same time. */
#include "../p2p/mpitest.h"

#include <stdint.h>

#define WIN_BYTES (100 * sizeof(double))

struct type {
    MPI_Datatype dt;
    size_t size;
    const char *name;
};

static const struct type types[] = {
    {MPI_SIGNED_CHAR, 1, "MPI_SIGNED_CHAR"},
    {MPI_SHORT, 2, "MPI_SHORT"},
    {MPI_INT, 4, "MPI_INT"},
    {MPI_LONG, sizeof(long), "MPI_LONG"},
    {MPI_LONG_LONG, 8, "MPI_LONG_LONG"},
    {MPI_UNSIGNED, 4, "MPI_UNSIGNED"},
    {MPI_FLOAT, 4, "MPI_FLOAT"},
    {MPI_DOUBLE, 8, "MPI_DOUBLE"},
    {MPI_C_BOOL, 1, "MPI_C_BOOL"},
    {MPI_BYTE, 1, "MPI_BYTE"},
};
#define NTYPES (int)(sizeof(types) / sizeof(types[0]))

/* Element i of a buffer of type t set to v (small integers only). */
static void set(const struct type *t, void *b, int i, long v)
{
    char *p = (char *)b + (size_t)i * t->size;
    if (t->dt == MPI_FLOAT) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else if (t->dt == MPI_DOUBLE) {
        double d = (double)v;
        memcpy(p, &d, 8);
    } else if (t->dt == MPI_C_BOOL) {
        *p = v != 0;
    } else {
        long long x = v;
        memcpy(p, &x, t->size); /* little-endian */
    }
}

static long get(const struct type *t, const void *b, int i)
{
    const char *p = (const char *)b + (size_t)i * t->size;
    if (t->dt == MPI_FLOAT) {
        float f;
        memcpy(&f, p, 4);
        return (long)f;
    }
    if (t->dt == MPI_DOUBLE) {
        double d;
        memcpy(&d, p, 8);
        return (long)d;
    }
    if (t->dt == MPI_C_BOOL)
        return *p != 0;
    long long x = 0;
    memcpy(&x, p, t->size);
    if (t->size < 8 && t->dt != MPI_UNSIGNED && t->dt != MPI_BYTE && (x >> (8 * t->size - 1)) & 1)
        x -= 1ll << (8 * t->size);
    return (long)x;
}

/* Guard bytes after each local buffer: an operation that writes past the
 * count it was given shows there. */
#define GUARD 16
static void *buf_new(size_t n)
{
    unsigned char *b = malloc(n + GUARD);
    memset(b, 0xa5, n + GUARD);
    return b;
}
static void guard_check(const void *b, size_t n, const char *what)
{
    const unsigned char *p = (const unsigned char *)b + n;
    for (int i = 0; i < GUARD; i++)
        if (p[i] != 0xa5) {
            CHECK_TRUE(0, "%s: byte %zu past the buffer overwritten (0x%02x)", what, n + i, p[i]);
            return;
        }
}

static void put_get(MPI_Win win)
{
    for (int k = 0; k < NTYPES; k++) {
        const struct type *t = &types[k];
        for (int count = 0; count < 10; count++)
            for (int shift = 0; shift < 3; shift++) {
                size_t n = (size_t)count * t->size;
                void *s = buf_new(n), *r = buf_new(n + t->size);
                MPI_Aint disp = shift ? (MPI_Aint)t->size : 0;
                char what[96];

                for (int i = 0; i < count; i++)
                    set(t, s, i, t->dt == MPI_C_BOOL ? i & 1 : i);
                memset(r, 0xff, n + t->size);
                MPI_Win_fence(0, win);
                if (shift == 2)
                    MPI_Put(s, count, t->dt, 0, disp, count, t->dt, win);
                else
                    MPI_Put(s, count, t->dt, 0, disp, count * (int)t->size, MPI_BYTE, win);
                MPI_Win_fence(0, win);
                MPI_Get(r, count, t->dt, 0, disp, count, t->dt, win);
                MPI_Win_fence(0, win);
                snprintf(what, sizeof(what), "put/get %s x %d at %ld", t->name, count, (long)disp);
                for (int i = 0; i < count; i++)
                    if (get(t, r, i) != get(t, s, i)) {
                        CHECK_EQ_LONG(get(t, r, i), get(t, s, i), "%s", what);
                        break;
                    }
                CHECK_EQ_INT(((unsigned char *)r)[n], 0xff, "%s: the element after was written",
                             what);
                guard_check(r, n + t->size, what);
                guard_check(s, n, what);
                free(s);
                free(r);
            }
    }
}

static void accumulates(MPI_Win win)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_REPLACE, MPI_NO_OP};
    static const char *opn[] = {"SUM", "PROD", "MAX", "MIN", "REPLACE", "NO_OP"};

    for (int k = 0; k < NTYPES; k++) {
        const struct type *t = &types[k];
        if (t->dt == MPI_C_BOOL || t->dt == MPI_BYTE)
            continue; /* no arithmetic on them */
        for (int count = 0; count < 10; count++)
            for (int o = 0; o < 6; o++) {
                size_t n = (size_t)count * t->size;
                void *ones = buf_new(n), *s = buf_new(n), *r = buf_new(n + t->size),
                     *g = buf_new(n + t->size);
                char what[96];

                for (int i = 0; i < count; i++) {
                    set(t, ones, i, 1);
                    set(t, s, i, i);
                }
                memset(r, 0xff, n + t->size);
                memset(g, 0xff, n + t->size);
                /* Accumulate under fence (not NO_OP: MPI_Accumulate refuses it). */
                if (ops[o] != MPI_NO_OP) {
                    MPI_Win_fence(0, win);
                    MPI_Put(ones, count, t->dt, 0, 0, count, t->dt, win);
                    MPI_Win_fence(0, win);
                    MPI_Accumulate(s, count, t->dt, 0, 0, count, t->dt, ops[o], win);
                    MPI_Win_fence(0, win);
                    MPI_Get(g, count, t->dt, 0, 0, count, t->dt, win);
                    MPI_Win_fence(0, win);
                }
                /* Get_accumulate under a lock. */
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
                MPI_Put(ones, count, t->dt, 0, 0, count, t->dt, win);
                MPI_Win_flush(0, win);
                MPI_Get_accumulate(s, count, t->dt, r, count, t->dt, 0, 0, count, t->dt, ops[o],
                                   win);
                MPI_Win_flush(0, win);
                MPI_Get(g, count, t->dt, 0, 0, count, t->dt, win);
                MPI_Win_flush(0, win);
                MPI_Win_unlock(0, win);
                snprintf(what, sizeof(what), "get_accumulate %s %s x %d", opn[o], t->name, count);
                for (int i = 0; i < count; i++) {
                    long want = o == 0   ? 1 + i
                                : o == 1 ? i
                                : o == 2 ? (i > 1 ? i : 1)
                                : o == 3 ? (i < 1 ? i : 1)
                                : o == 4 ? i
                                         : 1;
                    if (get(t, r, i) != 1 || get(t, g, i) != want) {
                        CHECK_EQ_LONG(get(t, r, i), 1, "%s", what);
                        CHECK_EQ_LONG(get(t, g, i), want, "%s", what);
                        break;
                    }
                }
                CHECK_ALL ("%s: the element after was written", what) {
                    CHECK_EQ_INT(((unsigned char *)r)[n], 0xff);
                    CHECK_EQ_INT(((unsigned char *)g)[n], 0xff);
                }
                guard_check(r, n + t->size, what);
                guard_check(g, n + t->size, what);
                free(ones);
                free(s);
                free(r);
                free(g);
            }
    }
}

/* Fetch_and_op of every op and compare_and_swap at displacements of 0-2
 * elements, each in its own lock epoch, into a result buffer of two
 * elements of which only the first may change. */
static void fetch_ops(MPI_Win win)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_REPLACE, MPI_NO_OP};

    for (int k = 0; k < NTYPES; k++) {
        const struct type *t = &types[k];
        char o[8], c[8], r[2 * 8 + GUARD], what[96];

        if (t->dt == MPI_C_BOOL || t->dt == MPI_BYTE)
            continue;
        set(t, o, 0, 1);
        set(t, c, 0, 0);
        for (int op = 0; op < 6; op++)
            for (int disp = 0; disp < 3; disp++) {
                memset(r, 0xa5, sizeof(r));
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
                MPI_Fetch_and_op(o, r, t->dt, 0, disp * (MPI_Aint)t->size, ops[op], win);
                MPI_Win_unlock(0, win);
                snprintf(what, sizeof(what), "fetch_and_op %d of %s at %d", op, t->name, disp);
                guard_check(r, t->size, what);
            }
        if (t->dt == MPI_FLOAT || t->dt == MPI_DOUBLE)
            continue;
        for (int disp = 0; disp < 3; disp++) {
            memset(r, 0xa5, sizeof(r));
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            MPI_Compare_and_swap(o, c, r, t->dt, 0, disp * (MPI_Aint)t->size, win);
            MPI_Win_unlock(0, win);
            snprintf(what, sizeof(what), "compare_and_swap of %s at %d", t->name, disp);
            guard_check(r, t->size, what);
        }
    }
}

static void atomics(MPI_Win win)
{
    long long one = 1, old = -1, cmp, x;

    MPI_Win_lock_all(0, win);
    x = 5;
    MPI_Put(&x, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win);
    MPI_Win_flush(0, win);
    for (int i = 0; i < 50; i++)
        MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, 0, MPI_SUM, win);
    MPI_Win_flush_all(win);
    CHECK_EQ_LONG(old, 54, "last fetch_and_op's old value");
    cmp = 55;
    x = 7;
    MPI_Compare_and_swap(&x, &cmp, &old, MPI_LONG_LONG, 0, 0, win);
    MPI_Win_flush_local(0, win);
    CHECK_EQ_LONG(old, 55, "compare_and_swap's old value");
    MPI_Fetch_and_op(NULL, &old, MPI_LONG_LONG, 0, 0, MPI_NO_OP, win);
    MPI_Win_flush_local_all(win);
    CHECK_EQ_LONG(old, 7, "value after compare_and_swap");
    MPI_Win_sync(win);
    MPI_Win_unlock_all(win);
}

static void proc_null_and_sync(MPI_Win win)
{
    int zeros[2] = {0, 0};
    static const int modes[] = {0, MPI_MODE_NOSTORE, MPI_MODE_NOPUT, MPI_MODE_NOPRECEDE,
                                MPI_MODE_NOSUCCEED};
    int assertion = 0, flag = 0, rc;
    MPI_Group g, e;

    MPI_Win_fence(0, win);
    CHECK_MPI(MPI_Put(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, 0, MPI_INT, win), "put to MPI_PROC_NULL");
    CHECK_MPI(MPI_Get(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, 0, MPI_INT, win),
              "get from MPI_PROC_NULL");
    MPI_Win_fence(0, win);
    rc = MPI_Accumulate(zeros, 2, MPI_INT, MPI_PROC_NULL, 0, 2, MPI_INT, MPI_REPLACE, win);
    CHECK_MPI(rc, "accumulate REPLACE to MPI_PROC_NULL");
    rc = MPI_Accumulate(NULL, 2, MPI_INT, MPI_PROC_NULL, 0, 2, MPI_INT, MPI_SUM, win);
    CHECK_MPI(rc, "accumulate SUM of NULL to MPI_PROC_NULL");
    MPI_Win_fence(0, win);
    for (int i = 0; i < 5; i++) {
        MPI_Win_fence(modes[i], win);
        assertion |= modes[i];
        MPI_Win_fence(assertion, win);
    }
    MPI_Win_fence(0, win);
    MPI_Win_start(MPI_GROUP_EMPTY, 0, win);
    MPI_Win_complete(win);
    MPI_Win_post(MPI_GROUP_EMPTY, 0, win);
    MPI_Win_wait(win);
    /* PSCW with the one member, ourselves. */
    MPI_Win_get_group(win, &g);
    MPI_Group_incl(g, 0, NULL, &e);
    MPI_Win_post(g, 0, win);
    MPI_Win_start(g, 0, win);
    MPI_Put(zeros, 2, MPI_INT, 0, 0, 2, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_test(win, &flag);
    if (!flag)
        MPI_Win_wait(win);
    MPI_Group_free(&e);
    MPI_Group_free(&g);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Win_flush(0, win);
    MPI_Win_unlock(0, win);
    /* MPI_PROC_NULL is a valid target of lock, unlock and the flushes;
     * a rank outside the window is MPI_ERR_RANK, not a read past arrays. */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win),
              "MPI_Win_lock(MPI_PROC_NULL)");
    CHECK_MPI(MPI_Put(zeros, 2, MPI_INT, MPI_PROC_NULL, 0, 2, MPI_INT, win),
              "put to MPI_PROC_NULL in its lock epoch");
    CHECK_MPI(MPI_Win_flush(MPI_PROC_NULL, win), "MPI_Win_flush(MPI_PROC_NULL)");
    CHECK_MPI(MPI_Win_flush_local(MPI_PROC_NULL, win), "MPI_Win_flush_local(MPI_PROC_NULL)");
    CHECK_MPI(MPI_Win_unlock(MPI_PROC_NULL, win), "MPI_Win_unlock(MPI_PROC_NULL)");
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    rc = MPI_Win_flush(-5, win);
    MPI_Error_class(rc, &rc);
    CHECK_EQ_INT(rc, MPI_ERR_RANK, "class of MPI_Win_flush(-5)");
    rc = MPI_Win_flush_local(1, win);
    MPI_Error_class(rc, &rc);
    CHECK_EQ_INT(rc, MPI_ERR_RANK, "class of MPI_Win_flush_local(1) on a one-rank window");
    MPI_Win_unlock(0, win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Win_flush_local(0, win);
    MPI_Win_unlock(0, win);
}

/* mpi4py's probes: a fetching operation to this process itself, its
 * result buffer freed right after the call, then the fence. The answer
 * must not land in the freed buffer at the fence (the heap corruption of
 * TestRMASelf): the result is there when the call returns. */
static void result_at_return(MPI_Win win)
{
    int *o = malloc(sizeof(int)), *c = malloc(sizeof(int)), *r;
    int got;

    MPI_Win_fence(0, win);
    *o = 41;
    MPI_Put(o, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    r = malloc(sizeof(int));
    *r = -1;
    *o = 1;
    MPI_Fetch_and_op(o, r, MPI_INT, 0, 0, MPI_SUM, win);
    got = *r;
    free(r);
    CHECK_EQ_INT(got, 41, "fetch_and_op's result when the call returns");
    r = malloc(sizeof(int));
    *r = -1;
    *c = 42;
    *o = 7;
    MPI_Compare_and_swap(o, c, r, MPI_INT, 0, 0, win);
    got = *r;
    free(r);
    CHECK_EQ_INT(got, 42, "compare_and_swap's result when the call returns");
    r = malloc(sizeof(int));
    *r = -1;
    MPI_Get_accumulate(NULL, 0, MPI_INT, r, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win);
    got = *r;
    free(r);
    CHECK_EQ_INT(got, 7, "get_accumulate's result when the call returns");
    r = malloc(1);
    MPI_Get_accumulate(o, 0, MPI_BYTE, r, 0, MPI_BYTE, 0, 0, 0, MPI_BYTE, MPI_SUM, win);
    free(r);
    MPI_Win_fence(0, win);
    free(o);
    free(c);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    for (int round = 0; round < 2; round++) {
        void *mem;
        MPI_Win win;

        MPI_Alloc_mem(WIN_BYTES, MPI_INFO_NULL, &mem);
        memset(mem, 0, WIN_BYTES);
        MPI_Win_create(mem, WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_SELF, &win);
        put_get(win);
        result_at_return(win);
        accumulates(win);
        fetch_ops(win);
        atomics(win);
        proc_null_and_sync(win);
        MPI_Win_free(&win);
        MPI_Free_mem(mem);
        /* An allocated window too. */
        MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_SELF, &mem, &win);
        atomics(win);
        proc_null_and_sync(win);
        MPI_Win_free(&win);
    }
    return mt_finish("t_rmaself");
}
