/*
 * Procedures written in Fortran that C calls: user reduction functions,
 * attribute copy/delete functions and error handlers; and the Fortran forms
 * of the predefined callbacks (MPI_COMM_DUP_FN, ...).  A C trampoline
 * converts the handles and calls the Fortran procedure with Fortran's
 * arguments (all by reference).
 */
#include <pthread.h>
#include <stdio.h>

#include "f_glue.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void ret(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = rc;
}

/*
 * User reduction functions.  C calls (invec, inoutvec, len, datatype) with
 * no user state, so each Fortran function gets a trampoline of its own from
 * a fixed set; MPI_Op_free returns it.  Slot i has a trampoline for each
 * kind of len: int (MPI_Op_create) and MPI_Count (MPI_Op_create_c).
 */
typedef void(f_user_fn)(void *in, void *inout, MPI_Fint *len, MPI_Fint *datatype);
typedef void(f_user_fn_c)(void *in, void *inout, MPI_Count *len, MPI_Fint *datatype);
#define F_OPS 64
static struct {
    void (*fn)(void);
    MPI_Fint op;
} ops[F_OPS];

static void call_op(int i, void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Fint fdt = PMPI_Type_c2f(*dt);
    ((f_user_fn *)ops[i].fn)(in, inout, len, &fdt);
}

static void call_op_c(int i, void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    MPI_Fint fdt = PMPI_Type_c2f(*dt);
    ((f_user_fn_c *)ops[i].fn)(in, inout, len, &fdt);
}

#define T(i, j)                                                                                    \
    static void op_##i##_##j(void *in, void *inout, int *len, MPI_Datatype *dt)                    \
    {                                                                                              \
        call_op(8 * i + j, in, inout, len, dt);                                                    \
    }                                                                                              \
    static void opc_##i##_##j(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)             \
    {                                                                                              \
        call_op_c(8 * i + j, in, inout, len, dt);                                                  \
    }
#define T8(i) T(i, 0) T(i, 1) T(i, 2) T(i, 3) T(i, 4) T(i, 5) T(i, 6) T(i, 7)
/* The expansions are not statements clang-format can lay out. */
/* clang-format off */
T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7)
#define P8(p, i) p##i##_0, p##i##_1, p##i##_2, p##i##_3, p##i##_4, p##i##_5, p##i##_6, p##i##_7
static MPI_User_function *const op_tramp[F_OPS] = {P8(op_, 0), P8(op_, 1), P8(op_, 2),
                                                   P8(op_, 3), P8(op_, 4), P8(op_, 5),
                                                   P8(op_, 6), P8(op_, 7)};
/* clang-format on */
static MPI_User_function_c *const opc_tramp[F_OPS] = {P8(opc_, 0), P8(opc_, 1), P8(opc_, 2),
                                                      P8(opc_, 3), P8(opc_, 4), P8(opc_, 5),
                                                      P8(opc_, 6), P8(opc_, 7)};

static void op_create(void (*fn)(void), int large, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    const char *name = large ? "MPI_Op_create_c" : "MPI_Op_create";
    int i, rc;
    MPI_Op c = MPI_OP_NULL;

    pthread_mutex_lock(&lock);
    for (i = 0; i < F_OPS && ops[i].fn; i++)
        ;
    if (i == F_OPS) {
        pthread_mutex_unlock(&lock);
        fprintf(stderr,
                "rdmpi: %s: more than %d Fortran user operations exist at "
                "once; free some with MPI_Op_free\n",
                name, F_OPS);
        rc = MPI_ERR_INTERN;
        PMPI_Comm_call_errhandler(MPI_COMM_SELF, rc);
        ret(ierr, rc);
        return;
    }
    ops[i].fn = fn;
    rc = large ? PMPI_Op_create_c(opc_tramp[i], *commute != 0, &c)
               : PMPI_Op_create(op_tramp[i], *commute != 0, &c);
    if (rc == MPI_SUCCESS)
        ops[i].op = *op = PMPI_Op_c2f(c);
    else
        ops[i].fn = NULL;
    pthread_mutex_unlock(&lock);
    ret(ierr, rc);
}

