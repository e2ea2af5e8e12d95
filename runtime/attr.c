/* Keyvals and attribute lists: the mechanism behind MPI_*_set_attr and the
 * callbacks that run when objects are duplicated and freed.  Callbacks may
 * call MPI (free the keyval, free other objects), so no pointer into the
 * keyval table or a list is held across a callback. */
#include "attr.h"

#include "comm.h"
#include "datatype.h"
#include "errors.h"

#include <stdio.h>
#include <stdlib.h>

struct rt_attr {
    struct rt_attr *next; /* lists are newest first */
    int keyval;
    void *value;
};

struct keyval {
    int kind;  /* RT_KIND_*; 0 while the slot is unused */
    int freed; /* the user freed it; attributes may still use it */
    int refs;  /* the user's handle until freed, plus one per attribute */
    rt_attr_fn copy, del;
    void *extra;
};

/* User keyvals are RDMPI_KEYVAL_PREDEF_LIMIT + slot; slots are reused once
 * a keyval is freed and no attribute uses it. */
static struct keyval *kvs;
static int nkvs, capkvs;
static int *free_slots, nfree;

static struct keyval *kv_of(int keyval)
{
    int s = keyval - RDMPI_KEYVAL_PREDEF_LIMIT;

    return s >= 0 && s < nkvs && kvs[s].kind ? &kvs[s] : NULL;
}

int rt_keyval_create(int kind, rt_attr_fn copy, rt_attr_fn del, void *extra, int *keyval)
{
    int s;

    if (nfree) {
        s = free_slots[--nfree];
    } else {
        if (nkvs == capkvs) {
            int cap = capkvs ? 2 * capkvs : 16;
            struct keyval *k = realloc(kvs, (size_t)cap * sizeof(*k));
            int *f;

            if (!k)
                return MPI_ERR_NO_MEM;
            kvs = k;
            if (!(f = realloc(free_slots, (size_t)cap * sizeof(*f))))
                return MPI_ERR_NO_MEM;
            free_slots = f;
            capkvs = cap;
        }
        s = nkvs++;
    }
    kvs[s] = (struct keyval){.kind = kind, .refs = 1, .copy = copy, .del = del, .extra = extra};
    *keyval = RDMPI_KEYVAL_PREDEF_LIMIT + s;
    return MPI_SUCCESS;
}

static const char *kind_name(int kind)
{
    return kind == RT_KIND_COMM       ? "communicators"
           : kind == RT_KIND_DATATYPE ? "datatypes"
                                      : "windows";
}

static const char *check(int kind, int keyval, int held_ok)
{
    static _Thread_local char why[160];
    struct keyval *k = kv_of(keyval);

    if (keyval == MPI_KEYVAL_INVALID)
        return "keyval is MPI_KEYVAL_INVALID; create one with the matching *_create_keyval";
    if (!k || (k->freed && !held_ok)) {
        snprintf(why, sizeof(why), "keyval %d is not a keyval (never created, or freed)", keyval);
        return why;
    }
    if (k->kind != kind) {
        snprintf(why, sizeof(why), "keyval %d was created for %s, not %s", keyval,
                 kind_name(k->kind), kind_name(kind));
        return why;
    }
    return NULL;
}

const char *rt_keyval_check(int kind, int keyval)
{
    return check(kind, keyval, 0);
}

const char *rt_keyval_check_held(int kind, int keyval)
{
    return check(kind, keyval, 1);
}

static void keyval_release(int keyval)
{
    struct keyval *k = kv_of(keyval);

    if (k && --k->refs == 0) {
        k->kind = 0;
        free_slots[nfree++] = keyval - RDMPI_KEYVAL_PREDEF_LIMIT;
    }
}

void rt_keyval_free(int keyval)
{
    struct keyval *k = kv_of(keyval);

    if (k->freed) /* freed before, kept alive by its attributes */
        return;
    k->freed = 1;
    keyval_release(keyval);
}

