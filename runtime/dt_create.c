/* The type constructors of MPI 4.1 sec. 5.1.2-5.1.7 (contiguous, vector,
 * indexed, struct and their h/block forms, resized, dup), in int and
 * large-count forms, and commit and free. Each reduces to blocks of an old
 * type at byte displacements fed to the builder. */
#include "attr.h"
#include "dt_api.h"
#include "dt_build.h"

#include <stdint.h>
#include <stdlib.h>

struct blocks {
    MPI_Count count;
    const MPI_Count *bls; /* per block, or NULL: bl each */
    MPI_Count bl;
    const MPI_Aint *disps; /* bytes per block, or NULL: i * stride */
    MPI_Aint stride;
    struct rdmpi_datatype *const *olds; /* per block (struct), or NULL: old */
    struct rdmpi_datatype *old;
};

static int make(const struct blocks *k, bool pad, const struct dt_env *env, MPI_Datatype *out,
                const char *fn)
{
    struct rdmpi_datatype *d;
    struct dt_build b;

    for (MPI_Count i = 0; k->bls && i < k->count; i++)
        if (k->bls[i] < 0)
            return DT_ERR(MPI_ERR_ARG, fn, "array_of_blocklengths[%lld] is %lld; it must be >= 0",
                          (long long)i, (long long)k->bls[i]);
    if (k->bl < 0)
        return DT_ERR(MPI_ERR_ARG, fn, "blocklength is %lld; it must be >= 0", (long long)k->bl);
    dtb_init(&b);
    if (!k->bls && !k->disps && !k->olds) /* (h)vector, contiguous */
        dtb_blocks(&b, k->old, 0, (size_t)k->count, (size_t)k->bl, k->stride);
    for (MPI_Count i = 0; (k->bls || k->disps || k->olds) && i < k->count && !b.oom; i++)
        dtb_block(&b, k->olds ? k->olds[i] : k->old, k->disps ? k->disps[i] : 0,
                  (size_t)(k->bls ? k->bls[i] : k->bl));
    if (!(d = dtb_finish(&b, env, pad)))
        return DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory building the datatype");
    *out = (MPI_Datatype)d;
    return MPI_SUCCESS;
}

/* Common checks: count, newtype and (unless old is NULL) the old type. */
static int pre(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype, const char *fn,
               struct rdmpi_datatype **old)
{
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_count(count, fn, "count")) || (err = dt_ptr(newtype, fn, "newtype")))
        return err;
    return old ? dt_arg(oldtype, fn, "oldtype", old) : MPI_SUCCESS;
}

static int arrays(MPI_Count count, const void *a, const void *b, const char *fn)
{
    if (count > 0 && (!a || !b))
        return DT_ERR(MPI_ERR_ARG, fn, "an array argument is NULL with count %lld",
                      (long long)count);
    return MPI_SUCCESS;
}

/* Scratch arrays: counts and byte displacements from the caller's forms. */
static void *scratch(size_t n, size_t elem)
{
    if (n > PTRDIFF_MAX / elem)
        return NULL;
    return malloc(n ? n * elem : 1);
}

static int nomem(const char *fn)
{
    return DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
}

/* ---- contiguous, vector, hvector ---- */

static int vec(MPI_Count count, MPI_Count bl, MPI_Aint stride_bytes, MPI_Datatype oldtype,
               MPI_Datatype *newtype, const struct dt_env *env, const char *fn)
{
    struct rdmpi_datatype *old = NULL;
    struct blocks k = {.count = count, .bl = bl, .stride = stride_bytes};
    int err = pre(count, oldtype, newtype, fn, &old);

    if (err)
        return err;
    k.old = old;
    return make(&k, false, env, newtype, fn);
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    struct rdmpi_datatype *old = rt_dt_get(oldtype);
    struct dt_env env = {MPI_COMBINER_CONTIGUOUS, 1, 0, 0, 1, &count, NULL, NULL, &old};

    return vec(count, 1, old ? old->extent : 0, oldtype, newtype, &env, "MPI_Type_contiguous");
}

