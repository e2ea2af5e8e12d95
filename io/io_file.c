/* Opening, closing and deleting files, and the calls on a file as a whole:
 * size, preallocation, sync, atomicity, access mode, group and hints. */
#include "comm.h"
#include "info.h"
#include "io.h"
#include "obj.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERR(fh, cls, ...) rdmpi_err_file(fh, cls, fn, __VA_ARGS__)

struct io_file *io_file_check(MPI_File fh, const char *fn, int *err)
{
    struct rdmpi_file *f;

    RT_CHECK_INIT(fn);
    *err = MPI_SUCCESS;
    if (!(f = rt_file_get(fh)))
        *err = ERR(fh, MPI_ERR_FILE, "%s",
                   fh == MPI_FILE_NULL ? "fh is MPI_FILE_NULL; pass a file from MPI_File_open"
                                       : "fh is not a valid file handle (closed, or not a file)");
    return (struct io_file *)f;
}

int io_errclass(int e)
{
    switch (e) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case ENAMETOOLONG:
    case ENOTDIR:
    case EISDIR:
    case ELOOP: return MPI_ERR_BAD_FILE;
    case ETXTBSY:
    case EBUSY: return MPI_ERR_FILE_IN_USE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_IO;
    }
}

int io_info_merge(MPI_Info *to, MPI_Info from)
{
    char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
    int n, len, flag;

    if (!rt_info_get(from))
        return -1;
    if (*to == MPI_INFO_NULL)
        PMPI_Info_create(to);
    PMPI_Info_get_nkeys(from, &n);
    for (int i = 0; i < n; i++) {
        PMPI_Info_get_nthkey(from, i, key);
        len = sizeof(val);
        PMPI_Info_get_string(from, key, &len, val, &flag);
        PMPI_Info_set(*to, key, val);
    }
    return 0;
}

/* ROMIO's file-system prefixes ("ufs:/path") name the same file here. */
static const char *strip_prefix(const char *name)
{
    static const char *const fs[] = {
        "ufs:", "nfs:", "lustre:", "gpfs:", "panfs:", "pvfs2:", "xfs:", "testfs:"};

    for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
        if (!strncmp(name, fs[i], strlen(fs[i])))
            return name + strlen(fs[i]);
    return name;
}

static const char *amode_problem(int amode)
{
    int rw = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);

    if (amode & ~(MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                  MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
                  MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL))
        return "it has bits that are no MPI_MODE_* file mode";
    if (rw != MPI_MODE_RDONLY && rw != MPI_MODE_WRONLY && rw != MPI_MODE_RDWR)
        return "it must have exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR";
    if (rw == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return "MPI_MODE_RDONLY cannot go with MPI_MODE_CREATE or MPI_MODE_EXCL";
    if (rw == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL))
        return "MPI_MODE_SEQUENTIAL cannot go with MPI_MODE_RDWR";
    return NULL;
}

static int open_flags(int amode)
{
    int fl = O_CLOEXEC;

    fl |= amode & MPI_MODE_RDONLY ? O_RDONLY : amode & MPI_MODE_WRONLY ? O_WRONLY : O_RDWR;
    if (amode & MPI_MODE_CREATE)
        fl |= O_CREAT;
    if (amode & MPI_MODE_EXCL)
        fl |= O_EXCL;
    /* Not O_APPEND for MPI_MODE_APPEND: Linux would then ignore pwrite's
     * offset. The standard only moves the initial file pointers. */
    return fl;
}

/* Rank 0 creates the file (alone, so MPI_MODE_EXCL means what it says),
 * then the others open it; all agree on the first failure. */
static int open_all(MPI_Comm comm, int rank, const char *path, int amode, int *fd)
{
    int flags = open_flags(amode), e = 0;

    *fd = -1;
    if (rank == 0 && (*fd = open(path, flags, 0666)) < 0)
        e = errno;
    PMPI_Bcast(&e, 1, MPI_INT, 0, comm);
    if (!e && rank != 0 && (*fd = open(path, flags & ~(O_CREAT | O_EXCL), 0666)) < 0)
        e = errno;
    PMPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_INT, MPI_MAX, comm);
    if (e && *fd >= 0)
        close(*fd);
    return e;
}

