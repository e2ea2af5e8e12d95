/* Reductions: every predefined op on every type the standard allows
 * (MPI 4.1 sec. 6.9.2, plus arithmetic on MPI_CHAR), through MPI_Allreduce,
 * MPI_Reduce and MPI_Reduce_local, against a serial reference; the pairs
 * the standard leaves out fail with MPI_ERR_OP; a non-commutative user op
 * (affine maps x -> a x + b, i.e. 2x2 matrices [[a b] [0 1]], composed in
 * rank order) through every reduction; MPI_Op_create/_c, free, commutative. */
#include "../p2p/mpitest.h"

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

/* clang-format off */
enum { MAX, MIN, SUM, PROD, LAND, BAND, LOR, BOR, LXOR, BXOR, MINLOC, MAXLOC, NOPS };
static const MPI_Op ops[NOPS] = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD, MPI_LAND,   MPI_BAND,
                                 MPI_LOR,  MPI_BOR,  MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
static const char *op_names[NOPS] = {"MAX", "MIN",  "SUM", "PROD", "LAND",   "BAND",
                                     "LOR", "BOR",  "LXOR", "BXOR", "MINLOC", "MAXLOC"};

/* Type classes and the ops each accepts. */
enum { CI = 1, FI = 2, FL = 4, LG = 8, CX = 16, BY = 32, ML = 64, PR = 128 };
static const int op_cls[NOPS] = {CI | FI | FL | ML, CI | FI | FL | ML, CI | FI | FL | CX | ML,
                                 CI | FI | FL | CX | ML, CI | LG | ML, CI | FI | BY | ML,
                                 CI | LG | ML, CI | FI | BY | ML, CI | LG | ML, CI | FI | BY | ML,
                                 PR, PR};

#define N 37

/* Small values so that no sum or product overflows any type, and every
 * op gives a mix of results. */
static long long gen(int op, int rank, size_t i)
{
    switch (op) {
    case MAX: case MIN: return (long long)((i * 7 + (size_t)rank * 13) % 100) - 50;
    case SUM: return (long long)((i * 3 + (size_t)rank) % 11) - 5;
    case PROD: return (i + (size_t)rank) % 7 == 0 ? 2 : 1;
    case LAND: return i % 3 == 1 && (size_t)rank == i % (size_t)mt_size ? 0 : 1 + (long long)(i % 2);
    case LOR: return i % 3 == 1 && (size_t)rank == i % (size_t)mt_size ? 3 : 0;
    case LXOR: return (i + (size_t)rank) % 2 == 0 ? 2 : 0;
    default: return (long long)((i * 37 + (size_t)rank * 11) & 0x7f);
    }
}

#define FILL(T)                                                                 \
    static void fill_##T(void *b, int op, int rank)                             \
    {                                                                           \
        T *p = b;                                                               \
        for (size_t i = 0; i < N; i++)                                          \
            p[i] = (T)gen(op, rank, i);                                         \
    }
#define INT_REF(T)                                                              \
    FILL(T)                                                                     \
    static void ref_##T(void *b, int op, int nr)                                \
    {                                                                           \
        T *p = b;                                                               \
        for (size_t i = 0; i < N; i++) {                                        \
            T acc = (T)gen(op, 0, i);                                           \
            for (int r = 1; r < nr; r++) {                                      \
                T v = (T)gen(op, r, i);                                         \
                switch (op) {                                                   \
                case MAX: acc = v > acc ? v : acc; break;                      \
                case MIN: acc = v < acc ? v : acc; break;                      \
                case SUM: acc = (T)(acc + v); break;                            \
                case PROD: acc = (T)(acc * v); break;                           \
                case LAND: acc = (T)(acc && v); break;                          \
                case LOR: acc = (T)(acc || v); break;                           \
                case LXOR: acc = (T)(!acc != !v); break;                        \
                case BAND: acc = (T)(acc & v); break;                           \
                case BOR: acc = (T)(acc | v); break;                            \
                case BXOR: acc = (T)(acc ^ v); break;                           \
                }                                                               \
            }                                                                   \
            p[i] = acc;                                                         \
        }                                                                       \
    }
