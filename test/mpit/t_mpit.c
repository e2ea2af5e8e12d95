/* MPI_T: the tool interface before, during and after MPI. Control variables
 * are the RDMPI_ parameters: one written before MPI_Init (the sm eager
 * limit) changes how the next message travels, which the performance
 * variables then count. Needs 1 or 2 ranks; rank 1's part is the message. */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "../mpitap.h"

static int find_cvar(const char *name, MPI_T_cvar_handle *h, int *count)
{
    int idx;

    if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS)
        return -1;
    return MPI_T_cvar_handle_alloc(idx, NULL, h, count) == MPI_SUCCESS ? idx : -1;
}

static int find_pvar(const char *name, MPI_T_pvar_session s, MPI_T_pvar_handle *h)
{
    int idx, count;

    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS)
        return -1;
    return MPI_T_pvar_handle_alloc(s, idx, NULL, h, &count) == MPI_SUCCESS && count == 1 ? idx : -1;
}

static unsigned long long pread_(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = ~0ULL;

    MPI_T_pvar_read(s, h, &v);
    return v;
}

/* Before MPI_Init: enumeration, the string convention, categories. */
static void before_init(void)
{
    int provided = -1, n = -1, ncat = -1, len, idx, verb, bind, scope, total = 0;
    char name[64], desc[512];
    MPI_Datatype dt;
    MPI_T_enum en;

    CHECK_EQ_INT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED,
                 "cvar_get_num before MPI_T_init_thread");
    CHECK_ALL ("MPI_T_init_thread before MPI_Init") {
        CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
        CHECK_EQ_INT(provided, MPI_THREAD_SINGLE);
    }
    CHECK_ALL ("nested MPI_T_init_thread, MULTIPLE provided") {
        CHECK_MPI(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
        CHECK_EQ_INT(provided, MPI_THREAD_MULTIPLE);
    }
    CHECK_MPI(MPI_T_finalize(), "inner MPI_T_finalize");
    CHECK_ALL ("%d control variables", n) {
        CHECK_MPI(MPI_T_cvar_get_num(&n));
        CHECK_GT_LONG(n, 30);
    }

    idx = -1;
    CHECK_ALL ("cvar_get_index finds RDMPI_SM_EAGER_LIMIT") {
        CHECK_EQ_INT(MPI_T_cvar_get_index("RDMPI_SM_EAGER_LIMIT", &idx), MPI_SUCCESS);
        CHECK_GE_LONG(idx, 0);
    }
    len = sizeof(name);
    CHECK_ALL ("cvar_get_info: name %s, a size as unsigned long long, local", name) {
        CHECK_EQ_INT(
            MPI_T_cvar_get_info(idx, name, &len, &verb, &dt, &en, desc, NULL, &bind, &scope),
            MPI_SUCCESS);
        CHECK_EQ_STR(name, "RDMPI_SM_EAGER_LIMIT");
        CHECK_EQ_INT(len, (int)strlen(name) + 1);
        CHECK_EQ_PTR(dt, MPI_UNSIGNED_LONG_LONG);
        CHECK_EQ_PTR(en, MPI_T_ENUM_NULL);
        CHECK_EQ_INT(bind, MPI_T_BIND_NO_OBJECT);
        CHECK_EQ_INT(scope, MPI_T_SCOPE_LOCAL);
    }
    len = 0;
    CHECK_ALL ("name_len 0 asks for the length (%d)", len) {
        CHECK_EQ_INT(MPI_T_cvar_get_info(idx, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
        CHECK_EQ_INT(len, (int)strlen("RDMPI_SM_EAGER_LIMIT") + 1);
    }
    len = 6;
    MPI_T_cvar_get_info(idx, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    CHECK_ALL ("a short buffer gets a truncated, terminated name") {
        CHECK_EQ_STR(name, "RDMPI");
        CHECK_EQ_INT(len, 6);
    }
    len = sizeof(desc);
    MPI_T_cvar_get_info(idx, NULL, NULL, NULL, NULL, NULL, desc, &len, NULL, NULL);
    CHECK_NE_PTR(strstr(desc, "default: 4112"), NULL, "the description says the default: %s", desc);
    CHECK_EQ_INT(MPI_T_cvar_get_info(n, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                 MPI_T_ERR_INVALID_INDEX, "cvar index past the end");
    CHECK_EQ_INT(MPI_T_cvar_get_index("SM_EAGER_LIMIT", &idx), MPI_T_ERR_INVALID_NAME,
                 "an unknown cvar name");

    MPI_T_cvar_get_index("RDMPI_COLL_SHM", &idx);
    MPI_T_cvar_get_info(idx, NULL, NULL, NULL, &dt, &en, NULL, NULL, NULL, &scope);
    {
        int num = 0, value = 99;

        len = sizeof(name);
        CHECK_ALL (
            "a boolean is an int with an enumeration (item 2: %s = %d); collectives are all-equal",
            name, value) {
            CHECK_EQ_PTR(dt, MPI_INT);
            CHECK_EQ_INT(scope, MPI_T_SCOPE_ALL_EQ);
            CHECK_NE_PTR(en, MPI_T_ENUM_NULL);
            CHECK_MPI(MPI_T_enum_get_info(en, &num, name, &len));
            CHECK_EQ_INT(num, 3);
            CHECK_EQ_INT(MPI_T_enum_get_item(en, 2, &value, name, &(int){sizeof(name)}),
                         MPI_SUCCESS);
            CHECK_EQ_INT(value, 1);
            CHECK_EQ_STR(name, "true");
        }
        CHECK_EQ_INT(MPI_T_enum_get_item(en, 3, &value, NULL, NULL), MPI_T_ERR_INVALID_ITEM,
                     "enum item past the end");
    }

    CHECK_ALL ("%d categories", ncat) {
        CHECK_MPI(MPI_T_category_get_num(&ncat));
        CHECK_GE_LONG(ncat, 5);
    }
    for (int c = 0; c < ncat; c++) {
        int nc, np, nsub;

        MPI_T_category_get_info(c, NULL, NULL, NULL, NULL, &nc, &np, &nsub);
        total += nc;
    }
    CHECK_EQ_INT(total, n, "every cvar is in one category (%d of %d)", total, n);
    /* btl/ofi's rail parameters are its own, beside RDMPI_OFI_*, not the
     * BTL choice's (rdmpi_btl) although their names start alike. */
    for (int k = 0; k < 2; k++) {
        const char *want = k ? "RDMPI_OFI_RAIL_STALL" : "RDMPI_BTL_OFI_RAILS";
        int ci = -1, cat = -1, nc = 0, members[256], in = 0;

        if (MPI_T_cvar_get_index(want, &ci) != MPI_SUCCESS) {
            skip("%s: no btl/ofi in this build", want);
            continue;
        }
        MPI_T_category_get_index("rdmpi_btl_ofi", &cat);
        MPI_T_category_get_info(cat, NULL, NULL, NULL, NULL, &nc, NULL, NULL);
        if (nc > 256)
            nc = 256;
        MPI_T_category_get_cvars(cat, nc, members);
        for (int i = 0; i < nc; i++)
            in += members[i] == ci;
        CHECK_EQ_INT(in, 1, "%s is in category rdmpi_btl_ofi (%d cvars)", want, nc);
    }
    CHECK_MPI(MPI_T_category_get_index("rdmpi_pml", &idx), "category rdmpi_pml");
    {
        int nc = 0, np = 0, pv[16], nev = -1;

        MPI_T_category_get_info(idx, NULL, NULL, NULL, NULL, &nc, &np, NULL);
        len = sizeof(name);
        CHECK_ALL ("rdmpi_pml holds %d cvars and %d pvars, the first %s", nc, np, name) {
            CHECK_GE_LONG(np, 4);
            CHECK_LE_LONG(np, 16);
            CHECK_MPI(MPI_T_category_get_pvars(idx, np, pv));
            CHECK_EQ_INT(MPI_T_pvar_get_info(pv[0], name, &len, NULL, NULL, NULL, NULL, NULL, NULL,
                                             NULL, NULL, NULL, NULL),
                         MPI_SUCCESS);
            CHECK_TRUE(!strncmp(name, "rdmpi_pml_", 10));
        }
        CHECK_ALL ("no event types") {
            CHECK_MPI(MPI_T_event_get_num(&nev));
            CHECK_EQ_INT(nev, 0);
            CHECK_MPI(MPI_T_category_get_num_events(idx, &nev));
            CHECK_EQ_INT(nev, 0);
        }
    }
    {
        int ns = 0;
        MPI_Count t0 = 0, t1 = 0, tps = 0;

        CHECK_ALL ("one time source, in nanoseconds, monotonic") {
            CHECK_MPI(MPI_T_source_get_num(&ns));
            CHECK_EQ_INT(ns, 1);
            CHECK_EQ_INT(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, &tps, NULL, NULL),
                         MPI_SUCCESS);
            CHECK_EQ_LONG(tps, 1000000000);
            CHECK_MPI(MPI_T_source_get_timestamp(0, &t0));
            CHECK_MPI(MPI_T_source_get_timestamp(0, &t1));
            CHECK_GE_LONG(t1, t0);
            CHECK_GT_LONG(t0, 0);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_T_cvar_handle eager;
    MPI_T_pvar_session s1, s2;
    MPI_T_pvar_handle h_eager, h_rndv, h_rndv2;
    int rank, size, count, start;
    unsigned long long limit = 1024, got = 0, v;
    static char buf[2048];

    before_init();
    CHECK_ALL ("a handle on RDMPI_SM_EAGER_LIMIT") {
        CHECK_GE_LONG(find_cvar("RDMPI_SM_EAGER_LIMIT", &eager, &count), 0);
        CHECK_EQ_INT(count, 1);
    }
    CHECK_ALL ("written before MPI_Init: eager limit now %llu", got) {
        CHECK_MPI(MPI_T_cvar_write(eager, &limit));
        CHECK_MPI(MPI_T_cvar_read(eager, &got));
        CHECK_EQ_LONG(got, 1024);
    }

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_EQ_INT(MPI_T_cvar_write(eager, &limit), MPI_T_ERR_CVAR_SET_NOT_NOW,
                 "a write once MPI is up: MPI_T_ERR_CVAR_SET_NOT_NOW");

    CHECK_ALL ("two pvar sessions") {
        CHECK_MPI(MPI_T_pvar_session_create(&s1));
        CHECK_MPI(MPI_T_pvar_session_create(&s2));
    }
    CHECK_ALL ("handles on the eager and rendezvous counters") {
        CHECK_GE_LONG(find_pvar("rdmpi_pml_eager_msgs", s1, &h_eager), 0);
        CHECK_GE_LONG(find_pvar("rdmpi_pml_rndv_msgs", s1, &h_rndv), 0);
        CHECK_GE_LONG(find_pvar("rdmpi_pml_rndv_msgs", s2, &h_rndv2), 0);
    }
    CHECK_ALL ("a new counter handle reads 0") {
        CHECK_EQ_LONG(pread_(s1, h_rndv), 0);
        CHECK_EQ_LONG(pread_(s1, h_eager), 0);
    }
    CHECK_ALL ("continuous counters cannot be started; ALL_HANDLES is a no-op") {
        CHECK_EQ_INT(MPI_T_pvar_start(s1, h_rndv), MPI_T_ERR_PVAR_NO_STARTSTOP);
        CHECK_MPI(MPI_T_pvar_start(s1, MPI_T_PVAR_ALL_HANDLES));
    }
    CHECK_EQ_INT(MPI_T_pvar_read(s2, h_rndv, &v), MPI_T_ERR_INVALID_HANDLE,
                 "a handle of another session is refused");

    if (size == 2) {
        /* 2 KiB to the same-host peer: over 1 KiB, so rendezvous now. */
        start = rank == 0;
        if (start)
            MPI_Send(buf, sizeof(buf), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        else
            MPI_Recv(buf, sizeof(buf), MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (start)
            MPI_Send(buf, 100, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        else
            MPI_Recv(buf, 100, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_ALL ("the written limit took effect: 2 KiB by rendezvous, 100 B eagerly") {
            CHECK_EQ_LONG(pread_(s1, h_rndv), (unsigned)start);
            CHECK_EQ_LONG(pread_(s1, h_eager), (unsigned)start);
        }
    } else {
        skip("one rank: no message to count");
    }

    v = 5;
    CHECK_ALL ("write and readreset move only this handle's baseline") {
        CHECK_MPI(MPI_T_pvar_write(s2, h_rndv2, &v));
        CHECK_EQ_LONG(pread_(s2, h_rndv2), 5);
        CHECK_MPI(MPI_T_pvar_readreset(s2, h_rndv2, &v));
        CHECK_EQ_LONG(v, 5);
        CHECK_EQ_LONG(pread_(s2, h_rndv2), 0);
    }
    CHECK_ALL ("reset of all handles") {
        CHECK_MPI(MPI_T_pvar_reset(s1, MPI_T_PVAR_ALL_HANDLES));
        CHECK_EQ_LONG(pread_(s1, h_rndv), 0);
    }
    CHECK_ALL ("a freed pvar handle") {
        CHECK_MPI(MPI_T_pvar_handle_free(s1, &h_eager));
        CHECK_EQ_PTR(h_eager, MPI_T_PVAR_HANDLE_NULL);
        CHECK_EQ_INT(MPI_T_pvar_read(s1, h_eager, &v), MPI_T_ERR_INVALID_HANDLE);
    }
    CHECK_ALL ("a freed session, with its handles") {
        CHECK_MPI(MPI_T_pvar_session_free(&s2));
        CHECK_EQ_PTR(s2, MPI_T_PVAR_SESSION_NULL);
        CHECK_EQ_INT(MPI_T_pvar_read(s2, h_rndv2, &v), MPI_T_ERR_INVALID_SESSION);
    }
    CHECK_ALL ("a freed cvar handle") {
        CHECK_MPI(MPI_T_cvar_handle_free(&eager));
        CHECK_EQ_PTR(eager, MPI_T_CVAR_HANDLE_NULL);
        CHECK_EQ_INT(MPI_T_cvar_read(eager, &got), MPI_T_ERR_INVALID_HANDLE);
    }

    MPI_Finalize();
    CHECK_MPI(MPI_T_cvar_get_num(&count), "MPI_T still works after MPI_Finalize");
    CHECK_ALL ("MPI_T_finalize balances MPI_T_init_thread (session s1 freed with it)") {
        CHECK_MPI(MPI_T_finalize());
        CHECK_EQ_INT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    }
    return done_testing();
}