#pragma weak MPI_Type_contiguous_c = PMPI_Type_contiguous_c
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    struct rdmpi_datatype *old = rt_dt_get(oldtype);
    struct dt_env env = {MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1, NULL, NULL, &count, &old};

    return vec(count, 1, old ? old->extent : 0, oldtype, newtype, &env, "MPI_Type_contiguous_c");
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    RT_API_ENTER();
    struct rdmpi_datatype *old = rt_dt_get(oldtype);
    int ints[3] = {count, blocklength, stride};
    struct dt_env env = {MPI_COMBINER_VECTOR, 3, 0, 0, 1, ints, NULL, NULL, &old};

    return vec(count, blocklength, old ? stride * old->extent : 0, oldtype, newtype, &env,
               "MPI_Type_vector");
}

#pragma weak MPI_Type_vector_c = PMPI_Type_vector_c
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    struct rdmpi_datatype *old = rt_dt_get(oldtype);
    MPI_Count c[3] = {count, blocklength, stride};
    struct dt_env env = {MPI_COMBINER_VECTOR, 0, 0, 3, 1, NULL, NULL, c, &old};

    return vec(count, blocklength, old ? (MPI_Aint)stride * old->extent : 0, oldtype, newtype, &env,
               "MPI_Type_vector_c");
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    RT_API_ENTER();
    struct rdmpi_datatype *old = rt_dt_get(oldtype);
    int ints[2] = {count, blocklength};
    struct dt_env env = {MPI_COMBINER_HVECTOR, 2, 1, 0, 1, ints, &stride, NULL, &old};

    return vec(count, blocklength, stride, oldtype, newtype, &env, "MPI_Type_create_hvector");
}

#pragma weak MPI_Type_create_hvector_c = PMPI_Type_create_hvector_c
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    struct rdmpi_datatype *old = rt_dt_get(oldtype);
    MPI_Count c[3] = {count, blocklength, stride};
    struct dt_env env = {MPI_COMBINER_HVECTOR, 0, 0, 3, 1, NULL, NULL, c, &old};

    return vec(count, blocklength, (MPI_Aint)stride, oldtype, newtype, &env,
               "MPI_Type_create_hvector_c");
}

/* ---- indexed family ---- */

/* bls/disps already widened: disps in bytes. */
static int idx(MPI_Count count, const MPI_Count *bls, MPI_Count bl, const MPI_Aint *disps,
               struct rdmpi_datatype *old, const struct dt_env *env, MPI_Datatype *newtype,
               const char *fn)
{
    struct blocks k = {.count = count, .bls = bls, .bl = bl, .disps = disps, .old = old};

    return make(&k, false, env, newtype, fn);
}

/* The int forms: widen blocklengths, scale displacements (elements or bytes). */
static int idx_int(int count, const int *bls, int bl, const void *disps, bool disp_aint,
                   MPI_Datatype oldtype, MPI_Datatype *newtype, int combiner, const char *fn)
{
    struct rdmpi_datatype *old = NULL;
    MPI_Count *wb = NULL;
    MPI_Aint *wd;
    int *ints, ni, na = 0, err;

    if ((err = pre(count, oldtype, newtype, fn, &old)) ||
        (err = arrays(count, bls ? (const void *)bls : (const void *)&bl, disps, fn)))
        return err;
    wd = scratch((size_t)count, sizeof(*wd));
    ints = scratch(2 * (size_t)count + 2, sizeof(int));
    if (bls)
        wb = scratch((size_t)count, sizeof(*wb));
    if (!wd || !ints || (bls && !wb)) {
        free(wd), free(ints), free(wb);
        return nomem(fn);
    }
    ni = 0;
    ints[ni++] = count;
    if (bls)
        for (int i = 0; i < count; i++)
            ints[ni++] = bls[i], wb[i] = bls[i];
    else
        ints[ni++] = bl;
    for (int i = 0; i < count; i++) {
        if (disp_aint) {
            wd[i] = ((const MPI_Aint *)disps)[i];
        } else {
            wd[i] = (MPI_Aint)((const int *)disps)[i] * old->extent;
            ints[ni++] = ((const int *)disps)[i];
        }
    }
    if (disp_aint)
        na = count;
    {
        struct dt_env env = {combiner, ni, na, 0, 1, ints, disp_aint ? disps : NULL, NULL, &old};
        err = idx(count, wb, bl, wd, old, &env, newtype, fn);
    }
    free(wd), free(ints), free(wb);
    return err;
}

