/* The predefined types, references, and counting basic elements. */
#include "datatype.h"
#include "errors.h"
#include "obj.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

struct rdmpi_datatype rt_dt_predef[RDMPI_DATATYPE_COUNT];

/* Fortran kinds with no C type: sizes from the names (REAL2 = 2 bytes, ...). */
static size_t void_size(const char *name)
{
    static const struct {
        const char *name;
        size_t size;
    } sizes[] = {
        {"MPI_INTEGER16", 16}, {"MPI_REAL2", 2},      {"MPI_REAL16", 16},
        {"MPI_COMPLEX4", 4},   {"MPI_COMPLEX32", 32},
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        if (!strcmp(sizes[i].name, name))
            return sizes[i].size;
    return 0;
}

static void set_predef(int v, const char *name, const char *ctype, size_t size, size_t align)
{
    struct rdmpi_datatype *d = &rt_dt_predef[v - RDMPI_DATATYPE_BASE - 1];

    if (!strcmp(ctype, "void"))
        align = size = void_size(name);
    if (align > 16)
        align = 16;
    d->obj.kind = RT_KIND_DATATYPE;
    d->obj.findex = v - RDMPI_DATATYPE_BASE;
    d->size = size;
    d->extent = d->true_extent = (MPI_Aint)size;
    d->flags = RT_DT_CONTIG | RT_DT_COMMITTED | RT_DT_PREDEF;
    d->refs = 1;
    d->segs = &d->seg1;
    d->cum = d->cum1;
    d->nsegs = 1;
    d->seg1 = (struct rt_dt_seg){.off = 0, .len = size, .count = 1};
    d->cum1[1] = size;
    d->nbasic = 1;
    d->nelems = 1;
    d->basic = d;
    d->align = align;
    d->combiner = MPI_COMBINER_NAMED;
    snprintf(d->name, sizeof(d->name), "%s", name);
}

/* The value/index pair types hold two basic elements: their size leaves
 * out the padding their extent has (MPI_DOUBLE_INT: size 12, extent 16).
 * Their kids, the value and the index, count their elements. */
/* Slots for the pair types' runs and kids; rt_dt_init starts over at 0
 * on every start-up (sessions after MPI_Finalize run it again). */
static struct rt_dt_seg pair_segs[16][2];
static size_t pair_cums[16][3];
static struct rt_dt_kid pair_kids[16][2];
static int pairs_used;

static void set_pair(MPI_Datatype h, MPI_Datatype vt, size_t vsize, size_t ioff, MPI_Datatype it,
                     size_t isize)
{
    int used = pairs_used++;
    struct rdmpi_datatype *d = rt_dt_get(h);

    d->nelems = 2;
    d->kids = pair_kids[used];
    d->nkids = 2;
    d->kids[0] = (struct rt_dt_kid){rt_dt_get(vt), 1};
    d->kids[1] = (struct rt_dt_kid){rt_dt_get(it), 1};
    d->size = vsize + isize;
    d->true_extent = (MPI_Aint)(ioff + isize);
    if (vsize == ioff)
        d->seg1.len = d->size; /* no padding between: still one run */
    else {
        d->segs = pair_segs[used];
        d->cum = pair_cums[used];
        d->nsegs = 2;
        d->segs[0] = (struct rt_dt_seg){.off = 0, .len = vsize, .count = 1};
        d->segs[1] = (struct rt_dt_seg){.off = (MPI_Aint)ioff, .len = isize, .count = 1};
        d->cum[0] = 0;
        d->cum[1] = vsize;
        d->flags &= ~(uint32_t)RT_DT_CONTIG;
    }
    d->cum[d->nsegs] = d->size;
}

#define PAIR(h, vt, it, st)                                                                        \
    set_pair(h, vt, sizeof(((st *)0)->value), offsetof(st, index), it, sizeof(((st *)0)->index))

void rt_dt_init(void)
{
    pairs_used = 0;
    /* sizeof(void) is a GNU extension (1); set_predef replaces it. */
#define X(name, value, type) set_predef(value, #name, #type, sizeof(type), alignof(type));
    RDMPI_FOREACH_PREDEF_DATATYPE(X)
#undef X
    /* One handle for the synonyms MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX:
     * it answers to the name the standard lists first. */
    snprintf(rt_dt_get(MPI_C_COMPLEX)->name, MPI_MAX_OBJECT_NAME, "MPI_C_COMPLEX");
    PAIR(MPI_FLOAT_INT, MPI_FLOAT, MPI_INT, struct rdmpi_float_int);
    PAIR(MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT, struct rdmpi_double_int);
    PAIR(MPI_LONG_INT, MPI_LONG, MPI_INT, struct rdmpi_long_int);
    PAIR(MPI_2INT, MPI_INT, MPI_INT, struct rdmpi_2int);
    PAIR(MPI_SHORT_INT, MPI_SHORT, MPI_INT, struct rdmpi_short_int);
    PAIR(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT, struct rdmpi_long_double_int);
    PAIR(MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER, struct rdmpi_2int);
    PAIR(MPI_2REAL, MPI_REAL, MPI_REAL, struct rdmpi_2float);
    PAIR(MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, struct rdmpi_2double);
}

/* The last reference to a derived type went. */
void rt_dt_free_derived(struct rdmpi_datatype *dt)
{
    for (int i = 0; i < dt->nd; i++)
        rt_dt_release(dt->types[i]);
    if (dt->segs != &dt->seg1) {
        free(dt->segs);
        free(dt->cum);
    }
    free(dt->kids);
    free(dt->ints);
    free(dt->aints);
    free(dt->counts);
    free(dt->types);
    rt_obj_delete(dt);
}

MPI_Count rt_dt_elements(const struct rdmpi_datatype *dt, size_t bytes)
{
    MPI_Count n;

    if (!dt->size)
        return 0;
    n = (MPI_Count)(bytes / dt->size * dt->nelems);
    bytes %= dt->size;
    for (size_t i = 0; bytes && i < dt->nkids; i++) {
        const struct rt_dt_kid *k = &dt->kids[i];
        size_t kb = k->dt->size * k->reps;
        if (bytes < kb)
            return n + rt_dt_elements(k->dt, bytes);
        n += (MPI_Count)(k->dt->nelems * k->reps);
        bytes -= kb;
    }
    return n;
}

size_t rt_dt_elements_bytes(const struct rdmpi_datatype *dt, MPI_Count n)
{
    size_t b;

    if (!dt->nelems)
        return 0;
    b = (size_t)n / dt->nelems * dt->size;
    n %= (MPI_Count)dt->nelems;
    for (size_t i = 0; n && i < dt->nkids; i++) {
        const struct rt_dt_kid *k = &dt->kids[i];
        MPI_Count kn = (MPI_Count)(k->dt->nelems * k->reps);
        if (n < kn)
            return b + rt_dt_elements_bytes(k->dt, n);
        b += k->dt->size * k->reps;
        n -= kn;
    }
    return b;
}
