/* The functions whose Fortran form the generator cannot derive from the C
 * prototype (fortran/api.txt lists them as special): no argc/argv, and
 * attribute values that Fortran holds as integers. */
#include "f_glue.h"

static void ret(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = rc;
}

void pmpi_init_(MPI_Fint *ierr);
F_ALIASES(init)
void pmpi_init_(MPI_Fint *ierr)
{
    ret(ierr, PMPI_Init(NULL, NULL));
}

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
F_ALIASES(init_thread)
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    ret(ierr, PMPI_Init_thread(NULL, NULL, *required, provided));
}

void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr);
F_ALIASES(info_create_env)
void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info c = MPI_INFO_NULL;
    int rc = PMPI_Info_create_env(0, NULL, &c);

    if (rc == MPI_SUCCESS)
        *info = PMPI_Info_c2f(c);
    ret(ierr, rc);
}

void pmpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr);
F_ALIASES(pcontrol)
void pmpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr)
{
    ret(ierr, PMPI_Pcontrol(*level));
}

/*
 * Attributes.  Fortran sets an INTEGER(KIND=MPI_ADDRESS_KIND) value; C must
 * then read a pointer to it (MPI-4.1 section 19.3.7), so the value goes into
 * a cell whose address is what C stores.  Reading in Fortran undoes either
 * form: a cell gives its value, a pointer set from C its address, and a
 * predefined attribute (a pointer to the value in C) its value.
 */
static MPI_Aint predef_value(int keyval, void *v, int win)
{
    if (!win || keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR ||
        keyval == MPI_WIN_MODEL)
        return *(int *)v;
    if (keyval == MPI_WIN_SIZE)
        return *(MPI_Aint *)v;
    return (MPI_Aint)v; /* MPI_WIN_BASE is the address itself */
}

static void get_attr(int rc, int keyval, void *v, int flag, MPI_Aint *val, MPI_Fint *fflag, int win)
{
    *fflag = f_logical(flag);
    if (rc != MPI_SUCCESS || !flag)
        return;
    if (keyval >= 0 && keyval < RDMPI_KEYVAL_PREDEF_LIMIT)
        *val = predef_value(keyval, v, win);
    else if (!f_attr_cell_value(v, val))
        *val = (MPI_Aint)v;
}

static int set_attr(int (*set)(void *h, int keyval, void *v), void *h, int keyval, MPI_Aint val)
{
    void *cell = f_attr_cell(val);
    int rc = cell ? set(h, keyval, cell) : MPI_ERR_NO_MEM;

    if (rc != MPI_SUCCESS)
        f_attr_cell_free(cell);
    return rc;
}

#define ATTR(lname, Name, Handle, hconv, win)                                                      \
    static int lname##_set(void *h, int keyval, void *v)                                           \
    {                                                                                              \
        return PMPI_##Name##_set_attr(*(Handle *)h, keyval, v);                                    \
    }                                                                                              \
    void pmpi_##lname##_set_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr);   \
    void pmpi_##lname##_set_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr)    \
    {                                                                                              \
        Handle c = hconv(*h);                                                                      \
        ret(ierr, set_attr(lname##_set, &c, *keyval, *val));                                       \
    }                                                                                              \
    void pmpi_##lname##_get_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag,    \
                                  MPI_Fint *ierr);                                                 \
    void pmpi_##lname##_get_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag,    \
                                  MPI_Fint *ierr)                                                  \
    {                                                                                              \
        void *v = NULL;                                                                            \
        int cflag = 0;                                                                             \
        int rc = PMPI_##Name##_get_attr(hconv(*h), *keyval, &v, &cflag);                           \
        get_attr(rc, *keyval, v, cflag, val, flag, win);                                           \
        ret(ierr, rc);                                                                             \
    }

F_ALIASES(comm_set_attr)
F_ALIASES(comm_get_attr)
ATTR(comm, Comm, MPI_Comm, PMPI_Comm_f2c, 0)
F_ALIASES(type_set_attr)
F_ALIASES(type_get_attr)
ATTR(type, Type, MPI_Datatype, PMPI_Type_f2c, 0)
F_ALIASES(win_set_attr)
F_ALIASES(win_get_attr)
ATTR(win, Win, MPI_Win, PMPI_Win_f2c, 1)

