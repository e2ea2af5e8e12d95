/* The callback machinery of runtime/attr.c, driven directly as
 * MPI_Comm_dup / MPI_Comm_free / MPI_Type_dup will drive it: copy order
 * and flags, copy failure cleanup, delete order, delete failure, deferred
 * keyval free, and callbacks that call back into the attribute layer. */
#include "../tap.h"

#include "attr.h"
#include "rt.h"

#include <stdint.h>

#define H1   ((MPI_Comm)0x10001)
#define H2   ((MPI_Comm)0x10002)
#define V(n) ((void *)(uintptr_t)(n))

static struct {
    char op;
    MPI_Comm h;
    int keyval;
    void *value;
} ev[32];
static int nev, fail_keyval = -1, fail_code = MPI_ERR_OTHER;
static struct rt_attr *list2; /* for the callback that deletes elsewhere */

static void rec(char op, MPI_Comm h, int k, void *v)
{
    if (nev < 32) {
        ev[nev].op = op;
        ev[nev].h = h;
        ev[nev].keyval = k;
        ev[nev++].value = v;
    }
}

static int copy_fn(MPI_Comm h, int k, void *extra, void *in, void *out, int *flag)
{
    (void)extra;
    rec('c', h, k, in);
    if (k == fail_keyval)
        return fail_code;
    *(void **)out = (char *)in + 100;
    *flag = 1;
    return MPI_SUCCESS;
}

static int del_fn(MPI_Comm h, int k, void *v, void *extra)
{
    (void)extra;
    rec('d', h, k, v);
    return k == fail_keyval ? fail_code : MPI_SUCCESS;
}

/* Frees its own keyval, as libraries often do from the last delete. */
static int del_free_self(MPI_Comm h, int k, void *v, void *extra)
{
    (void)extra;
    rec('d', h, k, v);
    rt_keyval_free(k);
    return MPI_SUCCESS;
}

static int type_copy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    (void)extra;
    rec('c', (MPI_Comm)t, k, in);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int at(int i, char op, MPI_Comm h, int k, void *v)
{
    return i < nev && ev[i].op == op && ev[i].h == h && ev[i].keyval == k && ev[i].value == v;
}

static int count(const struct rt_attr *l)
{
    int n = 0;
    void *v;

    for (int k = 0; k < 1000; k++)
        n += rt_attr_find(l, k, &v);
    return n;
}

#define CREATE(k, c, d) rt_keyval_create(RT_KIND_COMM, (rt_attr_fn)(c), (rt_attr_fn)(d), NULL, &(k))