#define FLOAT_REF(T)                                                            \
    FILL(T)                                                                     \
    static void ref_##T(void *b, int op, int nr)                                \
    {                                                                           \
        T *p = b;                                                               \
        for (size_t i = 0; i < N; i++) {                                        \
            T acc = (T)gen(op, 0, i);                                           \
            for (int r = 1; r < nr; r++) {                                      \
                T v = (T)gen(op, r, i);                                         \
                acc = op == MAX ? (v > acc ? v : acc) : op == MIN ? (v < acc ? v : acc) \
                    : op == SUM ? acc + v : acc * v;                            \
            }                                                                   \
            p[i] = acc;                                                         \
        }                                                                       \
    }
#define COMPLEX_REF(T, R)                                                       \
    static void fill_##R(void *b, int op, int rank)                             \
    {                                                                           \
        T *p = b;                                                               \
        for (size_t i = 0; i < N; i++)                                          \
            p[i] = (T)gen(op, rank, i) + (T)gen(op, rank + 1, i) * (T)I;        \
    }                                                                           \
    static void ref_##R(void *b, int op, int nr)                                \
    {                                                                           \
        T *p = b;                                                               \
        for (size_t i = 0; i < N; i++) {                                        \
            T acc = (T)gen(op, 0, i) + (T)gen(op, 1, i) * (T)I;                 \
            for (int r = 1; r < nr; r++) {                                      \
                T v = (T)gen(op, r, i) + (T)gen(op, r + 1, i) * (T)I;           \
                acc = op == SUM ? acc + v : acc * v;                            \
            }                                                                   \
            p[i] = acc;                                                         \
        }                                                                       \
    }
#define BOOL_REF(T)                                                             \
    FILL(T)                                                                     \
    static void ref_##T(void *b, int op, int nr)                                \
    {                                                                           \
        T *p = b;                                                               \
        for (size_t i = 0; i < N; i++) {                                        \
            bool acc = gen(op, 0, i) != 0;                                      \
            for (int r = 1; r < nr; r++) {                                      \
                bool v = gen(op, r, i) != 0;                                    \
                acc = op == LAND ? acc && v : op == LOR ? acc || v : acc != v;  \
            }                                                                   \
            p[i] = acc;                                                         \
        }                                                                       \
    }
/* MINLOC/MAXLOC: value, index = rank; ties go to the lower index. */
#define PAIR_REF(V, IX, R)                                                      \
    struct R { V v; IX ix; };                                                   \
    static void fill_##R(void *b, int op, int rank)                             \
    {                                                                           \
        struct R *p = b;                                                        \
        (void)op;                                                               \
        for (size_t i = 0; i < N; i++) {                                        \
            p[i].v = (V)((i * 5 + (size_t)rank * 3) % 7);                       \
            p[i].ix = (IX)rank;                                                 \
        }                                                                       \
    }                                                                           \
    static void ref_##R(void *b, int op, int nr)                                \
    {                                                                           \
        struct R *p = b;                                                        \
        for (size_t i = 0; i < N; i++) {                                        \
            p[i].v = (V)(i * 5 % 7);                                            \
            p[i].ix = 0;                                                        \
            for (int r = 1; r < nr; r++) {                                      \
                V v = (V)((i * 5 + (size_t)r * 3) % 7);                         \
                if (op == MINLOC ? v < p[i].v : v > p[i].v) {                   \
                    p[i].v = v;                                                 \
                    p[i].ix = (IX)r;                                            \
                }                                                               \
            }                                                                   \
        }                                                                       \
    }

