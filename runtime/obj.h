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
/* The live object with this Fortran index, or NULL. */
void *rt_obj_from_findex(enum rt_kind kind, int findex);

#endif
