/* Window handles; the windows themselves are made by the osc layer. */
#include "win.h"

int rt_live_windows;

struct rdmpi_win *rt_win_get(MPI_Win h)
{
    struct rdmpi_win *w = (struct rdmpi_win *)h;

    if ((uintptr_t)h < RDMPI_PREDEF_LIMIT)
        return NULL;
    return w->obj.kind == RT_KIND_WIN ? w : NULL;
}

struct rdmpi_win *rt_win_check(MPI_Win h, const char *fn, int *err)
{
    struct rdmpi_win *w = rt_win_get(h);

    if (!w)
        *err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_WIN, fn, "%s",
                              h == MPI_WIN_NULL
                                  ? "win is MPI_WIN_NULL; pass a window"
                                  : "win is not a valid window (freed, or not a window handle)");
    return w;
}