void pmpi_op_create_(void (*fn)(void), MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr);
F_ALIASES(op_create)
void pmpi_op_create_(void (*fn)(void), MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    op_create(fn, 0, commute, op, ierr);
}

/* mpi_f08 only: MPI_User_function_c takes INTEGER(KIND=MPI_COUNT_KIND) len. */
void pmpi_op_create_c_(void (*fn)(void), MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr);
F_ALIASES(op_create_c)
void pmpi_op_create_c_(void (*fn)(void), MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    op_create(fn, 1, commute, op, ierr);
}

void pmpi_op_free_(MPI_Fint *op, MPI_Fint *ierr);
F_ALIASES(op_free)
void pmpi_op_free_(MPI_Fint *op, MPI_Fint *ierr)
{
    MPI_Fint f = *op;
    MPI_Op c = PMPI_Op_f2c(f);
    int rc = PMPI_Op_free(&c);

    if (rc == MPI_SUCCESS) {
        pthread_mutex_lock(&lock);
        for (int i = 0; i < F_OPS; i++)
            if (ops[i].fn && ops[i].op == f)
                ops[i].fn = NULL;
        pthread_mutex_unlock(&lock);
        *op = PMPI_Op_c2f(c);
    }
    ret(ierr, rc);
}

/*
 * Attribute callbacks.  The keyval's extra_state is a record holding the
 * Fortran procedures and the user's extra_state.  Records live as long as
 * the process (reachable from keyvals): attributes of a freed keyval may
 * still be copied or deleted, up to the library's own teardown.
 */
typedef void(f_copy_fn)(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                        MPI_Fint *flag, MPI_Fint *ierr);
typedef void(f_delete_fn)(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra,
                          MPI_Fint *ierr);
/* The deprecated MPI_KEYVAL_CREATE's callbacks take default INTEGERs. */
typedef void(f_copy_fn_i)(MPI_Fint *h, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in,
                          MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void(f_delete_fn_i)(MPI_Fint *h, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *extra,
                            MPI_Fint *ierr);

struct f_keyval {
    struct f_keyval *next;
    void (*copy)(void);
    void (*del)(void);
    MPI_Aint extra;
    int ints;
};
static struct f_keyval *keyvals;

static struct f_keyval *new_keyval(void (*copy)(void), void (*del)(void), MPI_Aint extra, int ints)
{
    struct f_keyval *k = malloc(sizeof *k);

    if (!k)
        return NULL;
    *k = (struct f_keyval){NULL, copy, del, extra, ints};
    pthread_mutex_lock(&lock);
    k->next = keyvals;
    keyvals = k;
    pthread_mutex_unlock(&lock);
    return k;
}

/* The Fortran view of an attribute value: a cell's value (set from
 * Fortran), or the pointer C set. */
static MPI_Aint f_value(void *v)
{
    MPI_Aint a;

    return f_attr_cell_value(v, &a) ? a : (MPI_Aint)v;
}

static int copy_attr(MPI_Fint h, int keyval, struct f_keyval *k, void *in, void *out, int *flag)
{
    MPI_Fint fkey = keyval, fflag = 0, ierr = MPI_SUCCESS;
    MPI_Aint vout = 0;

    if (k->ints) {
        MPI_Fint ex = (MPI_Fint)k->extra, vin = (MPI_Fint)f_value(in), iout = 0;
        ((f_copy_fn_i *)k->copy)(&h, &fkey, &ex, &vin, &iout, &fflag, &ierr);
        vout = iout;
    } else {
        MPI_Aint vin = f_value(in);
        ((f_copy_fn *)k->copy)(&h, &fkey, &k->extra, &vin, &vout, &fflag, &ierr);
    }
    *flag = fflag != 0;
    if (*flag && ierr == MPI_SUCCESS) {
        void *cell = f_attr_cell(vout);
        if (!cell)
            return MPI_ERR_NO_MEM;
        *(void **)out = cell;
    }
    return ierr;
}

/* The cell dies with the attribute, whatever the Fortran procedure says. */
static int delete_attr(MPI_Fint h, int keyval, struct f_keyval *k, void *val)
{
    MPI_Fint fkey = keyval, ierr = MPI_SUCCESS;

    if (k->ints) {
        MPI_Fint ex = (MPI_Fint)k->extra, v = (MPI_Fint)f_value(val);
        ((f_delete_fn_i *)k->del)(&h, &fkey, &v, &ex, &ierr);
    } else {
        MPI_Aint v = f_value(val);
        ((f_delete_fn *)k->del)(&h, &fkey, &v, &k->extra, &ierr);
    }
    if (ierr == MPI_SUCCESS)
        f_attr_cell_free(val);
    return ierr;
}

#define KEYVAL(lname, Name, Type, c2f, fname, ints, xtype)                                         \
    static int lname##_copy(Type old, int keyval, void *extra, void *in, void *out, int *flag)     \
    {                                                                                              \
        return copy_attr(c2f(old), keyval, extra, in, out, flag);                                  \
    }                                                                                              \
    static int lname##_delete(Type h, int keyval, void *val, void *extra)                          \
    {                                                                                              \
        return delete_attr(c2f(h), keyval, extra, val);                                            \
    }                                                                                              \
    void p##fname##_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, xtype *extra,        \
                     MPI_Fint *ierr);                                                              \
    void p##fname##_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, xtype *extra,        \
                     MPI_Fint *ierr)                                                               \
    {                                                                                              \
        struct f_keyval *k = new_keyval(copy, del, (MPI_Aint)*extra, ints);                        \
        int rc = k ? PMPI_##Name##_create_keyval(lname##_copy, lname##_delete, keyval, k)          \
                   : MPI_ERR_NO_MEM;                                                               \
        ret(ierr, rc);                                                                             \
    }

