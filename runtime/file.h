/* Files as the runtime sees them (handles and error handlers); the io
 * layer (io/) embeds this at the head of its own file state. */
#ifndef RT_FILE_H
#define RT_FILE_H

#include "errors.h"
#include "rt.h"

struct rdmpi_file {
    struct rt_obj obj;
    struct rdmpi_errhandler *errh; /* a copy of MPI_FILE_NULL's at open */
};

/* Handle to object, or NULL for MPI_FILE_NULL, closed or foreign handles. */
static inline struct rdmpi_file *rt_file_get(MPI_File h)
{
    struct rdmpi_file *f = (struct rdmpi_file *)h;

    if ((uintptr_t)h < RDMPI_PREDEF_LIMIT)
        return NULL;
    return f->obj.kind == RT_KIND_FILE ? f : NULL;
}

#endif
