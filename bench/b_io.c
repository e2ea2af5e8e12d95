/* io_write, io_read, io_vwrite, io_vread: average time of one collective
 * MPI-IO call across ranks, the size being each rank's data. The plain
 * forms give each rank one contiguous block (MPI_File_write_at_all at
 * rank * size, as IOR's segmented layout); the v forms interleave the
 * ranks' data in 64-byte runs through a file view (a vector filetype), the
 * shape of a distributed array's rows. The file lives in $TMPDIR (else
 * /tmp) and is deleted on close; it is mostly in the page cache, so the
 * times are the library's and the kernel's, not the disk's. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define RUN 64

static MPI_File fh;
static int viewed, writing;

static long op(char *sbuf, char *rbuf, size_t n, unsigned seed)
{
    MPI_Offset at = viewed ? 0 : (MPI_Offset)bench_rank * (MPI_Offset)n;
    unsigned key = bench_key(seed, bench_rank, 0);
    long bad = 0;

    /* Reads validate what a write of the same call laid down under -c. */
    if (bench_opt->check)
        bench_fill(sbuf, n, key);
    if (writing || bench_opt->check)
        MPI_File_write_at_all(fh, at, sbuf, (int)n, MPI_CHAR, MPI_STATUS_IGNORE);
    if (!writing) {
        if (bench_opt->check)
            bench_poison(rbuf, n, key);
        MPI_File_read_at_all(fh, at, rbuf, (int)n, MPI_CHAR, MPI_STATUS_IGNORE);
        if (bench_opt->check)
            bad = bench_check(rbuf, n, key);
    }
    return bad;
}

static int open_file(void)
{
    char name[512];
    const char *dir = getenv("TMPDIR");
    int pid = 0, rc;

    /* One name for the job: rank 0's process id. */
    if (bench_rank == 0)
        pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(name, sizeof(name), "%s/rdmpi-bench-io.%d", dir && *dir ? dir : "/tmp", pid);
    rc = MPI_File_open(MPI_COMM_WORLD, name,
                       MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                       &fh);
    if (rc == MPI_SUCCESS && viewed) {
        MPI_Datatype run, tiled;

        MPI_Type_contiguous(RUN, MPI_CHAR, &run);
        MPI_Type_create_resized(run, 0, (MPI_Aint)RUN * bench_nranks, &tiled);
        MPI_Type_commit(&tiled);
        rc = MPI_File_set_view(fh, (MPI_Offset)bench_rank * RUN, MPI_CHAR, tiled, "native",
                               MPI_INFO_NULL);
        MPI_Type_free(&run);
        MPI_Type_free(&tiled);
    }
    return rc;
}

static int probe(void)
{
    int rc;

    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    rc = open_file();
    if (rc == MPI_SUCCESS)
        MPI_File_close(&fh);
    return rc;
}

static int run(int view, int write)
{
    viewed = view;
    writing = write;
    if (open_file() != MPI_SUCCESS) {
        fprintf(stderr, "rdmpi-bench: cannot open a file in $TMPDIR or /tmp\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Reads need data there: every size reads within the largest. */
    if (!write) {
        char *buf = bench_alloc(bench_opt->max);

        MPI_File_write_at_all(fh, viewed ? 0 : (MPI_Offset)bench_rank * bench_opt->max, buf,
                              (int)bench_opt->max, MPI_CHAR, MPI_STATUS_IGNORE);
        free(buf);
    }
    bench_coll(op);
    MPI_File_close(&fh);
    return 0;
}

static int run_write(void)
{
    return run(0, 1);
}

static int run_read(void)
{
    return run(0, 0);
}

static int run_vwrite(void)
{
    return run(1, 1);
}

static int run_vread(void)
{
    return run(1, 0);
}

#define IO_BENCH(VAR, NAME, WHAT, RUNFN)                                                           \
    const struct bench VAR = {                                                                     \
        .name = NAME,                                                                              \
        .desc = WHAT,                                                                              \
        .min = 1,                                                                                  \
        .max = 4 << 20,                                                                            \
        .iters = 1000,                                                                             \
        .warmup = 100,                                                                             \
        .large_div = 10,                                                                           \
        .size_col = "Size",                                                                        \
        .cols = {{"Avg Latency (us)", 3, AGG_AVG}},                                                \
        .probe = probe,                                                                            \
        .run = RUNFN,                                                                              \
    };

IO_BENCH(bench_io_write, "io_write", "MPI_File_write_at_all of one block per rank", run_write)
IO_BENCH(bench_io_read, "io_read", "MPI_File_read_at_all of one block per rank", run_read)
IO_BENCH(bench_io_vwrite, "io_vwrite",
         "MPI_File_write_at_all through a view interleaving ranks in 64-byte runs", run_vwrite)
IO_BENCH(bench_io_vread, "io_vread",
         "MPI_File_read_at_all through a view interleaving ranks in 64-byte runs", run_vread)