int main(void)
{
    struct rt_attr *src = NULL, *dst = NULL;
    int a, b, c, e, k, k2, rc;
    void *v;

    plan(21);
    CREATE(a, copy_fn, del_fn);
    CREATE(b, MPI_COMM_DUP_FN, del_fn);
    CREATE(c, MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN);
    CREATE(e, copy_fn, del_fn);
    rt_attr_set(RT_KIND_COMM, H1, &src, e, V(5));
    rt_attr_set(RT_KIND_COMM, H1, &src, b, V(2));
    rt_attr_set(RT_KIND_COMM, H1, &src, c, V(3));
    rt_attr_set(RT_KIND_COMM, H1, &src, a, V(1));

    nev = 0;
    rc = rt_attr_copy(RT_KIND_COMM, H1, src, H2, &dst);
    CHECK_ALL ("copy callbacks run in the order of setting, with the old handle") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(nev, 2);
        CHECK_TRUE(at(0, 'c', H1, e, V(5)));
        CHECK_TRUE(at(1, 'c', H1, a, V(1)));
    }
    CHECK_ALL ("the copies hold the callbacks' outputs") {
        CHECK_TRUE(rt_attr_find(dst, a, &v));
        CHECK_EQ_PTR(v, V(101));
        CHECK_TRUE(rt_attr_find(dst, e, &v));
        CHECK_EQ_PTR(v, V(105));
    }
    CHECK_ALL ("MPI_COMM_DUP_FN copies the value") {
        CHECK_TRUE(rt_attr_find(dst, b, &v));
        CHECK_EQ_PTR(v, V(2));
    }
    CHECK_ALL ("MPI_COMM_NULL_COPY_FN copies nothing") {
        CHECK_TRUE(!rt_attr_find(dst, c, &v));
        CHECK_EQ_INT(count(dst), 3);
    }

    nev = 0;
    rc = rt_attr_delete_all(RT_KIND_COMM, H2, &dst);
    CHECK_ALL ("delete_all runs the delete callbacks newest first, with the handle") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_PTR(dst, NULL);
        CHECK_EQ_INT(nev, 3);
        CHECK_TRUE(at(0, 'd', H2, a, V(101)));
        CHECK_TRUE(at(1, 'd', H2, b, V(2)));
        CHECK_TRUE(at(2, 'd', H2, e, V(105)));
    }

    /* A failing copy: what was copied is deleted again, on the new handle. */
    fail_keyval = a;
    nev = 0;
    rc = rt_attr_copy(RT_KIND_COMM, H1, src, H2, &dst);
    CHECK_ALL ("a failing copy callback's code is returned") {
        CHECK_EQ_INT(rc, MPI_ERR_OTHER);
        CHECK_EQ_PTR(dst, NULL);
    }
    CHECK_ALL ("and the attributes already copied are deleted on the new handle") {
        CHECK_EQ_INT(nev, 4);
        CHECK_TRUE(at(0, 'c', H1, e, V(5)));
        CHECK_TRUE(at(1, 'c', H1, a, V(1)));
        CHECK_TRUE(at(2, 'd', H2, b, V(2)));
        CHECK_TRUE(at(3, 'd', H2, e, V(105)));
    }
    fail_keyval = -1;

    /* A failing delete stops delete_all; the rest stays for a retry. */
    fail_keyval = b;
    nev = 0;
    rc = rt_attr_delete_all(RT_KIND_COMM, H1, &src);
    CHECK_ALL ("a failing delete stops delete_all, keeping it and the older attributes") {
        CHECK_EQ_INT(rc, MPI_ERR_OTHER);
        CHECK_EQ_INT(nev, 2);
        CHECK_EQ_INT(count(src), 2);
        CHECK_TRUE(rt_attr_find(src, b, &v));
        CHECK_TRUE(rt_attr_find(src, e, &v));
    }
    fail_keyval = -1;
    nev = 0;
    rc = rt_attr_delete_all(RT_KIND_COMM, H1, &src);
    CHECK_ALL ("a second delete_all finishes") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(!src);
        CHECK_EQ_INT(nev, 2);
        CHECK_TRUE(at(0, 'd', H1, b, V(2)));
        CHECK_TRUE(at(1, 'd', H1, e, V(5)));
    }

    /* Replacing runs the delete callback on the old value first. */
    nev = 0;
    rt_attr_set(RT_KIND_COMM, H1, &src, a, V(1));
    rc = rt_attr_set(RT_KIND_COMM, H1, &src, a, V(7));
    CHECK_ALL ("set on a set key deletes the old value, then stores the new") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(nev, 1);
        CHECK_TRUE(at(0, 'd', H1, a, V(1)));
        CHECK_TRUE(rt_attr_find(src, a, &v));
        CHECK_EQ_PTR(v, V(7));
    }
    fail_keyval = a;
    rc = rt_attr_set(RT_KIND_COMM, H1, &src, a, V(8));
    CHECK_ALL ("if that delete fails, the old value stays") {
        CHECK_EQ_INT(rc, MPI_ERR_OTHER);
        CHECK_TRUE(rt_attr_find(src, a, &v));
        CHECK_EQ_PTR(v, V(7));
    }
    rc = rt_attr_delete(RT_KIND_COMM, H1, &src, a);
    CHECK_ALL ("and a failing delete keeps it too") {
        CHECK_EQ_INT(rc, MPI_ERR_OTHER);
        CHECK_TRUE(rt_attr_find(src, a, &v));
    }
    fail_keyval = -1;
    rt_attr_delete(RT_KIND_COMM, H1, &src, a);

    /* Deferred free: the keyval outlives its handle while attributes use it. */
    CREATE(k, copy_fn, del_fn);
    rt_attr_set(RT_KIND_COMM, H1, &src, k, V(9));
    rt_attr_set(RT_KIND_COMM, H2, &list2, k, V(10));
    rt_keyval_free(k);
    CHECK_NE_PTR(rt_keyval_check(RT_KIND_COMM, k), NULL, "a freed keyval fails the user's checks");
    nev = 0;
    rc = rt_attr_copy(RT_KIND_COMM, H1, src, H2, &dst);
    CHECK_ALL ("but its copy callback still runs on dup") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(nev, 1);
        CHECK_TRUE(at(0, 'c', H1, k, V(9)));
        CHECK_TRUE(rt_attr_find(dst, k, &v));
    }
    rt_attr_delete_all(RT_KIND_COMM, H2, &dst);
    rt_attr_delete_all(RT_KIND_COMM, H1, &src);
    CREATE(k2, copy_fn, del_fn);
    CHECK_NE_INT(k2, k, "while one attribute still uses it, its number is not reused");
    nev = 0;
    rt_attr_delete_all(RT_KIND_COMM, H2, &list2);
    CHECK_ALL ("and its delete callback runs with it") {
        CHECK_EQ_INT(nev, 1);
        CHECK_TRUE(at(0, 'd', H2, k, V(10)));
    }
    CREATE(c, copy_fn, del_fn);
    CHECK_EQ_INT(c, k, "after the last attribute went, the keyval is gone (number reused)");

    /* A delete callback that frees its own keyval. */
    CREATE(k, MPI_COMM_NULL_COPY_FN, del_free_self);
    rt_attr_set(RT_KIND_COMM, H1, &src, k, V(4));
    nev = 0;
    rc = rt_attr_delete_all(RT_KIND_COMM, H1, &src);
    CHECK_ALL ("a delete callback may free its own keyval") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(nev, 1);
        CHECK_TRUE(!src);
        CHECK_TRUE(rt_keyval_check(RT_KIND_COMM, k));
    }

    /* Datatype callbacks get datatype handles. */
    rt_keyval_create(RT_KIND_DATATYPE, (rt_attr_fn)type_copy, NULL, NULL, &k);
    rt_attr_set(RT_KIND_DATATYPE, MPI_INT, &src, k, V(6));
    nev = 0;
    rc = rt_attr_copy(RT_KIND_DATATYPE, MPI_INT, src, MPI_DOUBLE, &dst);
    CHECK_ALL ("datatype copy callbacks get the datatype") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(at(0, 'c', (MPI_Comm)MPI_INT, k, V(6)));
        CHECK_TRUE(rt_attr_find(dst, k, &v));
        CHECK_EQ_PTR(v, V(6));
    }
    CHECK_NE_PTR(rt_keyval_check(RT_KIND_COMM, k), NULL,
                 "a datatype keyval is not a communicator's");
    rt_attr_delete_all(RT_KIND_DATATYPE, MPI_INT, &src);
    rt_attr_delete_all(RT_KIND_DATATYPE, MPI_DOUBLE, &dst);
    CHECK_TRUE(!src && !dst, "a NULL delete callback deletes silently");
    return tap_failed != 0;
}
