/* The data access calls: explicit offsets, the individual and the shared
 * file pointer, each blocking, non-blocking, collective and split
 * collective, with int and MPI_Count counts. All reduce to io_access.
 *
 * Collective writes may gather interleaved data by two-phase I/O
 * (io_coll.c); collective reads are independent reads. Non-blocking calls
 * finish their I/O before they return a request that is already
 * complete, which the standard allows. */
#include "io.h"
#include "request.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum io_where { IO_AT, IO_INDIV, IO_SHARED, IO_ORDERED };

#define ERR(cls, ...) rdmpi_err_file(fh, cls, fn, __VA_ARGS__)

static int io_access(MPI_File fh, const char *fn, enum io_where where, MPI_Offset offset, void *buf,
                     MPI_Count count, MPI_Datatype datatype, int write, int coll,
                     MPI_Status *status)
{
    struct rdmpi_datatype *dt;
    struct io_file *f;
    MPI_Offset es, pos = 0, start;
    size_t n, moved = 0;
    int err, e = 0, conv = 0;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!(dt = rt_dt_get(datatype)))
        return ERR(MPI_ERR_TYPE, "datatype is not a valid datatype");
    if (!(dt->flags & (RT_DT_COMMITTED | RT_DT_PREDEF)))
        return ERR(MPI_ERR_TYPE, "datatype is not committed; call MPI_Type_commit");
    if (count < 0)
        return ERR(MPI_ERR_COUNT, "count is %lld; it must be >= 0", (long long)count);
    if (f->rep && !io_datarep_ok(f->rep, dt))
        return ERR(MPI_ERR_UNSUPPORTED_DATAREP,
                   "datatype has members whose extent in datarep "
                   "\"%s\" differs from their extent in memory, which rdmpi does not convert "
                   "yet",
                   f->datarep);
    if (f->ext32 && !io_ext32_ok(dt))
        return ERR(MPI_ERR_UNSUPPORTED_DATAREP,
                   "datatype has members whose external32 size "
                   "differs from their size in memory, which rdmpi's external32 files do not "
                   "convert yet");
    if (write && (f->amode & MPI_MODE_RDONLY))
        return ERR(MPI_ERR_READ_ONLY, "%s was opened MPI_MODE_RDONLY", f->path);
    if (!write && (f->amode & MPI_MODE_WRONLY))
        return ERR(MPI_ERR_ACCESS, "%s was opened MPI_MODE_WRONLY", f->path);
    if (where <= IO_INDIV && (f->amode & MPI_MODE_SEQUENTIAL))
        return ERR(MPI_ERR_UNSUPPORTED_OPERATION,
                   "%s was opened MPI_MODE_SEQUENTIAL, which "
                   "allows only the shared file pointer calls",
                   f->path);
    if (where == IO_AT && offset < 0)
        return ERR(MPI_ERR_ARG, "offset is %lld; it must be >= 0", (long long)offset);
    es = (MPI_Offset)f->etype->size;
    n = (size_t)count * dt->size;
    if (n && !f->ftype->size && write)
        return ERR(MPI_ERR_IO, "the view has no data (its filetype is empty), so nothing can "
                               "be written through it");
    if ((MPI_Offset)n % es)
        return ERR(MPI_ERR_TYPE,
                   "the data (%zu bytes) is not a whole number of the view's "
                   "etype (%lld bytes)",
                   n, (long long)es);

    switch (where) {
    case IO_AT: pos = offset * es; break;
    case IO_INDIV: pos = f->pos * es; break;
    case IO_SHARED:
        e = io_shfp_fetch_add(f, (MPI_Offset)n / es, &start);
        pos = start * es;
        break;
    case IO_ORDERED:
        e = io_shfp_ordered(f, (MPI_Offset)n / es, &start);
        pos = start * es;
        break;
    }
    if (e)
        return ERR(io_errclass(e), "the shared file pointer of %s: %s", f->path, strerror(e));
    if (f->rep)
        e = io_datarep_move(f, pos, buf, (size_t)count, dt, write, coll, &moved, &conv);
    else if (f->ext32)
        e = io_ext32_move(f, pos, buf, (size_t)count, dt, write, coll, &moved);
    else
        e = io_move(f, pos, buf, (size_t)count, dt, write, coll, &moved);
    if (where == IO_INDIV)
        f->pos += (MPI_Offset)moved / es;
    if (status != MPI_STATUS_IGNORE) {
        rt_status_empty(status);
        status->rdmpi_count = (long long)moved;
    }
    if (e)
        return ERR(io_errclass(e), "%s %s: %s", write ? "writing" : "reading", f->path,
                   strerror(e));
    if (conv)
        return ERR(MPI_ERR_CONVERSION, "the %s conversion function of datarep \"%s\" failed",
                   write ? "write" : "read", f->datarep);
    return MPI_SUCCESS;
}

