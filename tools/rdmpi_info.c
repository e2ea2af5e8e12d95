/* rdmpi_info: what this rdmpi is and every tunable it reads. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

void rdmpi_info_params(FILE *out);

int main(int argc, char **argv)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;

    if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printf("usage: rdmpi_info\n  Prints the library version and every RDMPI_* "
               "environment variable the library reads, with its default and meaning.\n");
        return 0;
    }
    MPI_Get_library_version(version, &len);
    printf("%s\n", version);
#ifdef RDMPI_FORTRAN
    printf("Fortran bindings: mpif.h, use mpi, use mpi_f08 (built with %s)\n", RDMPI_FC);
#else
    printf("Fortran bindings: not built\n");
#endif
    printf("\nParameters (environment variables):\n");
    rdmpi_info_params(stdout);
    return 0;
}
