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
#pragma weak mpi_init_ = pmpi_init_
void pmpi_init_(MPI_Fint *ierr)
{
    ret(ierr, PMPI_Init(NULL, NULL));
}

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
#pragma weak mpi_init_thread_ = pmpi_init_thread_
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    ret(ierr, PMPI_Init_thread(NULL, NULL, *required, provided));
}

void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr);
#pragma weak mpi_info_create_env_ = pmpi_info_create_env_
void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info c = MPI_INFO_NULL;
    int rc = PMPI_Info_create_env(0, NULL, &c);

    if (rc == MPI_SUCCESS)
        *info = PMPI_Info_c2f(c);
    ret(ierr, rc);
}

void pmpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr);
#pragma weak mpi_pcontrol_ = pmpi_pcontrol_
void pmpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr)
{
    ret(ierr, PMPI_Pcontrol(*level));
}

/*
 * Attributes.  Fortran stores an INTEGER(KIND=MPI_ADDRESS_KIND) value where
 * C stores a pointer, so the value travels as the pointer.  The predefined
 * attributes are pointers to the value in C; Fortran gets the value.
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

static void get_attr(int rc, int keyval, void *v, int flag, MPI_Aint *val, MPI_Fint *fflag,
                     int win)
{
    *fflag = f_logical(flag);
    if (rc == MPI_SUCCESS && flag)
        *val = keyval >= 0 && keyval < RDMPI_KEYVAL_PREDEF_LIMIT ? predef_value(keyval, v, win)
                                                                 : (MPI_Aint)v;
}

#define ATTR(lname, Name, Handle, hconv, win)                                                     \
    void pmpi_##lname##_set_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr); \
    void pmpi_##lname##_set_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr)  \
    {                                                                                            \
        ret(ierr, PMPI_##Name##_set_attr(hconv(*h), *keyval, (void *)*val));                     \
    }                                                                                            \
    void pmpi_##lname##_get_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag,  \
                                  MPI_Fint *ierr);                                               \
    void pmpi_##lname##_get_attr_(MPI_Fint *h, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag,  \
                                  MPI_Fint *ierr)                                                \
    {                                                                                            \
        void *v = NULL;                                                                          \
        int cflag = 0;                                                                           \
        int rc = PMPI_##Name##_get_attr(hconv(*h), *keyval, &v, &cflag);                         \
        get_attr(rc, *keyval, v, cflag, val, flag, win);                                         \
        ret(ierr, rc);                                                                           \
    }

#pragma weak mpi_comm_set_attr_ = pmpi_comm_set_attr_
#pragma weak mpi_comm_get_attr_ = pmpi_comm_get_attr_
ATTR(comm, Comm, MPI_Comm, PMPI_Comm_f2c, 0)
#pragma weak mpi_type_set_attr_ = pmpi_type_set_attr_
#pragma weak mpi_type_get_attr_ = pmpi_type_get_attr_
ATTR(type, Type, MPI_Datatype, PMPI_Type_f2c, 0)
#pragma weak mpi_win_set_attr_ = pmpi_win_set_attr_
#pragma weak mpi_win_get_attr_ = pmpi_win_get_attr_
ATTR(win, Win, MPI_Win, PMPI_Win_f2c, 1)

/* The deprecated MPI_ATTR_PUT/GET hold default INTEGERs. */
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierr);
#pragma weak mpi_attr_put_ = pmpi_attr_put_
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierr)
{
    ret(ierr, PMPI_Comm_set_attr(PMPI_Comm_f2c(*comm), *keyval, (void *)(MPI_Aint)*val));
}

void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
                    MPI_Fint *ierr);
#pragma weak mpi_attr_get_ = pmpi_attr_get_
void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
                    MPI_Fint *ierr)
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