/* The large forms: everything but the type goes to the large counts. */
static int idx_c(MPI_Count count, const MPI_Count *bls, MPI_Count bl, const MPI_Count *disps,
                 bool disp_bytes, MPI_Datatype oldtype, MPI_Datatype *newtype, int combiner,
                 const char *fn)
{
    struct rdmpi_datatype *old = NULL;
    MPI_Aint *wd;
    MPI_Count *c, nc = 0;
    int err;

    if ((err = pre(count, oldtype, newtype, fn, &old)) ||
        (err = arrays(count, bls ? (const void *)bls : (const void *)&bl, disps, fn)))
        return err;
    wd = scratch((size_t)count, sizeof(*wd));
    c = scratch(2 * (size_t)count + 2, sizeof(*c));
    if (!wd || !c) {
        free(wd), free(c);
        return nomem(fn);
    }
    c[nc++] = count;
    if (bls)
        for (MPI_Count i = 0; i < count; i++)
            c[nc++] = bls[i];
    else
        c[nc++] = bl;
    for (MPI_Count i = 0; i < count; i++) {
        wd[i] = disp_bytes ? (MPI_Aint)disps[i] : (MPI_Aint)disps[i] * old->extent;
        c[nc++] = disps[i];
    }
    {
        struct dt_env env = {combiner, 0, 0, (int)nc, 1, NULL, NULL, c, &old};
        err = idx(count, bls, bl, wd, old, &env, newtype, fn);
    }
    free(wd), free(c);
    return err;
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int *array_of_blocklengths,
                      const int *array_of_displacements, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    RT_API_ENTER();
    return idx_int(count, array_of_blocklengths, 0, array_of_displacements, false, oldtype, newtype,
                   MPI_COMBINER_INDEXED, "MPI_Type_indexed");
}

#pragma weak MPI_Type_indexed_c = PMPI_Type_indexed_c
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count *array_of_blocklengths,
                        const MPI_Count *array_of_displacements, MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    RT_API_ENTER();
    return idx_c(count, array_of_blocklengths, 0, array_of_displacements, false, oldtype, newtype,
                 MPI_COMBINER_INDEXED, "MPI_Type_indexed_c");
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int *array_of_blocklengths,
                              const MPI_Aint *array_of_displacements, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    RT_API_ENTER();
    return idx_int(count, array_of_blocklengths, 0, array_of_displacements, true, oldtype, newtype,
                   MPI_COMBINER_HINDEXED, "MPI_Type_create_hindexed");
}

#pragma weak MPI_Type_create_hindexed_c = PMPI_Type_create_hindexed_c
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count *array_of_blocklengths,
                                const MPI_Count *array_of_displacements, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    RT_API_ENTER();
    return idx_c(count, array_of_blocklengths, 0, array_of_displacements, true, oldtype, newtype,
                 MPI_COMBINER_HINDEXED, "MPI_Type_create_hindexed_c");
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int *array_of_displacements,
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    return idx_int(count, NULL, blocklength, array_of_displacements, false, oldtype, newtype,
                   MPI_COMBINER_INDEXED_BLOCK, "MPI_Type_create_indexed_block");
}

#pragma weak MPI_Type_create_indexed_block_c = PMPI_Type_create_indexed_block_c
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count *array_of_displacements, MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    RT_API_ENTER();
    return idx_c(count, NULL, blocklength, array_of_displacements, false, oldtype, newtype,
                 MPI_COMBINER_INDEXED_BLOCK, "MPI_Type_create_indexed_block_c");
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint *array_of_displacements, MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    RT_API_ENTER();
    return idx_int(count, NULL, blocklength, array_of_displacements, true, oldtype, newtype,
                   MPI_COMBINER_HINDEXED_BLOCK, "MPI_Type_create_hindexed_block");
}

