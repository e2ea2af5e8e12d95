/* Queries on types: extents, names, envelope and contents, and the
 * functions that pick predefined types (match_size, f90, value_index). */
#include "dt_api.h"
#include "dt_build.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

static int extent(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *ext, bool true_ext,
                  const char *fn)
{
    struct rdmpi_datatype *d;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_arg(datatype, fn, "datatype", &d)) || (err = dt_ptr(lb, fn, "lb")) ||
        (err = dt_ptr(ext, fn, "extent")))
        return err;
    *lb = true_ext ? d->true_lb : d->lb;
    *ext = true_ext ? d->true_extent : d->extent;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *ext)
{
    RT_API_ENTER();
    MPI_Count l, e;
    int err = extent(datatype, lb ? &l : NULL, ext ? &e : NULL, false, "MPI_Type_get_extent");

    if (!err)
        *lb = (MPI_Aint)l, *ext = (MPI_Aint)e;
    return err;
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *ext)
{
    RT_API_ENTER();
    return extent(datatype, lb, ext, false, "MPI_Type_get_extent_x");
}

#pragma weak MPI_Type_get_extent_c = PMPI_Type_get_extent_c
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *ext)
{
    RT_API_ENTER();
    return extent(datatype, lb, ext, false, "MPI_Type_get_extent_c");
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *ext)
{
    RT_API_ENTER();
    MPI_Count l, e;
    int err = extent(datatype, lb ? &l : NULL, ext ? &e : NULL, true, "MPI_Type_get_true_extent");

    if (!err)
        *lb = (MPI_Aint)l, *ext = (MPI_Aint)e;
    return err;
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *ext)
{
    RT_API_ENTER();
    return extent(datatype, lb, ext, true, "MPI_Type_get_true_extent_x");
}

#pragma weak MPI_Type_get_true_extent_c = PMPI_Type_get_true_extent_c
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *ext)
{
    RT_API_ENTER();
    return extent(datatype, lb, ext, true, "MPI_Type_get_true_extent_c");
}

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    RT_API_ENTER();
    int err = dt_ptr(address, "MPI_Get_address", "address");

    if (!err)
        *address = (MPI_Aint)location;
    return err;
}

/* ---- names ---- */

#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_set_name";
    struct rdmpi_datatype *d;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_arg(datatype, fn, "datatype", &d)) || (err = dt_ptr(type_name, fn, "type_name")))
        return err;
    snprintf(d->name, sizeof(d->name), "%s", type_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_get_name";
    struct rdmpi_datatype *d;
    int err;

    RT_CHECK_INIT(fn);
    if (datatype == MPI_DATATYPE_NULL) { /* MPI-4.1: the null handle has its name */
        if ((err = dt_ptr(type_name, fn, "type_name")) ||
            (err = dt_ptr(resultlen, fn, "resultlen")))
            return err;
        *resultlen = snprintf(type_name, MPI_MAX_OBJECT_NAME, "MPI_DATATYPE_NULL");
        return MPI_SUCCESS;
    }
    if ((err = dt_arg(datatype, fn, "datatype", &d)) ||
        (err = dt_ptr(type_name, fn, "type_name")) || (err = dt_ptr(resultlen, fn, "resultlen")))
        return err;
    *resultlen = snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", d->name);
    return MPI_SUCCESS;
}

/* ---- envelope and contents ---- */

static int envelope(MPI_Datatype datatype, MPI_Count *ni, MPI_Count *na, MPI_Count *nc,
                    MPI_Count *nd, int *combiner, const char *fn)
{
    struct rdmpi_datatype *d;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_arg(datatype, fn, "datatype", &d)) || (err = dt_ptr(ni, fn, "num_integers")) ||
        (err = dt_ptr(na, fn, "num_addresses")) || (err = dt_ptr(nd, fn, "num_datatypes")) ||
        (err = dt_ptr(combiner, fn, "combiner")))
        return err;
    *ni = d->ni, *na = d->na, *nd = d->nd, *nc = d->nc;
    *combiner = d->combiner;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_get_envelope";
    MPI_Count ni, na, nc, nd;
    int err = envelope(datatype, num_integers ? &ni : NULL, num_addresses ? &na : NULL, &nc,
                       num_datatypes ? &nd : NULL, combiner, fn);

    if (err)
        return err;
    if (nc)
        return DT_ERR(MPI_ERR_TYPE, fn,
                      "the datatype was built by a large-count (_c) constructor; use "
                      "MPI_Type_get_envelope_c");
    *num_integers = (int)ni, *num_addresses = (int)na, *num_datatypes = (int)nd;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_envelope_c = PMPI_Type_get_envelope_c
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_get_envelope_c";
    int err = dt_ptr(num_large_counts, fn, "num_large_counts");

    return err ? err
               : envelope(datatype, num_integers, num_addresses, num_large_counts, num_datatypes,
                          combiner, fn);
}

