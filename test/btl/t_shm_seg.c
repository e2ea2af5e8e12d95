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
        err_text[strcspn(err_text, "\n")] = 0;                                                    \
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
    ok(rc == 0 && a.base && a.size == 1u << 20 && exists(name),
       "create: rc %d (want 0), size %zu (want %u), %s exists: %d", rc, a.size, 1u << 20, name,
       exists(name));
    rc = rt_shm_attach(&b, "t_shm_seg", name, 1u << 20, 0);
    ok(rc == 0 && b.base && b.base != a.base, "attach: rc %d (want 0), a second mapping", rc);
    if (rc == 0) {
        memset(a.base, 0x5a, 1u << 20);
        ok(((unsigned char *)b.base)[(1u << 20) - 1] == 0x5a,
           "a byte written through one mapping reads %#x through the other (want 0x5a)",
           ((unsigned char *)b.base)[(1u << 20) - 1]);
    } else {
        skip("no second mapping");
    }
    rc = rt_shm_unlink("t_shm_seg", name);
    ok(rc == 1 && !exists(name), "unlink: rc %d (want 1), the name is gone: %d", rc, !exists(name));
    rc = rt_shm_unlink("t_shm_seg", name);
    ok(rc == 0, "unlinking again: rc %d (want 0: already gone, no warning)", rc);
    ((unsigned char *)b.base)[0] = 1;
    ok(((unsigned char *)a.base)[0] == 1, "the mappings outlive the name");
    rt_shm_unmap(&a);
    rt_shm_unmap(&b);
    ok(!a.base && !b.base && !a.size, "unmap clears the handle");

    /* Twice the whole of /dev/shm: tmpfs refuses it at once (ENOSPC). */
    if (statvfs("/dev/shm", &vfs) == 0) {
        huge = (size_t)vfs.f_blocks * vfs.f_frsize * 2 + 4096;
        snprintf(size_s, sizeof(size_s), "%zu bytes", huge);
        CAPTURE(rc, rt_shm_create(&a, "t_shm_seg", name, huge, 0, "T_FIX lowers the need"));
        ok(rc < 0 && !exists(name), "no space: rc %d (want < 0), nothing left: %d", rc,
           !exists(name));
        ok(says("t_shm_seg:") && says(name) && says(size_s) && says("df -h /dev/shm") &&
               says("T_FIX lowers the need"),
           "no space: the message names who, the segment, %s, df and the fix: %s", size_s,
           err_text);
    } else {
        skip("no statvfs of /dev/shm");
        skip("no statvfs of /dev/shm");
    }
    CAPTURE(rc, rt_shm_attach(&a, "t_shm_seg", name, 4096, 0));
    ok(rc == -ENOENT && says(name) && says("4096 bytes"),
       "attach to a missing segment: rc %d (want %d), message: %s", rc, -ENOENT, err_text);
    rc = rt_shm_create(&a, "t_shm_seg", name, 4096, 0, NULL);
    CAPTURE(rc, rt_shm_attach(&b, "t_shm_seg", name, 8192, 0));
    ok(rc == -EPROTO && says("4096 bytes") && says("8192"),
       "attach asking more than the file holds: rc %d (want %d), message: %s", rc, -EPROTO,
       err_text);
    rt_shm_unlink("t_shm_seg", name);
    rt_shm_unmap(&a);
    /* A stale file of our name (a dead job's) is replaced, not an error. */
    close(shm_open(name, O_RDWR | O_CREAT, 0600));
    rc = rt_shm_create(&a, "t_shm_seg", name, 4096, 0, NULL);
    ok(rc == 0 && rt_shm_unlink("t_shm_seg", name) == 1, "a stale file of the name is replaced: rc %d",
       rc);
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