#pragma weak MPI_Type_create_hindexed_block_c = PMPI_Type_create_hindexed_block_c
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count *array_of_displacements, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype)
{
    RT_API_ENTER();
    return idx_c(count, NULL, blocklength, array_of_displacements, true, oldtype, newtype,
                 MPI_COMBINER_HINDEXED_BLOCK, "MPI_Type_create_hindexed_block_c");
}

/* ---- struct ---- */

static int types_of(MPI_Count count, const MPI_Datatype *types, struct rdmpi_datatype **out,
                    const char *fn)
{
    for (MPI_Count i = 0; i < count; i++)
        if (!(out[i] = rt_dt_get(types[i])))
            return DT_ERR(MPI_ERR_TYPE, fn, "array_of_types[%lld] is %s", (long long)i,
                          types[i] == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                                                        : "not a valid datatype (freed?)");
    return MPI_SUCCESS;
}

static int strct(MPI_Count count, const MPI_Count *bls, const MPI_Aint *disps,
                 const MPI_Datatype *types, const struct dt_env *env0, MPI_Datatype *newtype,
                 const char *fn)
{
    struct rdmpi_datatype **olds = scratch((size_t)count, sizeof(*olds));
    struct dt_env env = *env0;
    struct blocks k = {.count = count, .bls = bls, .disps = disps};
    int err;

    if (!olds)
        return nomem(fn);
    if (!(err = types_of(count, types, olds, fn))) {
        k.olds = olds;
        env.types = olds;
        env.nd = (int)count;
        err = make(&k, true, &env, newtype, fn);
    }
    free(olds);
    return err;
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int *array_of_blocklengths,
                            const MPI_Aint *array_of_displacements,
                            const MPI_Datatype *array_of_types, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_create_struct";
    MPI_Count *bls;
    int *ints, err;

    if ((err = pre(count, MPI_DATATYPE_NULL, newtype, fn, NULL)) ||
        (err = arrays(count, array_of_blocklengths, array_of_displacements, fn)) ||
        (err = arrays(count, array_of_types, array_of_types, fn)))
        return err;
    bls = scratch((size_t)count, sizeof(*bls));
    ints = scratch((size_t)count + 1, sizeof(*ints));
    if (!bls || !ints) {
        free(bls), free(ints);
        return nomem(fn);
    }
    ints[0] = count;
    for (int i = 0; i < count; i++)
        bls[i] = ints[i + 1] = array_of_blocklengths[i];
    {
        struct dt_env env = {MPI_COMBINER_STRUCT,    count + 1, count, 0, 0, ints,
                             array_of_displacements, NULL,      NULL};
        err = strct(count, bls, array_of_displacements, array_of_types, &env, newtype, fn);
    }
    free(bls), free(ints);
    return err;
}

#pragma weak MPI_Type_create_struct_c = PMPI_Type_create_struct_c
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count *array_of_blocklengths,
                              const MPI_Count *array_of_displacements,
                              const MPI_Datatype *array_of_types, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_create_struct_c";
    MPI_Aint *wd;
    MPI_Count *c;
    int err;

    if ((err = pre(count, MPI_DATATYPE_NULL, newtype, fn, NULL)) ||
        (err = arrays(count, array_of_blocklengths, array_of_displacements, fn)) ||
        (err = arrays(count, array_of_types, array_of_types, fn)))
        return err;
    wd = scratch((size_t)count, sizeof(*wd));
    c = scratch(2 * (size_t)count + 1, sizeof(*c));
    if (!wd || !c) {
        free(wd), free(c);
        return nomem(fn);
    }
    c[0] = count;
    for (MPI_Count i = 0; i < count; i++) {
        c[1 + i] = array_of_blocklengths[i];
        c[1 + count + i] = array_of_displacements[i];
        wd[i] = (MPI_Aint)array_of_displacements[i];
    }
    {
        struct dt_env env = {
            MPI_COMBINER_STRUCT, 0, 0, (int)(2 * count + 1), 0, NULL, NULL, c, NULL};
        err = strct(count, array_of_blocklengths, wd, array_of_types, &env, newtype, fn);
    }
    free(wd), free(c);
    return err;
}