/* The predefined null callbacks stand for "do nothing"; they are
 * recognized by address so that nothing is called for them. */
static int null_copy(rt_attr_fn f)
{
    return !f || f == (rt_attr_fn)MPI_COMM_NULL_COPY_FN || f == (rt_attr_fn)MPI_TYPE_NULL_COPY_FN ||
           f == (rt_attr_fn)MPI_WIN_NULL_COPY_FN || f == (rt_attr_fn)MPI_NULL_COPY_FN;
}

static int null_delete(rt_attr_fn f)
{
    return !f || f == (rt_attr_fn)MPI_COMM_NULL_DELETE_FN ||
           f == (rt_attr_fn)MPI_TYPE_NULL_DELETE_FN || f == (rt_attr_fn)MPI_WIN_NULL_DELETE_FN ||
           f == (rt_attr_fn)MPI_NULL_DELETE_FN;
}

/* Runs keyval's delete callback on (handle, value). */
static int run_delete(int kind, void *handle, int keyval, void *value)
{
    struct keyval *k = kv_of(keyval);
    rt_attr_fn del = k ? k->del : NULL;
    void *extra = k ? k->extra : NULL;

    if (null_delete(del))
        return MPI_SUCCESS;
    switch (kind) {
    case RT_KIND_COMM:
        return ((MPI_Comm_delete_attr_function *)del)((MPI_Comm)handle, keyval, value, extra);
    case RT_KIND_DATATYPE:
        return ((MPI_Type_delete_attr_function *)del)((MPI_Datatype)handle, keyval, value, extra);
    default: return ((MPI_Win_delete_attr_function *)del)((MPI_Win)handle, keyval, value, extra);
    }
}

static int run_copy(int kind, void *handle, int keyval, void *in, void **out, int *flag)
{
    struct keyval *k = kv_of(keyval);
    rt_attr_fn copy = k ? k->copy : NULL;
    void *extra = k ? k->extra : NULL;

    *flag = 0;
    if (null_copy(copy))
        return MPI_SUCCESS;
    switch (kind) {
    case RT_KIND_COMM:
        return ((MPI_Comm_copy_attr_function *)copy)((MPI_Comm)handle, keyval, extra, in, out,
                                                     flag);
    case RT_KIND_DATATYPE:
        return ((MPI_Type_copy_attr_function *)copy)((MPI_Datatype)handle, keyval, extra, in, out,
                                                     flag);
    default:
        return ((MPI_Win_copy_attr_function *)copy)((MPI_Win)handle, keyval, extra, in, out, flag);
    }
}

static struct rt_attr **find(struct rt_attr **list, int keyval)
{
    while (*list && (*list)->keyval != keyval)
        list = &(*list)->next;
    return *list ? list : NULL;
}

int rt_attr_find(const struct rt_attr *list, int keyval, void **value)
{
    for (; list; list = list->next)
        if (list->keyval == keyval) {
            *value = list->value;
            return 1;
        }
    return 0;
}

static int push(struct rt_attr **list, int keyval, void *value)
{
    struct rt_attr *a = malloc(sizeof(*a));

    if (!a)
        return MPI_ERR_NO_MEM;
    a->keyval = keyval;
    a->value = value;
    a->next = *list;
    *list = a;
    kv_of(keyval)->refs++;
    return MPI_SUCCESS;
}

/* Unlinks and frees the attribute `a` if it is still on the list (the
 * callback that just ran may have deleted it itself). */
static void drop(struct rt_attr **list, struct rt_attr *a)
{
    for (; *list; list = &(*list)->next)
        if (*list == a) {
            *list = a->next;
            keyval_release(a->keyval);
            free(a);
            return;
        }
}

int rt_attr_set(int kind, void *handle, struct rt_attr **list, int keyval, void *value)
{
    struct rt_attr **p = find(list, keyval);
    int rc;

    if (!p)
        return push(list, keyval, value);
    /* The old value goes first; if its callback fails, it stays. */
    if ((rc = run_delete(kind, handle, keyval, (*p)->value)))
        return rc;
    if ((p = find(list, keyval))) {
        (*p)->value = value;
        return MPI_SUCCESS;
    }
    return push(list, keyval, value);
}

