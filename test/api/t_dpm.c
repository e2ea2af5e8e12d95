/* Ports and name publishing (runtime/dpm_port.c, dpm_name.c) across the
 * ranks of one job, with the error classes of each misuse, and
 * MPI_UNIVERSE_SIZE.  T_DPM_UNIVERSE: the universe size mpirun was given.
 * T_DPM_NO_NAMES=1: no name server here (a singleton, srun --mpi=pmix):
 * the name calls must fail with MPI_ERR_UNSUPPORTED_OPERATION, ports
 * still work. */
#include "../p2p/mpitest.h"

static int class_of(int rc)
{
    int c = rc;

    MPI_Error_class(rc, &c);
    return c;
}

static void ports(void)
{
    char a[MPI_MAX_PORT_NAME], b[MPI_MAX_PORT_NAME], prefix[64];

    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, a), "Open_port");
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, b), "a second Open_port");
    snprintf(prefix, sizeof(prefix), "rdmpi-port:2:");
    CHECK_EQ_INT(strncmp(a, prefix, strlen(prefix)), 0, "the port name '%s' has the format", a);
    CHECK_NE_INT(strcmp(a, b), 0, "two ports have two names");
    CHECK_EQ_INT(strlen(a) < MPI_MAX_PORT_NAME, 1, "the name fits MPI_MAX_PORT_NAME");
    CHECK_MPI(MPI_Close_port(a), "Close_port");
    CHECK_EQ_INT(class_of(MPI_Close_port(a)), MPI_ERR_PORT, "closing it twice: MPI_ERR_PORT");
    CHECK_EQ_INT(class_of(MPI_Close_port("rdmpi-port:2:x:0:1:h:")), MPI_ERR_PORT,
                 "closing another process's port: MPI_ERR_PORT");
    CHECK_MPI(MPI_Close_port(b), "Close_port of the second");
}

/* Rank 0 publishes, every rank looks it up; the misuses in between. */
static void names(void)
{
    char port[MPI_MAX_PORT_NAME], got[MPI_MAX_PORT_NAME], mine[64], theirs[64];
    int prev = (mt_rank + mt_size - 1) % mt_size;
    MPI_Info bad = (MPI_Info)(void *)&port;

    if (mt_rank == 0) {
        CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port), "Open_port");
        CHECK_MPI(MPI_Publish_name("t_dpm.svc", MPI_INFO_NULL, port), "Publish_name");
        CHECK_EQ_INT(class_of(MPI_Publish_name("t_dpm.svc", MPI_INFO_NULL, port)), MPI_ERR_SERVICE,
                     "publishing the name again: MPI_ERR_SERVICE");
    }
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    got[0] = 0;
    CHECK_MPI(MPI_Lookup_name("t_dpm.svc", MPI_INFO_NULL, got), "Lookup_name");
    CHECK_EQ_INT(strcmp(got, port), 0, "the lookup gives rank 0's port ('%s' vs '%s')", got, port);
    CHECK_EQ_INT(class_of(MPI_Lookup_name("t_dpm.unknown", MPI_INFO_NULL, got)), MPI_ERR_NAME,
                 "looking up an unknown name: MPI_ERR_NAME");
    CHECK_EQ_INT(class_of(MPI_Lookup_name("", MPI_INFO_NULL, got)), MPI_ERR_NAME,
                 "an empty name: MPI_ERR_NAME");
    CHECK_EQ_INT(class_of(MPI_Lookup_name("t_dpm.svc", bad, got)), MPI_ERR_INFO,
                 "a bad info: MPI_ERR_INFO");
    if (mt_size > 1 && mt_rank == 1)
        CHECK_EQ_INT(class_of(MPI_Unpublish_name("t_dpm.svc", MPI_INFO_NULL, port)),
                     MPI_ERR_SERVICE, "another rank's name cannot be unpublished: MPI_ERR_SERVICE");
    MPI_Barrier(MPI_COMM_WORLD);
    if (mt_rank == 0) {
        CHECK_EQ_INT(class_of(MPI_Unpublish_name("t_dpm.svc", MPI_INFO_NULL, "other")),
                     MPI_ERR_PORT, "unpublishing with another port: MPI_ERR_PORT");
        CHECK_MPI(MPI_Unpublish_name("t_dpm.svc", MPI_INFO_NULL, port), "Unpublish_name");
        CHECK_EQ_INT(class_of(MPI_Unpublish_name("t_dpm.svc", MPI_INFO_NULL, port)),
                     MPI_ERR_SERVICE, "unpublishing twice: MPI_ERR_SERVICE");
        CHECK_MPI(MPI_Close_port(port), "Close_port");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_EQ_INT(class_of(MPI_Lookup_name("t_dpm.svc", MPI_INFO_NULL, got)), MPI_ERR_NAME,
                 "an unpublished name is gone for every rank");

    /* Every rank publishes a name of its own and reads its neighbour's. */
    snprintf(mine, sizeof(mine), "t_dpm.rank%d", mt_rank);
    snprintf(theirs, sizeof(theirs), "t_dpm.rank%d", prev);
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port), "Open_port");
    CHECK_MPI(MPI_Publish_name(mine, MPI_INFO_NULL, port), "Publish_name of %s", mine);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Lookup_name(theirs, MPI_INFO_NULL, got), "Lookup_name of %s", theirs);
    CHECK_EQ_INT(strncmp(got, "rdmpi-port:2:", 13), 0, "%s is a port name", theirs);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Unpublish_name(mine, MPI_INFO_NULL, port), "Unpublish_name of %s", mine);
    CHECK_MPI(MPI_Close_port(port), "Close_port");
}

static void no_names(void)
{
    char port[MPI_MAX_PORT_NAME] = "rdmpi-port:2:x:0:1:h:";

    CHECK_EQ_INT(class_of(MPI_Publish_name("t_dpm.svc", MPI_INFO_NULL, port)),
                 MPI_ERR_UNSUPPORTED_OPERATION, "no name server: Publish_name says so");
    CHECK_EQ_INT(class_of(MPI_Lookup_name("t_dpm.svc", MPI_INFO_NULL, port)),
                 MPI_ERR_UNSUPPORTED_OPERATION, "no name server: Lookup_name says so");
    CHECK_EQ_INT(class_of(MPI_Unpublish_name("t_dpm.svc", MPI_INFO_NULL, port)),
                 MPI_ERR_UNSUPPORTED_OPERATION, "no name server: Unpublish_name says so");
}

int main(int argc, char **argv)
{
    const char *univ = getenv("T_DPM_UNIVERSE"), *none = getenv("T_DPM_NO_NAMES");
    int *v = NULL, flag = 0;

    mt_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
    CHECK_EQ_INT(flag, 1, "MPI_UNIVERSE_SIZE is set");
    if (flag && univ)
        CHECK_EQ_INT(*v, atoi(univ), "MPI_UNIVERSE_SIZE is mpirun's --universe-size");
    ports();
    if (none && atoi(none))
        no_names();
    else
        names();
    return mt_finish("t_dpm");
}
