/* MPI_Pack/Unpack (native packed form: the engine's stream) and their
 * external32 counterparts (MPI 4.1 sec. 5.2). */
#include "comm.h"
#include "dt_api.h"
#include "dt_external.h"

#include <limits.h>

static int args(const void *buf, MPI_Count count, MPI_Datatype datatype, const void *pos,
                const char *fn, struct rdmpi_datatype **d)
{
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_count(count, fn, "count")) || (err = dt_arg(datatype, fn, "datatype", d)) ||
        (err = dt_ptr(pos, fn, "position")))
        return err;
    if (!((*d)->flags & RT_DT_COMMITTED))
        return DT_ERR(MPI_ERR_TYPE, fn, "datatype %s is not committed; call MPI_Type_commit first",
                      (*d)->name[0] ? (*d)->name : "(unnamed)");
    if (!buf && count && (*d)->size && ((*d)->flags & RT_DT_PREDEF))
        return DT_ERR(MPI_ERR_BUFFER, fn, "the buffer is NULL with count %lld", (long long)count);
    return MPI_SUCCESS;
}

static int comm_arg(MPI_Comm comm, const char *fn)
{
    int err = MPI_ERR_COMM;

    if (rt_comm_get(comm))
        return MPI_SUCCESS;
    rt_comm_check(comm, fn, &err);
    return err;
}

static int space(MPI_Count pos, MPI_Count need, MPI_Count size, const char *fn, const char *what)
{
    if (pos < 0 || pos > size || need > size - pos)
        return DT_ERR(MPI_ERR_TRUNCATE, fn,
                      "%s: position %lld plus %lld bytes exceeds the %lld-byte buffer", what,
                      (long long)pos, (long long)need, (long long)size);
    return MPI_SUCCESS;
}

static int pack(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm, const char *fn)
{
    struct rdmpi_datatype *d;
    MPI_Count n = 0;
    int err;

    if ((err = args(inbuf, incount, datatype, position, fn, &d)) || (err = comm_arg(comm, fn)))
        return err;
    n = (MPI_Count)d->size * incount;
    if ((err = space(*position, n, outsize, fn, "outbuf")))
        return err;
    rt_dt_pack(d, inbuf, (size_t)incount, 0, (char *)outbuf + *position, (size_t)n);
    *position += n;
    return MPI_SUCCESS;
}

static int unpack(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm, const char *fn)
{
    struct rdmpi_datatype *d;
    MPI_Count n = 0;
    int err;

    if ((err = args(outbuf, outcount, datatype, position, fn, &d)) || (err = comm_arg(comm, fn)))
        return err;
    n = (MPI_Count)d->size * outcount;
    if ((err = space(*position, n, insize, fn, "inbuf")))
        return err;
    rt_dt_unpack(d, outbuf, (size_t)outcount, 0, (const char *)inbuf + *position, (size_t)n);
    *position += n;
    return MPI_SUCCESS;
}

static int narrow(MPI_Count v, int *out, const char *fn)
{
    if (v > INT_MAX)
        return DT_ERR(MPI_ERR_VALUE_TOO_LARGE, fn,
                      "the result %lld does not fit an int; use the _c version", (long long)v);
    *out = (int)v;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    RT_API_ENTER();
    MPI_Count pos = position ? *position : 0;
    int err =
        pack(inbuf, incount, datatype, outbuf, outsize, position ? &pos : NULL, comm, "MPI_Pack");

    return err ? err : narrow(pos, position, "MPI_Pack");
}

#pragma weak MPI_Pack_c = PMPI_Pack_c
int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    RT_API_ENTER();
    return pack(inbuf, incount, datatype, outbuf, outsize, position, comm, "MPI_Pack_c");
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    RT_API_ENTER();
    MPI_Count pos = position ? *position : 0;
    int err = unpack(inbuf, insize, position ? &pos : NULL, outbuf, outcount, datatype, comm,
                     "MPI_Unpack");

    return err ? err : narrow(pos, position, "MPI_Unpack");
}

#pragma weak MPI_Unpack_c = PMPI_Unpack_c
int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    RT_API_ENTER();
    return unpack(inbuf, insize, position, outbuf, outcount, datatype, comm, "MPI_Unpack_c");
}

static int pack_size(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size,
                     const char *fn)
{
    struct rdmpi_datatype *d;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = dt_count(incount, fn, "incount")) || (err = dt_arg(datatype, fn, "datatype", &d)) ||
        (err = dt_ptr(size, fn, "size")) || (err = comm_arg(comm, fn)))
        return err;
    *size = (MPI_Count)d->size * incount;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    RT_API_ENTER();
    MPI_Count s = 0;
    int err = pack_size(incount, datatype, comm, size ? &s : NULL, "MPI_Pack_size");

    return err ? err : narrow(s, size, "MPI_Pack_size");
}