/* ---- non-blocking: the request is complete when it is returned ---- */

static int done_query(void *state, MPI_Status *status)
{
    status->rdmpi_count = ((MPI_Status *)state)->rdmpi_count;
    return MPI_SUCCESS;
}

static int done_free(void *state)
{
    free(state);
    return MPI_SUCCESS;
}

static int done_cancel(void *state, int complete)
{
    (void)state;
    (void)complete;
    return MPI_SUCCESS;
}

static int io_start(MPI_File fh, const char *fn, enum io_where where, MPI_Offset offset, void *buf,
                    MPI_Count count, MPI_Datatype datatype, int write, int coll,
                    MPI_Request *request)
{
    MPI_Status *st;
    int err;

    if (!request)
        return ERR(MPI_ERR_ARG, "request is NULL");
    *request = MPI_REQUEST_NULL;
    if (!(st = malloc(sizeof(*st))))
        return ERR(MPI_ERR_NO_MEM, "out of memory");
    if ((err = io_access(fh, fn, where, offset, buf, count, datatype, write, coll, st))) {
        free(st);
        return err;
    }
    PMPI_Grequest_start(done_query, done_free, done_cancel, st, request);
    return PMPI_Grequest_complete(*request);
}

/* ---- split collectives: _begin does the I/O, _end hands the status ---- */

static int split_begin(MPI_File fh, const char *fn, const char *name, enum io_where where,
                       MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                       int write)
{
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (f->split)
        return ERR(MPI_ERR_OTHER,
                   "%s is still active on this file; call its _end first "
                   "(one split collective at a time per file)",
                   f->split);
    err = io_access(fh, fn, where, offset, buf, count, datatype, write, 1, &f->split_status);
    if (!err)
        f->split = name;
    return err;
}

static int split_end(MPI_File fh, const char *fn, const char *name, MPI_Status *status)
{
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!f->split || strcmp(f->split, name))
        return ERR(MPI_ERR_OTHER, "no %s is active on this file%s%s", name,
                   f->split ? "; the active one is " : "", f->split ? f->split : "");
    f->split = NULL;
    if (status != MPI_STATUS_IGNORE)
        *status = f->split_status;
    return MPI_SUCCESS;
}

/* ---- the entry points ---- */

#define AT(NAME, BUF, CT, W, C)                                                                    \
    int PMPI_##NAME(MPI_File fh, MPI_Offset offset, BUF buf, CT count, MPI_Datatype datatype,      \
                    MPI_Status *status)                                                            \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return io_access(fh, "MPI_" #NAME, IO_AT, offset, (void *)buf, count, datatype, W, C,      \
                         status);                                                                  \
    }
#define PTR(NAME, WHERE, BUF, CT, W, C)                                                            \
    int PMPI_##NAME(MPI_File fh, BUF buf, CT count, MPI_Datatype datatype, MPI_Status *status)     \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return io_access(fh, "MPI_" #NAME, WHERE, 0, (void *)buf, count, datatype, W, C, status);  \
    }
#define IAT(NAME, BUF, CT, W, C)                                                                   \
    int PMPI_##NAME(MPI_File fh, MPI_Offset offset, BUF buf, CT count, MPI_Datatype datatype,      \
                    MPI_Request *request)                                                          \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return io_start(fh, "MPI_" #NAME, IO_AT, offset, (void *)buf, count, datatype, W, C,       \
                        request);                                                                  \
    }