static int contents(MPI_Datatype datatype, MPI_Count max_i, MPI_Count max_a, MPI_Count max_c,
                    MPI_Count max_d, int *ints, MPI_Aint *aints, MPI_Count *counts,
                    MPI_Datatype *types, const char *fn)
{
    struct rdmpi_datatype *d;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_arg(datatype, fn, "datatype", &d)))
        return err;
    if (d->combiner == MPI_COMBINER_NAMED)
        return DT_ERR(MPI_ERR_ARG, fn, "datatype %s is predefined; it has no contents", d->name);
    if (max_i < d->ni || max_a < d->na || max_c < d->nc || max_d < d->nd)
        return DT_ERR(MPI_ERR_ARG, fn,
                      "the arrays are too small (the envelope says %d integers, %d addresses, "
                      "%d large counts, %d datatypes)",
                      d->ni, d->na, d->nc, d->nd);
    if ((d->ni && !ints) || (d->na && !aints) || (d->nc && !counts) || (d->nd && !types))
        return DT_ERR(MPI_ERR_ARG, fn, "an output array is NULL");
    if (d->ni)
        memcpy(ints, d->ints, (size_t)d->ni * sizeof(int));
    if (d->na)
        memcpy(aints, d->aints, (size_t)d->na * sizeof(MPI_Aint));
    if (d->nc)
        memcpy(counts, d->counts, (size_t)d->nc * sizeof(MPI_Count));
    /* Derived types come back as new references the caller frees. */
    for (int i = 0; i < d->nd; i++) {
        rt_dt_retain(d->types[i]);
        types[i] = rt_dt_handle(d->types[i]);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int *array_of_integers, MPI_Aint *array_of_addresses,
                           MPI_Datatype *array_of_datatypes)
{
    RT_API_ENTER();
    struct rdmpi_datatype *d = rt_dt_get(datatype);

    if (d && d->nc)
        return DT_ERR(MPI_ERR_TYPE, "MPI_Type_get_contents",
                      "the datatype was built by a large-count (_c) constructor; use "
                      "MPI_Type_get_contents_c");
    return contents(datatype, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
                    array_of_addresses, NULL, array_of_datatypes, "MPI_Type_get_contents");
}

#pragma weak MPI_Type_get_contents_c = PMPI_Type_get_contents_c
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes,
                             int *array_of_integers, MPI_Aint *array_of_addresses,
                             MPI_Count *array_of_large_counts, MPI_Datatype *array_of_datatypes)
{
    RT_API_ENTER();
    return contents(datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
                    array_of_integers, array_of_addresses, array_of_large_counts,
                    array_of_datatypes, "MPI_Type_get_contents_c");
}

/* ---- predefined types by property ---- */

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_match_size";
    static const struct {
        int cls, size;
        MPI_Datatype t;
    } map[] = {
        {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},   {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},
        {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},   {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
        {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16}, {MPI_TYPECLASS_REAL, 2, MPI_REAL2},
        {MPI_TYPECLASS_REAL, 4, MPI_REAL4},         {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
        {MPI_TYPECLASS_REAL, 16, MPI_REAL16},       {MPI_TYPECLASS_COMPLEX, 4, MPI_COMPLEX4},
        {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},   {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16},
        {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
    };
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_ptr(datatype, fn, "datatype")))
        return err;
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return DT_ERR(MPI_ERR_ARG, fn,
                      "typeclass is %d; pass MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX", typeclass);
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (map[i].cls == typeclass && map[i].size == size) {
            *datatype = map[i].t;
            return MPI_SUCCESS;
        }
    return DT_ERR(MPI_ERR_ARG, fn, "no type of class %d has size %d", typeclass, size);
}

