/* Attribute caching on communicators, datatypes and windows (MPI-4.1 7.7).
 * Each object keeps a list head (`struct rt_attr *attrs`, NULL when empty);
 * this layer owns the keyvals and runs the copy and delete callbacks. */
#ifndef RT_ATTR_H
#define RT_ATTR_H

struct rt_attr;

/*
 * Copies src's attributes to a new object (MPI_Comm_dup, MPI_Type_dup):
 * each keyval's copy callback runs, in the order the attributes were set,
 * with old_handle (the handle the user holds, e.g. c->handle); those that
 * set their flag are cached on *dst under new_handle.  kind is
 * RT_KIND_COMM, RT_KIND_DATATYPE or RT_KIND_WIN.
 *
 * Returns MPI_SUCCESS or the failing callback's code (MPI_ERR_NO_MEM if a
 * copy cannot be stored).  On failure the attributes already copied are
 * deleted again (their delete callbacks run on new_handle) and *dst is
 * NULL.  No error handler runs: the caller raises the code on the old
 * object, e.g. rdmpi_err_comm(comm, rc, "MPI_Comm_dup", "...").
 */
int rt_attr_copy(int kind, void *old_handle, struct rt_attr *src, void *new_handle,
                 struct rt_attr **dst);

/*
 * Deletes every attribute of an object being freed, running the delete
 * callbacks in the reverse order of setting (MPI-4.1 11.2.4 asks this of
 * MPI_COMM_SELF; we use it everywhere).  Returns MPI_SUCCESS, or the first
 * failing callback's code, without calling an error handler; the failing
 * attribute and those after it stay cached, so the caller must not free
 * the object and raises the code instead (MPICH does the same).
 */
int rt_attr_delete_all(int kind, void *handle, struct rt_attr **list);

/* MPI_Finalize's first step: deletes the attributes of MPI_COMM_SELF (the
 * standard's hook for user cleanup), then those of MPI_COMM_WORLD and of
 * the predefined datatypes.  Errors go through MPI_COMM_SELF's handler. */
int rt_attr_finalize(void);

/* ---- For the MPI functions of attr_api.c ---- */

typedef void (*rt_attr_fn)(void); /* a callback, cast back by kind */

/* A new keyval for objects of `kind`; MPI_SUCCESS or MPI_ERR_NO_MEM. */
int rt_keyval_create(int kind, rt_attr_fn copy, rt_attr_fn del, void *extra, int *keyval);
/* NULL if `keyval` is a live user keyval of `kind`, else why it is not
 * (the error class is then MPI_ERR_KEYVAL).  Predefined keyvals are the
 * caller's business. */
const char *rt_keyval_check(int kind, int keyval);
/* The same, but a keyval the user freed passes while attributes still use
 * it: MPI-4.1 7.7.2 has those freed "via calls to MPI_COMM_DELETE_ATTR",
 * so delete, get and a repeated free still name it. */
const char *rt_keyval_check_held(int kind, int keyval);
/* MPI_*_free_keyval on a checked keyval: the keyval itself goes once the
 * last attribute using it is deleted; freeing it again meanwhile does
 * nothing. */
void rt_keyval_free(int keyval);

/* Set replaces (after the old value's delete callback succeeds), delete
 * removes if present; both return MPI_SUCCESS, the callback's code or
 * MPI_ERR_NO_MEM.  Find returns 1 and the value if the key is set. */
int rt_attr_set(int kind, void *handle, struct rt_attr **list, int keyval, void *value);
int rt_attr_delete(int kind, void *handle, struct rt_attr **list, int keyval);
int rt_attr_find(const struct rt_attr *list, int keyval, void **value);

#endif
