/* Sessions (MPI-4.1 chapter 11.3): a handle on the layers that MPI_Init
 * need not have started, with its own error handler and info. */
#ifndef RT_SESSION_H
#define RT_SESSION_H

#include "errors.h"
#include "rt.h"

struct rdmpi_session {
    struct rt_obj obj;
    struct rdmpi_errhandler *errh;
    MPI_Info info; /* what MPI_Session_get_info hands out copies of */
    void *bbuf;    /* its buffer for buffered sends (the pml's) */
};

/* Set by the pml: detaches a session's send buffer at MPI_Session_finalize. */
extern void (*rt_session_bbuf_free)(void *bbuf);

/* Handle to object, or NULL for null, finalized or foreign handles. */
struct rdmpi_session *rt_session_get(MPI_Session h);

#endif