#define IPTR(NAME, WHERE, BUF, CT, W, C)                                                           \
    int PMPI_##NAME(MPI_File fh, BUF buf, CT count, MPI_Datatype datatype, MPI_Request *request)   \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return io_start(fh, "MPI_" #NAME, WHERE, 0, (void *)buf, count, datatype, W, C, request);  \
    }
#define BEGIN_AT(NAME, BASE, BUF, CT, W)                                                           \
    int PMPI_##NAME(MPI_File fh, MPI_Offset offset, BUF buf, CT count, MPI_Datatype datatype)      \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return split_begin(fh, "MPI_" #NAME, "MPI_" #BASE "_begin", IO_AT, offset, (void *)buf,    \
                           count, datatype, W);                                                    \
    }
#define BEGIN_PTR(NAME, BASE, WHERE, BUF, CT, W)                                                   \
    int PMPI_##NAME(MPI_File fh, BUF buf, CT count, MPI_Datatype datatype)                         \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return split_begin(fh, "MPI_" #NAME, "MPI_" #BASE "_begin", WHERE, 0, (void *)buf, count,  \
                           datatype, W);                                                           \
    }
#define END(BASE, BUF)                                                                             \
    int PMPI_##BASE##_end(MPI_File fh, BUF buf, MPI_Status *status)                                \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        (void)buf;                                                                                 \
        return split_end(fh, "MPI_" #BASE "_end", "MPI_" #BASE "_begin", status);                  \
    }

typedef void *rbuf;
typedef const void *wbuf;

#pragma weak MPI_File_read_at = PMPI_File_read_at
AT(File_read_at, rbuf, int, 0, 0)
#pragma weak MPI_File_read_at_c = PMPI_File_read_at_c
AT(File_read_at_c, rbuf, MPI_Count, 0, 0)
#pragma weak MPI_File_read_at_all = PMPI_File_read_at_all
AT(File_read_at_all, rbuf, int, 0, 1)
#pragma weak MPI_File_read_at_all_c = PMPI_File_read_at_all_c
AT(File_read_at_all_c, rbuf, MPI_Count, 0, 1)
#pragma weak MPI_File_write_at = PMPI_File_write_at
AT(File_write_at, wbuf, int, 1, 0)
#pragma weak MPI_File_write_at_c = PMPI_File_write_at_c
AT(File_write_at_c, wbuf, MPI_Count, 1, 0)
#pragma weak MPI_File_write_at_all = PMPI_File_write_at_all
AT(File_write_at_all, wbuf, int, 1, 1)
#pragma weak MPI_File_write_at_all_c = PMPI_File_write_at_all_c
AT(File_write_at_all_c, wbuf, MPI_Count, 1, 1)

