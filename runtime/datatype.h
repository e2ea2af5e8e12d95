/* Datatypes as the protocols see them: a size, an extent, whether the data
 * is one contiguous run, and pack/unpack at any byte offset of the packed
 * stream (so pipelines can cut messages anywhere).
 *
 * Every type carries its flattened form, built when it is constructed: the
 * data of one element as an ordered list of segments, each `count` blocks
 * of `len` bytes `stride` apart (count 1 is a plain run). A vector or a 2-D
 * subarray is one segment, so pack/unpack is a tight copy loop. */
#ifndef RT_DATATYPE_H
#define RT_DATATYPE_H

#include "rt.h"

#include <stddef.h>
#include <string.h>

enum {
    RT_DT_CONTIG = 1u << 0, /* one element is `size` bytes at lb */
    RT_DT_COMMITTED = 1u << 1,
    RT_DT_PREDEF = 1u << 2,
    RT_DT_RESIZED = 1u << 3, /* lb/ub set explicitly: no alignment padding */
    RT_DT_F90 = 1u << 4,     /* from MPI_Type_create_f90_*: predefined, never freed */
};

struct rt_dt_seg {
    MPI_Aint off;    /* from the element's origin */
    MPI_Aint stride; /* between blocks (count > 1) */
    size_t len;      /* bytes per block */
    size_t count;    /* blocks */
};

/* A constituent in type-map order: `reps` consecutive copies of dt (used
 * to count basic elements and to convert to external32). */
struct rt_dt_kid {
    struct rdmpi_datatype *dt;
    size_t reps;
};

struct rt_attr;

struct rdmpi_datatype {
    struct rt_obj obj;
    size_t size;         /* bytes of data in one element */
    MPI_Aint lb, extent; /* extent = ub - lb */
    MPI_Aint true_lb, true_extent;
    uint32_t flags;
    int refs; /* the handle, derived types, requests */
    char name[MPI_MAX_OBJECT_NAME];

    /* Flattened form: segs in type-map order; cum[i] is the packed bytes
     * before segment i (cum[nsegs] == size). */
    struct rt_dt_seg *segs;
    size_t *cum;
    size_t nsegs;
    struct rt_dt_seg seg1; /* storage when there is at most one segment */
    size_t cum1[2];

    size_t nbasic;                /* predefined items in one element (reductions) */
    size_t nelems;                /* basic elements in one element: a pair type
                                   * (MPI_DOUBLE_INT) counts two, as the struct
                                   * the standard defines it to be */
    struct rdmpi_datatype *basic; /* the one predefined type all data is of, or NULL */
    size_t align;                 /* for the padding of MPI_Type_create_struct */
    struct rt_dt_kid *kids;
    size_t nkids;

    /* Envelope and contents as the constructor was called. */
    int combiner;
    int ni, na, nc, nd;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    struct rdmpi_datatype **types; /* each holds a reference */

    struct rt_attr *attrs;
};

extern struct rdmpi_datatype rt_dt_predef[RDMPI_DATATYPE_COUNT];

static inline struct rdmpi_datatype *rt_dt_get(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h;
    struct rdmpi_datatype *d;

    if (v < RDMPI_PREDEF_LIMIT) {
        v -= RDMPI_DATATYPE_BASE + 1;
        return v < RDMPI_DATATYPE_COUNT && rt_dt_predef[v].size ? &rt_dt_predef[v] : NULL;
    }
    d = (struct rdmpi_datatype *)h;
    return d->obj.kind == RT_KIND_DATATYPE ? d : NULL;
}

/* The user handle of a type object. */
static inline MPI_Datatype rt_dt_handle(struct rdmpi_datatype *d)
{
    if (d >= rt_dt_predef && d < rt_dt_predef + RDMPI_DATATYPE_COUNT)
        return (MPI_Datatype)(uintptr_t)(RDMPI_DATATYPE_BASE + 1 + (d - rt_dt_predef));
    return (MPI_Datatype)d;
}

/* count elements of dt are one contiguous run of count * size bytes. */
static inline int rt_dt_contig(const struct rdmpi_datatype *dt, size_t count)
{
    return (dt->flags & RT_DT_CONTIG) && (count <= 1 || (size_t)dt->extent == dt->size);
}

/* References: a derived type lives while its handle, a type built from
 * it, or a pending operation holds one. Predefined types ignore them, here
 * inline, since every request takes and drops one. */
void rt_dt_free_derived(struct rdmpi_datatype *dt);

static inline void rt_dt_retain(struct rdmpi_datatype *dt)
{
    if (!(dt->flags & RT_DT_PREDEF))
        __atomic_add_fetch(&dt->refs, 1, __ATOMIC_RELAXED);
}

static inline void rt_dt_release(struct rdmpi_datatype *dt)
{
    if (!(dt->flags & RT_DT_PREDEF) && !__atomic_sub_fetch(&dt->refs, 1, __ATOMIC_ACQ_REL))
        rt_dt_free_derived(dt);
}

/* Packs bytes [offset, offset + len) of the packed form of (buf, count, dt)
 * into out; unpack is the inverse. Both return the bytes moved. */
size_t rt_dt_pack(const struct rdmpi_datatype *dt, const void *buf, size_t count, size_t offset,
                  void *out, size_t len);
size_t rt_dt_unpack(const struct rdmpi_datatype *dt, void *buf, size_t count, size_t offset,
                    const void *in, size_t len);

/* Basic elements wholly inside the first `bytes` packed bytes of a run of
 * dt elements, and the inverse (bytes holding n basic elements). */
MPI_Count rt_dt_elements(const struct rdmpi_datatype *dt, size_t bytes);
size_t rt_dt_elements_bytes(const struct rdmpi_datatype *dt, MPI_Count n);

void rt_dt_init(void);

#endif
