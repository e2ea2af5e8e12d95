/* Moving and reading the file pointers. Both count etypes of the view;
 * MPI_SEEK_END counts from the last etype the view sees in the file. */
#include "io.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#define ERR(cls, ...) rdmpi_err_file(fh, cls, fn, __VA_ARGS__)

/* The view's etypes before the end of the file (a partial one counts). */
static int eof_etypes(struct io_file *f, MPI_Offset *out)
{
    MPI_Offset es = (MPI_Offset)f->etype->size;
    struct stat st;

    if (fstat(f->fd, &st))
        return errno;
    *out = (io_view_bytes_before(f, st.st_size) + es - 1) / es;
    return 0;
}

/* The new pointer for (offset, whence) from cur, or an error. */
static int target(struct io_file *f, MPI_File fh, MPI_Offset cur, MPI_Offset offset, int whence,
                  MPI_Offset *to, const char *fn)
{
    MPI_Offset base = 0;
    int e;

    if (whence == MPI_SEEK_CUR)
        base = cur;
    else if (whence == MPI_SEEK_END && (e = eof_etypes(f, &base)))
        return ERR(io_errclass(e), "fstat of %s: %s", f->path, strerror(e));
    else if (whence != MPI_SEEK_SET && whence != MPI_SEEK_END)
        return ERR(MPI_ERR_ARG,
                   "whence is %d; pass MPI_SEEK_SET, MPI_SEEK_CUR or "
                   "MPI_SEEK_END",
                   whence);
    if (base + offset < 0)
        return ERR(MPI_ERR_ARG, "the pointer would move to %lld, before the start of the view",
                   (long long)(base + offset));
    *to = base + offset;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_seek = PMPI_File_seek
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_seek";
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (f->amode & MPI_MODE_SEQUENTIAL)
        return ERR(MPI_ERR_UNSUPPORTED_OPERATION,
                   "%s was opened MPI_MODE_SEQUENTIAL, which "
                   "has no individual file pointer",
                   f->path);
    return target(f, fh, f->pos, offset, whence, &f->pos, fn);
}

#pragma weak MPI_File_get_position = PMPI_File_get_position
int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_get_position";
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!offset)
        return ERR(MPI_ERR_ARG, "offset is NULL");
    *offset = f->pos;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_seek_shared";
    MPI_Offset same[4] = {offset, -offset, whence, -whence}, cur, to = 0;
    struct io_file *f;
    int err, e = 0;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    PMPI_Allreduce(MPI_IN_PLACE, same, 4, MPI_OFFSET, MPI_MAX, f->comm);
    if (same[0] != -same[1] || same[2] != -same[3])
        return ERR(MPI_ERR_NOT_SAME, "offset or whence differs between the ranks; every rank "
                                     "must pass the same");
    /* Rank 0 moves it; the others learn the outcome from its broadcast. */
    if (f->rank == 0) {
        e = io_shfp_fetch_add(f, 0, &cur);
        if (!e && (err = target(f, fh, cur, offset, whence, &to, fn)))
            e = -err; /* raised here already; negative tells it from an errno */
        else if (!e)
            e = io_shfp_set(f, to);
    }
    PMPI_Bcast(&e, 1, MPI_INT, 0, f->comm);
    if (e < 0)
        return f->rank == 0 ? -e : ERR(-e, "rank 0 could not move the shared file pointer");
    if (e)
        return ERR(io_errclass(e), "the shared file pointer of %s: %s", f->path, strerror(e));
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_get_position_shared";
    struct io_file *f;
    int err, e;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!offset)
        return ERR(MPI_ERR_ARG, "offset is NULL");
    if ((e = io_shfp_fetch_add(f, 0, offset)))
        return ERR(io_errclass(e), "the shared file pointer of %s: %s", f->path, strerror(e));
    return MPI_SUCCESS;
}