#pragma weak MPI_Pack_size_c = PMPI_Pack_size_c
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    RT_API_ENTER();
    return pack_size(incount, datatype, comm, size, "MPI_Pack_size_c");
}

/* ---- external32 ---- */

static int datarep(const char *rep, const char *fn)
{
    if (!rep)
        return DT_ERR(MPI_ERR_ARG, fn, "datarep is NULL; pass \"external32\"");
    if (strcmp(rep, "external32"))
        return DT_ERR(MPI_ERR_UNSUPPORTED_DATAREP, fn,
                      "datarep is \"%s\"; only \"external32\" is defined", rep);
    return MPI_SUCCESS;
}

static int ext_size(const struct rdmpi_datatype *d, MPI_Count count, MPI_Count *size,
                    const char *fn)
{
    size_t e;

    if (rt_dt_ext32_size(d, &e))
        return DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    *size = (MPI_Count)e * count;
    return MPI_SUCCESS;
}

static int pack_ext(const char *rep, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                    void *outbuf, MPI_Count outsize, MPI_Count *position, const char *fn)
{
    struct rdmpi_datatype *d;
    MPI_Count n = 0;
    int err;

    if ((err = datarep(rep, fn)) || (err = args(inbuf, incount, datatype, position, fn, &d)) ||
        (err = ext_size(d, incount, &n, fn)) || (err = space(*position, n, outsize, fn, "outbuf")))
        return err;
    if (rt_dt_ext32(d, (void *)inbuf, (size_t)incount, (char *)outbuf + *position, true))
        return DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    *position += n;
    return MPI_SUCCESS;
}

static int unpack_ext(const char *rep, const void *inbuf, MPI_Count insize, MPI_Count *position,
                      void *outbuf, MPI_Count outcount, MPI_Datatype datatype, const char *fn)
{
    struct rdmpi_datatype *d;
    MPI_Count n = 0;
    int err;

    if ((err = datarep(rep, fn)) || (err = args(outbuf, outcount, datatype, position, fn, &d)) ||
        (err = ext_size(d, outcount, &n, fn)) || (err = space(*position, n, insize, fn, "inbuf")))
        return err;
    if (rt_dt_ext32(d, outbuf, (size_t)outcount, (char *)inbuf + *position, false))
        return DT_ERR(MPI_ERR_NO_MEM, fn, "out of memory");
    *position += n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    RT_API_ENTER();
    MPI_Count pos = position ? *position : 0;
    int err = pack_ext(datarep, inbuf, incount, datatype, outbuf, outsize, position ? &pos : NULL,
                       "MPI_Pack_external");

    if (!err)
        *position = (MPI_Aint)pos;
    return err;
}

#pragma weak MPI_Pack_external_c = PMPI_Pack_external_c
int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    RT_API_ENTER();
    return pack_ext(datarep, inbuf, incount, datatype, outbuf, outsize, position,
                    "MPI_Pack_external_c");
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char *datarep, const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    RT_API_ENTER();
    MPI_Count pos = position ? *position : 0;
    int err = unpack_ext(datarep, inbuf, insize, position ? &pos : NULL, outbuf, outcount, datatype,
                         "MPI_Unpack_external");

    if (!err)
        *position = (MPI_Aint)pos;
    return err;
}

#pragma weak MPI_Unpack_external_c = PMPI_Unpack_external_c
int PMPI_Unpack_external_c(const char *datarep, const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    RT_API_ENTER();
    return unpack_ext(datarep, inbuf, insize, position, outbuf, outcount, datatype,
                      "MPI_Unpack_external_c");
}

static int ext_size_api(const char *rep, MPI_Count incount, MPI_Datatype datatype, MPI_Count *size,
                        const char *fn)
{
    struct rdmpi_datatype *d;
    int err;

    RT_CHECK_INIT(fn);
    if ((err = datarep(rep, fn)) || (err = dt_count(incount, fn, "incount")) ||
        (err = dt_arg(datatype, fn, "datatype", &d)) || (err = dt_ptr(size, fn, "size")))
        return err;
    return ext_size(d, incount, size, fn);
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    RT_API_ENTER();
    MPI_Count s = 0;
    int err = ext_size_api(datarep, incount, datatype, size ? &s : NULL, "MPI_Pack_external_size");

    if (!err)
        *size = (MPI_Aint)s;
    return err;
}

#pragma weak MPI_Pack_external_size_c = PMPI_Pack_external_size_c
int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    RT_API_ENTER();
    return ext_size_api(datarep, incount, datatype, size, "MPI_Pack_external_size_c");
}
