/* The special addresses and the conversions the generated glue uses. */
#include <pthread.h>
#include <stdio.h>

#include "f_glue.h"

/* gfortran names common block /x/ x_; a definition here is the storage
 * every Fortran unit's COMMON refers to. */
#define F_COMMON __attribute__((aligned(16)))
MPI_Fint mpi_fortran_bottom_ F_COMMON, mpi_fortran_in_place_ F_COMMON;
MPI_Fint mpi_fortran_buffer_automatic_ F_COMMON;
MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE] F_COMMON;
MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE] F_COMMON;
MPI_Fint mpi_fortran_f08_status_ignore_[MPI_F_STATUS_SIZE] F_COMMON;
MPI_Fint mpi_fortran_f08_statuses_ignore_[MPI_F_STATUS_SIZE] F_COMMON;
MPI_Fint mpi_fortran_errcodes_ignore_[1] F_COMMON, mpi_fortran_unweighted_[1] F_COMMON;
MPI_Fint mpi_fortran_weights_empty_[1] F_COMMON;
char mpi_fortran_argv_null_[1] F_COMMON, mpi_fortran_argvs_null_[1] F_COMMON;

MPI_Status *f_statuses_in(MPI_Fint *f, int n)
{
    if (f_status_ignored(f))
        return MPI_STATUSES_IGNORE;
    MPI_Status *c = malloc(sizeof *c * (n > 0 ? (size_t)n : 1));
    if (c && n > 0)
        memcpy(c, f, sizeof *c * (size_t)n);
    return c;
}

void f_statuses_out(MPI_Fint *f, MPI_Status *c, int n)
{
    if (!c)
        return;
    if (n > 0)
        memcpy(f, c, sizeof *c * (size_t)n);
    free(c);
}

/* Never NULL for a zero count: C may refuse a NULL array even then. */
void *f_alloc_handles(int n, size_t size)
{
    return malloc(size * (n > 0 ? (size_t)n : 1));
}

char *f_str_in(const char *s, size_t len, int lead)
{
    while (lead && len > 0 && *s == ' ')
        s++, len--;
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

/* 1 when the Fortran string is all blanks (ends an argv list), else 0. */
int f_str_blank(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    return len == 0;
}

/* C writes up to its MPI_MAX_* length whatever the Fortran length is. */
char *f_str_tmp(size_t len, size_t min)
{
    char *c = malloc(len + 1 > min ? len + 1 : min);
    if (c)
        c[0] = '\0';
    return c;
}

void f_str_out(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);

    if (n > len)
        n = len;
    memcpy(dst, src, n);
    memset(dst + n, ' ', len - n);
}

int f_comm_len(MPI_Comm comm, int which)
{
    int n = 0, inter = 0, topo = MPI_UNDEFINED, in = 0, out = 0, w;

    if (which == F_LEN_SIZE) {
        if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
            return 0;
        (inter ? PMPI_Comm_remote_size : PMPI_Comm_size)(comm, &n);
        return n;
    }
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_CART) {
        PMPI_Cartdim_get(comm, &n);
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        int rank;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n);
        return n;
    }
    if (topo == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(comm, &in, &out, &w);
        return which == F_LEN_INDEGREE ? in : out;
    }
    return 0;
}

void f08_refuse(const char *fn, const char *arg, const char *why, int kind, MPI_Fint h,
                MPI_Fint *ierr)
{
    fprintf(stderr,
            "rdmpi: %s: %s is a non-contiguous array section%s; pass a contiguous array, or "
            "describe the layout with a derived datatype (MPI_SUBARRAYS_SUPPORTED is "
            ".FALSE.)\n",
            fn, arg, why);
    int rc = MPI_ERR_BUFFER;
    if (kind == F_OBJ_WIN)
        PMPI_Win_call_errhandler(PMPI_Win_f2c(h), rc);
    else if (kind == F_OBJ_FILE)
        PMPI_File_call_errhandler(PMPI_File_f2c(h), rc);
    else
        PMPI_Comm_call_errhandler(kind == F_OBJ_COMM ? PMPI_Comm_f2c(h) : MPI_COMM_SELF, rc);
    if (ierr)
        *ierr = rc;
}

/* A section of COUNT elements of a predefined type is one element of an
 * hvector per dimension, with the descriptor's byte strides: the library
 * then reads the elements where they are, no copy (a copy would break
 * non-blocking calls). */
int f08_section(CFI_cdesc_t *d, MPI_Count count, MPI_Datatype *dt, MPI_Datatype *made,
                const char *fn, const char *arg, int kind, MPI_Fint h, MPI_Fint *ierr)
{
    MPI_Datatype cur = *dt, next;
    MPI_Count elems = 1;
    MPI_Aint lb, extent;
    int ni, na, nd, comb;

    for (int i = 0; i < d->rank; i++)
        elems *= d->dim[i].extent;
    if (PMPI_Type_get_envelope(*dt, &ni, &na, &nd, &comb) != MPI_SUCCESS ||
        comb != MPI_COMBINER_NAMED || PMPI_Type_get_extent(*dt, &lb, &extent) != MPI_SUCCESS ||
        extent != (MPI_Aint)d->elem_len || count != elems) {
        f08_refuse(fn, arg,
                   " and rdmpi describes one only for a count equal to its number of elements "
                   "and a predefined datatype of the element's size",
                   kind, h, ierr);
        return -1;
    }
    for (int i = 0; i < d->rank; i++) {
        int rc = PMPI_Type_create_hvector((int)d->dim[i].extent, 1, d->dim[i].sm, cur, &next);
        if (cur != *dt)
            PMPI_Type_free(&cur);
        if (rc != MPI_SUCCESS) {
            if (ierr)
                *ierr = rc;
            return -1;
        }
        cur = next;
    }
    PMPI_Type_commit(&cur);
    *dt = *made = cur;
    return 0;
}

/* The live cells, found by address: few attributes exist at once. */
static pthread_mutex_t cells_lock = PTHREAD_MUTEX_INITIALIZER;
static MPI_Aint **cells;
static size_t n_cells, max_cells;

void *f_attr_cell(MPI_Aint v)
{
    MPI_Aint *c = malloc(sizeof *c);

    if (!c)
        return NULL;
    *c = v;
    pthread_mutex_lock(&cells_lock);
    if (n_cells == max_cells) {
        size_t m = max_cells ? 2 * max_cells : 16;
        MPI_Aint **n = realloc(cells, m * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&cells_lock);
            free(c);
            return NULL;
        }
        cells = n;
        max_cells = m;
    }
    cells[n_cells++] = c;
    pthread_mutex_unlock(&cells_lock);
    return c;
}

static size_t find_cell(const void *p)
{
    size_t i;

    for (i = 0; i < n_cells && cells[i] != p; i++)
        ;
    return i;
}

int f_attr_cell_value(const void *p, MPI_Aint *v)
{
    pthread_mutex_lock(&cells_lock);
    int found = find_cell(p) < n_cells;
    if (found)
        *v = *(const MPI_Aint *)p;
    pthread_mutex_unlock(&cells_lock);
    return found;
}

void f_attr_cell_free(void *p)
{
    pthread_mutex_lock(&cells_lock);
    size_t i = find_cell(p);
    if (i < n_cells) {
        cells[i] = cells[--n_cells];
        free(p);
    }
    if (n_cells == 0) {
        free(cells);
        cells = NULL;
        max_cells = 0;
    }
    pthread_mutex_unlock(&cells_lock);
}
