/*
 * MPI_REGISTER_DATAREP(_C) with conversion and extent procedures written in
 * Fortran, and the Fortran MPI_CONVERSION_FN_NULL(_C).  The extra_state C
 * hands the callbacks is a record with the procedures and the Fortran
 * extra_state; a representation is never unregistered, so neither is the
 * record.  Buffers pass as their addresses: <type> USERBUF(*) in mpif.h and
 * use mpi, TYPE(C_PTR), VALUE in mpi_f08 are the same in the ABI.
 */
#include <stdio.h>

#include "f_glue.h"

typedef void(f_conv_fn)(void *userbuf, MPI_Fint *dt, MPI_Fint *count, void *filebuf,
                        MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr);
typedef void(f_conv_fn_c)(void *userbuf, MPI_Fint *dt, MPI_Count *count, void *filebuf,
                          MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr);
typedef void(f_extent_fn)(MPI_Fint *dt, MPI_Aint *extent, MPI_Aint *extra, MPI_Fint *ierr);

struct f_datarep {
    void (*read)(void), (*write)(void);
    f_extent_fn *extent;
    MPI_Aint extra;
};

/* The Fortran null conversions: like C's, called directly they convert
 * nothing and say so; passed to MPI_REGISTER_DATAREP they mean C's. */
#define CONV_NULL(fname, ctype)                                                                    \
    void fname(void *u, MPI_Fint *dt, ctype *count, void *f, MPI_Offset *pos, MPI_Aint *extra,     \
               MPI_Fint *ierr);                                                                    \
    void fname(void *u, MPI_Fint *dt, ctype *count, void *f, MPI_Offset *pos, MPI_Aint *extra,     \
               MPI_Fint *ierr)                                                                     \
    {                                                                                              \
        (void)u, (void)dt, (void)count, (void)f, (void)pos, (void)extra;                           \
        *ierr = MPI_ERR_CONVERSION;                                                                \
    }
CONV_NULL(mpi_conversion_fn_null_, MPI_Fint)
CONV_NULL(mpi_conversion_fn_null_c_, MPI_Count)

static int conv(void (*fn)(void), void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                MPI_Offset position, struct f_datarep *r)
{
    MPI_Fint fdt = PMPI_Type_c2f(dt), fcount = count, ierr = MPI_SUCCESS;

    ((f_conv_fn *)fn)(userbuf, &fdt, &fcount, filebuf, &position, &r->extra, &ierr);
    return ierr;
}

static int conv_c(void (*fn)(void), void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf,
                  MPI_Offset position, struct f_datarep *r)
{
    MPI_Fint fdt = PMPI_Type_c2f(dt), ierr = MPI_SUCCESS;

    ((f_conv_fn_c *)fn)(userbuf, &fdt, &count, filebuf, &position, &r->extra, &ierr);
    return ierr;
}

static int read_conv(void *u, MPI_Datatype dt, int count, void *f, MPI_Offset pos, void *x)
{
    return conv(((struct f_datarep *)x)->read, u, dt, count, f, pos, x);
}

static int write_conv(void *u, MPI_Datatype dt, int count, void *f, MPI_Offset pos, void *x)
{
    return conv(((struct f_datarep *)x)->write, u, dt, count, f, pos, x);
}

static int read_conv_c(void *u, MPI_Datatype dt, MPI_Count count, void *f, MPI_Offset pos, void *x)
{
    return conv_c(((struct f_datarep *)x)->read, u, dt, count, f, pos, x);
}

static int write_conv_c(void *u, MPI_Datatype dt, MPI_Count count, void *f, MPI_Offset pos, void *x)
{
    return conv_c(((struct f_datarep *)x)->write, u, dt, count, f, pos, x);
}

static int file_extent(MPI_Datatype dt, MPI_Aint *extent, void *x)
{
    struct f_datarep *r = x;
    MPI_Fint fdt = PMPI_Type_c2f(dt), ierr = MPI_SUCCESS;

    r->extent(&fdt, extent, &r->extra, &ierr);
    return ierr;
}

static int datarep(const char *name, int large, char *rep, size_t rep_len, void (*rd)(void),
                   void (*wr)(void), f_extent_fn *extent, MPI_Aint extra)
{
    struct f_datarep *r = malloc(sizeof *r);
    char *c_rep = f_str_in(rep, rep_len, 0);
    void (*null)(void) =
        large ? (void (*)(void))mpi_conversion_fn_null_c_ : (void (*)(void))mpi_conversion_fn_null_;
    int rc;

    if (!r || !c_rep) {
        free(r);
        free(c_rep);
        fprintf(stderr, "rdmpi: %s: out of memory\n", name);
        rc = MPI_ERR_NO_MEM;
        PMPI_Comm_call_errhandler(MPI_COMM_SELF, rc);
        return rc;
    }
    *r = (struct f_datarep){rd, wr, extent, extra};
    if (large)
        rc = PMPI_Register_datarep_c(c_rep, rd == null ? MPI_CONVERSION_FN_NULL_C : read_conv_c,
                                     wr == null ? MPI_CONVERSION_FN_NULL_C : write_conv_c,
                                     file_extent, r);
    else
        rc =
            PMPI_Register_datarep(c_rep, rd == null ? MPI_CONVERSION_FN_NULL : read_conv,
                                  wr == null ? MPI_CONVERSION_FN_NULL : write_conv, file_extent, r);
    if (rc != MPI_SUCCESS)
        free(r);
    free(c_rep);
    return rc;
}

#define REGISTER(fname, large, cname)                                                              \
    void p##fname(char *rep, void (*rd)(void), void (*wr)(void), f_extent_fn *extent,              \
                  MPI_Aint *extra, MPI_Fint *ierr, size_t rep_len);                                \
    void p##fname(char *rep, void (*rd)(void), void (*wr)(void), f_extent_fn *extent,              \
                  MPI_Aint *extra, MPI_Fint *ierr, size_t rep_len)                                 \
    {                                                                                              \
        int rc = datarep(cname, large, rep, rep_len, rd, wr, extent, *extra);                      \
        if (ierr)                                                                                  \
            *ierr = rc;                                                                            \
    }

F_ALIASES(register_datarep)
REGISTER(mpi_register_datarep_, 0, "MPI_Register_datarep")
/* mpi_f08 only: MPI_Datarep_conversion_function_c takes a large count. */
F_ALIASES(register_datarep_c)
REGISTER(mpi_register_datarep_c_, 1, "MPI_Register_datarep_c")