#pragma weak MPI_File_read = PMPI_File_read
PTR(File_read, IO_INDIV, rbuf, int, 0, 0)
#pragma weak MPI_File_read_c = PMPI_File_read_c
PTR(File_read_c, IO_INDIV, rbuf, MPI_Count, 0, 0)
#pragma weak MPI_File_read_all = PMPI_File_read_all
PTR(File_read_all, IO_INDIV, rbuf, int, 0, 1)
#pragma weak MPI_File_read_all_c = PMPI_File_read_all_c
PTR(File_read_all_c, IO_INDIV, rbuf, MPI_Count, 0, 1)
#pragma weak MPI_File_write = PMPI_File_write
PTR(File_write, IO_INDIV, wbuf, int, 1, 0)
#pragma weak MPI_File_write_c = PMPI_File_write_c
PTR(File_write_c, IO_INDIV, wbuf, MPI_Count, 1, 0)
#pragma weak MPI_File_write_all = PMPI_File_write_all
PTR(File_write_all, IO_INDIV, wbuf, int, 1, 1)
#pragma weak MPI_File_write_all_c = PMPI_File_write_all_c
PTR(File_write_all_c, IO_INDIV, wbuf, MPI_Count, 1, 1)
#pragma weak MPI_File_read_shared = PMPI_File_read_shared
PTR(File_read_shared, IO_SHARED, rbuf, int, 0, 0)
#pragma weak MPI_File_read_shared_c = PMPI_File_read_shared_c
PTR(File_read_shared_c, IO_SHARED, rbuf, MPI_Count, 0, 0)
#pragma weak MPI_File_write_shared = PMPI_File_write_shared
PTR(File_write_shared, IO_SHARED, wbuf, int, 1, 0)
#pragma weak MPI_File_write_shared_c = PMPI_File_write_shared_c
PTR(File_write_shared_c, IO_SHARED, wbuf, MPI_Count, 1, 0)
#pragma weak MPI_File_read_ordered = PMPI_File_read_ordered
PTR(File_read_ordered, IO_ORDERED, rbuf, int, 0, 0)
#pragma weak MPI_File_read_ordered_c = PMPI_File_read_ordered_c
PTR(File_read_ordered_c, IO_ORDERED, rbuf, MPI_Count, 0, 0)
#pragma weak MPI_File_write_ordered = PMPI_File_write_ordered
PTR(File_write_ordered, IO_ORDERED, wbuf, int, 1, 0)
#pragma weak MPI_File_write_ordered_c = PMPI_File_write_ordered_c
PTR(File_write_ordered_c, IO_ORDERED, wbuf, MPI_Count, 1, 0)

#pragma weak MPI_File_iread_at = PMPI_File_iread_at
IAT(File_iread_at, rbuf, int, 0, 0)
#pragma weak MPI_File_iread_at_c = PMPI_File_iread_at_c
IAT(File_iread_at_c, rbuf, MPI_Count, 0, 0)
#pragma weak MPI_File_iread_at_all = PMPI_File_iread_at_all
IAT(File_iread_at_all, rbuf, int, 0, 1)
#pragma weak MPI_File_iread_at_all_c = PMPI_File_iread_at_all_c
IAT(File_iread_at_all_c, rbuf, MPI_Count, 0, 1)
#pragma weak MPI_File_iwrite_at = PMPI_File_iwrite_at
IAT(File_iwrite_at, wbuf, int, 1, 0)
#pragma weak MPI_File_iwrite_at_c = PMPI_File_iwrite_at_c
IAT(File_iwrite_at_c, wbuf, MPI_Count, 1, 0)
#pragma weak MPI_File_iwrite_at_all = PMPI_File_iwrite_at_all
IAT(File_iwrite_at_all, wbuf, int, 1, 1)
#pragma weak MPI_File_iwrite_at_all_c = PMPI_File_iwrite_at_all_c
IAT(File_iwrite_at_all_c, wbuf, MPI_Count, 1, 1)

#pragma weak MPI_File_iread = PMPI_File_iread
IPTR(File_iread, IO_INDIV, rbuf, int, 0, 0)
#pragma weak MPI_File_iread_c = PMPI_File_iread_c
IPTR(File_iread_c, IO_INDIV, rbuf, MPI_Count, 0, 0)
#pragma weak MPI_File_iread_all = PMPI_File_iread_all
IPTR(File_iread_all, IO_INDIV, rbuf, int, 0, 1)
#pragma weak MPI_File_iread_all_c = PMPI_File_iread_all_c
IPTR(File_iread_all_c, IO_INDIV, rbuf, MPI_Count, 0, 1)
#pragma weak MPI_File_iwrite = PMPI_File_iwrite
IPTR(File_iwrite, IO_INDIV, wbuf, int, 1, 0)
#pragma weak MPI_File_iwrite_c = PMPI_File_iwrite_c
IPTR(File_iwrite_c, IO_INDIV, wbuf, MPI_Count, 1, 0)
#pragma weak MPI_File_iwrite_all = PMPI_File_iwrite_all
IPTR(File_iwrite_all, IO_INDIV, wbuf, int, 1, 1)
#pragma weak MPI_File_iwrite_all_c = PMPI_File_iwrite_all_c
IPTR(File_iwrite_all_c, IO_INDIV, wbuf, MPI_Count, 1, 1)
#pragma weak MPI_File_iread_shared = PMPI_File_iread_shared
IPTR(File_iread_shared, IO_SHARED, rbuf, int, 0, 0)
#pragma weak MPI_File_iread_shared_c = PMPI_File_iread_shared_c
IPTR(File_iread_shared_c, IO_SHARED, rbuf, MPI_Count, 0, 0)
#pragma weak MPI_File_iwrite_shared = PMPI_File_iwrite_shared
IPTR(File_iwrite_shared, IO_SHARED, wbuf, int, 1, 0)
#pragma weak MPI_File_iwrite_shared_c = PMPI_File_iwrite_shared_c
IPTR(File_iwrite_shared_c, IO_SHARED, wbuf, MPI_Count, 1, 0)