/* clang-format on */
typedef signed char schar;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned long ulong;
typedef long long llong;
typedef unsigned long long ullong;
typedef long double ldouble;
typedef _Bool cbool;
typedef float _Complex cf;
typedef double _Complex cd;
typedef long double _Complex cld;
/* clang-format off */
INT_REF(char) INT_REF(schar) INT_REF(uchar) INT_REF(short) INT_REF(ushort) INT_REF(int)
INT_REF(unsigned) INT_REF(long) INT_REF(ulong) INT_REF(llong) INT_REF(ullong)
INT_REF(int8_t) INT_REF(int16_t) INT_REF(int32_t) INT_REF(int64_t) INT_REF(uint8_t)
INT_REF(uint16_t) INT_REF(uint32_t) INT_REF(uint64_t)
FLOAT_REF(float) FLOAT_REF(double) FLOAT_REF(ldouble)
COMPLEX_REF(cf, cf) COMPLEX_REF(cd, cd) COMPLEX_REF(cld, cld)
BOOL_REF(cbool)
PAIR_REF(float, int, float_int) PAIR_REF(double, int, double_int)
PAIR_REF(long, int, long_int) PAIR_REF(int, int, two_int) PAIR_REF(short, int, short_int)
PAIR_REF(long double, int, ldouble_int) PAIR_REF(float, float, two_float)
PAIR_REF(double, double, two_double)

    /* clang-format on */

    struct type {
    MPI_Datatype dt;
    const char *name;
    int cls;
    size_t size;
    void (*fill)(void *, int, int);
    void (*ref)(void *, int, int);
};
#define T(dt, cls, R)                                                                              \
    {                                                                                              \
        dt, #dt, cls, sizeof(R), fill_##R, ref_##R                                                 \
    }
#define S(dt, cls, R)                                                                              \
    {                                                                                              \
        dt, #dt, cls, sizeof(struct R), fill_##R, ref_##R                                          \
    }
static const struct type types[] = {
    T(MPI_CHAR, CI, char),
    T(MPI_SIGNED_CHAR, CI, schar),
    T(MPI_UNSIGNED_CHAR, CI, uchar),
    T(MPI_BYTE, BY, uchar),
    T(MPI_SHORT, CI, short),
    T(MPI_UNSIGNED_SHORT, CI, ushort),
    T(MPI_INT, CI, int),
    T(MPI_UNSIGNED, CI, unsigned),
    T(MPI_LONG, CI, long),
    T(MPI_UNSIGNED_LONG, CI, ulong),
    T(MPI_LONG_LONG, CI, llong),
    T(MPI_UNSIGNED_LONG_LONG, CI, ullong),
    T(MPI_INT8_T, CI, int8_t),
    T(MPI_INT16_T, CI, int16_t),
    T(MPI_INT32_T, CI, int32_t),
    T(MPI_INT64_T, CI, int64_t),
    T(MPI_UINT8_T, CI, uint8_t),
    T(MPI_UINT16_T, CI, uint16_t),
    T(MPI_UINT32_T, CI, uint32_t),
    T(MPI_UINT64_T, CI, uint64_t),
    T(MPI_FLOAT, FL, float),
    T(MPI_DOUBLE, FL, double),
    T(MPI_LONG_DOUBLE, FL, ldouble),
    T(MPI_C_BOOL, LG, cbool),
    T(MPI_CXX_BOOL, LG, cbool),
    T(MPI_AINT, ML, long),
    T(MPI_OFFSET, ML, llong),
    T(MPI_COUNT, ML, llong),
    T(MPI_C_FLOAT_COMPLEX, CX, cf),
    T(MPI_C_DOUBLE_COMPLEX, CX, cd),
    T(MPI_C_LONG_DOUBLE_COMPLEX, CX, cld),
    T(MPI_CXX_FLOAT_COMPLEX, CX, cf),
    T(MPI_CXX_DOUBLE_COMPLEX, CX, cd),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, CX, cld),
    T(MPI_LOGICAL, LG, int),
    T(MPI_INTEGER, FI, int),
    T(MPI_REAL, FL, float),
    T(MPI_DOUBLE_PRECISION, FL, double),
    T(MPI_COMPLEX, CX, cf),
    T(MPI_DOUBLE_COMPLEX, CX, cd),
    T(MPI_INTEGER1, FI, int8_t),
    T(MPI_INTEGER2, FI, int16_t),
    T(MPI_INTEGER4, FI, int32_t),
    T(MPI_INTEGER8, FI, int64_t),
    T(MPI_REAL4, FL, float),
    T(MPI_REAL8, FL, double),
    T(MPI_COMPLEX8, CX, cf),
    T(MPI_COMPLEX16, CX, cd),
    S(MPI_FLOAT_INT, PR, float_int),
    S(MPI_DOUBLE_INT, PR, double_int),
    S(MPI_LONG_INT, PR, long_int),
    S(MPI_2INT, PR, two_int),
    S(MPI_SHORT_INT, PR, short_int),
    S(MPI_LONG_DOUBLE_INT, PR, ldouble_int),
    S(MPI_2INTEGER, PR, two_int),
    S(MPI_2REAL, PR, two_float),
    S(MPI_2DOUBLE_PRECISION, PR, two_double),
};
#define NTYPES (sizeof(types) / sizeof(types[0]))