F_ALIASES(comm_create_keyval)
KEYVAL(comm, Comm, MPI_Comm, PMPI_Comm_c2f, mpi_comm_create_keyval, 0, MPI_Aint)
F_ALIASES(type_create_keyval)
KEYVAL(type, Type, MPI_Datatype, PMPI_Type_c2f, mpi_type_create_keyval, 0, MPI_Aint)
F_ALIASES(win_create_keyval)
KEYVAL(win, Win, MPI_Win, PMPI_Win_c2f, mpi_win_create_keyval, 0, MPI_Aint)
F_ALIASES(keyval_create)
KEYVAL(keyval, Comm, MPI_Comm, PMPI_Comm_c2f, mpi_keyval_create, 1, MPI_Fint)

/* The predefined callbacks as Fortran procedures. */
#define PREDEF_COPY(fname, vtype, dup)                                                             \
    void fname(MPI_Fint *h, MPI_Fint *keyval, vtype *extra, vtype *in, vtype *out, MPI_Fint *flag, \
               MPI_Fint *ierr);                                                                    \
    void fname(MPI_Fint *h, MPI_Fint *keyval, vtype *extra, vtype *in, vtype *out, MPI_Fint *flag, \
               MPI_Fint *ierr)                                                                     \
    {                                                                                              \
        (void)h, (void)keyval, (void)extra;                                                        \
        if (dup)                                                                                   \
            *out = *in;                                                                            \
        *flag = dup;                                                                               \
        *ierr = MPI_SUCCESS;                                                                       \
    }
#define PREDEF_DELETE(fname, vtype)                                                                \
    void fname(MPI_Fint *h, MPI_Fint *keyval, vtype *val, vtype *extra, MPI_Fint *ierr);           \
    void fname(MPI_Fint *h, MPI_Fint *keyval, vtype *val, vtype *extra, MPI_Fint *ierr)            \
    {                                                                                              \
        (void)h, (void)keyval, (void)val, (void)extra;                                             \
        *ierr = MPI_SUCCESS;                                                                       \
    }