#pragma weak MPI_File_open = PMPI_File_open
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_open";
    struct rdmpi_comm *c = rt_comm_get(comm);
    struct io_file *f;
    const char *why, *path;
    int e, fd, same[2] = {amode, -amode};
    MPI_Comm dup;

    RT_CHECK_INIT(fn);
    if (!c)
        return ERR(MPI_FILE_NULL, MPI_ERR_COMM, "comm is not a valid communicator");
    if (c->inter)
        return ERR(MPI_FILE_NULL, MPI_ERR_COMM,
                   "comm is an intercommunicator; files are "
                   "opened on intracommunicators");
    if (!filename || !fh)
        return ERR(MPI_FILE_NULL, MPI_ERR_ARG, "%s is NULL", filename ? "fh" : "filename");
    if ((why = amode_problem(amode)))
        return ERR(MPI_FILE_NULL, MPI_ERR_AMODE, "amode 0x%x is not valid: %s", amode, why);
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        return ERR(MPI_FILE_NULL, MPI_ERR_INFO, "info is not a valid info object");
    path = strip_prefix(filename);

    PMPI_Comm_dup(comm, &dup);
    PMPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL);
    PMPI_Allreduce(MPI_IN_PLACE, same, 2, MPI_INT, MPI_MAX, dup);
    if (same[0] != -same[1]) {
        PMPI_Comm_free(&dup);
        return ERR(MPI_FILE_NULL, MPI_ERR_NOT_SAME,
                   "amode differs between the ranks of comm "
                   "(0x%x here); every rank must pass the same",
                   amode);
    }
    if ((e = open_all(dup, c->rank, path, amode, &fd))) {
        PMPI_Comm_free(&dup);
        return ERR(MPI_FILE_NULL, io_errclass(e), "cannot open %s: %s (on at least one rank)", path,
                   strerror(e));
    }
    if (!(f = rt_obj_new(RT_KIND_FILE, sizeof(*f))) || !(f->path = strdup(path)))
        rt_fatal("out of memory opening %s", path);
    rt_errh_retain(rt_errh_file_default);
    f->rt.errh = rt_errh_file_default;
    f->comm = dup;
    f->rank = c->rank;
    f->size = c->size;
    f->amode = amode;
    f->fd = fd;
    f->info = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL)
        io_info_merge(&f->info, info);
    io_view_set(f, 0, rt_dt_get(MPI_BYTE), rt_dt_get(MPI_BYTE), "native");
    io_shfp_name(f);
    if (amode & MPI_MODE_APPEND) {
        struct stat st;

        e = fstat(fd, &st) ? errno : 0;
        f->pos = e ? 0 : st.st_size;
        if (f->rank == 0 && !e)
            e = io_shfp_set(f, st.st_size);
        /* Nobody moves the shared pointer before rank 0 has set it. */
        PMPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_INT, MPI_MAX, dup);
        if (e) {
            MPI_File h = (MPI_File)f;

            PMPI_File_close(&h);
            return ERR(MPI_FILE_NULL, io_errclass(e),
                       "placing the file pointers at the end "
                       "of %s (MPI_MODE_APPEND): %s",
                       path, strerror(e));
        }
    }
    *fh = (MPI_File)f;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_close = PMPI_File_close
int PMPI_File_close(MPI_File *fh)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_close";
    struct io_file *f;
    int err, e = 0;

    if (!fh)
        return ERR(MPI_FILE_NULL, MPI_ERR_ARG, "fh is NULL; pass the address of the handle");
    if (!(f = io_file_check(*fh, fn, &err)))
        return err;
    if (close(f->fd))
        e = errno;
    /* Everyone is done with the file before it or its side file goes. */
    PMPI_Barrier(f->comm);
    io_shfp_remove(f);
    if (f->rank == 0 && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && unlink(f->path) && !e)
        e = errno;
    PMPI_Comm_free(&f->comm);
    if (f->info != MPI_INFO_NULL)
        PMPI_Info_free(&f->info);
    rt_dt_release(f->etype);
    rt_dt_release(f->ftype);
    rt_errh_release(f->rt.errh);
    for (int i = 0; i < IO_NSCRATCH; i++)
        free(f->scratch[i].p);
    free(f->shfp_path);
    *fh = MPI_FILE_NULL;
    if (e) {
        err = ERR(MPI_FILE_NULL, io_errclass(e), "closing %s: %s", f->path, strerror(e));
        free(f->path);
        rt_obj_delete(f);
        return err;
    }
    free(f->path);
    rt_obj_delete(f);
    return MPI_SUCCESS;
}

#pragma weak MPI_File_delete = PMPI_File_delete
int PMPI_File_delete(const char *filename, MPI_Info info)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_delete";

    RT_CHECK_INIT(fn);
    if (!filename)
        return ERR(MPI_FILE_NULL, MPI_ERR_ARG, "filename is NULL");
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        return ERR(MPI_FILE_NULL, MPI_ERR_INFO, "info is not a valid info object");
    if (unlink(strip_prefix(filename)))
        return ERR(MPI_FILE_NULL, io_errclass(errno), "cannot delete %s: %s", filename,
                   strerror(errno));
    return MPI_SUCCESS;
}

