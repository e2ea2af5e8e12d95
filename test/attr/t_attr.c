/* Attributes through the API: predefined values, set/get/delete with their
 * callbacks, callback failures, deferred keyval free, datatypes, windows,
 * the deprecated names, bad input; dup and free when the communicator and
 * datatype code provides them.  Every rank checks; rank 0 prints. */
#include "../tap.h"

#include <mpi.h>
#include <stdint.h>
#include <string.h>

/* What the callbacks saw, in order. */
static struct event {
    char op; /* 'c' copy, 'd' delete */
    void *handle;
    int keyval;
    void *value;
    void *extra;
} ev[64];
static int nev;
static int fail_with; /* callbacks return this when non-zero */

static void record(char op, void *handle, int keyval, void *value, void *extra)
{
    if (nev < 64)
        ev[nev++] = (struct event){op, handle, keyval, value, extra};
}

static int comm_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    record('c', c, k, in, extra);
    if (fail_with)
        return fail_with;
    *(void **)out = (char *)in + 1; /* the copy is distinguishable */
    *flag = 1;
    return MPI_SUCCESS;
}

static int comm_del(MPI_Comm c, int k, void *value, void *extra)
{
    record('d', c, k, value, extra);
    return fail_with;
}

static int type_copy(MPI_Datatype t, int k, void *extra, void *in, void *out, int *flag)
{
    record('c', t, k, in, extra);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_del(MPI_Datatype t, int k, void *value, void *extra)
{
    record('d', t, k, value, extra);
    return fail_with;
}

static int is(int i, char op, void *handle, int keyval, void *value)
{
    return i < nev && ev[i].op == op && ev[i].handle == handle && ev[i].keyval == keyval &&
           ev[i].value == value;
}

#define V(n) ((void *)(uintptr_t)(n))

static void predefined(int size)
{
    int *v, flag, rc, k;
    int tag_ub, host, io, global, universe, appnum, last;

    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
    tag_ub = flag ? *v : -1;
    CHECK_ALL ("MPI_TAG_UB is at least 32767 (%d)", tag_ub) {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_GE_LONG(tag_ub, 32767);
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag);
    host = flag ? *v : -99;
    CHECK_TRUE(flag && (host == MPI_PROC_NULL || (host >= 0 && host < size)),
               "MPI_HOST is MPI_PROC_NULL or a rank (%d)", host);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag);
    io = flag ? *v : -99;
    CHECK_ALL ("MPI_IO is MPI_ANY_SOURCE: every rank can do I/O (%d)", io) {
        CHECK_TRUE(flag);
        CHECK_EQ_INT(io, MPI_ANY_SOURCE);
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
    global = flag ? *v : -1;
    CHECK_TRUE(flag && (global == 0 || global == 1), "MPI_WTIME_IS_GLOBAL is a boolean (%d)",
               global);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
    universe = flag ? *v : -1;
    CHECK_ALL ("MPI_UNIVERSE_SIZE %d >= world size %d", universe, size) {
        CHECK_TRUE(flag);
        CHECK_GE_LONG(universe, size);
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag);
    appnum = flag ? *v : -1;
    CHECK_ALL ("MPI_APPNUM is 0 for a single-program job (%d)", appnum) {
        CHECK_TRUE(flag);
        CHECK_EQ_INT(appnum, 0);
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    last = flag ? *v : -1;
    CHECK_ALL ("MPI_LASTUSEDCODE starts at MPI_ERR_LASTCODE (%d)", last) {
        CHECK_TRUE(flag);
        CHECK_EQ_INT(last, MPI_ERR_LASTCODE);
    }
    MPI_Add_error_class(&k);
    MPI_Comm_get_attr(MPI_COMM_SELF, MPI_LASTUSEDCODE, &v, &flag);
    CHECK_ALL ("after MPI_Add_error_class it is the new class, on MPI_COMM_SELF too (%d)", *v) {
        CHECK_TRUE(flag);
        CHECK_EQ_INT(*v, k);
        CHECK_GT_LONG(k, MPI_ERR_LASTCODE);
    }
    MPI_Remove_error_class(k);
    rc = MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
    CHECK_ALL ("deprecated MPI_Attr_get reads MPI_TAG_UB too") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_EQ_INT(*v, tag_ub);
    }

    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, V(5));
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "setting a predefined attribute is MPI_ERR_KEYVAL");
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_HOST);
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "deleting one is MPI_ERR_KEYVAL");
    k = MPI_APPNUM;
    rc = MPI_Comm_free_keyval(&k);
    CHECK_ALL ("freeing a predefined keyval is MPI_ERR_KEYVAL") {
        CHECK_EQ_INT(rc, MPI_ERR_KEYVAL);
        CHECK_EQ_INT(k, MPI_APPNUM);
    }
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WIN_BASE, &v, &flag);
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "a window attribute on a communicator is MPI_ERR_KEYVAL");
}

