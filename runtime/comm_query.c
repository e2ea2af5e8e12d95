/* Communicator queries: groups, sizes, comparison, names and info hints. */
#include "comm.h"

#include <stdio.h>
#include <string.h>

#define CHECK(comm, fn, c, err)                                                                    \
    do {                                                                                           \
        RT_CHECK_INIT(fn);                                                                         \
        if (!((c) = rt_comm_check(comm, fn, &(err))))                                              \
            return err;                                                                            \
    } while (0)

static int out_null(MPI_Comm comm, const char *fn, const char *arg)
{
    return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "%s is NULL; pass the address of the result", arg);
}

static int need_inter(MPI_Comm comm, const struct rdmpi_comm *c, const char *fn)
{
    if (!c->inter)
        return rdmpi_err_comm(comm, MPI_ERR_COMM, fn,
                              "comm is an intracommunicator; only "
                              "intercommunicators have a remote group");
    return MPI_SUCCESS;
}

static int give_group(MPI_Comm comm, struct rdmpi_group *g, MPI_Group *group, const char *fn)
{
    if (!g)
        return rdmpi_err_comm(comm, MPI_ERR_NO_MEM, fn, "out of memory");
    rt_group_retain(g);
    *group = rt_group_handle(g);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_group";
    struct rdmpi_comm *c;
    int err;

    CHECK(comm, fn, c, err);
    if (!group)
        return out_null(comm, fn, "group");
    return give_group(comm, rt_comm_group(c), group, fn);
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_remote_group";
    struct rdmpi_comm *c;
    int err;

    CHECK(comm, fn, c, err);
    if ((err = need_inter(comm, c, fn)))
        return err;
    if (!group)
        return out_null(comm, fn, "group");
    return give_group(comm, c->remote_group, group, fn);
}

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_remote_size";
    struct rdmpi_comm *c;
    int err;

    CHECK(comm, fn, c, err);
    if ((err = need_inter(comm, c, fn)))
        return err;
    if (!size)
        return out_null(comm, fn, "size");
    *size = c->remote_size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_test_inter";
    struct rdmpi_comm *c;
    int err;

    CHECK(comm, fn, c, err);
    if (!flag)
        return out_null(comm, fn, "flag");
    *flag = c->inter;
    return MPI_SUCCESS;
}

/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL for two groups. */
static int compare_groups(struct rdmpi_group *a, struct rdmpi_group *b, int *result)
{
    return PMPI_Group_compare(rt_group_handle(a), rt_group_handle(b), result);
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_compare";
    struct rdmpi_comm *a, *b;
    int err, r, rr = MPI_IDENT;

    RT_CHECK_INIT(fn);
    if (!(a = rt_comm_check(comm1, fn, &err)) || !(b = rt_comm_check(comm2, fn, &err)))
        return err;
    if (!result)
        return out_null(comm1, fn, "result");
    /* MPI-4.1 sessions model: objects of different sessions, or of a
     * session and the world model, are never mixed in one call. */
    if (a->session != b->session)
        return rdmpi_err_comm(comm1, MPI_ERR_COMM, fn,
                              "comm1 and comm2 come from different "
                              "sessions (or one from a session, one from the world model); "
                              "they cannot meet in one call");
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (a->inter != b->inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (!rt_comm_group(a) || !rt_comm_group(b))
        return rdmpi_err_comm(comm1, MPI_ERR_NO_MEM, fn, "out of memory");
    if ((err = compare_groups(a->group, b->group, &r)))
        return err;
    if (a->inter && (err = compare_groups(a->remote_group, b->remote_group, &rr)))
        return err;
    if (r == MPI_UNEQUAL || rr == MPI_UNEQUAL)
        *result = MPI_UNEQUAL;
    else if (r == MPI_SIMILAR || rr == MPI_SIMILAR)
        *result = MPI_SIMILAR;
    else
        *result = MPI_CONGRUENT;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_set_name";
    struct rdmpi_comm *c;
    int err;

    CHECK(comm, fn, c, err);
    if (!comm_name)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn, "comm_name is NULL; pass a string");
    /* Longer names are truncated, as the standard allows. */
    snprintf(c->name, sizeof(c->name), "%s", comm_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_get_name";
    struct rdmpi_comm *c;
    int err;

    RT_CHECK_INIT(fn);
    if (comm == MPI_COMM_NULL) { /* MPI-4.1: the null handle has its name */
        if (!comm_name || !resultlen)
            return out_null(MPI_COMM_SELF, fn, !comm_name ? "comm_name" : "resultlen");
        *resultlen = snprintf(comm_name, MPI_MAX_OBJECT_NAME, "MPI_COMM_NULL");
        return MPI_SUCCESS;
    }
    CHECK(comm, fn, c, err);
    if (!comm_name || !resultlen)
        return out_null(comm, fn, !comm_name ? "comm_name" : "resultlen");
    strcpy(comm_name, c->name);
    *resultlen = (int)strlen(c->name);
    return MPI_SUCCESS;
}

/* Copies every hint of `from` into `to` (overwriting keys both have). */
static int merge_info(MPI_Info to, MPI_Info from)
{
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    int n, err, flag, len;

    if ((err = PMPI_Info_get_nkeys(from, &n)))
        return err;
    for (int i = 0; i < n; i++) {
        len = sizeof(val);
        if ((err = PMPI_Info_get_nthkey(from, i, key)) ||
            (err = PMPI_Info_get_string(from, key, &len, val, &flag)) ||
            (flag && (err = PMPI_Info_set(to, key, val))))
            return err;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_set_info";
    struct rdmpi_comm *c;
    int err;

    CHECK(comm, fn, c, err);
    if (info == MPI_INFO_NULL)
        return rdmpi_err_comm(comm, MPI_ERR_INFO, fn,
                              "info is MPI_INFO_NULL; pass an info "
                              "object");
    if (c->info == MPI_INFO_NULL && (err = PMPI_Info_create(&c->info)))
        return rdmpi_err_comm(comm, err, fn, "creating the communicator's info failed");
    if ((err = merge_info(c->info, info)))
        return rdmpi_err_comm(comm, err, fn, "info is not a valid info object");
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_get_info";
    struct rdmpi_comm *c;
    int err;

    CHECK(comm, fn, c, err);
    if (!info_used)
        return out_null(comm, fn, "info_used");
    err =
        c->info == MPI_INFO_NULL ? PMPI_Info_create(info_used) : PMPI_Info_dup(c->info, info_used);
    if (err)
        return rdmpi_err_comm(comm, err, fn, "copying the communicator's hints failed");
    return MPI_SUCCESS;
}
