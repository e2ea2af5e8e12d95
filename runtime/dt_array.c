/* MPI_Type_create_subarray and MPI_Type_create_darray (MPI 4.1 sec. 5.1.3,
 * 5.1.4). Both are built one dimension at a time, innermost first: each
 * step takes the type of the inner dimensions, resized to the extent of
 * one full slice, and places the local indices of this dimension. The
 * result then describes itself by the call that made it. */
#include "dt_api.h"
#include "dt_build.h"

#include <stdlib.h>

struct arr {
    int ndims, order;
    const MPI_Count *sizes;    /* global sizes */
    const MPI_Count *subsizes; /* subarray */
    const MPI_Count *starts;
    const int *distribs, *dargs, *psizes; /* darray */
    int size, rank;
};

static const struct dt_env no_env = {-1, 0, 0, 0, 0, NULL, NULL, NULL, NULL};

/* The blocks [starts[i], starts[i] + lens[i]) of t along one dimension
 * whose slices are `slice` bytes apart, resized to cover `n` slices. */
static struct rdmpi_datatype *dim_type(struct rdmpi_datatype *t, MPI_Aint slice, size_t nblocks,
                                       const MPI_Count *starts, const MPI_Count *lens,
                                       MPI_Count first, MPI_Count step, MPI_Count k, MPI_Count n,
                                       MPI_Aint disp0)
{
    struct rdmpi_datatype *d;
    struct dt_build b;

    dtb_init(&b);
    for (size_t i = 0; i < nblocks && !b.oom; i++) {
        MPI_Count s = starts ? starts[i] : first + (MPI_Count)i * step;
        MPI_Count l = lens ? lens[i] : (s + k > n ? n - s : k);
        dtb_block(&b, t, disp0 + (MPI_Aint)s * slice, (size_t)l);
    }
    if (!(d = dtb_finish(&b, &no_env, false)))
        return NULL;
    d->lb = 0;
    d->extent = (MPI_Aint)n * slice;
    d->flags |= RT_DT_RESIZED;
    if (!(d->size == 0 || (d->nsegs == 1 && d->segs[0].count == 1 && d->segs[0].off == 0)))
        d->flags &= ~(uint32_t)RT_DT_CONTIG;
    return d;
}

/* Process-grid coordinate of this rank in dimension d (row-major grid). */
static int coord(const struct arr *a, int d)
{
    int r = a->rank;

    for (int i = a->ndims - 1; i > d; i--)
        r /= a->psizes[i];
    return r % a->psizes[d];
}

static int check(const struct arr *a, const char *fn)
{
    int nprocs = 1;

    if (a->ndims <= 0)
        return DT_ERR(MPI_ERR_ARG, fn, "ndims is %d; it must be > 0", a->ndims);
    if (a->order != MPI_ORDER_C && a->order != MPI_ORDER_FORTRAN)
        return DT_ERR(MPI_ERR_ARG, fn, "order is %d; pass MPI_ORDER_C or MPI_ORDER_FORTRAN",
                      a->order);
    for (int d = 0; d < a->ndims; d++) {
        if (a->sizes[d] <= 0)
            return DT_ERR(MPI_ERR_ARG, fn, "size of dimension %d is %lld; it must be > 0", d,
                          (long long)a->sizes[d]);
        if (a->subsizes &&
            (a->subsizes[d] < 0 || a->starts[d] < 0 || a->starts[d] + a->subsizes[d] > a->sizes[d]))
            return DT_ERR(
                MPI_ERR_ARG, fn, "dimension %d: start %lld and subsize %lld do not fit size %lld",
                d, (long long)a->starts[d], (long long)a->subsizes[d], (long long)a->sizes[d]);
        if (a->distribs) {
            int dist = a->distribs[d], darg = a->dargs[d], p = a->psizes[d];
            if (p <= 0)
                return DT_ERR(MPI_ERR_ARG, fn, "array_of_psizes[%d] is %d; it must be > 0", d, p);
            if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC &&
                dist != MPI_DISTRIBUTE_NONE)
                return DT_ERR(MPI_ERR_ARG, fn, "array_of_distribs[%d] is %d; not a distribution", d,
                              dist);
            if (dist == MPI_DISTRIBUTE_NONE && p != 1)
                return DT_ERR(MPI_ERR_ARG, fn,
                              "dimension %d is MPI_DISTRIBUTE_NONE but its psize is %d, not 1", d,
                              p);
            if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0)
                return DT_ERR(MPI_ERR_ARG, fn, "array_of_dargs[%d] is %d; it must be > 0", d, darg);
            if (dist == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
                (MPI_Count)darg * p < a->sizes[d])
                return DT_ERR(MPI_ERR_ARG, fn,
                              "dimension %d: block size %d times %d processes does not cover "
                              "%lld elements",
                              d, darg, p, (long long)a->sizes[d]);
            nprocs *= p;
        }
    }
    if (a->distribs && (nprocs != a->size || a->rank < 0 || a->rank >= a->size))
        return DT_ERR(MPI_ERR_ARG, fn,
                      "size %d and rank %d do not match a process grid of %d processes", a->size,
                      a->rank, nprocs);
    return MPI_SUCCESS;
}

