/*
 * MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE: Fortran's blank-padded
 * command and argument strings become C's NUL-terminated ones and the call
 * goes to the C function, so Fortran gets whatever C does (today
 * MPI_ERR_UNSUPPORTED_OPERATION through comm's error handler, until
 * dynamic processes exist).  An argument list ends at its first blank
 * entry (MPI-4.1 section 11.8.2); MPI_ARGV(S)_NULL are C's.
 */
#include "f_glue.h"

/* The C argv of n_max Fortran strings of length len, every stride-th one
 * from a: up to its first blank entry, NULL-terminated.  NULL when out of
 * memory; *fail tells that apart from an empty list. */
static char **argv_in(const char *a, size_t len, size_t stride, int *fail)
{
    size_t n = 0;
    char **v;

    while (f_str_blank(a + n * stride * len, len) == 0)
        n++;
    v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; v && i < n; i++)
        if (!(v[i] = f_str_in(a + i * stride * len, len, 0)))
            *fail = 1;
    if (!v)
        *fail = 1;
    return v;
}

static void argv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* argv is significant at the root only: elsewhere it may be anything. */
static int is_root(MPI_Comm comm, MPI_Fint root)
{
    int rank = -1;

    return comm != MPI_COMM_NULL && PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == root;
}

void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info, MPI_Fint *root,
                      MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierr,
                      size_t command_len, size_t argv_len);
F_ALIASES(comm_spawn)
void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info, MPI_Fint *root,
                      MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierr,
                      size_t command_len, size_t argv_len)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm), c_inter = MPI_COMM_NULL;
    char *c_command = f_str_in(command, command_len, 0), **c_argv = MPI_ARGV_NULL;
    int fail = !c_command, rc;

    if (argv != mpi_fortran_argv_null_ && is_root(c_comm, *root))
        c_argv = argv_in(argv, argv_len, 1, &fail);
    if (fail) {
        rc = MPI_ERR_NO_MEM;
        PMPI_Comm_call_errhandler(c_comm, rc);
    } else {
        rc = PMPI_Comm_spawn(
            c_command, c_argv, *maxprocs, PMPI_Info_f2c(*info), *root, c_comm, &c_inter,
            errcodes == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : errcodes);
        if (rc == MPI_SUCCESS)
            *intercomm = PMPI_Comm_c2f(c_inter);
    }
    if (c_argv != MPI_ARGV_NULL)
        argv_free(c_argv);
    free(c_command);
    if (ierr)
        *ierr = rc;
}

/* array_of_argv(count, *): the arguments of command i are the row i. */
void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *commands, char *argvs, MPI_Fint *maxprocs,
                               MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                               MPI_Fint *errcodes, MPI_Fint *ierr, size_t commands_len,
                               size_t argvs_len);
F_ALIASES(comm_spawn_multiple)
void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *commands, char *argvs, MPI_Fint *maxprocs,
                               MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                               MPI_Fint *errcodes, MPI_Fint *ierr, size_t commands_len,
                               size_t argvs_len)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm), c_inter = MPI_COMM_NULL;
    /* Every array is significant at the root only. */
    size_t n = *count > 0 && is_root(c_comm, *root) ? (size_t)*count : 0;
    int with_argv = argvs != mpi_fortran_argvs_null_, fail = 0, rc;
    char **c_commands = NULL, ***c_argvs = MPI_ARGVS_NULL;
    MPI_Info *c_infos = NULL;

    if (n) {
        c_commands = calloc(n, sizeof *c_commands);
        c_infos = calloc(n, sizeof *c_infos);
        if (with_argv)
            c_argvs = calloc(n, sizeof *c_argvs);
        fail = !c_commands || !c_infos || (with_argv && !c_argvs);
    }
    for (size_t i = 0; !fail && i < n; i++) {
        fail = !(c_commands[i] = f_str_in(commands + i * commands_len, commands_len, 0));
        c_infos[i] = PMPI_Info_f2c(infos[i]);
        if (with_argv && !fail)
            c_argvs[i] = argv_in(argvs + i * argvs_len, argvs_len, n, &fail);
    }
    if (fail) {
        rc = MPI_ERR_NO_MEM;
        PMPI_Comm_call_errhandler(c_comm, rc);
    } else {
        rc = PMPI_Comm_spawn_multiple(
            *count, c_commands, c_argvs, maxprocs, c_infos, *root, c_comm, &c_inter,
            errcodes == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : errcodes);
        if (rc == MPI_SUCCESS)
            *intercomm = PMPI_Comm_c2f(c_inter);
    }
    for (size_t i = 0; i < n; i++) {
        if (c_commands)
            free(c_commands[i]);
        if (c_argvs)
            argv_free(c_argvs[i]);
    }
    free(c_commands);
    free(c_argvs);
    free(c_infos);
    if (ierr)
        *ierr = rc;
}
