/* A tiny TAP producer for C tests: plan, typed checks, skip, diag.
 *
 * Every check is one test point. It is named by its optional printf-style
 * description, or by its expression when there is none; a failing check
 * adds a diagnostic with the file, the line, both expressions and both
 * values:
 *     CHECK_EQ_INT(rc, MPI_SUCCESS, "Comm_dup of %s", name);
 *     not ok 3 - Comm_dup of world
 *     #   t_comm.c:41: rc == MPI_SUCCESS (13 vs 0)
 * The integer forms refuse (at compile time) operands that are not
 * integers or are wider than their type, so nothing is truncated silently.
 *
 * A multi-rank test that reports failures rather than TAP points defines
 * TAP_SINK to its own recorder before including this file (see
 * test/p2p/mpitest.h); the checks are the same. */
#ifndef TEST_TAP_H
#define TEST_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

/* file: the last path component, so diagnostics stay short. */
static inline const char *tap_base_(const char *file)
{
    const char *s = strrchr(file, '/');
    return s ? s + 1 : file;
}

/* One result. fmt is " " followed by the user's description (the leading
 * space keeps the format non-empty when there is none). */
__attribute__((format(printf, 6, 7))) static inline void tap_point_(int pass, const char *file,
                                                                    int line, const char *expr,
                                                                    const char *detail,
                                                                    const char *fmt, ...)
{
    va_list ap;

    ++tap_n;
    if (!pass)
        tap_failed++;
    printf("%sok %d - ", pass ? "" : "not ", tap_n);
    if (fmt[1]) {
        va_start(ap, fmt);
        vprintf(fmt + 1, ap);
        va_end(ap);
    } else {
        printf("%s", expr);
    }
    printf("\n");
    if (!pass)
        printf("#   %s:%d: %s%s%s%s\n", tap_base_(file), line, expr, *detail ? " (" : "", detail,
               *detail ? ")" : "");
    fflush(stdout);
}

#ifndef TAP_SINK
#define TAP_SINK tap_point_
#endif

/* CHECK_ALL(description) { checks } makes its checks one point, passed if
 * all pass. Like &&, the checks after a failed one are not evaluated (a
 * later one may read what an earlier one proved valid); the point's
 * diagnostic is the failed check's. */
static int tap_grp_, tap_gfail_, tap_gline_;
static const char *tap_gfile_, *tap_gexpr_;
static char tap_gdetail_[320];

__attribute__((format(printf, 6, 7))) static inline void tap_sub_(int pass, const char *file,
                                                                  int line, const char *expr,
                                                                  const char *detail,
                                                                  const char *fmt, ...)
{
    (void)fmt;
    if (pass)
        return;
    tap_gfail_ = 1;
    tap_gfile_ = file;
    tap_gline_ = line;
    tap_gexpr_ = expr;
    snprintf(tap_gdetail_, sizeof tap_gdetail_, "%.300s", detail);
}

static inline void tap_group_begin_(const char *file, int line)
{
    tap_grp_ = 1;
    tap_gfail_ = 0;
    tap_gfile_ = file;
    tap_gline_ = line;
    tap_gexpr_ = "all of its checks";
    tap_gdetail_[0] = '\0';
}

#define CHECK_ALL(...)                                                                             \
    for (tap_group_begin_(__FILE__, __LINE__); tap_grp_;                                           \
         tap_grp_ = 0,                                                                             \
         TAP_SINK(!tap_gfail_, tap_gfile_, tap_gline_, tap_gexpr_, tap_gdetail_, " " __VA_ARGS__))

/* Where a check reports: its own point, or its group. */
#define TAP_SKIP_()                                                                                \
    if (tap_grp_ && tap_gfail_)                                                                    \
    break
#define TAP_REPORT_(...)                                                                           \
    do {                                                                                           \
        if (tap_grp_)                                                                              \
            tap_sub_(__VA_ARGS__);                                                                 \
        else                                                                                       \
            TAP_SINK(__VA_ARGS__);                                                                 \
    } while (0)

