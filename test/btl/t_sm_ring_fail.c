/* A btl/sm ring that cannot be made or mapped, through the pml: the BTL
 * reports it through its error callback and the pml decides. The process
 * is kept from opening files (RLIMIT_NOFILE at its lowest free descriptor)
 * before the pair's first message, so shm_open of the ring fails with
 * EMFILE and no other part of the job is touched. Four ranks, because
 * MPI_Init's allreduce (recursive doubling) already connects 0 with 1 and
 * 2, never with 3:
 *   send:   rank 0 cannot make its ring to rank 3 (btl_sm_pair_create);
 *   recv:   rank 3 cannot map rank 0's ring (btl_sm_pair_attach);
 *   return: as send, under MPI_ERRORS_RETURN: MPI_Send returns an error
 *           class instead of hanging, then rank 0 aborts with 7.
 * Under the default handler the job must end with btl/sm's message
 * (t_sm_ring_fail.sh checks the words, the status and that it did not
 * time out). */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* From now on this process opens nothing: the lowest free descriptor is
 * at the limit. */
static void no_more_files(void)
{
    struct rlimit rl;
    int fd = dup(0);

    if (fd < 0 || close(fd) || getrlimit(RLIMIT_NOFILE, &rl)) {
        perror("t_sm_ring_fail: RLIMIT_NOFILE");
        exit(2);
    }
    rl.rlim_cur = (rlim_t)fd;
    if (setrlimit(RLIMIT_NOFILE, &rl)) {
        perror("t_sm_ring_fail: setrlimit");
        exit(2);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "send";
    int rank, size, v = 42, rc, cls;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        printf("Bail out! run on 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!strcmp(mode, "return"))
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == (strcmp(mode, "recv") ? 0 : 3))
        no_more_files();
    /* recv: rank 0 must not announce its ring before rank 3 is limited
     * (it may still be in MPI_Init's last polls), so a token goes 3 -> 1
     * -> 0 over rings the allreduce made. */
    if (!strcmp(mode, "recv")) {
        if (rank == 3)
            MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        else if (rank == 1) {
            MPI_Recv(&v, 1, MPI_INT, 3, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        } else if (rank == 0)
            MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0) {
        rc = MPI_Send(&v, 1, MPI_INT, 3, 0, MPI_COMM_WORLD);
        MPI_Error_class(rc, &cls);
        printf("# rank 0: MPI_Send returned class %d (MPI_ERR_OTHER is %d)\n", cls, MPI_ERR_OTHER);
        fflush(stdout);
        if (!strcmp(mode, "return"))
            MPI_Abort(MPI_COMM_WORLD, cls == MPI_ERR_OTHER ? 7 : 3);
    } else if (rank == 3) {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("# rank 3: received %d\n", v);
    }
    /* Reached only if the failure went unnoticed. */
    MPI_Finalize();
    return 1;
}
