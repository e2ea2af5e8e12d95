/* Windows as the runtime sees them (handles, error handlers, attributes,
 * names, info); the osc layer (osc/) owns the communication state. */
#ifndef RT_WIN_H
#define RT_WIN_H

#include "errors.h"
#include "rt.h"

struct rt_attr;

struct rdmpi_win {
    struct rt_obj obj;
    struct rdmpi_errhandler *errh;
    struct rt_attr *attrs;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Info info; /* hints given, or MPI_INFO_NULL */
    /* What the predefined attributes point at. */
    void *base;
    MPI_Aint size;
    int disp_unit;
    int flavor; /* MPI_WIN_FLAVOR_* */
    int model;  /* MPI_WIN_UNIFIED */
    void *osc;  /* the osc layer's state */
};

/* Windows alive in this process (counted by osc/). While there are any,
 * a barrier through shared memory delivers what peers sent before it, so
 * one-sided operations they carried are applied when it returns. */
extern int rt_live_windows;

/* Handle to object, or NULL for null, freed or foreign handles. */
struct rdmpi_win *rt_win_get(MPI_Win h);
/* The same, raising MPI_ERR_WIN (on MPI_COMM_SELF's handler) when NULL. */
struct rdmpi_win *rt_win_check(MPI_Win h, const char *fn, int *err);

#endif