static struct rdmpi_datatype *one_dim(const struct arr *a, int d, struct rdmpi_datatype *t,
                                      MPI_Aint slice)
{
    MPI_Count n = a->sizes[d];
    int p, r, darg;

    if (a->subsizes)
        return dim_type(t, slice, 1, &a->starts[d], &a->subsizes[d], 0, 0, 0, n, 0);
    p = a->psizes[d];
    r = coord(a, d);
    darg = a->dargs[d];
    switch (a->distribs[d]) {
    case MPI_DISTRIBUTE_NONE: return dim_type(t, slice, 1, NULL, NULL, 0, 0, n, n, 0);
    case MPI_DISTRIBUTE_BLOCK: {
        MPI_Count k = darg == MPI_DISTRIBUTE_DFLT_DARG ? (n + p - 1) / p : darg;
        MPI_Count s = (MPI_Count)r * k;
        return dim_type(t, slice, s < n ? 1 : 0, NULL, NULL, s, 0, k, n, 0);
    }
    default: { /* cyclic(k): blocks r, r + p, ... of k elements */
        MPI_Count k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        MPI_Count first = (MPI_Count)r * k, step = (MPI_Count)p * k;
        size_t nb = first < n ? (size_t)((n - first + step - 1) / step) : 0;
        return dim_type(t, slice, nb, NULL, NULL, first, step, k, n, 0);
    }
    }
}

static int build(const struct arr *a, MPI_Datatype oldtype, MPI_Datatype *newtype,
                 const struct dt_env *env, const char *fn)
{
    struct rdmpi_datatype *old, *t, *prev = NULL;
    MPI_Aint slice;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_ptr(newtype, fn, "newtype")) || (err = dt_arg(oldtype, fn, "oldtype", &old)) ||
        (err = check(a, fn)))
        return err;
    t = old;
    slice = old->extent;
    for (int i = 0; i < a->ndims; i++) {
        int d = a->order == MPI_ORDER_C ? a->ndims - 1 - i : i;
        t = one_dim(a, d, t, slice);
        if (prev)
            rt_dt_release(prev);
        if (!t)
            return DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory building the datatype");
        prev = t;
        slice *= (MPI_Aint)a->sizes[d];
    }
    if ((err = dt_set_env(t, env, old, old->size ? t->size / old->size : 0))) {
        rt_dt_release(t);
        return DT_ERR(err, fn, "out of memory");
    }
    t->align = old->align;
    *newtype = (MPI_Datatype)t;
    return MPI_SUCCESS;
}

static MPI_Count *widen(const int *v, int n)
{
    MPI_Count *c = malloc(n > 0 ? (size_t)n * sizeof(*c) : 1);

    for (int i = 0; c && i < n; i++)
        c[i] = v[i];
    return c;
}

static int nonnull(int ndims, const void *a, const void *b, const void *c, const char *fn)
{
    if (ndims > 0 && (!a || !b || !c))
        return DT_ERR(MPI_ERR_ARG, fn, "an array argument is NULL");
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int *array_of_sizes, const int *array_of_subsizes,
                              const int *array_of_starts, int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_create_subarray";
    struct rdmpi_datatype *old = rt_dt_get(oldtype);
    MPI_Count *s = NULL, *ss = NULL, *st = NULL;
    int *ints = NULL, err;

    if ((err = nonnull(ndims, array_of_sizes, array_of_subsizes, array_of_starts, fn)))
        return err;
    if (ndims > 0) {
        s = widen(array_of_sizes, ndims);
        ss = widen(array_of_subsizes, ndims);
        st = widen(array_of_starts, ndims);
        ints = malloc((3 * (size_t)ndims + 2) * sizeof(int));
        if (!s || !ss || !st || !ints) {
            err = DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
            goto out;
        }
        ints[0] = ndims;
        memcpy(ints + 1, array_of_sizes, (size_t)ndims * sizeof(int));
        memcpy(ints + 1 + ndims, array_of_subsizes, (size_t)ndims * sizeof(int));
        memcpy(ints + 1 + 2 * ndims, array_of_starts, (size_t)ndims * sizeof(int));
        ints[1 + 3 * ndims] = order;
    }
    {
        struct arr a = {.ndims = ndims, .order = order, .sizes = s, .subsizes = ss, .starts = st};
        struct dt_env env = {MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 0, 1, ints, NULL, NULL, &old};
        err = build(&a, oldtype, newtype, &env, fn);
    }
out:
    free(s), free(ss), free(st), free(ints);
    return err;
}

