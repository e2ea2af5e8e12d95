/* Helpers for multi-rank tests: every rank checks, rank 0 collects the
 * failure counts over point-to-point and exits non-zero if any failed. */
#ifndef TEST_MPITEST_H
#define TEST_MPITEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mt_rank, mt_size, mt_failed;

#define MT_TAG_RESULT 32000

static inline void mt_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
}

/* The checks of test/tap.h record here instead of printing TAP points: a
 * failure is counted and printed with the rank; a test never stops at one,
 * so one run reports every broken case. */
#define TAP_SINK mt_point_
#include "../mpitap.h"
#include "../tap.h"

__attribute__((format(printf, 6, 7))) static inline void mt_point_(int pass, const char *file,
                                                                   int line, const char *expr,
                                                                   const char *detail,
                                                                   const char *fmt, ...)
{
    va_list ap;

    if (pass || mt_failed++ >= 20)
        return;
    fprintf(stderr, "rank %d: %s:%d: ", mt_rank, tap_base_(file), line);
    if (fmt[1]) {
        va_start(ap, fmt);
        vfprintf(stderr, fmt + 1, ap);
        va_end(ap);
        fprintf(stderr, ": ");
    }
    fprintf(stderr, "%s%s%s%s\n", expr, *detail ? " (" : "", detail, *detail ? ")" : "");
}

/* Fills and checks a buffer with a pattern that depends on a seed and the
 * byte position, so misplaced or stale bytes are caught. */
static inline void mt_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 8));
}

static inline size_t mt_verify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 131u + i * 7u + (i >> 8)))
            return i + 1;
    return 0;
}

static inline int mt_finish(const char *name)
{
    int total = mt_failed;

    if (mt_rank == 0) {
        for (int r = 1; r < mt_size; r++) {
            int f;
            MPI_Recv(&f, 1, MPI_INT, r, MT_TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += f;
        }
        printf("%s: %d ranks, %d failures\n", name, mt_size, total);
    } else {
        MPI_Send(&mt_failed, 1, MPI_INT, 0, MT_TAG_RESULT, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return mt_rank == 0 ? (total != 0) : 0;
}

#endif
