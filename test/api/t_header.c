/*
 * The promises mpi.h makes to the library and to users, checked without
 * MPI_Init: the predefined-handle tables agree with the macros and stay in
 * their ranges, constants are distinct where the standard needs them to be,
 * and the predefined callbacks do what the standard says.
 */
#include <stdint.h>

#include "mpi.h"
#include "mpitap.h"

/* Predefined handles must work in static initializers. */
static const MPI_Comm static_comms[] = {MPI_COMM_NULL, MPI_COMM_WORLD, MPI_COMM_SELF};
static MPI_Datatype static_types[] = {MPI_INT, MPI_DOUBLE_INT, MPI_CXX_BOOL, MPI_REAL8};
static MPI_Op static_op = MPI_MAXLOC;

static int in_range(uintptr_t h, uintptr_t base, int count)
{
    return h > base && h <= base + (uintptr_t)count && h < RDMPI_PREDEF_LIMIT;
}

static void check_datatypes(void)
{
    int n = 0, bad = 0;

#define X(name, value, ctype)                                                                      \
    do {                                                                                           \
        n++;                                                                                       \
        if ((name) != (MPI_Datatype)(value) ||                                                     \
            (uintptr_t)(value) != RDMPI_DATATYPE_BASE + (uintptr_t)n) {                            \
            diag("%s is %p, its table entry says %#x", #name, (void *)(name), (unsigned)(value));  \
            bad++;                                                                                 \
        }                                                                                          \
    } while (0);
    RDMPI_FOREACH_PREDEF_DATATYPE(X)
#undef X
    CHECK_EQ_INT(bad, 0, "datatype macros match the table and are BASE + 1, 2, ...");
    CHECK_EQ_INT(n, RDMPI_DATATYPE_COUNT, "RDMPI_DATATYPE_COUNT is %d, the table has %d",
                 RDMPI_DATATYPE_COUNT, n);
    CHECK_LT_LONG(RDMPI_DATATYPE_BASE + n, RDMPI_OP_BASE, "datatypes fit below the op range");
    CHECK_ALL ("synonyms share their original's handle") {
        CHECK_EQ_PTR(MPI_LONG_LONG, MPI_LONG_LONG_INT);
        CHECK_EQ_PTR(MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX);
    }
}

static void check_ops(void)
{
    int n = 0, bad = 0;

#define X(name, value, short_name)                                                                 \
    do {                                                                                           \
        n++;                                                                                       \
        if ((name) != (MPI_Op)(value) || (uintptr_t)(value) != RDMPI_OP_BASE + (uintptr_t)n)       \
            bad++;                                                                                 \
    } while (0);
    RDMPI_FOREACH_PREDEF_OP(X)
#undef X
    CHECK_ALL ("op macros match the table (%d ops)", n) {
        CHECK_EQ_INT(bad, 0);
        CHECK_EQ_INT(n, RDMPI_OP_COUNT);
    }
}

static void check_handles(void)
{
    CHECK_ALL ("MPI_COMM_WORLD and MPI_COMM_SELF are 0x101 and 0x102") {
        CHECK_EQ_LONG((uintptr_t)MPI_COMM_WORLD, 0x101);
        CHECK_EQ_LONG((uintptr_t)MPI_COMM_SELF, 0x102);
        CHECK_TRUE(in_range((uintptr_t)MPI_COMM_SELF, RDMPI_COMM_BASE, RDMPI_COMM_COUNT));
    }
    CHECK_TRUE(
        in_range((uintptr_t)MPI_GROUP_EMPTY, RDMPI_GROUP_BASE, RDMPI_GROUP_COUNT) &&
            in_range((uintptr_t)MPI_ERRORS_ARE_FATAL, RDMPI_ERRHANDLER_BASE,
                     RDMPI_ERRHANDLER_COUNT) &&
            in_range((uintptr_t)MPI_ERRORS_RETURN, RDMPI_ERRHANDLER_BASE, RDMPI_ERRHANDLER_COUNT) &&
            in_range((uintptr_t)MPI_ERRORS_ABORT, RDMPI_ERRHANDLER_BASE, RDMPI_ERRHANDLER_COUNT) &&
            in_range((uintptr_t)MPI_INFO_ENV, RDMPI_INFO_BASE, RDMPI_INFO_COUNT) &&
            in_range((uintptr_t)MPI_MESSAGE_NO_PROC, RDMPI_MESSAGE_BASE, RDMPI_MESSAGE_COUNT),
        "other predefined handles sit in their kind's range");
    CHECK_ALL ("every null handle is 0") {
        CHECK_EQ_PTR(MPI_COMM_NULL, NULL);
        CHECK_EQ_PTR(MPI_GROUP_NULL, NULL);
        CHECK_EQ_PTR(MPI_DATATYPE_NULL, NULL);
        CHECK_EQ_PTR(MPI_OP_NULL, NULL);
        CHECK_EQ_PTR(MPI_ERRHANDLER_NULL, NULL);
        CHECK_EQ_PTR(MPI_REQUEST_NULL, NULL);
        CHECK_EQ_PTR(MPI_INFO_NULL, NULL);
        CHECK_EQ_PTR(MPI_WIN_NULL, NULL);
        CHECK_EQ_PTR(MPI_FILE_NULL, NULL);
        CHECK_EQ_PTR(MPI_MESSAGE_NULL, NULL);
        CHECK_EQ_PTR(MPI_SESSION_NULL, NULL);
    }
    CHECK_ALL ("predefined handles work in static initializers") {
        CHECK_EQ_PTR(static_comms[1], MPI_COMM_WORLD);
        CHECK_EQ_PTR(static_types[1], MPI_DOUBLE_INT);
        CHECK_EQ_PTR(static_op, MPI_MAXLOC);
    }
}

static void check_types(void)
{
    CHECK_EQ_LONG(sizeof(MPI_Aint), sizeof(void *), "MPI_Aint holds an address");
    CHECK_ALL ("MPI_Count holds an MPI_Aint and an MPI_Offset") {
        CHECK_GE_LONG(sizeof(MPI_Count), sizeof(MPI_Aint));
        CHECK_GE_LONG(sizeof(MPI_Count), sizeof(MPI_Offset));
        CHECK_EQ_LONG(sizeof(MPI_Offset), 8);
    }
    CHECK_ALL ("MPI_Status is MPI_F_STATUS_SIZE Fortran integers") {
        CHECK_EQ_LONG(sizeof(MPI_Status), MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
        CHECK_EQ_LONG(sizeof(MPI_F08_status), sizeof(MPI_Status));
    }
}

static void check_constants(void)
{
    static const int classes[] = {
        MPI_SUCCESS,
        MPI_ERR_BUFFER,
        MPI_ERR_COUNT,
        MPI_ERR_TYPE,
        MPI_ERR_TAG,
        MPI_ERR_COMM,
        MPI_ERR_RANK,
        MPI_ERR_REQUEST,
        MPI_ERR_ROOT,
        MPI_ERR_GROUP,
        MPI_ERR_OP,
        MPI_ERR_TOPOLOGY,
        MPI_ERR_DIMS,
        MPI_ERR_ARG,
        MPI_ERR_UNKNOWN,
        MPI_ERR_TRUNCATE,
        MPI_ERR_OTHER,
        MPI_ERR_INTERN,
        MPI_ERR_PENDING,
        MPI_ERR_IN_STATUS,
        MPI_ERR_ACCESS,
        MPI_ERR_AMODE,
        MPI_ERR_ASSERT,
        MPI_ERR_BAD_FILE,
        MPI_ERR_BASE,
        MPI_ERR_CONVERSION,
        MPI_ERR_DISP,
        MPI_ERR_DUP_DATAREP,
        MPI_ERR_FILE_EXISTS,
        MPI_ERR_FILE_IN_USE,
        MPI_ERR_FILE,
        MPI_ERR_INFO_KEY,
        MPI_ERR_INFO_NOKEY,
        MPI_ERR_INFO_VALUE,
        MPI_ERR_INFO,
        MPI_ERR_IO,
        MPI_ERR_KEYVAL,
        MPI_ERR_LOCKTYPE,
        MPI_ERR_NAME,
        MPI_ERR_NO_MEM,
        MPI_ERR_NOT_SAME,
        MPI_ERR_NO_SPACE,
        MPI_ERR_NO_SUCH_FILE,
        MPI_ERR_PORT,
        MPI_ERR_PROC_ABORTED,
        MPI_ERR_QUOTA,
        MPI_ERR_READ_ONLY,
        MPI_ERR_RMA_ATTACH,
        MPI_ERR_RMA_CONFLICT,
        MPI_ERR_RMA_RANGE,
        MPI_ERR_RMA_SHARED,
        MPI_ERR_RMA_SYNC,
        MPI_ERR_RMA_FLAVOR,
        MPI_ERR_SERVICE,
        MPI_ERR_SESSION,
        MPI_ERR_SIZE,
        MPI_ERR_SPAWN,
        MPI_ERR_UNSUPPORTED_DATAREP,
        MPI_ERR_UNSUPPORTED_OPERATION,
        MPI_ERR_VALUE_TOO_LARGE,
        MPI_ERR_WIN,
        MPI_ERR_ERRHANDLER,
        MPI_T_ERR_MEMORY,
        MPI_T_ERR_NOT_INITIALIZED,
        MPI_T_ERR_CANNOT_INIT,
        MPI_T_ERR_INVALID,
        MPI_T_ERR_INVALID_INDEX,
        MPI_T_ERR_INVALID_ITEM,
        MPI_T_ERR_INVALID_HANDLE,
        MPI_T_ERR_INVALID_NAME,
        MPI_T_ERR_INVALID_SESSION,
        MPI_T_ERR_OUT_OF_HANDLES,
        MPI_T_ERR_OUT_OF_SESSIONS,
        MPI_T_ERR_CVAR_SET_NOT_NOW,
        MPI_T_ERR_CVAR_SET_NEVER,
        MPI_T_ERR_PVAR_NO_STARTSTOP,
        MPI_T_ERR_PVAR_NO_WRITE,
        MPI_T_ERR_PVAR_NO_ATOMIC,
        MPI_T_ERR_NOT_ACCESSIBLE,
        MPI_T_ERR_NOT_SUPPORTED,
    };
    int i, dense = 1, n = (int)(sizeof(classes) / sizeof(classes[0]));

    for (i = 0; i < n; i++)
        if (classes[i] != i)
            dense = 0;
    CHECK_ALL ("the %d error classes are 0 .. RDMPI_ERR_CLASS_COUNT - 1, below MPI_ERR_LASTCODE",
               n) {
        CHECK_TRUE(dense);
        CHECK_EQ_INT(n, RDMPI_ERR_CLASS_COUNT);
        CHECK_GE_LONG(MPI_ERR_LASTCODE, n);
    }
    CHECK_ALL ("rank and tag wildcards are distinct negative values") {
        CHECK_LT_LONG(MPI_ANY_SOURCE, 0);
        CHECK_LT_LONG(MPI_PROC_NULL, 0);
        CHECK_LT_LONG(MPI_ROOT, 0);
        CHECK_LT_LONG(MPI_ANY_TAG, 0);
        CHECK_NE_INT(MPI_ANY_SOURCE, MPI_PROC_NULL);
        CHECK_NE_INT(MPI_PROC_NULL, MPI_ROOT);
        CHECK_NE_INT(MPI_ROOT, MPI_ANY_SOURCE);
        CHECK_LT_LONG(MPI_UNDEFINED, MPI_ROOT);
    }
    CHECK_ALL ("thread levels are monotonic") {
        CHECK_LT_LONG(MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED);
        CHECK_LT_LONG(MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED);
        CHECK_LT_LONG(MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE);
    }
    CHECK_ALL ("buffer and weight sentinels are distinct") {
        CHECK_NE_PTR(MPI_IN_PLACE, MPI_BOTTOM);
        CHECK_NE_PTR(MPI_BUFFER_AUTOMATIC, MPI_BOTTOM);
        CHECK_NE_PTR(MPI_BUFFER_AUTOMATIC, MPI_IN_PLACE);
        CHECK_NE_PTR(MPI_UNWEIGHTED, NULL);
        CHECK_NE_PTR(MPI_WEIGHTS_EMPTY, NULL);
        CHECK_NE_PTR(MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY);
    }
    CHECK_ALL ("predefined keyvals sit below the user range") {
        CHECK_LT_LONG(MPI_WIN_BASE, RDMPI_KEYVAL_PREDEF_LIMIT);
        CHECK_LT_LONG(MPI_WIN_MODEL, RDMPI_KEYVAL_PREDEF_LIMIT);
        CHECK_GT_LONG(MPI_TAG_UB, 0);
        CHECK_LT_LONG(MPI_KEYVAL_INVALID, 0);
    }
}

static void check_callbacks(void)
{
    int value = 42, flag = -1, rc;
    void *copy = NULL;

    rc = MPI_COMM_DUP_FN(MPI_COMM_WORLD, 1, NULL, &value, &copy, &flag);
    CHECK_ALL ("MPI_COMM_DUP_FN copies the value") {
        CHECK_MPI(rc);
        CHECK_EQ_INT(flag, 1);
        CHECK_EQ_PTR(copy, &value);
    }
    flag = -1;
    rc = MPI_COMM_NULL_COPY_FN(MPI_COMM_WORLD, 1, NULL, &value, &copy, &flag);
    CHECK_ALL ("MPI_COMM_NULL_COPY_FN asks for no copy") {
        CHECK_MPI(rc);
        CHECK_EQ_INT(flag, 0);
    }
    flag = -1, copy = NULL;
    rc = MPI_TYPE_DUP_FN(MPI_INT, 1, NULL, &value, &copy, &flag);
    CHECK_ALL ("MPI_TYPE_DUP_FN copies the value") {
        CHECK_MPI(rc);
        CHECK_EQ_INT(flag, 1);
        CHECK_EQ_PTR(copy, &value);
    }
    flag = -1, copy = NULL;
    rc = MPI_WIN_DUP_FN(MPI_WIN_NULL, 1, NULL, &value, &copy, &flag);
    CHECK_ALL ("MPI_WIN_DUP_FN copies the value") {
        CHECK_MPI(rc);
        CHECK_EQ_INT(flag, 1);
        CHECK_EQ_PTR(copy, &value);
    }
    flag = -1, copy = NULL;
    rc = MPI_DUP_FN(MPI_COMM_WORLD, 1, NULL, &value, &copy, &flag);
    CHECK_ALL ("deprecated MPI_DUP_FN copies the value") {
        CHECK_MPI(rc);
        CHECK_EQ_INT(flag, 1);
        CHECK_EQ_PTR(copy, &value);
    }
    flag = -1;
    CHECK_ALL ("the other null copy functions ask for no copy") {
        CHECK_MPI(MPI_TYPE_NULL_COPY_FN(MPI_INT, 1, NULL, &value, &copy, &flag));
        CHECK_EQ_INT(flag, 0);
        CHECK_EQ_INT(MPI_WIN_NULL_COPY_FN(MPI_WIN_NULL, 1, NULL, &value, &copy, &flag),
                     MPI_SUCCESS);
        CHECK_EQ_INT(flag, 0);
        CHECK_MPI(MPI_NULL_COPY_FN(MPI_COMM_WORLD, 1, NULL, &value, &copy, &flag));
        CHECK_EQ_INT(flag, 0);
    }
    CHECK_ALL ("null delete functions succeed and touch nothing") {
        CHECK_MPI(MPI_COMM_NULL_DELETE_FN(MPI_COMM_WORLD, 1, &value, NULL));
        CHECK_MPI(MPI_TYPE_NULL_DELETE_FN(MPI_INT, 1, &value, NULL));
        CHECK_MPI(MPI_WIN_NULL_DELETE_FN(MPI_WIN_NULL, 1, &value, NULL));
        CHECK_MPI(MPI_NULL_DELETE_FN(MPI_COMM_WORLD, 1, &value, NULL));
        CHECK_EQ_INT(value, 42);
    }
    CHECK_ALL ("null conversions refuse to be called") {
        CHECK_EQ_INT(MPI_CONVERSION_FN_NULL(&value, MPI_INT, 1, &value, 0, NULL),
                     MPI_ERR_CONVERSION);
        CHECK_EQ_INT(MPI_CONVERSION_FN_NULL_C(&value, MPI_INT, 1, &value, 0, NULL),
                     MPI_ERR_CONVERSION);
    }
    CHECK_ALL ("MPI_Pcontrol is a no-op that succeeds") {
        CHECK_MPI(MPI_Pcontrol(1));
        CHECK_EQ_INT(PMPI_Pcontrol(0, "ignored"), MPI_SUCCESS);
    }
}

int main(void)
{
    check_datatypes();
    check_ops();
    check_handles();
    check_types();
    check_constants();
    check_callbacks();
    return done_testing();
}
