/*
 * A user program written the way MPI programs are, compiled (not run) by
 * t_compile.sh as C and as C++ under -Wall -Wextra -Werror: it must build
 * without a single warning against mpi.h.
 */
#include <stddef.h>
#include <stdio.h>

#include <mpi.h>

#if !(MPI_VERSION == 4 && MPI_SUBVERSION == 1)
#error "mpi.h does not say MPI-4.1"
#endif
#if defined(MPICH) || defined(MPICH_VERSION) || defined(OPEN_MPI) || defined(OMPI_MAJOR_VERSION)
#error "mpi.h claims to be another implementation"
#endif

struct particle {
    double pos[3];
    int id;
};

/* Predefined handles in static initializers, as users write them. */
static MPI_Datatype pair_types[2] = {MPI_DOUBLE, MPI_INT};
static const MPI_Comm default_comm = MPI_COMM_WORLD;
static MPI_Op const reduce_ops[] = {MPI_SUM, MPI_MAXLOC, MPI_NO_OP};
static MPI_Errhandler handler = MPI_ERRORS_RETURN;

static void sum_ints(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype)
{
    const int *in = (const int *)invec;
    int *inout = (int *)inoutvec;
    int i;

    (void)datatype;
    for (i = 0; i < *len; i++)
        inout[i] += in[i];
}

static void sum_ints_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *datatype)
{
    int n = (int)*len;

    sum_ints(invec, inoutvec, &n, datatype);
}

static void on_error(MPI_Comm *comm, int *error_code, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len;

    MPI_Error_string(*error_code, msg, &len);
    fprintf(stderr, "error on %p: %s\n", (void *)*comm, msg);
}