/* The deprecated MPI_ATTR_PUT/GET hold default INTEGERs. */
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierr);
F_ALIASES(attr_put)
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierr)
{
    MPI_Comm c = PMPI_Comm_f2c(*comm);
    ret(ierr, set_attr(comm_set, &c, *keyval, *val));
}

void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
                    MPI_Fint *ierr);
F_ALIASES(attr_get)
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag, MPI_Fint *ierr)
{
    void *v = NULL;
    int cflag = 0;
    MPI_Aint a = 0;
    int rc = PMPI_Comm_get_attr(PMPI_Comm_f2c(*comm), *keyval, &v, &cflag);

    get_attr(rc, *keyval, v, cflag, &a, flag, 0);
    if (rc == MPI_SUCCESS && cflag)
        *val = (MPI_Fint)a;
    ret(ierr, rc);
}

/* MPI_F_SYNC_REG does nothing: being an external call that receives the
 * buffer is what stops the compiler keeping it in registers across MPI
 * calls it cannot see. */
void pmpi_f_sync_reg_(void *buf);
#pragma weak mpi_f_sync_reg_ = pmpi_f_sync_reg_
void pmpi_f_sync_reg_(void *buf)
{
    (void)buf;
}

void rdmpi_f08_f_sync_reg(CFI_cdesc_t *buf);
void rdmpi_f08_f_sync_reg(CFI_cdesc_t *buf)
{
    (void)buf;
}

/* In Fortran, buflen is the value's length without a NUL, and a zero buflen
 * or a key not found leaves value as it was. */
void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,
                           MPI_Fint *ierr, size_t key_len, size_t value_len);
F_ALIASES(info_get_string)
void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,
                           MPI_Fint *ierr, size_t key_len, size_t value_len)
{
    MPI_Info c = PMPI_Info_f2c(*info);
    char *c_key = f_str_in(key, key_len, 1), *tmp = NULL;
    int need = 0, cflag = 0;
    int rc = PMPI_Info_get_string(c, c_key, &need, NULL, &cflag);

    if (rc == MPI_SUCCESS && cflag && *buflen > 0) {
        tmp = malloc((size_t)need);
        rc = tmp ? PMPI_Info_get_string(c, c_key, &need, tmp, &cflag) : MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS) {
            size_t n = strlen(tmp);
            if (n > (size_t)*buflen)
                n = (size_t)*buflen;
            tmp[n] = '\0';
            f_str_out(value, value_len, tmp);
        }
    }
    if (rc == MPI_SUCCESS) {
        *flag = f_logical(cflag);
        if (cflag)
            *buflen = need - 1;
    }
    free(tmp);
    free(c_key);
    ret(ierr, rc);
}

/* The status conversions between the mpi and mpi_f08 views (mpi_f08 only:
 * the mpi module has no TYPE(MPI_Status)); both hold six INTEGERs. */
void pmpi_status_f2f08_(MPI_Fint *f_status, MPI_Fint *f08_status, MPI_Fint *ierr);
#pragma weak mpi_status_f2f08_ = pmpi_status_f2f08_
void pmpi_status_f2f08_(MPI_Fint *f_status, MPI_Fint *f08_status, MPI_Fint *ierr)
{
    ret(ierr, PMPI_Status_f2f08(f_status, (MPI_F08_status *)f08_status));
}

void pmpi_status_f082f_(MPI_Fint *f08_status, MPI_Fint *f_status, MPI_Fint *ierr);
#pragma weak mpi_status_f082f_ = pmpi_status_f082f_
void pmpi_status_f082f_(MPI_Fint *f08_status, MPI_Fint *f_status, MPI_Fint *ierr)
{
    ret(ierr, PMPI_Status_f082f((MPI_F08_status *)f08_status, f_status));
}
