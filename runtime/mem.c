/* MPI_Alloc_mem and MPI_Free_mem: page-aligned memory from libc. The BTLs
 * register user buffers on demand (libfabric keeps its own registration
 * cache), so no special pool is needed for RDMA. */
#include "errors.h"

#include <stdlib.h>
#include <unistd.h>

#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Alloc_mem";
    void *p = NULL;
    long page = sysconf(_SC_PAGESIZE);

    (void)info; /* no hints are acted on */
    RT_CHECK_INIT(fn);
    if (size < 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_SIZE, fn,
                              "size is %ld; it must not be negative", (long)size);
    if (!baseptr)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "baseptr is NULL; pass the address of a pointer");
    if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, size ? (size_t)size : 1))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn,
                              "out of memory allocating %ld bytes", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

#pragma weak MPI_Free_mem = PMPI_Free_mem
int PMPI_Free_mem(void *base)
{
    RT_API_ENTER();
    RT_CHECK_INIT("MPI_Free_mem");
    free(base);
    return MPI_SUCCESS;
}