static void set_get_delete(void)
{
    int k, k2, flag, rc, extra;
    void *v;

    MPI_Comm_create_keyval(comm_copy, comm_del, &k, &extra);
    CHECK_ALL ("MPI_Comm_create_keyval gives a user keyval (%d)", k) {
        CHECK_NE_INT(k, MPI_KEYVAL_INVALID);
        CHECK_GE_LONG(k, 16);
    }
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag);
    CHECK_ALL ("an unset attribute reads flag = 0") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(!flag);
    }
    nev = 0;
    MPI_Comm_set_attr(MPI_COMM_WORLD, k, V(100));
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag);
    CHECK_ALL ("set then get returns the value, no callback") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_EQ_PTR(v, V(100));
        CHECK_EQ_INT(nev, 0);
    }
    MPI_Comm_set_attr(MPI_COMM_WORLD, k, V(200));
    CHECK_ALL ("setting again runs the delete callback on the old value with comm, keyval and "
               "extra_state") {
        CHECK_EQ_INT(nev, 1);
        CHECK_TRUE(is(0, 'd', MPI_COMM_WORLD, k, V(100)));
        CHECK_EQ_PTR(ev[0].extra, &extra);
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag);
    CHECK_ALL ("and the new value is stored") {
        CHECK_TRUE(flag);
        CHECK_EQ_PTR(v, V(200));
    }
    rc = MPI_Comm_get_attr(MPI_COMM_SELF, k, &v, &flag);
    CHECK_ALL ("attributes are per communicator") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(!flag);
    }

    fail_with = MPI_ERR_OTHER;
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, k, V(300));
    MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag);
    CHECK_ALL ("a failing delete callback fails set_attr with its code; the old value stays") {
        CHECK_EQ_INT(rc, MPI_ERR_OTHER);
        CHECK_TRUE(flag);
        CHECK_EQ_PTR(v, V(200));
    }
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, k);
    MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag);
    CHECK_ALL ("and fails delete_attr the same way; the attribute stays") {
        CHECK_EQ_INT(rc, MPI_ERR_OTHER);
        CHECK_TRUE(flag);
        CHECK_EQ_PTR(v, V(200));
    }
    MPI_Add_error_class(&fail_with);
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, k);
    CHECK_EQ_INT(rc, fail_with, "a user error class from the callback is the call's error (%d)",
                 rc);
    MPI_Remove_error_class(fail_with);
    fail_with = 0;

    nev = 0;
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, k);
    MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag);
    CHECK_ALL ("delete_attr runs the delete callback and removes the attribute") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(nev, 1);
        CHECK_TRUE(is(0, 'd', MPI_COMM_WORLD, k, V(200)));
        CHECK_TRUE(!flag);
    }
    rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, k);
    CHECK_ALL ("deleting an unset attribute does nothing") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(nev, 1);
    }

    /* Deferred free: the keyval lives on while an attribute uses it. */
    MPI_Comm_set_attr(MPI_COMM_SELF, k, V(7));
    k2 = k;
    rc = MPI_Comm_free_keyval(&k);
    CHECK_ALL ("free_keyval sets the keyval to MPI_KEYVAL_INVALID") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(k, MPI_KEYVAL_INVALID);
    }
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, k2, V(8));
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "a freed keyval cannot be set on another communicator");
    rc = MPI_Comm_get_attr(MPI_COMM_SELF, k2, &v, &flag);
    CHECK_ALL ("but its attribute still reads while it is in use") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_EQ_PTR(v, V(7));
    }
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
    CHECK_NE_INT(k, k2, "while an attribute uses it, its number is not handed out again");
    MPI_Comm_free_keyval(&k);
    k = k2;
    rc = MPI_Comm_free_keyval(&k);
    CHECK_ALL ("freeing it again meanwhile does nothing") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(k, MPI_KEYVAL_INVALID);
    }
    nev = 0;
    rc = MPI_Comm_delete_attr(MPI_COMM_SELF, k2);
    CHECK_ALL ("MPI_Comm_delete_attr frees the attribute of a freed keyval (MPI-4.1 7.7.2)") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(nev, 1);
        CHECK_TRUE(is(0, 'd', MPI_COMM_SELF, k2, V(7)));
    }
    rc = MPI_Comm_get_attr(MPI_COMM_SELF, k2, &v, &flag);
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "after its last attribute went, the keyval is gone");
}

