/* The /dev/shm segment helper (runtime/shm.h).
 *   t_shm_seg          no launcher, TAP: create, attach, share, unlink;
 *                      failures (no space, no such segment, a short file)
 *                      return -errno and say which segment, its size and
 *                      the fix, and leave nothing in /dev/shm.
 *   t_shm_seg --kill   under mpirun: the last rank makes a segment under
 *                      the job's name and is killed before anyone unlinks
 *                      it; t_sm_scale.sh checks mpirun swept it. */
#include "config.h"

#include "rt.h"
#include "shm.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

static char err_text[4096];

/* Runs the call with stderr in a file, and keeps what it said. */
#define CAPTURE(rc, call)                                                                          \
    do {                                                                                           \
        FILE *f_ = tmpfile();                                                                      \
        int saved_ = dup(2);                                                                       \
        fflush(stderr);                                                                            \
        dup2(fileno(f_), 2);                                                                       \
        rc = call;                                                                                 \
        fflush(stderr);                                                                            \
        dup2(saved_, 2);                                                                           \
        close(saved_);                                                                             \
        rewind(f_);                                                                                \
        err_text[fread(err_text, 1, sizeof(err_text) - 1, f_)] = 0;                                \
        err_text[strcspn(err_text, "\n")] = 0;                                                     \
        fclose(f_);                                                                                \
    } while (0)

static int exists(const char *name)
{
    int fd = shm_open(name, O_RDONLY, 0);

    if (fd >= 0)
        close(fd);
    return fd >= 0;
}

static int says(const char *what)
{
    return strstr(err_text, what) != NULL;
}

static int unit(void)
{
    char name[64], size_s[32];
    struct rt_shm a, b;
    struct statvfs vfs;
    size_t huge;
    int rc;

    plan(12);
    snprintf(name, sizeof(name), "/rdmpi-t_shm_seg-%d", (int)getpid());
    rc = rt_shm_create(&a, "t_shm_seg", name, 1u << 20, RT_SHM_POPULATE, NULL);
    CHECK_ALL ("create %s", name) {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(a.base != NULL);
        CHECK_EQ_SIZE(a.size, (size_t)1 << 20);
        CHECK_TRUE(exists(name));
    }
    rc = rt_shm_attach(&b, "t_shm_seg", name, 1u << 20, 0);
    CHECK_ALL ("attach: a second mapping") {
        CHECK_EQ_INT(rc, 0);
        CHECK_TRUE(b.base != NULL);
        CHECK_NE_PTR(b.base, a.base);
    }
    if (rc == 0) {
        memset(a.base, 0x5a, 1u << 20);
        CHECK_EQ_INT(((unsigned char *)b.base)[(1u << 20) - 1], 0x5a,
                     "a byte written through one mapping reads the same through the other");
    } else {
        skip("no second mapping");
    }
    rc = rt_shm_unlink("t_shm_seg", name);
    CHECK_ALL ("unlink: the name is gone") {
        CHECK_EQ_INT(rc, 1);
        CHECK_TRUE(!exists(name));
    }
    rc = rt_shm_unlink("t_shm_seg", name);
    CHECK_EQ_INT(rc, 0, "unlinking again: already gone, no warning");
    ((unsigned char *)b.base)[0] = 1;
    CHECK_EQ_INT(((unsigned char *)a.base)[0], 1, "the mappings outlive the name");
    rt_shm_unmap(&a);
    rt_shm_unmap(&b);
    CHECK_ALL ("unmap clears the handle") {
        CHECK_EQ_PTR(a.base, NULL);
        CHECK_EQ_PTR(b.base, NULL);
        CHECK_EQ_SIZE(a.size, 0);
    }

    /* Twice the whole of /dev/shm: tmpfs refuses it at once (ENOSPC). */
    if (statvfs("/dev/shm", &vfs) == 0) {
        huge = (size_t)vfs.f_blocks * vfs.f_frsize * 2 + 4096;
        snprintf(size_s, sizeof(size_s), "%zu bytes", huge);
        CAPTURE(rc, rt_shm_create(&a, "t_shm_seg", name, huge, 0, "T_FIX lowers the need"));
        CHECK_ALL ("no space: refused, nothing left") {
            CHECK_LT_LONG(rc, 0);
            CHECK_TRUE(!exists(name));
        }
        CHECK_ALL ("no space: the message names who, the segment, %s, df and the fix: %s", size_s,
                   err_text) {
            CHECK_TRUE(says("t_shm_seg:"));
            CHECK_TRUE(says(name));
            CHECK_TRUE(says(size_s));
            CHECK_TRUE(says("df -h /dev/shm"));
            CHECK_TRUE(says("T_FIX lowers the need"));
        }
    } else {
        skip("no statvfs of /dev/shm");
        skip("no statvfs of /dev/shm");
    }
    CAPTURE(rc, rt_shm_attach(&a, "t_shm_seg", name, 4096, 0));
    CHECK_ALL ("attach to a missing segment, message: %s", err_text) {
        CHECK_EQ_INT(rc, -ENOENT);
        CHECK_TRUE(says(name));
        CHECK_TRUE(says("4096 bytes"));
    }
    rc = rt_shm_create(&a, "t_shm_seg", name, 4096, 0, NULL);
    CAPTURE(rc, rt_shm_attach(&b, "t_shm_seg", name, 8192, 0));
    CHECK_ALL ("attach asking more than the file holds, message: %s", err_text) {
        CHECK_EQ_INT(rc, -EPROTO);
        CHECK_TRUE(says("4096 bytes"));
        CHECK_TRUE(says("8192"));
    }
    rt_shm_unlink("t_shm_seg", name);
    rt_shm_unmap(&a);
    /* A stale file of our name (a dead job's) is replaced, not an error. */
    close(shm_open(name, O_RDWR | O_CREAT, 0600));
    rc = rt_shm_create(&a, "t_shm_seg", name, 4096, 0, NULL);
    CHECK_ALL ("a stale file of the name is replaced") {
        CHECK_EQ_INT(rc, 0);
        CHECK_EQ_INT(rt_shm_unlink("t_shm_seg", name), 1);
    }
    rt_shm_unmap(&a);
    return tap_failed != 0;
}

static int killed(int argc, char **argv)
{
    char name[256];
    struct rt_shm m;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1) {
        if (rt_shm_name(name, sizeof(name), ".orphan%d", rank) ||
            rt_shm_create(&m, "t_shm_seg", name, 1u << 20, 0, NULL))
            return 1;
        printf("# orphan %s\n", name);
        fflush(stdout);
        raise(SIGKILL);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* never completes: mpirun ends the job */
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--kill"))
        return killed(argc, argv);
    return unit();
}
