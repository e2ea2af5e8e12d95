/* The predefined reduction kernels: one tight loop per (op, machine type),
 * shared by the MPI types with that representation, and the table of which
 * op the standard allows on which type class (MPI 4.1 sec. 6.9.2). Signed
 * sums and products wrap through the unsigned type, so overflow is defined
 * and the loops still vectorize. */
#include "coll.h"

#include <complex.h>

/* gcc 12 vectorizes at -O2 only with its "very cheap" cost model, which
 * rejects loops that need a scalar epilogue: these loops are the hot path
 * of every reduction, so ask for the full vectorizer here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

/* x86-64 builds for the baseline (SSE2); an AVX2 clone, picked at load time
 * where the CPU has it, doubles the width of every loop. */
#if defined(__x86_64__) && defined(__ELF__)
#define KERNEL_ATTR __attribute__((target_clones("avx2", "default")))
#else
#define KERNEL_ATTR
#endif

/* clang-format off */
enum repr {
    R_NONE, R_I8, R_U8, R_I16, R_U16, R_I32, R_U32, R_I64, R_U64, R_F32, R_F64, R_FLD,
    R_C32, R_C64, R_CLD, R_BOOL, R_FLOAT_INT, R_DOUBLE_INT, R_LONG_INT, R_2INT, R_SHORT_INT,
    R_LD_INT, R_2FLOAT, R_2DOUBLE, R_COUNT
};

/* Type classes of the standard, plus MPI_CHAR, whose arithmetic the
 * standard leaves out but OSU-style benchmarks use. */
enum {
    C_INT = 1, F_INT = 2, FLT = 4, LOGIC = 8, CPLX = 16, BYTE = 32, MULTI = 64, PAIR = 128,
};
/* clang-format on */

#define KERNEL(name, T, expr)                                                                      \
    KERNEL_ATTR static void name(const void *restrict in_, void *restrict io_, size_t n)           \
    {                                                                                              \
        const T *restrict a = in_;                                                                 \
        T *restrict b = io_;                                                                       \
        for (size_t i = 0; i < n; i++)                                                             \
            b[i] = (expr);                                                                         \
    }

/* U: the unsigned type the arithmetic runs in (never narrower than int, so
 * promotion cannot bring back signed overflow). */