#pragma weak MPI_File_read_at_all_begin = PMPI_File_read_at_all_begin
BEGIN_AT(File_read_at_all_begin, File_read_at_all, rbuf, int, 0)
#pragma weak MPI_File_read_at_all_begin_c = PMPI_File_read_at_all_begin_c
BEGIN_AT(File_read_at_all_begin_c, File_read_at_all, rbuf, MPI_Count, 0)
#pragma weak MPI_File_read_at_all_end = PMPI_File_read_at_all_end
END(File_read_at_all, rbuf)
#pragma weak MPI_File_write_at_all_begin = PMPI_File_write_at_all_begin
BEGIN_AT(File_write_at_all_begin, File_write_at_all, wbuf, int, 1)
#pragma weak MPI_File_write_at_all_begin_c = PMPI_File_write_at_all_begin_c
BEGIN_AT(File_write_at_all_begin_c, File_write_at_all, wbuf, MPI_Count, 1)
#pragma weak MPI_File_write_at_all_end = PMPI_File_write_at_all_end
END(File_write_at_all, wbuf)
#pragma weak MPI_File_read_all_begin = PMPI_File_read_all_begin
BEGIN_PTR(File_read_all_begin, File_read_all, IO_INDIV, rbuf, int, 0)
#pragma weak MPI_File_read_all_begin_c = PMPI_File_read_all_begin_c
BEGIN_PTR(File_read_all_begin_c, File_read_all, IO_INDIV, rbuf, MPI_Count, 0)
#pragma weak MPI_File_read_all_end = PMPI_File_read_all_end
END(File_read_all, rbuf)
#pragma weak MPI_File_write_all_begin = PMPI_File_write_all_begin
BEGIN_PTR(File_write_all_begin, File_write_all, IO_INDIV, wbuf, int, 1)
#pragma weak MPI_File_write_all_begin_c = PMPI_File_write_all_begin_c
BEGIN_PTR(File_write_all_begin_c, File_write_all, IO_INDIV, wbuf, MPI_Count, 1)
#pragma weak MPI_File_write_all_end = PMPI_File_write_all_end
END(File_write_all, wbuf)
#pragma weak MPI_File_read_ordered_begin = PMPI_File_read_ordered_begin
BEGIN_PTR(File_read_ordered_begin, File_read_ordered, IO_ORDERED, rbuf, int, 0)
#pragma weak MPI_File_read_ordered_begin_c = PMPI_File_read_ordered_begin_c
BEGIN_PTR(File_read_ordered_begin_c, File_read_ordered, IO_ORDERED, rbuf, MPI_Count, 0)
#pragma weak MPI_File_read_ordered_end = PMPI_File_read_ordered_end
END(File_read_ordered, rbuf)
#pragma weak MPI_File_write_ordered_begin = PMPI_File_write_ordered_begin
BEGIN_PTR(File_write_ordered_begin, File_write_ordered, IO_ORDERED, wbuf, int, 1)
#pragma weak MPI_File_write_ordered_begin_c = PMPI_File_write_ordered_begin_c
BEGIN_PTR(File_write_ordered_begin_c, File_write_ordered, IO_ORDERED, wbuf, MPI_Count, 1)
#pragma weak MPI_File_write_ordered_end = PMPI_File_write_ordered_end
END(File_write_ordered, wbuf)