static void datatypes_and_windows(void)
{
    int k, kc, kw, flag, rc, extra;
    void *v;

    MPI_Type_create_keyval(type_copy, type_del, &k, &extra);
    nev = 0;
    rc = MPI_Type_set_attr(MPI_INT, k, V(11));
    MPI_Type_get_attr(MPI_INT, k, &v, &flag);
    CHECK_ALL ("attributes on a predefined datatype") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_EQ_PTR(v, V(11));
    }
    MPI_Type_get_attr(MPI_DOUBLE, k, &v, &flag);
    CHECK_TRUE(!flag, "per datatype");
    MPI_Type_delete_attr(MPI_INT, k);
    CHECK_ALL ("MPI_Type_delete_attr runs the delete callback with the datatype") {
        CHECK_EQ_INT(nev, 1);
        CHECK_TRUE(is(0, 'd', MPI_INT, k, V(11)));
        CHECK_EQ_PTR(ev[0].extra, &extra);
    }
    rc = MPI_Type_set_attr(MPI_DATATYPE_NULL, k, V(1));
    CHECK_EQ_INT(rc, MPI_ERR_TYPE, "MPI_DATATYPE_NULL is MPI_ERR_TYPE");
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL);
    rc = MPI_Type_set_attr(MPI_INT, kc, V(1));
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "a communicator keyval on a datatype is MPI_ERR_KEYVAL");
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, k, V(1));
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "a datatype keyval on a communicator is MPI_ERR_KEYVAL");
    rc = MPI_Type_free_keyval(&kc);
    CHECK_ALL ("MPI_Type_free_keyval of a communicator keyval is MPI_ERR_KEYVAL") {
        CHECK_EQ_INT(rc, MPI_ERR_KEYVAL);
        CHECK_NE_INT(kc, MPI_KEYVAL_INVALID);
    }
    rc = MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &v, &flag);
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "MPI_TAG_UB is not a datatype attribute");
    MPI_Type_free_keyval(&k);
    MPI_Comm_free_keyval(&kc);

    rc = MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &kw, NULL);
    CHECK_ALL ("MPI_Win_create_keyval works") {
        CHECK_EQ_INT(rc, 0);
        CHECK_GE_LONG(kw, 16);
    }
    rc = MPI_Win_set_attr(MPI_WIN_NULL, kw, V(1));
    CHECK_EQ_INT(rc, MPI_ERR_WIN, "MPI_Win_set_attr on MPI_WIN_NULL is MPI_ERR_WIN");
    rc = MPI_Win_get_attr(MPI_WIN_NULL, kw, &v, &flag);
    CHECK_EQ_INT(rc, MPI_ERR_WIN, "MPI_Win_get_attr too");
    rc = MPI_Win_delete_attr(MPI_WIN_NULL, kw);
    CHECK_EQ_INT(rc, MPI_ERR_WIN, "MPI_Win_delete_attr too");
    rc = MPI_Comm_free_keyval(&kw);
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "MPI_Comm_free_keyval of a window keyval is MPI_ERR_KEYVAL");
    rc = MPI_Win_free_keyval(&kw);
    CHECK_ALL ("MPI_Win_free_keyval works") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(kw, MPI_KEYVAL_INVALID);
    }
}

static void deprecated(void)
{
    int k, flag, rc;
    void *v;

    rc = MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k, NULL);
    CHECK_ALL ("MPI_Keyval_create") {
        CHECK_EQ_INT(rc, 0);
        CHECK_GE_LONG(k, 16);
    }
    MPI_Attr_put(MPI_COMM_WORLD, k, V(42));
    rc = MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag);
    CHECK_ALL ("MPI_Attr_put / MPI_Attr_get") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(flag);
        CHECK_EQ_PTR(v, V(42));
    }
    MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, &flag);
    CHECK_ALL ("the same attribute as MPI_Comm_get_attr sees") {
        CHECK_TRUE(flag);
        CHECK_EQ_PTR(v, V(42));
    }
    rc = MPI_Attr_delete(MPI_COMM_WORLD, k);
    MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag);
    CHECK_ALL ("MPI_Attr_delete") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(!flag);
    }
    rc = MPI_Keyval_free(&k);
    CHECK_ALL ("MPI_Keyval_free") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(k, MPI_KEYVAL_INVALID);
    }
}

static void bad_input(void)
{
    int k = MPI_KEYVAL_INVALID, flag, rc;
    void *v;

    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a NULL keyval pointer is MPI_ERR_ARG");
    rc = MPI_Comm_free_keyval(&k);
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "freeing MPI_KEYVAL_INVALID is MPI_ERR_KEYVAL");
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, 123456, &v, &flag);
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "an unknown keyval is MPI_ERR_KEYVAL");
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, V(1));
    CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "MPI_KEYVAL_INVALID is MPI_ERR_KEYVAL");
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, k, &v, NULL);
    CHECK_EQ_INT(rc, MPI_ERR_ARG, "a NULL flag is MPI_ERR_ARG");
    rc = MPI_Comm_set_attr(MPI_COMM_NULL, k, V(1));
    CHECK_EQ_INT(rc, MPI_ERR_COMM, "MPI_COMM_NULL is MPI_ERR_COMM");
    {
        int k2 = k;

        MPI_Comm_free_keyval(&k);
        rc = MPI_Comm_free_keyval(&k2);
        CHECK_EQ_INT(rc, MPI_ERR_KEYVAL, "freeing a keyval twice is MPI_ERR_KEYVAL");
    }
}

