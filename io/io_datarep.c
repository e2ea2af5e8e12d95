/* User data representations (MPI_Register_datarep): a name, conversion
 * functions each way and the file extent of each predefined type. As for
 * external32, a view keeps its displacements only when every predefined
 * type in the types involved has the same extent in the file as in memory;
 * representations that change extents are refused at MPI_File_set_view
 * with MPI_ERR_UNSUPPORTED_DATAREP. Registrations last to MPI_Finalize. */
#include "io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct io_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *rd, *wr;
    MPI_Datarep_conversion_function_c *rd_c, *wr_c;
    MPI_Datarep_extent_function *extent;
    void *extra;
    struct io_datarep *next;
};

static struct io_datarep *reps;

const struct io_datarep *io_datarep_find(const char *name)
{
    for (struct io_datarep *r = reps; r; r = r->next)
        if (!strcmp(r->name, name))
            return r;
    return NULL;
}

int io_datarep_ok(const struct io_datarep *r, const struct rdmpi_datatype *dt)
{
    MPI_Aint ext = 0;

    if (dt->flags & RT_DT_PREDEF)
        return r->extent(rt_dt_handle((struct rdmpi_datatype *)dt), &ext, r->extra) ==
                   MPI_SUCCESS &&
               ext == dt->extent;
    for (size_t i = 0; i < dt->nkids; i++)
        if (!io_datarep_ok(r, dt->kids[i].dt))
            return 0;
    return 1;
}

/* Calls the conversion function (int or MPI_Count form) for `items`
 * predefined items; 0 or MPI_ERR_CONVERSION. */
static int convert(const struct io_datarep *r, int write, void *user, struct rdmpi_datatype *dt,
                   MPI_Count items, void *file)
{
    MPI_Datatype h = rt_dt_handle(dt);
    int rc;

    if (r->rd_c || r->wr_c)
        rc = (write ? r->wr_c : r->rd_c)(user, h, items, file, 0, r->extra);
    else if (items > INT32_MAX)
        return MPI_ERR_CONVERSION;
    else
        rc = (write ? r->wr : r->rd)(user, h, (int)items, file, 0, r->extra);
    return rc == MPI_SUCCESS ? 0 : MPI_ERR_CONVERSION;
}

static int converts(const struct io_datarep *r, int write)
{
    if (r->rd_c || r->wr_c)
        return (write ? r->wr_c : r->rd_c) != MPI_CONVERSION_FN_NULL_C &&
               (write ? r->wr_c : r->rd_c) != NULL;
    return (write ? r->wr : r->rd) != MPI_CONVERSION_FN_NULL && (write ? r->wr : r->rd) != NULL;
}

int io_datarep_move(struct io_file *f, MPI_Offset pos, void *buf, size_t count,
                    struct rdmpi_datatype *dt, int write, int coll, size_t *moved, int *conv)
{
    struct rdmpi_datatype *byte = rt_dt_get(MPI_BYTE);
    const struct io_datarep *r = f->rep;
    size_t n = count * dt->size;
    char *tmp;
    int e;

    *conv = 0;
    if (!converts(r, write))
        return io_move(f, pos, buf, count, dt, write, coll, moved);
    if (!(tmp = malloc(n + 1)))
        return ENOMEM;
    /* A failed write conversion writes nothing, but still takes part in
     * a collective write's exchange. */
    if (write && (*conv = convert(r, 1, buf, dt, (MPI_Count)(count * dt->nbasic), tmp)))
        n = 0;
    e = io_move(f, pos, tmp, n, byte, write, coll, moved);
    if (!write && !e)
        *conv = convert(r, 0, buf, dt, rt_dt_elements(dt, *moved), tmp);
    free(tmp);
    return e;
}

static int reg(const char *datarep, MPI_Datarep_conversion_function *rd,
               MPI_Datarep_conversion_function *wr, MPI_Datarep_conversion_function_c *rd_c,
               MPI_Datarep_conversion_function_c *wr_c, MPI_Datarep_extent_function *extent,
               void *extra, const char *fn)
{
    struct io_datarep *r;

    RT_CHECK_INIT(fn);
    if (!datarep || !extent)
        return rdmpi_err_file(MPI_FILE_NULL, MPI_ERR_ARG, fn, "%s is NULL",
                              datarep ? "dtype_file_extent_fn" : "datarep");
    if (strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return rdmpi_err_file(MPI_FILE_NULL, MPI_ERR_ARG, fn,
                              "datarep is longer than "
                              "MPI_MAX_DATAREP_STRING - 1 (%d) characters",
                              MPI_MAX_DATAREP_STRING - 1);
    if (!strcmp(datarep, "native") || !strcmp(datarep, "internal") ||
        !strcmp(datarep, "external32") || io_datarep_find(datarep))
        return rdmpi_err_file(MPI_FILE_NULL, MPI_ERR_DUP_DATAREP, fn,
                              "datarep \"%s\" is "
                              "already defined",
                              datarep);
    if (!(r = calloc(1, sizeof(*r))))
        return rdmpi_err_file(MPI_FILE_NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    strcpy(r->name, datarep);
    r->rd = rd;
    r->wr = wr;
    r->rd_c = rd_c;
    r->wr_c = wr_c;
    r->extent = extent;
    r->extra = extra;
    r->next = reps;
    reps = r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Register_datarep = PMPI_Register_datarep
int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    RT_API_ENTER();
    return reg(datarep, read_conversion_fn, write_conversion_fn, NULL, NULL, dtype_file_extent_fn,
               extra_state, "MPI_Register_datarep");
}

#pragma weak MPI_Register_datarep_c = PMPI_Register_datarep_c
int PMPI_Register_datarep_c(const char *datarep,
                            MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    RT_API_ENTER();
    return reg(datarep, NULL, NULL, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn,
               extra_state, "MPI_Register_datarep_c");
}
