/* Pools for user-visible objects: recycled per kind, never returned to libc,
 * each with a stable Fortran index. */
#ifndef RT_OBJ_H
#define RT_OBJ_H

#include "rt.h"

#include <stddef.h>

/* A zeroed object of `size` bytes whose header says `kind`. */
void *rt_obj_new(enum rt_kind kind, size_t size);
/* Marks the object dead (stale handles then fail validation) and keeps
 * it for the next rt_obj_new of the same kind. */
void rt_obj_delete(void *obj);
/* Requests live in this pool (generalized requests, ...) and in the pml's
 * own (rt_req_by_findex); the pool's Fortran indices start here so that the
 * two never meet and MPI_Request_f2c can tell which pool to ask. */
#define RT_OBJ_REQ_FINDEX_BASE (1 << 28)
/* Objects by Fortran index, in chunks that never move, so that a lookup
 * (MPI_*_f2c, on each Fortran call with a user handle) takes no lock and
 * no call: rt_obj_new fills an entry before it publishes the new count. */
#define RT_OBJ_NKINDS     (RT_KIND_SESSION - RT_KIND_COMM + 1)
#define RT_OBJ_CHUNK_BITS 12
#define RT_OBJ_NCHUNKS    4096 /* 16M objects of one kind */
extern struct rt_obj **rt_obj_chunks[RT_OBJ_NKINDS][RT_OBJ_NCHUNKS];
extern int rt_obj_counts[RT_OBJ_NKINDS]; /* stored with release */

/* Where the Fortran indices of a kind start: below 64 are its predefined
 * handles. */
static inline int rt_obj_first_index(enum rt_kind kind)
{
    return 64 + (kind == RT_KIND_REQUEST ? RT_OBJ_REQ_FINDEX_BASE : 0);
}

/* The live object with this Fortran index, or NULL. */
static inline void *rt_obj_from_findex(enum rt_kind kind, int findex)
{
    int i = findex - rt_obj_first_index(kind);
    struct rt_obj *o;

    if (i < 0 || i >= __atomic_load_n(&rt_obj_counts[kind - RT_KIND_COMM], __ATOMIC_ACQUIRE))
        return NULL;
    o = rt_obj_chunks[kind - RT_KIND_COMM][i >> RT_OBJ_CHUNK_BITS]
                     [i & ((1 << RT_OBJ_CHUNK_BITS) - 1)];
    return __atomic_load_n(&o->kind, __ATOMIC_RELAXED) == (uint32_t)kind ? o : NULL;
}

#endif
