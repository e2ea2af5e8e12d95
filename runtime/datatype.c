#include "datatype.h"
#include "errors.h"

#include <stdio.h>
#include <wchar.h>

struct rdmpi_datatype rt_dt_predef[RDMPI_DATATYPE_COUNT];

/* Fortran kinds with no C type: sizes from the names (REAL2 = 2 bytes, ...). */
static size_t void_size(const char *name)
{
    static const struct {
        const char *name;
        size_t size;
    } sizes[] = {
        {"MPI_INTEGER16", 16}, {"MPI_REAL2", 2},     {"MPI_REAL16", 16},
        {"MPI_COMPLEX4", 4},   {"MPI_COMPLEX32", 32},
    };
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        if (!strcmp(sizes[i].name, name))
            return sizes[i].size;
    return 0;
}

static void set_predef(int v, const char *name, const char *ctype, size_t size)
{
    struct rdmpi_datatype *d = &rt_dt_predef[v - RDMPI_DATATYPE_BASE - 1];

    if (!strcmp(ctype, "void"))
        size = void_size(name);
    d->obj.kind = RT_KIND_DATATYPE;
    d->obj.findex = v - RDMPI_DATATYPE_BASE;
    d->size = size;
    d->extent = d->true_extent = (MPI_Aint)size;
    d->flags = RT_DT_CONTIG | RT_DT_COMMITTED | RT_DT_PREDEF;
    d->refs = 1;
    snprintf(d->name, sizeof(d->name), "%s", name);
}

void rt_dt_init(void)
{
    /* sizeof(void) is a GNU extension (1); set_predef replaces it. */
#define X(name, value, type) set_predef(value, #name, #type, sizeof(type));
    RDMPI_FOREACH_PREDEF_DATATYPE(X)
#undef X
}

size_t rt_dt_pack(const struct rdmpi_datatype *dt, const void *buf, size_t count,
                  size_t offset, void *out, size_t len)
{
    size_t total = dt->size * count;

    if (offset >= total || !len)
        return 0;
    if (len > total - offset)
        len = total - offset;
    if (rt_dt_contig(dt, count)) {
        memcpy(out, (const char *)buf + dt->lb + offset, len);
        return len;
    }
    /* Derived non-contiguous types plug in here with the type engine. */
    return 0;
}

size_t rt_dt_unpack(const struct rdmpi_datatype *dt, void *buf, size_t count,
                    size_t offset, const void *in, size_t len)
{
    size_t total = dt->size * count;

    if (offset >= total || !len)
        return 0;
    if (len > total - offset)
        len = total - offset;
    if (rt_dt_contig(dt, count)) {
        memcpy((char *)buf + dt->lb + offset, in, len);
        return len;
    }
    return 0;
}