/* Compares element values, not bytes: long double and pair types have
 * padding the library need not preserve. */
static bool same(const struct type *t, const void *a, const void *b)
{
    for (size_t i = 0; i < N; i++) {
        const char *x = (const char *)a + i * t->size, *y = (const char *)b + i * t->size;
        /* Floating point: by value (-0.0 == 0.0; the order of a reduction may
         * flip the sign of a zero). */
        if (t->cls & (FL | CX)) {
            bool eq = t->cls == CX ? (t->size == sizeof(cf)   ? *(const cf *)x == *(const cf *)y
                                      : t->size == sizeof(cd) ? *(const cd *)x == *(const cd *)y
                                                              : *(const cld *)x == *(const cld *)y)
                      : t->size == sizeof(float) ? *(const float *)x == *(const float *)y
                      : t->size == sizeof(double)
                          ? *(const double *)x == *(const double *)y
                          : *(const long double *)x == *(const long double *)y;
            if (!eq)
                return false;
        } else if (t->dt == MPI_LONG_DOUBLE_INT) {
            if (((const struct ldouble_int *)x)->v != ((const struct ldouble_int *)y)->v ||
                ((const struct ldouble_int *)x)->ix != ((const struct ldouble_int *)y)->ix)
                return false;
        } else if (t->dt == MPI_DOUBLE_INT || t->dt == MPI_LONG_INT || t->dt == MPI_FLOAT_INT ||
                   t->dt == MPI_SHORT_INT) {
            /* value then int index: compare the two members only */
            size_t vs = t->dt == MPI_SHORT_INT   ? sizeof(short)
                        : t->dt == MPI_FLOAT_INT ? sizeof(float)
                                                 : 8;
            size_t io = t->dt == MPI_SHORT_INT   ? offsetof(struct short_int, ix)
                        : t->dt == MPI_FLOAT_INT ? offsetof(struct float_int, ix)
                                                 : offsetof(struct double_int, ix);
            if (memcmp(x, y, vs) || memcmp(x + io, y + io, sizeof(int)))
                return false;
        } else if (memcmp(x, y, t->size)) {
            return false;
        }
    }
    return true;
}