/* ---- resized and dup ---- */

static int resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype,
                   const struct dt_env *env0, const char *fn)
{
    struct rdmpi_datatype *old = NULL, *d;
    struct dt_env env = *env0;
    struct blocks k = {.count = 1, .bl = 1};
    int err = pre(0, oldtype, newtype, fn, &old);

    if (err)
        return err;
    k.old = old;
    env.types = &old;
    if ((err = make(&k, false, &env, newtype, fn)))
        return err;
    d = (struct rdmpi_datatype *)*newtype;
    d->lb = lb;
    d->extent = extent;
    d->flags |= RT_DT_RESIZED;
    if (!(d->size == 0 || (d->nsegs == 1 && d->segs[0].count == 1 && d->segs[0].off == lb)))
        d->flags &= ~(uint32_t)RT_DT_CONTIG;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    RT_API_ENTER();
    MPI_Aint a[2] = {lb, extent};
    struct dt_env env = {MPI_COMBINER_RESIZED, 0, 2, 0, 1, NULL, a, NULL, NULL};

    return resized(oldtype, lb, extent, newtype, &env, "MPI_Type_create_resized");
}

#pragma weak MPI_Type_create_resized_c = PMPI_Type_create_resized_c
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    RT_API_ENTER();
    MPI_Count c[2] = {lb, extent};
    struct dt_env env = {MPI_COMBINER_RESIZED, 0, 0, 2, 1, NULL, NULL, c, NULL};

    return resized(oldtype, (MPI_Aint)lb, (MPI_Aint)extent, newtype, &env,
                   "MPI_Type_create_resized_c");
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_dup";
    struct rdmpi_datatype *old = NULL, *d;
    struct dt_env env = {MPI_COMBINER_DUP, 0, 0, 0, 1, NULL, NULL, NULL, NULL};
    int err = pre(0, oldtype, newtype, fn, &old);

    if (err)
        return err;
    env.types = &old;
    if ((err = resized(oldtype, old->lb, old->extent, newtype, &env, fn)))
        return err;
    d = (struct rdmpi_datatype *)*newtype;
    /* A duplicate is the same type: same flags, committed state included. */
    d->flags = (d->flags & ~(uint32_t)(RT_DT_RESIZED | RT_DT_COMMITTED)) |
               (old->flags & (RT_DT_RESIZED | RT_DT_COMMITTED));
    d->true_lb = old->true_lb;
    d->true_extent = old->true_extent;
    err = rt_attr_copy(RT_KIND_DATATYPE, (void *)oldtype, old->attrs, (void *)*newtype, &d->attrs);
    if (err) {
        rt_dt_release(d);
        *newtype = MPI_DATATYPE_NULL;
        return DT_ERR(err, fn, "an attribute copy callback failed");
    }
    return MPI_SUCCESS;
}

/* ---- commit and free ---- */

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype *datatype)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_commit";
    struct rdmpi_datatype *d;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_ptr(datatype, fn, "datatype")) || (err = dt_arg(*datatype, fn, "datatype", &d)))
        return err;
    /* The flattened form exists from construction; committing only allows
     * communication. */
    d->flags |= RT_DT_COMMITTED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype *datatype)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Type_free";
    struct rdmpi_datatype *d;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_ptr(datatype, fn, "datatype")) || (err = dt_arg(*datatype, fn, "datatype", &d)))
        return err;
    if (d->flags & (RT_DT_PREDEF | RT_DT_F90))
        return DT_ERR(MPI_ERR_TYPE, fn, "datatype is the predefined %s, which cannot be freed",
                      d->name);
    if ((err = rt_attr_delete_all(RT_KIND_DATATYPE, (void *)*datatype, &d->attrs)))
        return DT_ERR(err, fn, "an attribute delete callback failed");
    rt_dt_release(d);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
