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

/* Records a failure with a message naming the rank; never stops the test,
 * so one run reports every broken case. */
#define mt_check(cond, ...)                                                  \
    do {                                                                     \
        if (!(cond)) {                                                       \
            if (mt_failed++ < 20) {                                          \
                fprintf(stderr, "rank %d: %s:%d: ", mt_rank, __FILE__, __LINE__); \
                fprintf(stderr, __VA_ARGS__);                                \
                fprintf(stderr, "\n");                                       \
            }                                                                \
        }                                                                    \
    } while (0)

/* Typed checks that print what was found and what was wanted. */
#define mt_check_int(got, want, what)                                         \
    do {                                                                     \
        long long g_ = (long long)(got), w_ = (long long)(want);             \
        mt_check(g_ == w_, "%s: got %lld, want %lld", (what), g_, w_);       \
    } while (0)
#define mt_check_str(got, want, what)                                         \
    do {                                                                     \
        const char *g_ = (got), *w_ = (want);                                \
        mt_check(g_ && !strcmp(g_, w_), "%s: got \"%s\", want \"%s\"", (what), \
                 g_ ? g_ : "(null)", w_);                                    \
    } while (0)

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