/* A size every rank must pass alike (set_size, preallocate), or an error. */
static int same_size(struct io_file *f, MPI_File fh, MPI_Offset size, const char *fn)
{
    MPI_Offset mm[2] = {size, -size};

    if (size < 0)
        return ERR(fh, MPI_ERR_ARG, "size is %lld; it must be >= 0", (long long)size);
    if (f->amode & MPI_MODE_RDONLY)
        return ERR(fh, MPI_ERR_READ_ONLY, "the file was opened MPI_MODE_RDONLY");
    PMPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_OFFSET, MPI_MAX, f->comm);
    if (mm[0] != -mm[1])
        return ERR(fh, MPI_ERR_NOT_SAME,
                   "size differs between the ranks (%lld here); every "
                   "rank must pass the same",
                   (long long)size);
    return MPI_SUCCESS;
}

/* Rank 0 changes the file; the others wait for its result. */
static int resize(struct io_file *f, MPI_Offset size, int grow_only)
{
    struct stat st;
    int e = 0;

    if (f->rank == 0) {
        if (fstat(f->fd, &st))
            e = errno;
        else if (!grow_only)
            e = ftruncate(f->fd, size) ? errno : 0;
        else if (size > st.st_size)
            e = posix_fallocate(f->fd, 0, size);
    }
    PMPI_Bcast(&e, 1, MPI_INT, 0, f->comm);
    return e;
}

static int size_call(MPI_File fh, MPI_Offset size, int grow_only, const char *fn)
{
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)) || (err = same_size(f, fh, size, fn)))
        return err;
    if ((err = resize(f, size, grow_only)))
        return ERR(fh, io_errclass(err), "%s %s to %lld bytes: %s",
                   grow_only ? "allocating" : "resizing", f->path, (long long)size, strerror(err));
    return MPI_SUCCESS;
}

#pragma weak MPI_File_set_size = PMPI_File_set_size
int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    RT_API_ENTER();
    return size_call(fh, size, 0, "MPI_File_set_size");
}

#pragma weak MPI_File_preallocate = PMPI_File_preallocate
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    RT_API_ENTER();
    return size_call(fh, size, 1, "MPI_File_preallocate");
}

#pragma weak MPI_File_get_size = PMPI_File_get_size
int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_get_size";
    struct io_file *f;
    struct stat st;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!size)
        return ERR(fh, MPI_ERR_ARG, "size is NULL");
    if (fstat(f->fd, &st))
        return ERR(fh, io_errclass(errno), "fstat of %s: %s", f->path, strerror(errno));
    *size = st.st_size;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_sync = PMPI_File_sync
int PMPI_File_sync(MPI_File fh)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_sync";
    struct io_file *f;
    int err, e;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    e = fsync(f->fd) ? errno : 0;
    /* Collective: after it, every rank's writes are visible to all. */
    PMPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_INT, MPI_MAX, f->comm);
    if (e)
        return ERR(fh, io_errclass(e), "fsync of %s: %s", f->path, strerror(e));
    return MPI_SUCCESS;
}

#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity
int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_set_atomicity";
    struct io_file *f;
    int err, mm[2] = {!!flag, -!!flag};

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    PMPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_INT, MPI_MAX, f->comm);
    if (mm[0] != -mm[1])
        return ERR(fh, MPI_ERR_NOT_SAME,
                   "flag differs between the ranks; every rank must "
                   "pass the same");
    f->atomic = !!flag;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity
int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_get_atomicity";
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!flag)
        return ERR(fh, MPI_ERR_ARG, "flag is NULL");
    *flag = f->atomic;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_amode = PMPI_File_get_amode
int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_get_amode";
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!amode)
        return ERR(fh, MPI_ERR_ARG, "amode is NULL");
    *amode = f->amode;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_group = PMPI_File_get_group
int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_get_group";
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!group)
        return ERR(fh, MPI_ERR_ARG, "group is NULL");
    return PMPI_Comm_group(f->comm, group);
}

#pragma weak MPI_File_set_info = PMPI_File_set_info
int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_set_info";
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (info != MPI_INFO_NULL && io_info_merge(&f->info, info))
        return ERR(fh, MPI_ERR_INFO, "info is not a valid info object");
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_info = PMPI_File_get_info
int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_get_info";
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!info_used)
        return ERR(fh, MPI_ERR_ARG, "info_used is NULL");
    return f->info == MPI_INFO_NULL ? PMPI_Info_create(info_used)
                                    : PMPI_Info_dup(f->info, info_used);
}
