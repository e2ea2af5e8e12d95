/*
 * MPI_GREQUEST_START with query, free and cancel procedures written in
 * Fortran.  C hands each callback the extra_state alone, so extra_state is
 * a record holding the three procedures and the address of the program's
 * extra_state variable; the free trampoline releases it after the Fortran
 * free procedure ran.
 *
 * The callbacks get that variable itself, as C callbacks get the program's
 * pointer: what one callback stores there the next one and the program see
 * (MPICH's greqf tests this, and MPICH and Open MPI both pass it so).  The
 * variable must therefore live until the free procedure has run.
 */
#include "f_glue.h"

typedef void(f_query_fn)(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierr);
typedef void(f_free_fn)(MPI_Aint *extra, MPI_Fint *ierr);
typedef void(f_cancel_fn)(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierr);

struct f_greq {
    f_query_fn *query;
    f_free_fn *free;
    f_cancel_fn *cancel;
    MPI_Aint *extra;
};

/* The Fortran procedure fills a Fortran status: an INTEGER array holding
 * the bytes of the C one (f_glue.h). */
static int greq_query(void *x, MPI_Status *status)
{
    struct f_greq *g = x;
    MPI_Fint fs[MPI_F_STATUS_SIZE], ierr = MPI_SUCCESS;

    memcpy(fs, status, sizeof *status);
    g->query(g->extra, fs, &ierr);
    memcpy(status, fs, sizeof *status);
    return ierr;
}

static int greq_free(void *x)
{
    struct f_greq *g = x;
    MPI_Fint ierr = MPI_SUCCESS;

    g->free(g->extra, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel(void *x, int complete)
{
    struct f_greq *g = x;
    MPI_Fint fcomplete = complete != 0, ierr = MPI_SUCCESS;

    g->cancel(g->extra, &fcomplete, &ierr);
    return ierr;
}

void pmpi_grequest_start_(f_query_fn *query, f_free_fn *free_fn, f_cancel_fn *cancel,
                          MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierr);
F_ALIASES(grequest_start)
void pmpi_grequest_start_(f_query_fn *query, f_free_fn *free_fn, f_cancel_fn *cancel,
                          MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierr)
{
    struct f_greq *g = malloc(sizeof *g);
    MPI_Request c = MPI_REQUEST_NULL;
    int rc;

    if (!g) {
        rc = MPI_ERR_NO_MEM;
        PMPI_Comm_call_errhandler(MPI_COMM_SELF, rc);
    } else {
        *g = (struct f_greq){query, free_fn, cancel, extra};
        rc = PMPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &c);
        if (rc == MPI_SUCCESS)
            *request = PMPI_Request_c2f(c);
        else
            free(g);
    }
    if (ierr)
        *ierr = rc;
}