static int query(void *extra_state, MPI_Status *status)
{
    (void)extra_state;
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_state(void *extra_state)
{
    (void)extra_state;
    return MPI_SUCCESS;
}

static int cancel_state(void *extra_state, int complete)
{
    (void)extra_state;
    (void)complete;
    return MPI_SUCCESS;
}

static int file_extent(MPI_Datatype datatype, MPI_Aint *extent, void *extra_state)
{
    MPI_Aint lb;

    (void)extra_state;
    return MPI_Type_get_extent(datatype, &lb, extent);
}

static void t_event(MPI_T_event_instance event_instance,
                    MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                    void *user_data)
{
    (void)event_instance;
    (void)event_registration;
    (void)cb_safety;
    (void)user_data;
}

#if defined(__cplusplus)
/* Handles are distinct types, so C++ overloads on them. */
static const char *kind(MPI_Comm)
{
    return "comm";
}
static const char *kind(MPI_Datatype)
{
    return "datatype";
}
static const char *kind(MPI_Request)
{
    return "request";
}
#endif

static void point_to_point(MPI_Comm comm, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int sendbuf[4] = {1, 2, 3, 4}, recvbuf[4];
    MPI_Request reqs[4];
    MPI_Status statuses[4], status;
    int flag, count, indices[4], outcount;
    MPI_Message msg;

    MPI_Irecv(recvbuf, 4, MPI_INT, left, 0, comm, &reqs[0]);
    MPI_Isend(sendbuf, 4, MPI_INT, right, 0, comm, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MPI_Irecv(recvbuf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &reqs[0]);
    MPI_Issend(sendbuf, 4, MPI_INT, right, 1, comm, &reqs[1]);
    MPI_Waitall(2, reqs, statuses);
    MPI_Get_count(&statuses[0], MPI_INT, &count);
    MPI_Sendrecv(sendbuf, 4, MPI_INT, right, 2, recvbuf, 4, MPI_INT, left, 2, comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv_replace(recvbuf, 4, MPI_INT, right, 3, left, 3, comm, &status);
    MPI_Send_c(sendbuf, (MPI_Count)4, MPI_INT, MPI_PROC_NULL, 0, comm);
    MPI_Recv(recvbuf, 4, MPI_INT, MPI_PROC_NULL, 0, comm, MPI_STATUS_IGNORE);
    MPI_Testall(2, reqs, &flag, MPI_STATUSES_IGNORE);
    MPI_Testsome(2, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
    MPI_Waitsome(2, reqs, &outcount, indices, statuses);
    MPI_Waitany(2, reqs, &indices[0], MPI_STATUS_IGNORE);
    MPI_Request_get_status_all(2, reqs, &flag, MPI_STATUSES_IGNORE);
    MPI_Request_get_status_any(2, reqs, &indices[0], &flag, MPI_STATUS_IGNORE);
    MPI_Request_get_status_some(2, reqs, &outcount, indices, MPI_STATUSES_IGNORE);
    MPI_Send_init(sendbuf, 4, MPI_INT, right, 4, comm, &reqs[2]);
    MPI_Recv_init(recvbuf, 4, MPI_INT, left, 4, comm, &reqs[3]);
    MPI_Startall(2, &reqs[2]);
    MPI_Waitall(2, &reqs[2], MPI_STATUSES_IGNORE);
    MPI_Request_free(&reqs[2]);
    MPI_Request_free(&reqs[3]);
    MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &msg, &status);
    MPI_Mrecv(recvbuf, 4, MPI_INT, &msg, MPI_STATUS_IGNORE);
    MPI_Improbe(MPI_ANY_SOURCE, 5, comm, &flag, &msg, MPI_STATUS_IGNORE);
    if (msg == MPI_MESSAGE_NO_PROC || msg == MPI_MESSAGE_NULL)
        count = 0;
    MPI_Status_get_source(&status, &count);
    MPI_Status_set_tag(&status, 7);
    MPI_Psend_init(sendbuf, 2, 2, MPI_INT, right, 6, comm, MPI_INFO_NULL, &reqs[0]);
    MPI_Pready_range(0, 1, reqs[0]);
    MPI_Pready_list(1, indices, reqs[0]);
    MPI_Parrived(reqs[0], 0, &flag);
#if defined(__cplusplus)
    printf("%s %s %s\n", kind(comm), kind(MPI_INT), kind(reqs[0]));
#endif
}

static void collectives(MPI_Comm comm, int size)
{
    int value = 1, all[64], counts[64], displs[64], i;
    struct {
        double value;
        int rank;
    } in = {1.0, 0}, out;
    MPI_Op op;
    MPI_Request req;

    for (i = 0; i < size && i < 64; i++) {
        counts[i] = 1;
        displs[i] = i;
    }
    MPI_Barrier(comm);
    MPI_Bcast(&value, 1, MPI_INT, 0, comm);
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, reduce_ops[0], comm);
    MPI_Reduce(&in, &out, 1, MPI_DOUBLE_INT, reduce_ops[1], 0, comm);
    MPI_Allgatherv(&value, 1, MPI_INT, all, counts, displs, MPI_INT, comm);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, comm);
    MPI_Op_create(sum_ints, 1, &op);
    MPI_Iallreduce(MPI_IN_PLACE, &value, 1, MPI_INT, op, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Op_free(&op);
    MPI_Op_create_c(sum_ints_c, 1, &op);
    MPI_Allreduce_c(MPI_IN_PLACE, &value, (MPI_Count)1, MPI_INT, op, comm);
    MPI_Op_free(&op);
    MPI_Reduce_scatter_block(all, &value, 1, MPI_INT, MPI_SUM, comm);
    MPI_Allreduce_init(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, comm, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
}

static void datatypes(void)
{
    struct particle p[2];
    int blocklens[2] = {3, 1};
    MPI_Aint displs[2], base;
    MPI_Datatype type, resized;
    MPI_Count lb, extent;
    int ranges[1][3] = {{0, 0, 1}};
    MPI_Group group;

    MPI_Get_address(&p[0], &base);
    MPI_Get_address(&p[0].pos, &displs[0]);
    MPI_Get_address(&p[0].id, &displs[1]);
    displs[0] = MPI_Aint_diff(displs[0], base);
    displs[1] = MPI_Aint_diff(displs[1], base);
    MPI_Type_create_struct(2, blocklens, displs, pair_types, &type);
    MPI_Type_create_resized(type, 0, (MPI_Aint)sizeof(struct particle), &resized);
    MPI_Type_commit(&resized);
    MPI_Type_get_extent_c(resized, &lb, &extent);
    MPI_Type_free(&type);
    MPI_Type_free(&resized);
    MPI_Comm_group(default_comm, &group);
    MPI_Group_range_incl(group, 1, ranges, &group);
    MPI_Group_free(&group);
}

static void attributes(MPI_Comm comm)
{
    int comm_key, type_key, win_key, old_key, flag;
    int *tag_ub;
    MPI_Comm dup;

    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &comm_key, NULL);
    MPI_Comm_set_attr(comm, comm_key, &flag);
    MPI_Comm_dup(comm, &dup);
    MPI_Comm_free(&dup);
    MPI_Comm_free_keyval(&comm_key);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_key, NULL);
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &type_key, NULL);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &win_key, NULL);
    MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &old_key, NULL);
    MPI_Keyval_free(&old_key);
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &tag_ub, &flag);
    if (comm_key == MPI_KEYVAL_INVALID || type_key == MPI_KEYVAL_INVALID)
        return;
    MPI_Type_free_keyval(&type_key);
    MPI_Win_free_keyval(&win_key);
}

