/* Building a derived type: constructors feed blocks of an old type at
 * displacements, in type-map order; the builder flattens them into merged
 * segments and tracks the bounds, then makes the type object. */
#ifndef RT_DT_BUILD_H
#define RT_DT_BUILD_H

#include "datatype.h"

#include <stdbool.h>

struct dt_build {
    struct rt_dt_seg *segs;
    size_t nsegs, cap;
    struct rt_dt_kid *kids;
    size_t nkids, kcap;
    MPI_Aint lb, ub, tlb, tub;
    bool any, tany, oom, resized;
    size_t size, nbasic, nelems, align;
};

void dtb_init(struct dt_build *b);
void dtb_discard(struct dt_build *b);
/* count blocks of bl consecutive copies of old, the first at displacement
 * disp, each stride bytes after the one before (all in bytes). Constant
 * time when each block is one run, so huge vectors build at once. */
void dtb_blocks(struct dt_build *b, struct rdmpi_datatype *old, MPI_Aint disp, size_t count,
                size_t bl, MPI_Aint stride);
/* bl consecutive copies of old starting at displacement disp (bytes). */
static inline void dtb_block(struct dt_build *b, struct rdmpi_datatype *old, MPI_Aint disp,
                             size_t bl)
{
    dtb_blocks(b, old, disp, 1, bl, 0);
}

/* The envelope of a new type; arrays are copied. */
struct dt_env {
    int combiner;
    int ni, na, nc, nd;
    const int *ints;
    const MPI_Aint *aints;
    const MPI_Count *counts;
    struct rdmpi_datatype *const *types;
};

/* Makes the type (with the struct padding if pad), consuming the builder.
 * Returns NULL when out of memory. */
struct rdmpi_datatype *dtb_finish(struct dt_build *b, const struct dt_env *env, bool pad);

/* Replaces a type's envelope and constituents (subarray/darray are built
 * from helper types but must describe themselves by their own call). */
int dt_set_env(struct rdmpi_datatype *d, const struct dt_env *env, struct rdmpi_datatype *old,
               size_t reps);

#endif
