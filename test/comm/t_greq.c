/* Generalized requests (query/free/cancel callbacks and their order),
 * MPI_Alloc_mem/MPI_Free_mem and MPI_Comm_get_parent. */
#include "../p2p/mpitest.h"

#include <stdint.h>

static char trace[64];

static void note(char c)
{
    size_t n = strlen(trace);
    if (n + 1 < sizeof(trace))
        trace[n] = c;
}

static int query_fn(void *extra, MPI_Status *st)
{
    note('q');
    MPI_Status_set_elements(st, MPI_INT, *(int *)extra);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 3;
    st->MPI_TAG = 9;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    (void)extra;
    note('f');
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    note(complete ? 'C' : 'c');
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Request r;
    MPI_Status st;
    int n = 5, count = -1, flag = -1;
    void *p = NULL;
    MPI_Comm parent = MPI_COMM_WORLD;

    mt_init(&argc, &argv);
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, &n, &r);
    MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    CHECK_TRUE(!flag, "incomplete generalized request tests complete");
    MPI_Grequest_complete(r);
    MPI_Wait(&r, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_ALL ("wait: count %d source %d tag %d", count, st.MPI_SOURCE, st.MPI_TAG) {
        CHECK_EQ_PTR(r, MPI_REQUEST_NULL);
        CHECK_EQ_INT(count, 5);
        CHECK_EQ_INT(st.MPI_SOURCE, 3);
        CHECK_EQ_INT(st.MPI_TAG, 9);
    }
    CHECK_EQ_STR(trace, "qf", "callbacks ran as '%s', expected 'qf'", trace);

    memset(trace, 0, sizeof(trace));
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, &n, &r);
    MPI_Cancel(&r);
    MPI_Grequest_complete(r);
    MPI_Request_free(&r);
    CHECK_EQ_STR(trace, "cf", "cancel then free ran as '%s', expected 'cf'", trace);

    MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &p);
    CHECK_ALL ("MPI_Alloc_mem gives page-aligned memory") {
        CHECK_TRUE(p);
        CHECK_EQ_LONG(((uintptr_t)p & 4095), 0);
    }
    memset(p, 1, 1 << 20);
    MPI_Free_mem(p);
    MPI_Comm_get_parent(&parent);
    CHECK_EQ_PTR(parent, MPI_COMM_NULL, "no parent");
    return mt_finish("t_greq");
}
