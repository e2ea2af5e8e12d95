/*
 * MPI_Pcontrol exists for profiling tools, which intercept it through the
 * PMPI interface.  The library has no profiling of its own to switch, and
 * the standard allows the call to do nothing.
 */
#include "mpi.h"

#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