#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count *array_of_sizes,
                                const MPI_Count *array_of_subsizes,
                                const MPI_Count *array_of_starts, int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_create_subarray_c";
    struct rdmpi_datatype *old = rt_dt_get(oldtype);
    MPI_Count *c;
    int ints[2] = {ndims, order}, err;

    if ((err = nonnull(ndims, array_of_sizes, array_of_subsizes, array_of_starts, fn)))
        return err;
    if (!(c = malloc((3 * (size_t)(ndims > 0 ? ndims : 0) + 1) * sizeof(*c))))
        return DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    for (int i = 0; i < ndims; i++) {
        c[i] = array_of_sizes[i];
        c[ndims + i] = array_of_subsizes[i];
        c[2 * ndims + i] = array_of_starts[i];
    }
    {
        struct arr a = {.ndims = ndims,
                        .order = order,
                        .sizes = array_of_sizes,
                        .subsizes = array_of_subsizes,
                        .starts = array_of_starts};
        struct dt_env env = {MPI_COMBINER_SUBARRAY, 2, 0, 3 * ndims, 1, ints, NULL, c, &old};
        err = build(&a, oldtype, newtype, &env, fn);
    }
    free(c);
    return err;
}

static int darray(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                  const int *dargs, const int *psizes, int order, MPI_Datatype oldtype,
                  MPI_Datatype *newtype, bool large, const char *fn)
{
    struct rdmpi_datatype *old = rt_dt_get(oldtype);
    size_t n = ndims > 0 ? (size_t)ndims : 0;
    int *ints = malloc((4 * n + 4) * sizeof(int)), k = 0, err;

    if (!ints)
        return DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    ints[k++] = size;
    ints[k++] = rank;
    ints[k++] = ndims;
    if (!large)
        for (size_t i = 0; i < n; i++)
            ints[k++] = (int)gsizes[i];
    memcpy(ints + k, distribs, n * sizeof(int));
    memcpy(ints + k + n, dargs, n * sizeof(int));
    memcpy(ints + k + 2 * n, psizes, n * sizeof(int));
    k += 3 * (int)n;
    ints[k++] = order;
    {
        struct arr a = {.ndims = ndims,
                        .order = order,
                        .sizes = gsizes,
                        .distribs = distribs,
                        .dargs = dargs,
                        .psizes = psizes,
                        .size = size,
                        .rank = rank};
        struct dt_env env = {MPI_COMBINER_DARRAY,   k,   0, large ? ndims : 0, 1, ints, NULL,
                             large ? gsizes : NULL, &old};
        err = build(&a, oldtype, newtype, &env, fn);
    }
    free(ints);
    return err;
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int *array_of_gsizes,
                            const int *array_of_distribs, const int *array_of_dargs,
                            const int *array_of_psizes, int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_create_darray";
    MPI_Count *g;
    int err;

    if ((err = nonnull(ndims, array_of_gsizes, array_of_distribs, array_of_dargs, fn)) ||
        (err = nonnull(ndims, array_of_psizes, array_of_psizes, array_of_psizes, fn)))
        return err;
    if (!(g = widen(array_of_gsizes, ndims)))
        return DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    err = darray(size, rank, ndims, g, array_of_distribs, array_of_dargs, array_of_psizes, order,
                 oldtype, newtype, false, fn);
    free(g);
    return err;
}

#pragma weak MPI_Type_create_darray_c = PMPI_Type_create_darray_c
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count *array_of_gsizes,
                              const int *array_of_distribs, const int *array_of_dargs,
                              const int *array_of_psizes, int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_create_darray_c";
    int err;

    if ((err = nonnull(ndims, array_of_gsizes, array_of_distribs, array_of_dargs, fn)) ||
        (err = nonnull(ndims, array_of_psizes, array_of_psizes, array_of_psizes, fn)))
        return err;
    return darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                  array_of_psizes, order, oldtype, newtype, true, fn);
}