#define INT_KERNELS(R, T, U)                                                                       \
    KERNEL(max_##R, T, a[i] > b[i] ? a[i] : b[i])                                                  \
    KERNEL(min_##R, T, a[i] < b[i] ? a[i] : b[i])                                                  \
    KERNEL(sum_##R, T, (T)((U)a[i] + (U)b[i]))                                                     \
    KERNEL(prod_##R, T, (T)((U)a[i] * (U)b[i]))                                                    \
    KERNEL(land_##R, T, (T)(a[i] && b[i]))                                                         \
    KERNEL(band_##R, T, (T)(a[i] & b[i]))                                                          \
    KERNEL(lor_##R, T, (T)(a[i] || b[i]))                                                          \
    KERNEL(bor_##R, T, (T)(a[i] | b[i]))                                                           \
    KERNEL(lxor_##R, T, (T)(!a[i] != !b[i]))                                                       \
    KERNEL(bxor_##R, T, (T)(a[i] ^ b[i]))
#define INT_ROW(R)                                                                                 \
    {                                                                                              \
        max_##R, min_##R, sum_##R, prod_##R, land_##R, band_##R, lor_##R, bor_##R, lxor_##R,       \
            bxor_##R                                                                               \
    }

#define FLOAT_KERNELS(R, T)                                                                        \
    KERNEL(max_##R, T, a[i] > b[i] ? a[i] : b[i])                                                  \
    KERNEL(min_##R, T, a[i] < b[i] ? a[i] : b[i])                                                  \
    KERNEL(sum_##R, T, a[i] + b[i])                                                                \
    KERNEL(prod_##R, T, a[i] * b[i])
#define FLOAT_ROW(R)                                                                               \
    {                                                                                              \
        max_##R, min_##R, sum_##R, prod_##R                                                        \
    }

#define COMPLEX_KERNELS(R, T)                                                                      \
    KERNEL(sum_##R, T, a[i] + b[i])                                                                \
    KERNEL(prod_##R, T, a[i] * b[i])
#define COMPLEX_ROW(R)                                                                             \
    {                                                                                              \
        [2] = sum_##R, [3] = prod_##R                                                              \
    }

/* MINLOC/MAXLOC: on equal values the lower index wins (MPI 4.1 6.9.4). */
#define PAIR_KERNELS(R, T)                                                                         \
    static void minloc_##R(const void *restrict in_, void *restrict io_, size_t n)                 \
    {                                                                                              \
        const T *a = in_;                                                                          \
        T *b = io_;                                                                                \
        for (size_t i = 0; i < n; i++)                                                             \
            if (a[i].value < b[i].value || (a[i].value == b[i].value && a[i].index < b[i].index))  \
                b[i] = a[i];                                                                       \
    }                                                                                              \
    static void maxloc_##R(const void *restrict in_, void *restrict io_, size_t n)                 \
    {                                                                                              \
        const T *a = in_;                                                                          \
        T *b = io_;                                                                                \
        for (size_t i = 0; i < n; i++)                                                             \
            if (a[i].value > b[i].value || (a[i].value == b[i].value && a[i].index < b[i].index))  \
                b[i] = a[i];                                                                       \
    }
#define PAIR_ROW(R)                                                                                \
    {                                                                                              \
        [10] = minloc_##R, [11] = maxloc_##R                                                       \
    }

INT_KERNELS(i8, int8_t, unsigned)
INT_KERNELS(u8, uint8_t, unsigned)
INT_KERNELS(i16, int16_t, unsigned)
INT_KERNELS(u16, uint16_t, unsigned)
INT_KERNELS(i32, int32_t, uint32_t)
INT_KERNELS(u32, uint32_t, uint32_t)
INT_KERNELS(i64, int64_t, uint64_t)
INT_KERNELS(u64, uint64_t, uint64_t)
FLOAT_KERNELS(f32, float)
FLOAT_KERNELS(f64, double)
FLOAT_KERNELS(fld, long double)
COMPLEX_KERNELS(c32, float _Complex)
COMPLEX_KERNELS(c64, double _Complex)
COMPLEX_KERNELS(cld, long double _Complex)
KERNEL(land_bool, _Bool, a[i] && b[i])
KERNEL(lor_bool, _Bool, a[i] || b[i])
KERNEL(lxor_bool, _Bool, a[i] != b[i])
PAIR_KERNELS(float_int, struct rdmpi_float_int)
PAIR_KERNELS(double_int, struct rdmpi_double_int)
PAIR_KERNELS(long_int, struct rdmpi_long_int)
PAIR_KERNELS(2int, struct rdmpi_2int)
PAIR_KERNELS(short_int, struct rdmpi_short_int)
PAIR_KERNELS(ld_int, struct rdmpi_long_double_int)
PAIR_KERNELS(2float, struct rdmpi_2float)
PAIR_KERNELS(2double, struct rdmpi_2double)

/* Indexed by representation, then by op index (MPI_MAX = 0, ...). */
static const coll_kernel_fn kernels[R_COUNT][RDMPI_OP_COUNT] = {
    [R_I8] = INT_ROW(i8),
    [R_U8] = INT_ROW(u8),
    [R_I16] = INT_ROW(i16),
    [R_U16] = INT_ROW(u16),
    [R_I32] = INT_ROW(i32),
    [R_U32] = INT_ROW(u32),
    [R_I64] = INT_ROW(i64),
    [R_U64] = INT_ROW(u64),
    [R_F32] = FLOAT_ROW(f32),
    [R_F64] = FLOAT_ROW(f64),
    [R_FLD] = FLOAT_ROW(fld),
    [R_C32] = COMPLEX_ROW(c32),
    [R_C64] = COMPLEX_ROW(c64),
    [R_CLD] = COMPLEX_ROW(cld),
    [R_BOOL] = {[4] = land_bool, [6] = lor_bool, [8] = lxor_bool},
    [R_FLOAT_INT] = PAIR_ROW(float_int),
    [R_DOUBLE_INT] = PAIR_ROW(double_int),
    [R_LONG_INT] = PAIR_ROW(long_int),
    [R_2INT] = PAIR_ROW(2int),
    [R_SHORT_INT] = PAIR_ROW(short_int),
    [R_LD_INT] = PAIR_ROW(ld_int),
    [R_2FLOAT] = PAIR_ROW(2float),
    [R_2DOUBLE] = PAIR_ROW(2double),
};

/* Which classes each op accepts, by op index: MPI 4.1 6.9.2, and the
 * logical ops on the multi-language types (MPI_AINT, MPI_OFFSET,
 * MPI_COUNT) too, integers that Open MPI and MPICH both accept there. */
static const uint8_t op_classes[RDMPI_OP_COUNT] = {
    C_INT | F_INT | FLT | MULTI,        /* MAX */
    C_INT | F_INT | FLT | MULTI,        /* MIN */
    C_INT | F_INT | FLT | CPLX | MULTI, /* SUM */
    C_INT | F_INT | FLT | CPLX | MULTI, /* PROD */
    C_INT | LOGIC | MULTI,              /* LAND */
    C_INT | F_INT | BYTE | MULTI,       /* BAND */
    C_INT | LOGIC | MULTI,              /* LOR */
    C_INT | F_INT | BYTE | MULTI,       /* BOR */
    C_INT | LOGIC | MULTI,              /* LXOR */
    C_INT | F_INT | BYTE | MULTI,       /* BXOR */
    PAIR,                               /* MINLOC */
    PAIR,                               /* MAXLOC */
    0xff,                               /* REPLACE */
    0xff,                               /* NO_OP */
};

#define SINT(T) (sizeof(T) == 1 ? R_I8 : sizeof(T) == 2 ? R_I16 : sizeof(T) == 4 ? R_I32 : R_I64)
#define UINT(T) (sizeof(T) == 1 ? R_U8 : sizeof(T) == 2 ? R_U16 : sizeof(T) == 4 ? R_U32 : R_U64)
#define IDX(h)  ((uintptr_t)(h)-RDMPI_DATATYPE_BASE - 1)

static const struct {
    uint8_t repr, cls;
} types[RDMPI_DATATYPE_COUNT] = {
    [IDX(MPI_CHAR)] = {(char)-1 < 0 ? R_I8 : R_U8, C_INT},
    [IDX(MPI_SIGNED_CHAR)] = {R_I8, C_INT},
    [IDX(MPI_UNSIGNED_CHAR)] = {R_U8, C_INT},
    [IDX(MPI_BYTE)] = {R_U8, BYTE},
    [IDX(MPI_SHORT)] = {SINT(short), C_INT},
    [IDX(MPI_UNSIGNED_SHORT)] = {UINT(short), C_INT},
    [IDX(MPI_INT)] = {SINT(int), C_INT},
    [IDX(MPI_UNSIGNED)] = {UINT(int), C_INT},
    [IDX(MPI_LONG)] = {SINT(long), C_INT},
    [IDX(MPI_UNSIGNED_LONG)] = {UINT(long), C_INT},
    [IDX(MPI_LONG_LONG_INT)] = {SINT(long long), C_INT},
    [IDX(MPI_UNSIGNED_LONG_LONG)] = {UINT(long long), C_INT},
    [IDX(MPI_FLOAT)] = {R_F32, FLT},
    [IDX(MPI_DOUBLE)] = {R_F64, FLT},
    [IDX(MPI_LONG_DOUBLE)] = {R_FLD, FLT},
    [IDX(MPI_C_BOOL)] = {R_BOOL, LOGIC},
    [IDX(MPI_INT8_T)] = {R_I8, C_INT},
    [IDX(MPI_INT16_T)] = {R_I16, C_INT},
    [IDX(MPI_INT32_T)] = {R_I32, C_INT},
    [IDX(MPI_INT64_T)] = {R_I64, C_INT},
    [IDX(MPI_UINT8_T)] = {R_U8, C_INT},
    [IDX(MPI_UINT16_T)] = {R_U16, C_INT},
    [IDX(MPI_UINT32_T)] = {R_U32, C_INT},
    [IDX(MPI_UINT64_T)] = {R_U64, C_INT},
    [IDX(MPI_AINT)] = {SINT(MPI_Aint), MULTI},
    [IDX(MPI_OFFSET)] = {SINT(MPI_Offset), MULTI},
    [IDX(MPI_COUNT)] = {SINT(MPI_Count), MULTI},
    [IDX(MPI_C_FLOAT_COMPLEX)] = {R_C32, CPLX},
    [IDX(MPI_C_DOUBLE_COMPLEX)] = {R_C64, CPLX},
    [IDX(MPI_C_LONG_DOUBLE_COMPLEX)] = {R_CLD, CPLX},
    [IDX(MPI_FLOAT_INT)] = {R_FLOAT_INT, PAIR},
    [IDX(MPI_DOUBLE_INT)] = {R_DOUBLE_INT, PAIR},
    [IDX(MPI_LONG_INT)] = {R_LONG_INT, PAIR},
    [IDX(MPI_2INT)] = {R_2INT, PAIR},
    [IDX(MPI_SHORT_INT)] = {R_SHORT_INT, PAIR},
    [IDX(MPI_LONG_DOUBLE_INT)] = {R_LD_INT, PAIR},
    [IDX(MPI_CXX_BOOL)] = {R_BOOL, LOGIC},
    [IDX(MPI_CXX_FLOAT_COMPLEX)] = {R_C32, CPLX},
    [IDX(MPI_CXX_DOUBLE_COMPLEX)] = {R_C64, CPLX},
    [IDX(MPI_CXX_LONG_DOUBLE_COMPLEX)] = {R_CLD, CPLX},
    [IDX(MPI_LOGICAL)] = {SINT(int), LOGIC},
    [IDX(MPI_INTEGER)] = {SINT(int), F_INT},
    [IDX(MPI_REAL)] = {R_F32, FLT},
    [IDX(MPI_DOUBLE_PRECISION)] = {R_F64, FLT},
    [IDX(MPI_COMPLEX)] = {R_C32, CPLX},
    [IDX(MPI_DOUBLE_COMPLEX)] = {R_C64, CPLX},
    [IDX(MPI_INTEGER1)] = {R_I8, F_INT},
    [IDX(MPI_INTEGER2)] = {R_I16, F_INT},
    [IDX(MPI_INTEGER4)] = {R_I32, F_INT},
    [IDX(MPI_INTEGER8)] = {R_I64, F_INT},
    [IDX(MPI_REAL4)] = {R_F32, FLT},
    [IDX(MPI_REAL8)] = {R_F64, FLT},
    [IDX(MPI_COMPLEX8)] = {R_C32, CPLX},
    [IDX(MPI_COMPLEX16)] = {R_C64, CPLX},
    [IDX(MPI_2INTEGER)] = {R_2INT, PAIR},
    [IDX(MPI_2REAL)] = {R_2FLOAT, PAIR},
    [IDX(MPI_2DOUBLE_PRECISION)] = {R_2DOUBLE, PAIR},
};

coll_kernel_fn coll_kernel(int op_index, int type_index)
{
    return kernels[types[type_index].repr][op_index];
}

bool coll_kernel_allowed(int op_index, int type_index)
{
    if (op_index >= COLL_OP_REPLACE)
        return true;
    return (op_classes[op_index] & types[type_index].cls) != 0;
}
