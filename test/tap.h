/* A tiny TAP producer for C tests: plan, ok, skip, diag. */
#ifndef TEST_TAP_H
#define TEST_TAP_H

#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

#define plan(n) (printf("1..%d\n", (n)), fflush(stdout))
#define ok(cond, ...)                                                        \
    do {                                                                     \
        int tap_c_ = !!(cond);                                               \
        ++tap_n;                                                             \
        if (!tap_c_)                                                         \
            tap_failed++;                                                    \
        printf("%sok %d - ", tap_c_ ? "" : "not ", tap_n);                   \
        printf(__VA_ARGS__);                                                 \
        printf("\n");                                                        \
        fflush(stdout);                                                      \
    } while (0)
#define skip(...)                                                            \
    do {                                                                     \
        ++tap_n;                                                             \
        printf("ok %d # SKIP ", tap_n);                                      \
        printf(__VA_ARGS__);                                                 \
        printf("\n");                                                        \
    } while (0)
#define diag(...)                                                            \
    do {                                                                     \
        printf("# ");                                                        \
        printf(__VA_ARGS__);                                                 \
        printf("\n");                                                        \
        fflush(stdout);                                                      \
    } while (0)
/* Typed comparisons: one test point each, both values printed. */
#define CHECK_EQ_LONG(a, b)                                                  \
    do {                                                                     \
        long tap_a_ = (long)(a), tap_b_ = (long)(b);                         \
        ok(tap_a_ == tap_b_, "%s == %s (%ld, %ld)", #a, #b, tap_a_, tap_b_); \
    } while (0)
#define CHECK_EQ_INT(a, b) CHECK_EQ_LONG(a, b)
#define done_testing() (printf("1..%d\n", tap_n), fflush(stdout), tap_failed ? 1 : 0)
#define bail_out(...)                                                        \
    do {                                                                     \
        printf("Bail out! ");                                                \
        printf(__VA_ARGS__);                                                 \
        printf("\n");                                                        \
        exit(1);                                                             \
    } while (0)

#endif
