/*
 * The predefined attribute callbacks and null datarep conversions.
 *
 * They are real functions rather than null or magic pointers so that a user
 * can pass them, compare them and take their address like any callback; the
 * library recognizes the NULL ones by address.  Each touches nothing but its
 * arguments.
 */
#include "mpi.h"

/* The standard fixes these signatures; most callbacks ignore most of them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Tell MPI not to copy the attribute to the new object. */
static int null_copy(int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

/* Copy the attribute value itself, which is a pointer-sized value. */
static int dup_copy(void *attribute_val_in, void *attribute_val_out, int *flag)
{
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                          void *attribute_val_in, void *attribute_val_out, int *flag)
{
    return null_copy(flag);
}

int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag)
{
    return dup_copy(attribute_val_in, attribute_val_out, flag);
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state)
{
    return MPI_SUCCESS;
}

int MPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                          void *attribute_val_in, void *attribute_val_out, int *flag)
{
    return null_copy(flag);
}

int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                    void *attribute_val_in, void *attribute_val_out, int *flag)
{
    return dup_copy(attribute_val_in, attribute_val_out, flag);
}

int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                            void *extra_state)
{
    return MPI_SUCCESS;
}

int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                         void *attribute_val_out, int *flag)
{
    return null_copy(flag);
}

int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                   void *attribute_val_out, int *flag)
{
    return dup_copy(attribute_val_in, attribute_val_out, flag);
}

int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state)
{
    return MPI_SUCCESS;
}

int MPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                     void *attribute_val_out, int *flag)
{
    return null_copy(flag);
}

int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
               void *attribute_val_out, int *flag)
{
    return dup_copy(attribute_val_in, attribute_val_out, flag);
}

int MPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state)
{
    return MPI_SUCCESS;
}

/*
 * The library never calls the null conversions: their address means "no
 * conversion".  Called directly they cannot tell reading from writing, so
 * they convert nothing and say so rather than report a success.
 */
int MPI_CONVERSION_FN_NULL(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                           MPI_Offset position, void *extra_state)
{
    return MPI_ERR_CONVERSION;
}

int MPI_CONVERSION_FN_NULL_C(void *userbuf, MPI_Datatype datatype, MPI_Count count, void *filebuf,
                             MPI_Offset position, void *extra_state)
{
    return MPI_ERR_CONVERSION;
}