static void topology_and_more(MPI_Comm comm, int size)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0}, source = 0, dest = 0;
    int errcodes[1];
    char *args[] = {NULL};
    MPI_Comm cart, graph, shared, inter;
    MPI_Errhandler eh;
    MPI_Info info;
    MPI_Session session;
    MPI_Group group;
    MPI_Win win;
    MPI_File fh;
    MPI_Request req;
    double *base = NULL;
    int provided, len;
    char value[MPI_MAX_INFO_VAL], name[MPI_MAX_PROCESSOR_NAME];

    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(comm, 2, dims, periods, 1, &cart);
    MPI_Dist_graph_create_adjacent(comm, 1, &source, MPI_UNWEIGHTED, 1, &dest, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &graph);
    MPI_Dist_graph_create_adjacent(comm, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL, MPI_WEIGHTS_EMPTY,
                                   MPI_INFO_NULL, 0, &graph);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Comm_set_errhandler(comm, handler);
    MPI_Errhandler_free(&eh);
    MPI_Info_create(&info);
    MPI_Info_set(info, "key", "value");
    len = MPI_MAX_INFO_VAL;
    MPI_Info_get_string(info, "key", &len, value, &provided);
    MPI_Info_get(info, "key", MPI_MAX_INFO_VAL - 1, value, &provided);
    MPI_Info_free(&info);
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session);
    MPI_Group_from_session_pset(session, "mpi://WORLD", &group);
    MPI_Comm_create_from_group(group, "org.rdmpi.test", MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter);
    MPI_Session_finalize(&session);
    MPI_Win_allocate((MPI_Aint)(8 * sizeof(double)), (int)sizeof(double), MPI_INFO_NULL, comm,
                     &base, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(base, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win);
    MPI_Win_unlock(0, win);
    MPI_Win_free(&win);
    MPI_File_open(comm, "/dev/null", MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, name, 0, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    MPI_File_close(&fh);
    MPI_Register_datarep("rdmpi-test", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, file_extent,
                         NULL);
    MPI_Register_datarep_c("rdmpi-test-c", MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C,
                           file_extent, NULL);
    MPI_Grequest_start(query, free_state, cancel_state, NULL, &req);
    MPI_Grequest_complete(req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, comm, &inter, MPI_ERRCODES_IGNORE);
    MPI_Comm_spawn("true", args, 1, MPI_INFO_NULL, 0, comm, &inter, errcodes);
    MPI_Get_processor_name(name, &len);
    MPI_Pcontrol(1);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&shared);
}

static void tools(void)
{
    int provided, num;
    MPI_T_event_registration reg = NULL;

    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    MPI_T_cvar_get_num(&num);
    MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, t_event);
    MPI_T_finalize();
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    double t0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    t0 = MPI_Wtime();
    MPI_Comm_rank(default_comm, &rank);
    MPI_Comm_size(default_comm, &size);
    MPI_Get_library_version(version, &size);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    point_to_point(MPI_COMM_WORLD, rank, size);
    collectives(MPI_COMM_WORLD, size);
    datatypes();
    attributes(MPI_COMM_WORLD);
    topology_and_more(MPI_COMM_WORLD, size);
    tools();
    if (rank == 0)
        printf("%s in %g s\n", version, MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
