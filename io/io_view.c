/* File views: the filetype tiled from disp selects the bytes a rank sees;
 * positions count the etypes of that selection. Mapping uses the
 * filetype's flattened segments, so a vector or subarray filetype costs a
 * binary search per contiguous run. */
#include "io.h"

#include <string.h>

MPI_Offset io_view_map(const struct io_file *f, MPI_Offset pos, size_t *run)
{
    const struct rdmpi_datatype *ft = f->ftype;
    MPI_Offset e, r, q;
    size_t lo = 0, hi = ft->nsegs;
    const struct rt_dt_seg *s;

    if (f->flat) {
        *run = SIZE_MAX;
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

MPI_Offset io_view_bytes_before(const struct io_file *f, MPI_Offset end)
{
    const struct rdmpi_datatype *ft = f->ftype;
    MPI_Offset b = end - f->disp, rem, data;

    if (f->flat)
        return b - ft->lb > 0 ? b - ft->lb : 0;
    if (b <= 0)
        return 0;
    rem = b % ft->extent;
    data = b / ft->extent * (MPI_Offset)ft->size;
    for (size_t i = 0; i < ft->nsegs; i++) {
        const struct rt_dt_seg *s = &ft->segs[i];
        MPI_Offset nb, last;

        if (s->off >= rem)
            break;      /* segments only move forward (checked in set_view) */
        nb = s->count > 1 ? (rem - s->off + s->stride - 1) / s->stride : 1;
        if (nb > (MPI_Offset)s->count)
            nb = (MPI_Offset)s->count;
        last = rem - (s->off + (nb - 1) * s->stride);
        data += (nb - 1) * (MPI_Offset)s->len + (last < (MPI_Offset)s->len ? last : (MPI_Offset)s->len);
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
    snprintf(f->datarep, sizeof(f->datarep), "%s", datarep);
    f->pos = 0;
}

/* Why a filetype cannot tile a file, or NULL: the standard asks for
 * non-negative, non-decreasing displacements, and tiles must not overlap. */
static const char *tiling_problem(const struct rdmpi_datatype *ft)
{
    MPI_Aint end = 0;

    for (size_t i = 0; i < ft->nsegs; i++) {
        const struct rt_dt_seg *s = &ft->segs[i];

        if (s->off < end)
            return end ? "its displacements decrease" : "it has a negative displacement";
        if (s->count > 1 && s->stride < (MPI_Aint)s->len)
            return "its blocks overlap or go backwards";
        end = s->off + (MPI_Aint)(s->count - 1) * s->stride + (MPI_Aint)s->len;
    }
    if (end > ft->extent)
        return "its data reaches past its extent, so copies tiled by extent would overlap";
    return NULL;
}

static int type_arg(MPI_File fh, MPI_Datatype h, const char *fn, const char *arg,
                    struct rdmpi_datatype **d)
{
    if (!(*d = rt_dt_get(h)))
        return rdmpi_err_file(fh, MPI_ERR_TYPE, fn, "%s is not a valid datatype", arg);
    if (!((*d)->flags & (RT_DT_COMMITTED | RT_DT_PREDEF)))
        return rdmpi_err_file(fh, MPI_ERR_TYPE, fn, "%s is not committed; call MPI_Type_commit",
                              arg);
    return MPI_SUCCESS;
}

#pragma weak MPI_File_set_view = PMPI_File_set_view
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    static const char fn[] = "MPI_File_set_view";
    struct rdmpi_datatype *et, *ft;
    struct io_file *f;
    const char *why;
    int err;

    if (!(f = io_file_check(fh, fn, &err)) ||
        (err = type_arg(fh, etype, fn, "etype", &et)) ||
        (err = type_arg(fh, filetype, fn, "filetype", &ft)))
        return err;
    if (!datarep)
        return rdmpi_err_file(fh, MPI_ERR_ARG, fn, "datarep is NULL; pass \"native\"");
    if (!strcmp(datarep, "external32"))
        return rdmpi_err_file(fh, MPI_ERR_UNSUPPORTED_DATAREP, fn, "datarep \"external32\" is "
                              "not supported by rdmpi yet; use \"native\"");
    if (strcmp(datarep, "native") && strcmp(datarep, "internal"))
        return rdmpi_err_file(fh, MPI_ERR_UNSUPPORTED_DATAREP, fn, "datarep \"%s\" is not "
                              "known; use \"native\" or \"internal\"", datarep);
    if (disp == MPI_DISPLACEMENT_CURRENT && !(f->amode & MPI_MODE_SEQUENTIAL))
        return rdmpi_err_file(fh, MPI_ERR_ARG, fn, "disp is MPI_DISPLACEMENT_CURRENT, which "
                              "only files opened with MPI_MODE_SEQUENTIAL accept");
    if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
        return rdmpi_err_file(fh, MPI_ERR_ARG, fn, "disp is %lld; it must be >= 0",
                              (long long)disp);
    if (!et->size || et->true_lb < 0)
        return rdmpi_err_file(fh, MPI_ERR_TYPE, fn, "etype has no data or a negative "
                              "displacement");
    if (!ft->size || ft->size % et->size)
        return rdmpi_err_file(fh, MPI_ERR_TYPE, fn, "filetype holds %zu bytes, not a positive "
                              "multiple of etype's %zu; build the filetype from etype",
                              ft->size, et->size);
    if ((why = tiling_problem(ft)))
        return rdmpi_err_file(fh, MPI_ERR_TYPE, fn, "filetype cannot describe a file view: %s",
                              why);
    if (f->split)
        return rdmpi_err_file(fh, MPI_ERR_OTHER, fn, "%s is still active on this file; call "
                              "its _end first", f->split);
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        MPI_Offset cur = 0;

        if ((err = io_shfp_fetch_add(f, 0, &cur)))
            return rdmpi_err_file(fh, io_errclass(err), fn, "reading the shared file pointer "
                                  "of %s: %s", f->path, strerror(err));
        disp = io_view_map(f, cur * (MPI_Offset)f->etype->size, &(size_t){0});
    }
    if (info != MPI_INFO_NULL && io_info_merge(&f->info, info))
        return rdmpi_err_file(fh, MPI_ERR_INFO, fn, "info is not a valid info object");
    /* Every rank must have read the old shared pointer before it resets. */
    PMPI_Barrier(f->comm);
    io_view_set(f, disp, et, ft, datarep);
    err = f->rank == 0 ? io_shfp_set(f, 0) : 0;
    PMPI_Bcast(&err, 1, MPI_INT, 0, f->comm);
    if (err)
        return rdmpi_err_file(fh, io_errclass(err), fn, "resetting the shared file pointer of "
                              "%s: %s", f->path, strerror(err));
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_view = PMPI_File_get_view
int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                       MPI_Datatype *filetype, char *datarep)
{
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
    *extent = d->extent;    /* "native": the file holds memory's layout */
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    return type_extent(fh, datatype, extent, "MPI_File_get_type_extent");
}

#pragma weak MPI_File_get_type_extent_c = PMPI_File_get_type_extent_c
int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    MPI_Aint e = 0;
    int err = type_extent(fh, datatype, extent ? &e : NULL, "MPI_File_get_type_extent_c");

    if (!err)
        *extent = e;
    return err;
}

#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
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
