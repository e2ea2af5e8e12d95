/* Reading and writing statuses: counts in elements of a datatype; the
 * Fortran views of a status. */
#include "datatype.h"
#include "errors.h"

#include <limits.h>
#include <string.h>

static struct rdmpi_datatype *check_dt(MPI_Datatype dt, const char *fn, int *err)
{
    struct rdmpi_datatype *d = rt_dt_get(dt);

    if (!d)
        *err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_TYPE, fn,
                              dt == MPI_DATATYPE_NULL ? "datatype is MPI_DATATYPE_NULL"
                                                      : "datatype is not a valid datatype");
    return d;
}

/* Whole elements in the status's bytes, or MPI_UNDEFINED. */
static MPI_Count count_of(const MPI_Status *s, const struct rdmpi_datatype *d)
{
    if (!d->size)
        return s->rdmpi_count ? MPI_UNDEFINED : 0;
    if (s->rdmpi_count % (MPI_Count)d->size)
        return MPI_UNDEFINED;
    return s->rdmpi_count / (MPI_Count)d->size;
}

static int get_count(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count,
                     const char *fn)
{
    struct rdmpi_datatype *d;
    int err;

    if (!status || status == MPI_STATUS_IGNORE)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "status is NULL or MPI_STATUS_IGNORE; pass a real status");
    if (!(d = check_dt(datatype, fn, &err)))
        return err;
    *count = count_of(status, d);
    return MPI_SUCCESS;
}

static int narrow(MPI_Count c, int *out, const char *fn)
{
    if (c > INT_MAX)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_VALUE_TOO_LARGE, fn,
                              "the count %lld does not fit an int; use the _c or _x version",
                              (long long)c);
    *out = (int)c;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    RT_API_ENTER();
    MPI_Count c = 0;
    int err = get_count(status, datatype, &c, "MPI_Get_count");

    if (!err && !count)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Get_count", "count is NULL");
    return err ? err : narrow(c, count, "MPI_Get_count");
}

#pragma weak MPI_Get_count_c = PMPI_Get_count_c
int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    RT_API_ENTER();
    return get_count(status, datatype, count, "MPI_Get_count_c");
}

/* Basic elements, partial copies of derived types included. */
static int get_elements(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count,
                        const char *fn)
{
    struct rdmpi_datatype *d;
    int err;

    if (!status || status == MPI_STATUS_IGNORE)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "status is NULL or MPI_STATUS_IGNORE; pass a real status");
    if (!(d = check_dt(datatype, fn, &err)))
        return err;
    if (!count)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "count is NULL");
    /* Bytes that end inside a basic element fit no prefix of the type map
     * (as a predefined type cut in the middle): MPI_UNDEFINED. */
    *count = rt_dt_elements(d, (size_t)status->rdmpi_count);
    if (rt_dt_elements_bytes(d, *count) != (size_t)status->rdmpi_count)
        *count = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    RT_API_ENTER();
    MPI_Count c = 0;
    int err = get_elements(status, datatype, count ? &c : NULL, "MPI_Get_elements");

    return err ? err : narrow(c, count, "MPI_Get_elements");
}

#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    RT_API_ENTER();
    return get_elements(status, datatype, count, "MPI_Get_elements_x");
}

#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c
int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    RT_API_ENTER();
    return get_elements(status, datatype, count, "MPI_Get_elements_c");
}

static int set_elements(MPI_Status *status, MPI_Datatype datatype, MPI_Count count, const char *fn)
{
    struct rdmpi_datatype *d;
    int err;

    if (!status || status == MPI_STATUS_IGNORE)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "status is NULL");
    if (!(d = check_dt(datatype, fn, &err)))
        return err;
    if (count < 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_COUNT, fn, "count is %lld; it must be >= 0",
                              (long long)count);
    /* count is in basic elements: store the bytes that hold them. */
    status->rdmpi_count = (MPI_Count)rt_dt_elements_bytes(d, count);
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    RT_API_ENTER();
    return set_elements(status, datatype, count, "MPI_Status_set_elements");
}

#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    RT_API_ENTER();
    return set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}

#pragma weak MPI_Status_set_elements_c = PMPI_Status_set_elements_c
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    RT_API_ENTER();
    return set_elements(status, datatype, count, "MPI_Status_set_elements_c");
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    RT_API_ENTER();
    if (!status || status == MPI_STATUS_IGNORE)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Status_set_cancelled",
                              "status is NULL");
    status->rdmpi_cancelled = flag != 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    RT_API_ENTER();
    if (!status || status == MPI_STATUS_IGNORE || !flag)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Test_cancelled", "%s is NULL",
                              flag ? "status" : "flag");
    *flag = status->rdmpi_cancelled;
    return MPI_SUCCESS;
}

