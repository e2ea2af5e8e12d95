/* Moving data between memory and the file through the view. Contiguous
 * memory goes straight to pread/pwrite; other layouts are packed through
 * a staging buffer a few MiB at a time. File runs that touch are merged,
 * so a default view is one system call however the memory is laid out;
 * reads of many short runs go through a sieve (below). */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IO_STAGE     ((size_t)4 << 20)
#define IO_SIEVE     ((size_t)512 << 10)
#define IO_SIEVE_RUN 4096

/* pread/pwrite of exactly len bytes unless a read meets the end of the
 * file; returns the bytes moved, or -1 with errno set. */
static ssize_t full_io(int fd, char *p, size_t len, MPI_Offset off, int write)
{
    size_t done = 0;

    while (done < len) {
        ssize_t k = write ? pwrite(fd, p + done, len - done, off + (MPI_Offset)done)
                          : pread(fd, p + done, len - done, off + (MPI_Offset)done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break; /* end of file */
        done += (size_t)k;
    }
    return (ssize_t)done;
}

/* Reads of short runs close together take one pread of the file range
 * around them and copy the runs out (ROMIO's data sieving), if at least
 * an eighth of that range is wanted. Serves stream bytes [pos, pos + n)
 * from file offset off on; returns the bytes served, 0 when sieving
 * does not pay or the range is past the end of the file. */
static size_t sieve_read(struct io_file *f, MPI_Offset pos, char *p, size_t n, MPI_Offset off,
                         char **sieve)
{
    size_t run, got = 0;
    MPI_Offset end = io_view_map(f, pos + (MPI_Offset)n - 1, &run) + 1, window;
    ssize_t k;

    if ((MPI_Offset)n * 8 < end - off)
        return 0;
    window = end - off < (MPI_Offset)IO_SIEVE ? end - off : (MPI_Offset)IO_SIEVE;
    if (!*sieve && !(*sieve = malloc(IO_SIEVE)))
        return 0;
    if ((k = full_io(f->fd, *sieve, (size_t)window, off, 0)) <= 0)
        return 0;
    while (got < n) {
        MPI_Offset at = io_view_map(f, pos + (MPI_Offset)got, &run);
        size_t len = run < n - got ? run : n - got;

        if (at < off || at + (MPI_Offset)len > off + k)
            break;
        memcpy(p + got, *sieve + (at - off), len);
        got += len;
    }
    return got;
}

/* Moves n bytes at p to or from stream bytes [pos, pos + n) of the view. */
static int runs(struct io_file *f, MPI_Offset pos, char *p, size_t n, int write, size_t *got)
{
    char *sieve = NULL;
    int err = 0;

    *got = 0;
    while (*got < n) {
        size_t left = n - *got, len;
        MPI_Offset off = io_view_run(f, pos + (MPI_Offset)*got, pos + (MPI_Offset)n, &len);
        ssize_t k;

        if (!write && len < left && len < IO_SIEVE_RUN &&
            (k = (ssize_t)sieve_read(f, pos + (MPI_Offset)*got, p + *got, left, off, &sieve))) {
            *got += (size_t)k;
            continue;
        }
        if ((k = full_io(f->fd, p + *got, len, off, write)) < 0) {
            err = errno;
            break;
        }
        *got += (size_t)k;
        if ((size_t)k < len)
            break;
    }
    free(sieve);
    return err;
}

int io_transfer(struct io_file *f, MPI_Offset pos, void *buf, size_t count,
                struct rdmpi_datatype *dt, int write, size_t *moved)
{
    size_t total = count * dt->size, chunk = total, done = 0;
    int contig = rt_dt_contig(dt, count), err = 0;
    char *stage = NULL;

    *moved = 0;
    if (!f->ftype->size)
        return 0; /* an empty view: reads find nothing (writes are refused) */
    if (!contig) {
        chunk = total < IO_STAGE ? total : IO_STAGE;
        if (total && !(stage = malloc(chunk)))
            return ENOMEM;
    }
    while (done < total) {
        size_t n = total - done < chunk ? total - done : chunk, got;
        char *p = contig ? (char *)buf + dt->lb + done : stage;

        if (write && !contig)
            rt_dt_pack(dt, buf, count, done, stage, n);
        err = runs(f, pos + (MPI_Offset)done, p, n, write, &got);
        if (!write && !contig)
            rt_dt_unpack(dt, buf, count, done, stage, got);
        done += got;
        if (err || got < n)
            break;
    }
    free(stage);
    *moved = done;
    return err;
}

int io_atomic_lock(struct io_file *f, MPI_Offset pos, size_t n, int write, int lock)
{
    struct flock fl = {.l_whence = SEEK_SET};
    size_t run;

    if (!f->atomic || !n)
        return 0;
    fl.l_type = (short)(!lock ? F_UNLCK : write ? F_WRLCK : F_RDLCK);
    fl.l_start = io_view_map(f, pos, &run);
    fl.l_len = io_view_map(f, pos + (MPI_Offset)n - 1, &run) + 1 - fl.l_start;
    /* Open-file-description locks: a lock on one descriptor is not dropped
     * when the process closes another of the same file. */
    while (fcntl(f->fd, F_OFD_SETLKW, &fl) < 0)
        if (errno != EINTR)
            return errno;
    return 0;
}

int io_move(struct io_file *f, MPI_Offset pos, void *buf, size_t count, struct rdmpi_datatype *dt,
            int write, int coll, size_t *moved)
{
    size_t n = count * dt->size;
    int e = 0;

    if (write && coll && io_coll_write(f, pos, buf, count, dt, moved, &e))
        return e;
    if (!(e = io_atomic_lock(f, pos, n, write, 1))) {
        e = io_transfer(f, pos, buf, count, dt, write, moved);
        io_atomic_lock(f, pos, n, write, 0);
    }
    return e;
}
