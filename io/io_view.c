/* File views: the filetype tiled from disp selects the bytes a rank sees;
 * positions count the etypes of that selection. Mapping uses the
 * filetype's flattened segments, so a vector or subarray filetype costs a
 * binary search per contiguous run. */
#include "info.h"
#include "io.h"

#include <string.h>

MPI_Offset io_view_map(const struct io_file *f, MPI_Offset pos, size_t *run)
{
    const struct rdmpi_datatype *ft = f->ftype;
    MPI_Offset e, r, q;
    size_t lo = 0, hi = ft->nsegs;
    const struct rt_dt_seg *s;

    if (f->flat || !ft->size) {
        *run = SIZE_MAX; /* an empty view maps nothing; callers move no data */
        return f->disp + ft->lb + pos;
    }
    e = pos / (MPI_Offset)ft->size;
    r = pos % (MPI_Offset)ft->size;
    /* The last segment starting at or before r (empty ones share a start). */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if ((MPI_Offset)ft->cum[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    s = &ft->segs[lo];
    q = r - (MPI_Offset)ft->cum[lo];
    *run = s->len - (size_t)(q % (MPI_Offset)s->len);
    return f->disp + e * ft->extent + s->off + (q / (MPI_Offset)s->len) * s->stride +
           q % (MPI_Offset)s->len;
}

MPI_Offset io_view_run(const struct io_file *f, MPI_Offset pos, MPI_Offset end, size_t *len)
{
    size_t run, left = (size_t)(end - pos), l;
    MPI_Offset off = io_view_map(f, pos, &run);

    l = run < left ? run : left;
    while (l < left) {
        MPI_Offset next = io_view_map(f, pos + (MPI_Offset)l, &run);

        if (next != off + (MPI_Offset)l)
            break;
        l += run < left - l ? run : left - l;
    }
    *len = l;
    return off;
}

MPI_Offset io_view_bytes_before(const struct io_file *f, MPI_Offset end)
{
    const struct rdmpi_datatype *ft = f->ftype;
    MPI_Offset b = end - f->disp, first, rem, data;

    if (f->flat)
        return b - ft->lb > 0 ? b - ft->lb : 0;
    if (!ft->size)
        return 0;
    /* Copy k of the filetype holds data in [k*extent + first, ...), its
     * span at most the extent: copies before b - first lie wholly before. */
    first = ft->segs[0].off;
    if (b <= first)
        return 0;
    rem = (b - first) % ft->extent + first;
    data = (b - first) / ft->extent * (MPI_Offset)ft->size;
    for (size_t i = 0; i < ft->nsegs; i++) {
        const struct rt_dt_seg *s = &ft->segs[i];
        MPI_Offset nb, last;

        if (s->off >= rem)
            break; /* segments only move forward (checked in set_view) */
        nb = s->count > 1 ? (rem - s->off + s->stride - 1) / s->stride : 1;
        if (nb > (MPI_Offset)s->count)
            nb = (MPI_Offset)s->count;
        last = rem - (s->off + (nb - 1) * s->stride);
        data +=
            (nb - 1) * (MPI_Offset)s->len + (last < (MPI_Offset)s->len ? last : (MPI_Offset)s->len);
    }
    return data;
}

void io_view_set(struct io_file *f, MPI_Offset disp, struct rdmpi_datatype *etype,
                 struct rdmpi_datatype *ftype, const char *datarep)
{
    rt_dt_retain(etype);
    rt_dt_retain(ftype);
    if (f->etype) {
        rt_dt_release(f->etype);
        rt_dt_release(f->ftype);
    }
    f->disp = disp;
    f->etype = etype;
    f->ftype = ftype;
    f->flat = rt_dt_contig(ftype, 2);
    f->run_len = SIZE_MAX;
    if (!f->flat) {
        size_t blocks = 0;

        for (size_t i = 0; i < ftype->nsegs; i++)
            blocks += ftype->segs[i].count;
        f->run_len = blocks ? ftype->size / blocks : SIZE_MAX;
    }
    snprintf(f->datarep, sizeof(f->datarep), "%s", datarep);
    f->ext32 = !strcmp(datarep, "external32");
    f->rep = io_datarep_find(datarep);
    f->pos = 0;
}

/* Why type t cannot shape a view, or NULL. The standard asks etypes and
 * filetypes for non-negative, non-decreasing displacements and, in files
 * open for writing, no overlapping data, within a copy or between the
 * copies tiled by extent. */
static const char *shape_problem(const struct rdmpi_datatype *t, int writable)
{
    MPI_Aint start = 0, end = 0;

    for (size_t i = 0; i < t->nsegs; i++) {
        const struct rt_dt_seg *s = &t->segs[i];

        if (s->off < 0)
            return "it has a negative displacement";
        if (s->off < start || (s->count > 1 && s->stride < 0))
            return "its displacements decrease";
        if (writable && (s->off < end || (s->count > 1 && s->stride < (MPI_Aint)s->len)))
            return "its data overlap (allowed only in files opened MPI_MODE_RDONLY)";
        start = s->off + (MPI_Aint)(s->count - 1) * s->stride;
        end = start + (MPI_Aint)s->len > end ? start + (MPI_Aint)s->len : end;
    }
    if (writable && t->nsegs && end - t->segs[0].off > t->extent)
        return "its data span more than its extent, so the copies tiled by extent overlap "
               "(allowed only in files opened MPI_MODE_RDONLY)";
    return NULL;
}

/* The class of what is wrong with this rank's arguments (0: nothing),
 * with the message in msg. */
static int view_problem(struct io_file *f, MPI_Offset disp, MPI_Datatype etype,
                        MPI_Datatype filetype, const char *datarep, MPI_Info info,
                        struct rdmpi_datatype **et, struct rdmpi_datatype **ft, char *msg,
                        size_t len)
{
    int writable = !(f->amode & MPI_MODE_RDONLY);
    const struct io_datarep *rep;
    const char *why;

#define PROBLEM(cls, ...) return snprintf(msg, len, __VA_ARGS__), cls
    if (!(*et = rt_dt_get(etype)) || !(*ft = rt_dt_get(filetype)))
        PROBLEM(MPI_ERR_TYPE, "%s is not a valid datatype", *et ? "filetype" : "etype");
#define USABLE(t) ((t)->flags & (RT_DT_COMMITTED | RT_DT_PREDEF))
    if (!USABLE(*et) || !USABLE(*ft))
        PROBLEM(MPI_ERR_TYPE, "etype or filetype is not committed; call MPI_Type_commit");
    if (!datarep)
        PROBLEM(MPI_ERR_ARG, "datarep is NULL; pass \"native\"");
    rep = io_datarep_find(datarep);
    if (strcmp(datarep, "native") && strcmp(datarep, "internal") && strcmp(datarep, "external32") &&
        !rep)
        PROBLEM(MPI_ERR_UNSUPPORTED_DATAREP,
                "datarep \"%s\" is not known; use \"native\", "
                "\"internal\", \"external32\" or one of MPI_Register_datarep",
                datarep);
    if (rep && (!io_datarep_ok(rep, *et) || !io_datarep_ok(rep, *ft)))
        PROBLEM(MPI_ERR_UNSUPPORTED_DATAREP,
                "datarep \"%s\" gives etype or filetype members "
                "another extent in the file than in memory, which rdmpi does not convert yet",
                datarep);
    if (!strcmp(datarep, "external32") && (!io_ext32_ok(*et) || !io_ext32_ok(*ft)))
        PROBLEM(MPI_ERR_UNSUPPORTED_DATAREP,
                "etype or filetype has members whose external32 "
                "size differs from their size in memory, which rdmpi's external32 files do "
                "not convert yet");
    if (disp == MPI_DISPLACEMENT_CURRENT && !(f->amode & MPI_MODE_SEQUENTIAL))
        PROBLEM(MPI_ERR_ARG, "the displacement is MPI_DISPLACEMENT_CURRENT, which only files "
                             "opened with MPI_MODE_SEQUENTIAL accept");
    if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
        PROBLEM(MPI_ERR_ARG, "the displacement (disp) is %lld; it must be >= 0", (long long)disp);
    /* ROMIO's class for types that cannot shape a view; MPICH's tests expect it. */
    if (!(*et)->size)
        PROBLEM(MPI_ERR_IO, "etype has no data");
    if ((why = shape_problem(*et, writable)))
        PROBLEM(MPI_ERR_IO, "etype cannot shape a file view: %s", why);
    if ((why = shape_problem(*ft, writable)))
        PROBLEM(MPI_ERR_IO, "filetype cannot shape a file view: %s", why);
    if ((*ft)->size % (*et)->size)
        PROBLEM(MPI_ERR_IO,
                "filetype holds %zu bytes, not a multiple of etype's %zu; build "
                "the filetype from etype",
                (*ft)->size, (*et)->size);
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        PROBLEM(MPI_ERR_INFO, "info is not a valid info object");
    if (f->split)
        PROBLEM(MPI_ERR_OTHER, "%s is still active on this file; call its _end first", f->split);
#undef USABLE
#undef PROBLEM
    return 0;
}

#pragma weak MPI_File_set_view = PMPI_File_set_view
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_set_view";
    struct rdmpi_datatype *et = NULL, *ft = NULL;
    struct io_file *f;
    char msg[256];
    int err, cls, any, out[2];

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    /* Collective: a rank with bad arguments must not leave the others
     * waiting, so all learn of any rank's problem. */
    cls = view_problem(f, disp, etype, filetype, datarep, info, &et, &ft, msg, sizeof(msg));
    PMPI_Allreduce(&cls, &any, 1, MPI_INT, MPI_MAX, f->comm);
    if (cls)
        return rdmpi_err_file(fh, cls, fn, "%s", msg);
    if (any)
        return rdmpi_err_file(fh, any, fn, "another rank passed arguments that are not valid");
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        MPI_Offset cur = 0;
        size_t run;

        if ((err = io_shfp_fetch_add(f, 0, &cur)))
            return rdmpi_err_file(fh, io_errclass(err), fn,
                                  "reading the shared file pointer "
                                  "of %s: %s",
                                  f->path, strerror(err));
        disp = io_view_map(f, cur * (MPI_Offset)f->etype->size, &run);
    }
    if (info != MPI_INFO_NULL)
        io_info_merge(&f->info, info);
    /* Every rank must have read the old shared pointer before it resets. */
    PMPI_Barrier(f->comm);
    io_view_set(f, disp, et, ft, datarep);
    /* Rank 0's reset of the shared pointer, and whether any rank's view
     * has runs short enough for two-phase writes. */
    out[0] = f->rank == 0 ? io_shfp_set(f, 0) : 0;
    out[1] = io_view_short(f);
    PMPI_Allreduce(MPI_IN_PLACE, out, 2, MPI_INT, MPI_MAX, f->comm);
    f->short_runs = out[1];
    if ((err = out[0]))
        return rdmpi_err_file(fh, io_errclass(err), fn,
                              "resetting the shared file pointer of "
                              "%s: %s",
                              f->path, strerror(err));
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_view = PMPI_File_get_view
int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_get_view";
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!disp || !etype || !filetype || !datarep)
        return rdmpi_err_file(fh, MPI_ERR_ARG, fn, "an output argument is NULL");
    *disp = f->disp;
    /* Derived types come back as new handles the caller frees. */
    *etype = rt_dt_handle(f->etype);
    *filetype = rt_dt_handle(f->ftype);
    if (!(f->etype->flags & RT_DT_PREDEF))
        PMPI_Type_dup(*etype, etype);
    if (!(f->ftype->flags & RT_DT_PREDEF))
        PMPI_Type_dup(*filetype, filetype);
    strcpy(datarep, f->datarep);
    return MPI_SUCCESS;
}

