/* The shared file pointer: 8 bytes in a side file next to the data file
 * (".NAME.shfp.HOST.PID.N", named by rank 0 at open, removed at close),
 * read and moved under an fcntl lock. A missing side file means 0, so a
 * job that never uses the shared pointer never creates it. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void io_shfp_name(struct io_file *f)
{
    static unsigned seq;
    char *name = NULL;
    int len = 0;

    if (f->rank == 0) {
        const char *slash = strrchr(f->path, '/');
        int dir = slash ? (int)(slash - f->path) + 1 : 0;
        char host[64] = "";

        gethostname(host, sizeof(host) - 1);
        len = snprintf(NULL, 0, "%.*s.%s.shfp.%s.%d.%u", dir, f->path, f->path + dir, host,
                       (int)getpid(), seq) +
              1;
        name = malloc((size_t)len);
        snprintf(name, (size_t)len, "%.*s.%s.shfp.%s.%d.%u", dir, f->path, f->path + dir, host,
                 (int)getpid(), seq++);
    }
    PMPI_Bcast(&len, 1, MPI_INT, 0, f->comm);
    if (f->rank != 0)
        name = malloc((size_t)len);
    if (!name)
        rt_fatal("out of memory naming the shared file pointer of %s", f->path);
    PMPI_Bcast(name, len, MPI_CHAR, 0, f->comm);
    f->shfp_path = name;
    f->shfp_fd = -1;
}

void io_shfp_remove(struct io_file *f)
{
    if (f->shfp_fd >= 0)
        close(f->shfp_fd);
    f->shfp_fd = -1;
    if (f->rank == 0)
        unlink(f->shfp_path);
}

/* 0 with the side file open, ENOENT if it does not exist and !create. */
static int side_open(struct io_file *f, int create)
{
    if (f->shfp_fd < 0)
        f->shfp_fd = open(f->shfp_path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0666);
    return f->shfp_fd < 0 ? errno : 0;
}

static int side_lock(int fd, short type)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_len = sizeof(int64_t)};

    while (fcntl(fd, F_OFD_SETLKW, &fl) < 0)
        if (errno != EINTR)
            return errno;
    return 0;
}

int io_shfp_fetch_add(struct io_file *f, MPI_Offset add, MPI_Offset *old)
{
    int64_t v = 0;
    ssize_t k;
    int err = side_open(f, add != 0);

    *old = 0;
    if (err)
        return err == ENOENT && !add ? 0 : err;
    if ((err = side_lock(f->shfp_fd, add ? F_WRLCK : F_RDLCK)))
        return err;
    if ((k = pread(f->shfp_fd, &v, sizeof(v), 0)) < 0)
        err = errno;
    else if (k != sizeof(v))
        v = 0; /* just created */
    if (!err && add) {
        int64_t nv = v + add;

        if (pwrite(f->shfp_fd, &nv, sizeof(nv), 0) != sizeof(nv))
            err = errno ? errno : EIO;
    }
    side_lock(f->shfp_fd, F_UNLCK);
    *old = v;
    return err;
}

int io_shfp_set(struct io_file *f, MPI_Offset value)
{
    int64_t v = value;
    int err = side_open(f, value != 0);

    if (err)
        return err == ENOENT && !value ? 0 : err;
    if ((err = side_lock(f->shfp_fd, F_WRLCK)))
        return err;
    if (pwrite(f->shfp_fd, &v, sizeof(v), 0) != sizeof(v))
        err = errno ? errno : EIO;
    side_lock(f->shfp_fd, F_UNLCK);
    return err;
}

int io_shfp_ordered(struct io_file *f, MPI_Offset mine, MPI_Offset *start)
{
    MPI_Offset *all = NULL, got[2];

    if (f->rank == 0 && !(all = malloc(2 * (size_t)f->size * sizeof(*all))))
        rt_fatal("out of memory for an ordered access on %d ranks", f->size);
    PMPI_Gather(&mine, 1, MPI_OFFSET, all, 1, MPI_OFFSET, 0, f->comm);
    if (f->rank == 0) {
        MPI_Offset total = 0, base;
        int err;

        for (int r = 0; r < f->size; r++)
            total += all[r];
        err = io_shfp_fetch_add(f, total, &base);
        /* Pairs (start, errno), filled from the back so all[r] is read first. */
        for (int r = f->size - 1; r >= 0; r--) {
            total -= all[r];
            all[2 * r] = base + total;
            all[2 * r + 1] = err;
        }
    }
    PMPI_Scatter(all, 2, MPI_OFFSET, got, 2, MPI_OFFSET, 0, f->comm);
    free(all);
    *start = got[0];
    return (int)got[1];
}
