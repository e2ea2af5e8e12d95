/* What the Fortran glue (generated glue.c, f_special.c, f_callback.c) shares:
 * the special addresses, and the conversions of buffers, statuses, strings
 * and handle arrays between gfortran's calling convention and the C API.
 * The glue calls only PMPI_ functions and the f2c/c2f conversions (those
 * of predefined handles inline, F_F2C). */
#ifndef RDMPI_F_GLUE_H
#define RDMPI_F_GLUE_H

#include <ISO_Fortran_binding.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The external names of one Fortran binding, pmpi_NAME_ (gfortran's name
 * of PMPI_NAME) being the code: mpi_NAME_ (mpif.h, use mpi) and mpi_f08's
 * specific procedures MPI_NAME_f08 and PMPI_NAME_f08, all weak so that a
 * profiling tool may replace them (MPI-4.1 section 19.1.5). */
#define F_PRAGMA(x) _Pragma(#x)
#define F_ALIASES(name)                                                                            \
    F_PRAGMA(weak mpi_##name##_ = pmpi_##name##_)                                                  \
    F_PRAGMA(weak mpi_##name##_f08_ = pmpi_##name##_)                                              \
    F_PRAGMA(weak pmpi_##name##_f08_ = pmpi_##name##_)

/* Common blocks of mpif.h and the modules (f_util.c defines them): their
 * addresses are the Fortran MPI_BOTTOM, MPI_STATUS_IGNORE, ... */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_buffer_automatic_;
extern MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_f08_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_f08_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_errcodes_ignore_[1], mpi_fortran_unweighted_[1];
extern MPI_Fint mpi_fortran_weights_empty_[1];
extern char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];

/* A Fortran handle below RDMPI_PREDEF_LIMIT has the value of the C handle
 * (mpi.h: every predefined handle and each kind's null), so it converts
 * without a call; only a user object's index needs PMPI_X_f2c. */
#define F_PREDEF(f)           ((uint32_t)(f) < RDMPI_PREDEF_LIMIT)
#define F_F2C(ctype, Name, f) (F_PREDEF(f) ? (ctype)(uintptr_t)(f) : PMPI_##Name##_f2c(f))

static inline void *f_buf(void *p)
{
    if (p == &mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (p == &mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (p == &mpi_fortran_buffer_automatic_)
        return MPI_BUFFER_AUTOMATIC;
    return p;
}

static inline int *f_weights(MPI_Fint *p)
{
    if (p == mpi_fortran_unweighted_)
        return MPI_UNWEIGHTED;
    if (p == mpi_fortran_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return p;
}

/* gfortran's .TRUE. is 1; C's true is any non-zero int. */
static inline MPI_Fint f_logical(MPI_Fint v)
{
    return v != 0;
}

static inline int f_status_ignored(const MPI_Fint *f)
{
    return f == mpi_fortran_status_ignore_ || f == mpi_fortran_statuses_ignore_ ||
           f == mpi_fortran_f08_status_ignore_ || f == mpi_fortran_f08_statuses_ignore_;
}

/* A Fortran status holds the bytes of an MPI_Status but only INTEGER
 * alignment, so it is copied rather than cast. */
static inline MPI_Status *f_status_in(MPI_Fint *f, MPI_Status *c)
{
    if (f_status_ignored(f))
        return MPI_STATUS_IGNORE;
    memcpy(c, f, sizeof *c);
    return c;
}

static inline void f_status_out(MPI_Fint *f, const MPI_Status *c)
{
    if (c)
        memcpy(f, c, sizeof *c);
}

MPI_Status *f_statuses_in(MPI_Fint *f, int n);
void f_statuses_out(MPI_Fint *f, MPI_Status *c, int n);
void *f_alloc_handles(int n, size_t size);

/* Fortran strings: blank-padded, no NUL, length passed after the arguments. */
char *f_str_in(const char *s, size_t len, int lead);
char *f_str_tmp(size_t len, size_t min);
int f_str_blank(const char *s, size_t len);
void f_str_out(char *dst, size_t len, const char *src);

/* Attribute values set from Fortran live in cells: C reading such an
 * attribute gets the address of the integer (MPI-4.1 section 19.3.7). */
void *f_attr_cell(MPI_Aint v);
int f_attr_cell_value(const void *p, MPI_Aint *v);
void f_attr_cell_free(void *p);

/* The length of alltoallw's datatype arrays. */
enum { F_LEN_SIZE, F_LEN_OUTDEGREE, F_LEN_INDEGREE };
int f_comm_len(MPI_Comm comm, int which);

/* mpi_f08 statuses: TYPE(MPI_Status) is BIND(C) with MPI_Status's members,
 * so its size and alignment are MPI_Status's and it is used in place. */
static inline int f08_status_ignored(const MPI_Status *s)
{
    const MPI_Fint *f = (const MPI_Fint *)s;
    return f == mpi_fortran_f08_status_ignore_ || f == mpi_fortran_f08_statuses_ignore_;
}

/* A single status: only MPI_STATUS_IGNORE is a sentinel (mpi_f08 cannot
 * pass the array MPI_STATUSES_IGNORE there; its element is written like
 * any status, into storage that holds one), one compare on the fast paths. */
static inline MPI_Status *f08_status(MPI_Status *s)
{
    return (MPI_Fint *)s == mpi_fortran_f08_status_ignore_ ? MPI_STATUS_IGNORE : s;
}

static inline MPI_Status *f08_statuses(MPI_Status *s)
{
    return f08_status_ignored(s) ? MPI_STATUSES_IGNORE : s;
}

/* mpi_f08 choice buffers are descriptors: a scalar or an array whose
 * elements follow each other is its base address.  Rank 1, the usual case,
 * is decided here without a call. */
static inline int f08_contiguous(const CFI_cdesc_t *d)
{
    if (d->rank == 0)
        return 1;
    if (d->rank == 1)
        return d->dim[0].sm == (CFI_index_t)d->elem_len || d->dim[0].extent <= 1;
    return CFI_is_contiguous(d);
}

/* The common case of a choice buffer, tested first: a scalar, or a rank-1
 * array whose elements are adjacent.  Only a scalar can be a special
 * address (MPI_BOTTOM, ... are scalar INTEGERs), so only its address is
 * compared with them. */
static inline int f08_fast(const CFI_cdesc_t *d)
{
    return d->rank == 0 || (d->rank == 1 && d->dim[0].sm == (CFI_index_t)d->elem_len);
}

static inline void *f08_base(const CFI_cdesc_t *d)
{
    return d->rank == 0 ? f_buf(d->base_addr) : d->base_addr;
}

/* Any other buffer is refused with a message naming it and MPI_ERR_BUFFER
 * through the error handler of the call's object... */
enum { F_OBJ_NONE, F_OBJ_COMM, F_OBJ_WIN, F_OBJ_FILE };
void f08_refuse(const char *fn, const char *arg, const char *why, int kind, MPI_Fint h,
                MPI_Fint *ierr);
/* ...except a section with a count and datatype of its own: 0 when *made
 * (also in *dt) is a datatype of which one element is the section (call
 * with a count of 1, then f08_type_free), -1 when refused. */
int f08_section(CFI_cdesc_t *d, MPI_Count count, MPI_Datatype *dt, MPI_Datatype *made,
                const char *fn, const char *arg, int kind, MPI_Fint h, MPI_Fint *ierr);

/* Requests keep the datatypes they use, so it goes as soon as the call
 * returns. */
/* A descriptor with room for every rank: gfortran's conversion of a C
 * descriptor to its own, in rdmpi_tool_foo_f08ts, reads dimensions past
 * the rank, beyond a scalar's descriptor on its caller's stack. */
typedef CFI_CDESC_T(CFI_MAX_RANK) f08_desc_full;
static inline CFI_cdesc_t *f08_desc_widen(f08_desc_full *w, const CFI_cdesc_t *d)
{
    memset(w, 0, sizeof(*w));
    memcpy(w, d, sizeof(CFI_cdesc_t) + (size_t)d->rank * sizeof(CFI_dim_t));
    return (CFI_cdesc_t *)w;
}

static inline void f08_type_free(MPI_Datatype *t)
{
    if (*t != MPI_DATATYPE_NULL)
        PMPI_Type_free(t);
}

#endif
