/* MPI_Comm_disconnect: freeing, after this rank's operations on the
 * communicator are done (sends whose requests were freed, buffered sends,
 * non-blocking collectives) and every member has come to the call; the
 * free drops processes of other jobs nothing reaches any more
 * (runtime/proc.c, pml_procs.c). */
#include "pml_check.h"

#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_disconnect";
    struct rdmpi_comm *c;
    unsigned spins = 0;
    int err;

    RT_CHECK_INIT(fn);
    if (!comm)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "comm is NULL; pass the address of an MPI_Comm");
    if ((err = pml_check_comm(*comm, fn, &c)))
        return err;
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return rdmpi_err_comm(*comm, MPI_ERR_COMM, fn, "%s cannot be disconnected",
                              *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
    while (pml_req_pending(c->pml))
        if (!rt_progress())
            rt_progress_wait(&spins);
    if ((err = PMPI_Barrier(*comm)))
        return err;
    return PMPI_Comm_free(comm);
}