static void check_predefined(void)
{
    char in[N * 32], out[N * 32], want[N * 32], mine[N * 32];
    int nr = mt_size, root = mt_size - 1;

    for (size_t ti = 0; ti < NTYPES; ti++) {
        const struct type *t = &types[ti];
        for (int op = 0; op < NOPS; op++) {
            int rc, cls;
            if (!(op_cls[op] & t->cls)) {
                rc = MPI_Allreduce(in, out, N, t->dt, ops[op], MPI_COMM_WORLD);
                MPI_Error_class(rc, &cls);
                CHECK_EQ_INT(cls, MPI_ERR_OP, "%s on %s: class %d, want MPI_ERR_OP", op_names[op],
                             t->name, cls);
                continue;
            }
            t->fill(in, op, mt_rank);
            memset(out, 0x5a, sizeof(out));
            rc = MPI_Allreduce(in, out, N, t->dt, ops[op], MPI_COMM_WORLD);
            t->ref(want, op, nr);
            CHECK_ALL ("allreduce %s on %s wrong", op_names[op], t->name) {
                CHECK_MPI(rc);
                CHECK_TRUE(same(t, out, want));
            }
            memset(out, 0x5a, sizeof(out));
            rc = MPI_Reduce(in, out, N, t->dt, ops[op], root, MPI_COMM_WORLD);
            CHECK_ALL ("reduce %s on %s wrong", op_names[op], t->name) {
                CHECK_MPI(rc);
                CHECK_TRUE(mt_rank != root || same(t, out, want));
            }
            /* Reduce_local: rank 1's data into rank 0's, as the 2-rank reference. */
            t->fill(in, op, 1);
            t->fill(mine, op, 0);
            rc = MPI_Reduce_local(in, mine, N, t->dt, ops[op]);
            t->ref(want, op, 2);
            CHECK_ALL ("reduce_local %s on %s wrong", op_names[op], t->name) {
                CHECK_MPI(rc);
                CHECK_TRUE(same(t, mine, want));
            }
        }
        /* REPLACE and NO_OP apply to any type. */
        t->fill(in, SUM, 1);
        t->fill(mine, SUM, 0);
        memcpy(want, mine, N * t->size);
        MPI_Reduce_local(in, mine, N, t->dt, MPI_NO_OP);
        CHECK_TRUE(same(t, mine, want), "NO_OP on %s changed the buffer", t->name);
        MPI_Reduce_local(in, mine, N, t->dt, MPI_REPLACE);
        CHECK_TRUE(same(t, mine, in), "REPLACE on %s did not copy", t->name);
    }
}

/* ---- a non-commutative user op: affine maps, composed in rank order ---- */

static uint64_t affine(uint32_t a, uint32_t b)
{
    return (uint64_t)a << 32 | b;
}

/* f o g: x -> a1 (a2 x + b2) + b1, mod 2^32. */
static uint64_t compose(uint64_t f, uint64_t g)
{
    uint32_t a1 = (uint32_t)(f >> 32), b1 = (uint32_t)f, a2 = (uint32_t)(g >> 32), b2 = (uint32_t)g;
    return affine(a1 * a2, a1 * b2 + b1);
}

static int calls;

static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    uint64_t *a = in, *b = inout;
    CHECK_EQ_PTR(*dt, MPI_UINT64_T, "user op got the wrong datatype handle");
    for (int i = 0; i < *len; i++)
        b[i] = compose(a[i], b[i]);
    calls++;
}

static void affine_fn_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    int n = (int)*len;
    affine_fn(in, inout, &n, dt);
}

static uint64_t elem(int rank, size_t i)
{
    return affine(2u * (uint32_t)rank + 3u, (uint32_t)(rank * 7 + (int)i));
}

/* x_lo o ... o x_hi (inclusive), the rank-order fold. */
static uint64_t fold(int lo, int hi, size_t i)
{
    uint64_t acc = elem(lo, i);
    for (int r = lo + 1; r <= hi; r++)
        acc = compose(acc, elem(r, i));
    return acc;
}