PREDEF_COPY(mpi_comm_null_copy_fn_, MPI_Aint, 0)
PREDEF_COPY(mpi_comm_dup_fn_, MPI_Aint, 1)
PREDEF_DELETE(mpi_comm_null_delete_fn_, MPI_Aint)
PREDEF_COPY(mpi_type_null_copy_fn_, MPI_Aint, 0)
PREDEF_COPY(mpi_type_dup_fn_, MPI_Aint, 1)
PREDEF_DELETE(mpi_type_null_delete_fn_, MPI_Aint)
PREDEF_COPY(mpi_win_null_copy_fn_, MPI_Aint, 0)
PREDEF_COPY(mpi_win_dup_fn_, MPI_Aint, 1)
PREDEF_DELETE(mpi_win_null_delete_fn_, MPI_Aint)
PREDEF_COPY(mpi_null_copy_fn_, MPI_Fint, 0)
PREDEF_COPY(mpi_dup_fn_, MPI_Fint, 1)
PREDEF_DELETE(mpi_null_delete_fn_, MPI_Fint)

/*
 * Error handlers.  C calls (handle *, code *) with no user state; the
 * trampoline asks the object for its error handler and looks up the Fortran
 * procedure registered for that handler's Fortran handle.
 */
typedef void(f_eh_fn)(MPI_Fint *h, MPI_Fint *code);
static struct eh {
    MPI_Fint eh;
    f_eh_fn *fn;
} * ehs;
static int n_ehs;

static f_eh_fn *eh_lookup(MPI_Errhandler eh)
{
    MPI_Fint f = PMPI_Errhandler_c2f(eh);
    f_eh_fn *fn = NULL;

    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_ehs; i++)
        if (ehs[i].eh == f)
            fn = ehs[i].fn;
    pthread_mutex_unlock(&lock);
    return fn;
}

static int eh_register(MPI_Fint eh, f_eh_fn *fn)
{
    int rc = MPI_SUCCESS;

    pthread_mutex_lock(&lock);
    int i;
    for (i = 0; i < n_ehs && ehs[i].eh != eh; i++)
        ;
    if (i == n_ehs) {
        struct eh *n = realloc(ehs, sizeof *ehs * (size_t)(n_ehs + 1));
        if (n) {
            ehs = n;
            n_ehs++;
        } else {
            rc = MPI_ERR_NO_MEM;
        }
    }
    if (rc == MPI_SUCCESS)
        ehs[i] = (struct eh){eh, fn};
    pthread_mutex_unlock(&lock);
    return rc;
}

#define ERRHANDLER(lname, Name, Type)                                                              \
    static void lname##_eh(Type *h, int *code, ...)                                                \
    {                                                                                              \
        MPI_Errhandler eh = MPI_ERRHANDLER_NULL;                                                   \
        MPI_Fint fh = PMPI_##Name##_c2f(*h), fcode = *code;                                        \
        if (PMPI_##Name##_get_errhandler(*h, &eh) != MPI_SUCCESS)                                  \
            return;                                                                                \
        f_eh_fn *fn = eh_lookup(eh);                                                               \
        PMPI_Errhandler_free(&eh);                                                                 \
        if (fn)                                                                                    \
            fn(&fh, &fcode);                                                                       \
    }                                                                                              \
    void pmpi_##lname##_create_errhandler_(f_eh_fn *fn, MPI_Fint *errhandler, MPI_Fint *ierr);     \
    void pmpi_##lname##_create_errhandler_(f_eh_fn *fn, MPI_Fint *errhandler, MPI_Fint *ierr)      \
    {                                                                                              \
        MPI_Errhandler c = MPI_ERRHANDLER_NULL;                                                    \
        int rc = PMPI_##Name##_create_errhandler(lname##_eh, &c);                                  \
        if (rc == MPI_SUCCESS) {                                                                   \
            *errhandler = PMPI_Errhandler_c2f(c);                                                  \
            rc = eh_register(*errhandler, fn);                                                     \
        }                                                                                          \
        ret(ierr, rc);                                                                             \
    }

F_ALIASES(comm_create_errhandler)
ERRHANDLER(comm, Comm, MPI_Comm)
F_ALIASES(win_create_errhandler)
ERRHANDLER(win, Win, MPI_Win)
F_ALIASES(file_create_errhandler)
ERRHANDLER(file, File, MPI_File)
F_ALIASES(session_create_errhandler)
ERRHANDLER(session, Session, MPI_Session)