/* The Fortran KIND types: the predefined type of the selected kind under
 * an envelope that records the call (combiner MPI_COMBINER_F90_*, integers
 * p and r or r, no datatypes; MPI 4.1 sec. 5.1.13 and 19.1.9). One type per
 * (combiner, p, r), made at the first call and kept for the life of the
 * process; like a predefined type it cannot be freed. */
struct f90_type {
    struct f90_type *next;
    int combiner, p, r;
    MPI_Datatype type;
};
static struct f90_type *f90_types;

static int f90_make(int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *newtype,
                    const char *fn)
{
    int ints[2] = {combiner == MPI_COMBINER_F90_INTEGER ? r : p, r};
    struct dt_env env = {
        combiner, combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2, 0, 0, 0, ints, NULL, NULL, NULL};
    struct f90_type *f;
    struct rdmpi_datatype *d;
    int err;

    for (f = f90_types; f; f = f->next)
        if (f->combiner == combiner && f->p == p && f->r == r) {
            *newtype = f->type;
            return MPI_SUCCESS;
        }
    if (!(f = malloc(sizeof(*f))))
        return DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    if ((err = PMPI_Type_contiguous(1, base, &f->type))) {
        free(f);
        return err;
    }
    d = rt_dt_get(f->type);
    if ((err = dt_set_env(d, &env, NULL, 0))) {
        PMPI_Type_free(&f->type);
        free(f);
        return DT_ERR(err, fn, "out of memory");
    }
    d->flags |= RT_DT_COMMITTED | RT_DT_F90;
    memcpy(d->name, rt_dt_get(base)->name, sizeof(d->name));
    *f = (struct f90_type){f90_types, combiner, p, r, f->type};
    f90_types = f;
    *newtype = f->type;
    return MPI_SUCCESS;
}

/* Picks the first type whose precision and range limits cover p and r. */
static int f90(int combiner, int p, int r, const int (*lim)[2], const MPI_Datatype *types, int n,
               MPI_Datatype *newtype, const char *fn)
{
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_ptr(newtype, fn, "newtype")))
        return err;
    for (int i = 0; i < n; i++)
        if ((p == MPI_UNDEFINED || p <= lim[i][0]) && (r == MPI_UNDEFINED || r <= lim[i][1]))
            return f90_make(combiner, p, r, types[i], newtype, fn);
    return DT_ERR(MPI_ERR_ARG, fn, "no type has precision %d and range %d", p, r);
}

#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    static const int lim[][2] = {{0, 2}, {0, 4}, {0, 9}, {0, 18}};
    static const MPI_Datatype t[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};

    return f90(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, lim, t, 4, newtype,
               "MPI_Type_create_f90_integer");
}

#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    static const int lim[][2] = {{6, 37}, {15, 307}, {33, 4931}};
    static const MPI_Datatype t[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16};

    return f90(MPI_COMBINER_F90_REAL, p, r, lim, t, 3, newtype, "MPI_Type_create_f90_real");
}

#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    static const int lim[][2] = {{6, 37}, {15, 307}, {33, 4931}};
    static const MPI_Datatype t[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};

    return f90(MPI_COMBINER_F90_COMPLEX, p, r, lim, t, 3, newtype, "MPI_Type_create_f90_complex");
}

#pragma weak MPI_Type_get_value_index = PMPI_Type_get_value_index
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_get_value_index";
    static const struct {
        MPI_Datatype v, i, pair;
    } map[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},
        {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
        {MPI_REAL, MPI_REAL, MPI_2REAL},
        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
    };
    struct rdmpi_datatype *d;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_arg(value_type, fn, "value_type", &d)) ||
        (err = dt_arg(index_type, fn, "index_type", &d)) ||
        (err = dt_ptr(pair_type, fn, "pair_type")))
        return err;
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (map[i].v == value_type && map[i].i == index_type)
            *pair_type = map[i].pair;
    return MPI_SUCCESS;
}