static void check_user(MPI_Op op, const char *name, size_t n)
{
    uint64_t *in = malloc(n * sizeof(*in) * (size_t)mt_size + 8),
             *out = malloc(n * sizeof(*out) * (size_t)mt_size + 8);
    int *counts = malloc((size_t)mt_size * sizeof(int));
    size_t bad;

    for (size_t i = 0; i < n; i++)
        in[i] = elem(mt_rank, i);
    for (int root = 0; root<mt_size; root += mt_size> 1 ? mt_size - 1 : 1) {
        MPI_Reduce(in, out, (int)n, MPI_UINT64_T, op, root, MPI_COMM_WORLD);
        bad = 0;
        if (mt_rank == root)
            for (size_t i = 0; i < n && !bad; i++)
                bad = out[i] != fold(0, mt_size - 1, i) ? i + 1 : 0;
        CHECK_TRUE(!bad, "%s reduce root %d n=%zu: element %zu out of rank order", name, root, n,
                   bad - 1);
    }
    MPI_Allreduce(in, out, (int)n, MPI_UINT64_T, op, MPI_COMM_WORLD);
    bad = 0;
    for (size_t i = 0; i < n && !bad; i++)
        bad = out[i] != fold(0, mt_size - 1, i) ? i + 1 : 0;
    CHECK_TRUE(!bad, "%s allreduce n=%zu: element %zu out of rank order", name, n, bad - 1);
    MPI_Scan(in, out, (int)n, MPI_UINT64_T, op, MPI_COMM_WORLD);
    bad = 0;
    for (size_t i = 0; i < n && !bad; i++)
        bad = out[i] != fold(0, mt_rank, i) ? i + 1 : 0;
    CHECK_TRUE(!bad, "%s scan n=%zu: element %zu wrong", name, n, bad - 1);
    MPI_Exscan(in, out, (int)n, MPI_UINT64_T, op, MPI_COMM_WORLD);
    bad = 0;
    for (size_t i = 0; i < n && !bad && mt_rank; i++)
        bad = out[i] != fold(0, mt_rank - 1, i) ? i + 1 : 0;
    CHECK_TRUE(!bad, "%s exscan n=%zu: element %zu wrong", name, n, bad - 1);
    /* Reduce_scatter_block and reduce_scatter (uneven counts). */
    for (size_t i = 0; i < n * (size_t)mt_size; i++)
        in[i] = elem(mt_rank, i);
    MPI_Reduce_scatter_block(in, out, (int)n, MPI_UINT64_T, op, MPI_COMM_WORLD);
    bad = 0;
    for (size_t i = 0; i < n && !bad; i++)
        bad = out[i] != fold(0, mt_size - 1, (size_t)mt_rank * n + i) ? i + 1 : 0;
    CHECK_TRUE(!bad, "%s reduce_scatter_block n=%zu: element %zu wrong", name, n, bad - 1);
    size_t disp = 0, total = 0;
    for (int r = 0; r < mt_size; r++) {
        counts[r] = (int)(n * (size_t)(r % 3)) / 2;
        if (r < mt_rank)
            disp += (size_t)counts[r];
        total += (size_t)counts[r];
    }
    (void)total;
    MPI_Reduce_scatter(in, out, counts, MPI_UINT64_T, op, MPI_COMM_WORLD);
    bad = 0;
    for (size_t i = 0; i < (size_t)counts[mt_rank] && !bad; i++)
        bad = out[i] != fold(0, mt_size - 1, disp + i) ? i + 1 : 0;
    CHECK_TRUE(!bad, "%s reduce_scatter n=%zu: element %zu wrong", name, n, bad - 1);
    free(in);
    free(out);
    free(counts);
}

static void check_op_objects(void)
{
    MPI_Op op, op2;
    int commute = -1, rc, cls;
    MPI_Request rq;
    uint64_t in = elem(mt_rank, 0), out = 0;

    MPI_Op_create(affine_fn, 0, &op);
    MPI_Op_commutative(op, &commute);
    CHECK_EQ_INT(commute, 0, "MPI_Op_commutative says %d for a non-commutative op", commute);
    MPI_Op_commutative(MPI_SUM, &commute);
    CHECK_EQ_INT(commute, 1, "MPI_SUM not commutative");
    for (size_t n = 1; n <= 40000; n = n * 29 + 3)
        check_user(op, "affine", n);
    MPI_Op_create_c(affine_fn_c, 0, &op2);
    check_user(op2, "affine_c", 1000);
    /* Freed while a non-blocking reduction still uses it. */
    MPI_Iallreduce(&in, &out, 1, MPI_UINT64_T, op2, MPI_COMM_WORLD, &rq);
    MPI_Op_free(&op2);
    CHECK_EQ_PTR(op2, MPI_OP_NULL, "MPI_Op_free did not reset the handle");
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK_EQ_LONG(out, fold(0, mt_size - 1, 0), "iallreduce with a freed op wrong");
    CHECK_EQ_PTR(MPI_Op_f2c(MPI_Op_c2f(op)), op, "MPI_Op c2f/f2c round trip failed");
    MPI_Op_free(&op);
    op = MPI_SUM;
    rc = MPI_Op_free(&op);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_OP, "freeing MPI_SUM: class %d", cls);
    CHECK_TRUE(mt_size == 1 || calls > 0, "the user function was never called");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    check_predefined();
    check_op_objects();
    return mt_finish("t_ops");
}
