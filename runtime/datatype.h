/* Datatypes as the protocols see them: a size, an extent, whether the data
 * is one contiguous run, and pack/unpack at any byte offset of the packed
 * stream (so pipelines can cut messages anywhere). */
#ifndef RT_DATATYPE_H
#define RT_DATATYPE_H

#include "rt.h"

#include <stddef.h>
#include <string.h>

enum {
    RT_DT_CONTIG = 1u << 0,    /* one element is `size` bytes at lb */
    RT_DT_COMMITTED = 1u << 1,
    RT_DT_PREDEF = 1u << 2,
};

struct rdmpi_datatype {
    struct rt_obj obj;
    size_t size;               /* bytes of data in one element */
    MPI_Aint lb, extent;       /* extent = ub - lb */
    MPI_Aint true_lb, true_extent;
    uint32_t flags;
    int refs;
    struct rt_attr *attrs;     /* cached attributes (runtime/attr.h) */
    char name[MPI_MAX_OBJECT_NAME];
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

/* count elements of dt are one contiguous run of count * size bytes. */
static inline int rt_dt_contig(const struct rdmpi_datatype *dt, size_t count)
{
    return (dt->flags & RT_DT_CONTIG) && (count <= 1 || (size_t)dt->extent == dt->size);
}

/* Packs bytes [offset, offset + len) of the packed form of (buf, count, dt)
 * into out; unpack is the inverse. Both return the bytes moved. */
size_t rt_dt_pack(const struct rdmpi_datatype *dt, const void *buf, size_t count,
                  size_t offset, void *out, size_t len);
size_t rt_dt_unpack(const struct rdmpi_datatype *dt, void *buf, size_t count,
                    size_t offset, const void *in, size_t len);

void rt_dt_init(void);

#endif