/* Compile-time guards: an operand must be an integer (% needs one) no wider
 * than T. */
#define TAP_INT_FITS_(T, name, a, b)                                                               \
    (void)sizeof((a) % 1);                                                                         \
    (void)sizeof((b) % 1);                                                                         \
    _Static_assert(sizeof(a) <= sizeof(T) && sizeof(b) <= sizeof(T),                               \
                   name ": an operand is wider than " #T "; use a wider check")

/* One comparison of two values of type T printed with PF. */
#define TAP_CMP_(T, PF, op, ex, a, b, ...)                                                         \
    do {                                                                                           \
        TAP_SKIP_();                                                                               \
        T tap_a_ = (a);                                                                            \
        T tap_b_ = (b);                                                                            \
        char tap_d_[96];                                                                           \
        snprintf(tap_d_, sizeof tap_d_, PF " vs " PF, tap_a_, tap_b_);                             \
        TAP_REPORT_(tap_a_ op tap_b_, __FILE__, __LINE__, ex, tap_d_, " " __VA_ARGS__);            \
    } while (0)
#define TAP_CMP_INT_(T, PF, name, op, ex, a, b, ...)                                               \
    do {                                                                                           \
        TAP_INT_FITS_(T, name, a, b);                                                              \
        TAP_CMP_(T, PF, op, ex, a, b, __VA_ARGS__);                                                \
    } while (0)

#define CHECK_EQ_INT(a, b, ...)                                                                    \
    TAP_CMP_INT_(int, "%d", "CHECK_EQ_INT", ==, #a " == " #b, a, b, __VA_ARGS__)
#define CHECK_NE_INT(a, b, ...)                                                                    \
    TAP_CMP_INT_(int, "%d", "CHECK_NE_INT", !=, #a " != " #b, a, b, __VA_ARGS__)
#define CHECK_EQ_LONG(a, b, ...)                                                                   \
    TAP_CMP_INT_(long, "%ld", "CHECK_EQ_LONG", ==, #a " == " #b, a, b, __VA_ARGS__)
#define CHECK_NE_LONG(a, b, ...)                                                                   \
    TAP_CMP_INT_(long, "%ld", "CHECK_NE_LONG", !=, #a " != " #b, a, b, __VA_ARGS__)
#define CHECK_LT_LONG(a, b, ...)                                                                   \
    TAP_CMP_INT_(long, "%ld", "CHECK_LT_LONG", <, #a " < " #b, a, b, __VA_ARGS__)
#define CHECK_LE_LONG(a, b, ...)                                                                   \
    TAP_CMP_INT_(long, "%ld", "CHECK_LE_LONG", <=, #a " <= " #b, a, b, __VA_ARGS__)
#define CHECK_GT_LONG(a, b, ...)                                                                   \
    TAP_CMP_INT_(long, "%ld", "CHECK_GT_LONG", >, #a " > " #b, a, b, __VA_ARGS__)
#define CHECK_GE_LONG(a, b, ...)                                                                   \
    TAP_CMP_INT_(long, "%ld", "CHECK_GE_LONG", >=, #a " >= " #b, a, b, __VA_ARGS__)
#define CHECK_EQ_SIZE(a, b, ...)                                                                   \
    TAP_CMP_INT_(size_t, "%zu", "CHECK_EQ_SIZE", ==, #a " == " #b, a, b, __VA_ARGS__)
#define CHECK_NE_SIZE(a, b, ...)                                                                   \
    TAP_CMP_INT_(size_t, "%zu", "CHECK_NE_SIZE", !=, #a " != " #b, a, b, __VA_ARGS__)
#define CHECK_EQ_U64(a, b, ...)                                                                    \
    TAP_CMP_INT_(uint64_t, "%" PRIu64, "CHECK_EQ_U64", ==, #a " == " #b, a, b, __VA_ARGS__)
#define CHECK_NE_U64(a, b, ...)                                                                    \
    TAP_CMP_INT_(uint64_t, "%" PRIu64, "CHECK_NE_U64", !=, #a " != " #b, a, b, __VA_ARGS__)
#define CHECK_EQ_PTR(a, b, ...) TAP_CMP_(const void *, "%p", ==, #a " == " #b, a, b, __VA_ARGS__)
#define CHECK_NE_PTR(a, b, ...) TAP_CMP_(const void *, "%p", !=, #a " != " #b, a, b, __VA_ARGS__)

/* Strings: NULL equals only NULL. */
#define TAP_STR_(want_eq, ex, a, b, ...)                                                           \
    do {                                                                                           \
        TAP_SKIP_();                                                                               \
        const char *tap_a_ = (a), *tap_b_ = (b);                                                   \
        int tap_eq_ = tap_a_ && tap_b_ ? !strcmp(tap_a_, tap_b_) : tap_a_ == tap_b_;               \
        char tap_d_[160];                                                                          \
        snprintf(tap_d_, sizeof tap_d_, "\"%.60s\" vs \"%.60s\"", tap_a_ ? tap_a_ : "(null)",      \
                 tap_b_ ? tap_b_ : "(null)");                                                      \
        TAP_REPORT_(tap_eq_ == (want_eq), __FILE__, __LINE__, ex, tap_d_, " " __VA_ARGS__);        \
    } while (0)
#define CHECK_EQ_STR(a, b, ...) TAP_STR_(1, #a " == " #b, a, b, __VA_ARGS__)
#define CHECK_NE_STR(a, b, ...) TAP_STR_(0, #a " != " #b, a, b, __VA_ARGS__)

/* n bytes at a and b; a failure names the first differing offset. */
static inline size_t tap_memdiff_(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return i;
    return n;
}
#define TAP_MEM_(want_eq, ex, a, b, n, ...)                                                        \
    do {                                                                                           \
        TAP_SKIP_();                                                                               \
        const unsigned char *tap_a_ = (const void *)(a), *tap_b_ = (const void *)(b);              \
        size_t tap_len_ = (n), tap_at_ = tap_memdiff_(tap_a_, tap_b_, tap_len_);                   \
        char tap_d_[96] = "all bytes equal";                                                       \
        if (tap_at_ < tap_len_)                                                                    \
            snprintf(tap_d_, sizeof tap_d_, "offset %zu of %zu: 0x%02x vs 0x%02x", tap_at_,        \
                     tap_len_, tap_a_[tap_at_], tap_b_[tap_at_]);                                  \
        TAP_REPORT_((tap_at_ == tap_len_) == (want_eq), __FILE__, __LINE__, ex, tap_d_,            \
                    " " __VA_ARGS__);                                                              \
    } while (0)
#define CHECK_EQ_MEM(a, b, n, ...)                                                                 \
    TAP_MEM_(1, #a " == " #b " for " #n " bytes", a, b, n, __VA_ARGS__)
#define CHECK_NE_MEM(a, b, n, ...)                                                                 \
    TAP_MEM_(0, #a " != " #b " for " #n " bytes", a, b, n, __VA_ARGS__)

/* Any other condition: a flag, or comparisons joined by ||. */
#define CHECK_TRUE(cond, ...)                                                                      \
    do {                                                                                           \
        TAP_SKIP_();                                                                               \
        TAP_REPORT_(!!(cond), __FILE__, __LINE__, #cond, "", " " __VA_ARGS__);                     \
    } while (0)

#define plan(n) (printf("1..%d\n", (n)), fflush(stdout))
#define skip(...)                                                                                  \
    do {                                                                                           \
        ++tap_n;                                                                                   \
        printf("ok %d # SKIP ", tap_n);                                                            \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
    } while (0)
#define diag(...)                                                                                  \
    do {                                                                                           \
        printf("# ");                                                                              \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        fflush(stdout);                                                                            \
    } while (0)
#define done_testing() (printf("1..%d\n", tap_n), fflush(stdout), tap_failed ? 1 : 0)
#define bail_out(...)                                                                              \
    do {                                                                                           \
        printf("Bail out! ");                                                                      \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        exit(1);                                                                                   \
    } while (0)

#endif