/* The MPI 4.1 accessors of the public fields. */
static int status_arg(const MPI_Status *status, const char *fn)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "status is NULL or MPI_STATUS_IGNORE; pass a real status");
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_get_source = PMPI_Status_get_source
int PMPI_Status_get_source(const MPI_Status *status, int *source)
{
    RT_API_ENTER();
    int err = status_arg(status, "MPI_Status_get_source");

    if (!err && !source)
        err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Status_get_source", "source is NULL");
    if (!err)
        *source = status->MPI_SOURCE;
    return err;
}

#pragma weak MPI_Status_set_source = PMPI_Status_set_source
int PMPI_Status_set_source(MPI_Status *status, int source)
{
    RT_API_ENTER();
    int err = status_arg(status, "MPI_Status_set_source");

    if (!err)
        status->MPI_SOURCE = source;
    return err;
}

#pragma weak MPI_Status_get_tag = PMPI_Status_get_tag
int PMPI_Status_get_tag(const MPI_Status *status, int *tag)
{
    RT_API_ENTER();
    int err = status_arg(status, "MPI_Status_get_tag");

    if (!err && !tag)
        err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Status_get_tag", "tag is NULL");
    if (!err)
        *tag = status->MPI_TAG;
    return err;
}

#pragma weak MPI_Status_set_tag = PMPI_Status_set_tag
int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    RT_API_ENTER();
    int err = status_arg(status, "MPI_Status_set_tag");

    if (!err)
        status->MPI_TAG = tag;
    return err;
}

#pragma weak MPI_Status_get_error = PMPI_Status_get_error
int PMPI_Status_get_error(const MPI_Status *status, int *error)
{
    RT_API_ENTER();
    int err = status_arg(status, "MPI_Status_get_error");

    if (!err && !error)
        err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Status_get_error", "error is NULL");
    if (!err)
        *error = status->MPI_ERROR;
    return err;
}

#pragma weak MPI_Status_set_error = PMPI_Status_set_error
int PMPI_Status_set_error(MPI_Status *status, int error)
{
    RT_API_ENTER();
    int err = status_arg(status, "MPI_Status_set_error");

    if (!err)
        status->MPI_ERROR = error;
    return err;
}

/* The size of a type. */
static int type_size(MPI_Datatype datatype, MPI_Count *size, const char *fn)
{
    struct rdmpi_datatype *d;
    int err;

    if (!(d = check_dt(datatype, fn, &err)))
        return err;
    if (!size)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "size is NULL");
    *size = (MPI_Count)d->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    RT_API_ENTER();
    MPI_Count c = 0;
    int err = type_size(datatype, &c, "MPI_Type_size");

    if (err)
        return err;
    *size = c > INT_MAX ? MPI_UNDEFINED : (int)c;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    RT_API_ENTER();
    return type_size(datatype, size, "MPI_Type_size_x");
}

#pragma weak MPI_Type_size_c = PMPI_Type_size_c
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    RT_API_ENTER();
    return type_size(datatype, size, "MPI_Type_size_c");
}

/* The Fortran and Fortran 2008 views of a status hold the same bytes as
 * MPI_Status (mpi.h), so converting is copying. MPI_STATUS_IGNORE has no
 * such view: passing it (or an ignore constant of the other side) is an
 * error. */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a status and its Fortran view differ in size");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status),
               "a status and its Fortran 2008 view differ in size");

static int convert(const void *from, void *to, const char *fn, const char *from_name,
                   const char *to_name)
{
    if (!from || !to)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "%s is NULL or an ignore constant; pass a real status",
                              !from ? from_name : to_name);
    memmove(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_c2f = PMPI_Status_c2f
int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    RT_API_ENTER();
    return convert(c_status, f_status, "MPI_Status_c2f", "c_status", "f_status");
}

#pragma weak MPI_Status_f2c = PMPI_Status_f2c
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    RT_API_ENTER();
    return convert(f_status, c_status, "MPI_Status_f2c", "f_status", "c_status");
}

#pragma weak MPI_Status_c2f08 = PMPI_Status_c2f08
int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    RT_API_ENTER();
    return convert(c_status, f08_status, "MPI_Status_c2f08", "c_status", "f08_status");
}

#pragma weak MPI_Status_f082c = PMPI_Status_f082c
int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    RT_API_ENTER();
    return convert(f08_status, c_status, "MPI_Status_f082c", "f08_status", "c_status");
}

#pragma weak MPI_Status_f2f08 = PMPI_Status_f2f08
int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    RT_API_ENTER();
    return convert(f_status, f08_status, "MPI_Status_f2f08", "f_status", "f08_status");
}

#pragma weak MPI_Status_f082f = PMPI_Status_f082f
int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    RT_API_ENTER();
    return convert(f08_status, f_status, "MPI_Status_f082f", "f08_status", "f_status");
}
