#include "topo.h"

#include "rt.h"

struct rt_topo *rt_topo_dup(const struct rt_topo *t, int *err)
{
    (void)t;
    *err = MPI_SUCCESS;
    return NULL;
}

void rt_topo_free(struct rt_topo *t)
{
    (void)t;
}
