/* CHECK_MPI(call, ...): one check that an MPI call returned MPI_SUCCESS;
 * a failure shows the error string. Separate from tap.h so that unit tests
 * without mpi.h can use that. */
#ifndef TEST_MPITAP_H
#define TEST_MPITAP_H

#include <mpi.h>

#include "tap.h"

/* detail: "MPI_ERR_TAG: invalid tag (4)" for rc, or "" for MPI_SUCCESS. */
static inline void tap_mpi_detail_(int rc, char *detail, size_t size)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;

    detail[0] = '\0';
    if (rc == MPI_SUCCESS)
        return;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "unknown error code");
    snprintf(detail, size, "%s (%d)", s, rc);
}

#define CHECK_MPI(call, ...)                                                                       \
    do {                                                                                           \
        TAP_SKIP_();                                                                               \
        int tap_rc_ = (call);                                                                      \
        char tap_d_[MPI_MAX_ERROR_STRING + 32];                                                    \
        tap_mpi_detail_(tap_rc_, tap_d_, sizeof tap_d_);                                           \
        TAP_REPORT_(tap_rc_ == MPI_SUCCESS, __FILE__, __LINE__, #call " == MPI_SUCCESS", tap_d_,   \
                    " " __VA_ARGS__);                                                              \
    } while (0)

#endif