int rt_attr_delete(int kind, void *handle, struct rt_attr **list, int keyval)
{
    struct rt_attr **p = find(list, keyval);
    struct rt_attr *a;
    int rc;

    if (!p)
        return MPI_SUCCESS;
    a = *p;
    if ((rc = run_delete(kind, handle, keyval, a->value)))
        return rc;
    drop(list, a);
    return MPI_SUCCESS;
}

int rt_attr_delete_all(int kind, void *handle, struct rt_attr **list)
{
    int rc;

    /* Newest first: the reverse of the order of setting. */
    while (*list) {
        struct rt_attr *a = *list;

        if ((rc = run_delete(kind, handle, a->keyval, a->value)))
            return rc;
        drop(list, a);
    }
    return MPI_SUCCESS;
}

int rt_attr_copy(int kind, void *old_handle, struct rt_attr *src, void *new_handle,
                 struct rt_attr **dst)
{
    struct {
        int keyval;
        void *value;
    } * snap;
    struct rt_attr *a;
    size_t n = 0, i;
    int rc = MPI_SUCCESS;

    *dst = NULL;
    for (a = src; a; a = a->next)
        n++;
    if (!n)
        return MPI_SUCCESS;
    /* A snapshot, oldest first: callbacks run in the order of setting and
     * may change the source list under us. */
    if (!(snap = malloc(n * sizeof(*snap))))
        return MPI_ERR_NO_MEM;
    for (a = src, i = n; a; a = a->next) {
        snap[--i].keyval = a->keyval;
        snap[i].value = a->value;
    }
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        void *out = NULL;
        int flag;

        if (!kv_of(snap[i].keyval))
            continue;
        rc = run_copy(kind, old_handle, snap[i].keyval, snap[i].value, &out, &flag);
        if (rc == MPI_SUCCESS && flag && (rc = push(dst, snap[i].keyval, out)))
            run_delete(kind, new_handle, snap[i].keyval, out);
    }
    free(snap);
    if (rc != MPI_SUCCESS) {
        rt_attr_delete_all(kind, new_handle, dst);
        *dst = NULL;
    }
    return rc;
}

int rt_attr_finalize(void)
{
    struct rdmpi_comm *self = rt_comm_get(MPI_COMM_SELF);
    struct rdmpi_comm *world = rt_comm_get(MPI_COMM_WORLD);
    int rc;

    if (self && (rc = rt_attr_delete_all(RT_KIND_COMM, MPI_COMM_SELF, &self->attrs)))
        return rdmpi_err_comm(MPI_COMM_SELF, rc, "MPI_Finalize",
                              "a delete callback of an attribute on MPI_COMM_SELF failed "
                              "(returned %d)",
                              rc);
    if (world && (rc = rt_attr_delete_all(RT_KIND_COMM, MPI_COMM_WORLD, &world->attrs)))
        return rdmpi_err_comm(MPI_COMM_SELF, rc, "MPI_Finalize",
                              "a delete callback of an attribute on MPI_COMM_WORLD failed "
                              "(returned %d)",
                              rc);
    for (int i = 0; i < RDMPI_DATATYPE_COUNT; i++) {
        MPI_Datatype t = (MPI_Datatype)(uintptr_t)(RDMPI_DATATYPE_BASE + 1 + i);

        if ((rc = rt_attr_delete_all(RT_KIND_DATATYPE, t, &rt_dt_predef[i].attrs)))
            return rdmpi_err_comm(MPI_COMM_SELF, rc, "MPI_Finalize",
                                  "a delete callback of an attribute on predefined datatype "
                                  "%s failed (returned %d)",
                                  rt_dt_predef[i].name, rc);
    }
    return MPI_SUCCESS;
}