/* Copy and delete callbacks through MPI_Comm_dup / MPI_Comm_free, when the
 * communicator code provides them. */
static void dup_and_free(void)
{
    MPI_Comm dup = MPI_COMM_NULL;
    int k1, k2, k3, flag, rc;
    void *v;

    MPI_Comm_create_keyval(comm_copy, comm_del, &k1, NULL);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, comm_del, &k2, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_del, &k3, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, k1, V(10));
    MPI_Comm_set_attr(MPI_COMM_WORLD, k3, V(30));
    MPI_Comm_set_attr(MPI_COMM_WORLD, k2, V(20));
    nev = 0;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION) {
        for (int i = 0; i < 6; i++)
            skip("MPI_Comm_dup is not implemented yet");
    } else {
        CHECK_ALL ("MPI_Comm_dup runs the user copy callback with the old communicator") {
            CHECK_EQ_INT(rc, 0);
            CHECK_EQ_INT(nev, 1);
            CHECK_TRUE(is(0, 'c', MPI_COMM_WORLD, k1, V(10)));
        }
        MPI_Comm_get_attr(dup, k1, &v, &flag);
        CHECK_ALL ("its output is the new attribute") {
            CHECK_TRUE(flag);
            CHECK_EQ_PTR(v, V(11));
        }
        MPI_Comm_get_attr(dup, k2, &v, &flag);
        CHECK_ALL ("MPI_COMM_DUP_FN copies the value") {
            CHECK_TRUE(flag);
            CHECK_EQ_PTR(v, V(20));
        }
        MPI_Comm_get_attr(dup, k3, &v, &flag);
        CHECK_TRUE(!flag, "MPI_COMM_NULL_COPY_FN copies nothing");
        nev = 0;
        rc = MPI_Comm_free(&dup);
        /* Reverse order of setting on the new communicator: k2, then k1. */
        CHECK_ALL ("MPI_Comm_free runs the delete callbacks in reverse order of setting") {
            CHECK_EQ_INT(rc, 0);
            CHECK_EQ_INT(nev, 2);
            CHECK_EQ_INT(ev[0].keyval, k2);
            CHECK_EQ_INT(ev[1].keyval, k1);
            CHECK_EQ_PTR(ev[1].value, V(11));
        }
        fail_with = MPI_ERR_OTHER;
        nev = 0;
        rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        CHECK_EQ_INT(rc, MPI_ERR_OTHER, "a failing copy callback fails MPI_Comm_dup with its code");
        CHECK_EQ_PTR(dup, MPI_COMM_NULL, "and newcomm is MPI_COMM_NULL then");
        fail_with = 0;
    }
    MPI_Comm_delete_attr(MPI_COMM_WORLD, k1);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, k2);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, k3);
    MPI_Comm_free_keyval(&k1);
    MPI_Comm_free_keyval(&k2);
    MPI_Comm_free_keyval(&k3);
}

static void type_dup_and_free(void)
{
    MPI_Datatype t;
    int k, flag, rc;
    void *v;

    MPI_Type_create_keyval(type_copy, type_del, &k, NULL);
    MPI_Type_set_attr(MPI_INT, k, V(5));
    nev = 0;
    rc = MPI_Type_dup(MPI_INT, &t);
    if (rc == MPI_ERR_UNSUPPORTED_OPERATION) {
        skip("MPI_Type_dup is not implemented yet");
        skip("MPI_Type_dup is not implemented yet");
    } else {
        MPI_Type_get_attr(t, k, &v, &flag);
        CHECK_ALL ("MPI_Type_dup runs the copy callback and caches its output") {
            CHECK_EQ_INT(rc, 0);
            CHECK_EQ_INT(nev, 1);
            CHECK_TRUE(is(0, 'c', MPI_INT, k, V(5)));
            CHECK_TRUE(flag);
            CHECK_EQ_PTR(v, V(5));
        }
        nev = 0;
        MPI_Type_free(&t);
        CHECK_ALL ("MPI_Type_free runs the delete callback") {
            CHECK_EQ_INT(nev, 1);
            CHECK_EQ_INT(ev[0].op, 'd');
            CHECK_EQ_INT(ev[0].keyval, k);
        }
    }
    MPI_Type_delete_attr(MPI_INT, k);
    MPI_Type_free_keyval(&k);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank)
        fclose(stdout);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    predefined(size);
    set_get_delete();
    datatypes_and_windows();
    deprecated();
    bad_input();
    dup_and_free();
    type_dup_and_free();
    MPI_Finalize();
    return done_testing();
}