static int type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent, const char *fn)
{
    struct rdmpi_datatype *d;
    struct io_file *f;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (!(d = rt_dt_get(datatype)))
        return rdmpi_err_file(fh, MPI_ERR_TYPE, fn, "datatype is not a valid datatype");
    if (!extent)
        return rdmpi_err_file(fh, MPI_ERR_ARG, fn, "extent is NULL");
    *extent = d->extent; /* "native": the file holds memory's layout */
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    RT_API_ENTER();
    return type_extent(fh, datatype, extent, "MPI_File_get_type_extent");
}

#pragma weak MPI_File_get_type_extent_c = PMPI_File_get_type_extent_c
int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    RT_API_ENTER();
    MPI_Aint e = 0;
    int err = type_extent(fh, datatype, extent ? &e : NULL, "MPI_File_get_type_extent_c");

    if (!err)
        *extent = e;
    return err;
}

#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_File_get_byte_offset";
    struct io_file *f;
    size_t run;
    int err;

    if (!(f = io_file_check(fh, fn, &err)))
        return err;
    if (offset < 0)
        return rdmpi_err_file(fh, MPI_ERR_ARG, fn, "offset is %lld; it must be >= 0",
                              (long long)offset);
    if (!disp)
        return rdmpi_err_file(fh, MPI_ERR_ARG, fn, "disp is NULL");
    *disp = io_view_map(f, offset * (MPI_Offset)f->etype->size, &run);
    return MPI_SUCCESS;
}
