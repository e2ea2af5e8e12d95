/* Argument checks shared by the datatype functions. */
#ifndef RT_DT_API_H
#define RT_DT_API_H

#include "datatype.h"
#include "errors.h"

#include <stdbool.h>

#define DT_ERR(cls, fn, ...) rdmpi_err_comm(MPI_COMM_SELF, cls, fn, __VA_ARGS__)

/* A live type (predefined or derived, committed or not). */
static inline int dt_arg(MPI_Datatype h, const char *fn, const char *arg, struct rdmpi_datatype **d)
{
    if ((*d = rt_dt_get(h)))
        return MPI_SUCCESS;
    return DT_ERR(MPI_ERR_TYPE, fn, "%s is %s", arg,
                  h == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL; pass a valid datatype"
                                         : "not a valid datatype (freed?)");
}

static inline int dt_ptr(const void *p, const char *fn, const char *arg)
{
    return p ? MPI_SUCCESS : DT_ERR(MPI_ERR_ARG, fn, "%s is NULL; pass a valid pointer", arg);
}

static inline int dt_count(MPI_Count c, const char *fn, const char *arg)
{
    return c >= 0 ? MPI_SUCCESS
                  : DT_ERR(MPI_ERR_COUNT, fn, "%s is %lld; it must be >= 0", arg, (long long)c);
}

#endif
