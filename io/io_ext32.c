/* The "external32" data representation: big-endian data of the standard's
 * sizes. Files in it hold the same bytes as native ones would, converted;
 * this holds as long as every member of the types involved has the same
 * size in memory as in external32 (ints, floating point, chars, and the
 * fixed-width types on this platform), which keeps every displacement of
 * the view the same. Other types are refused with
 * MPI_ERR_UNSUPPORTED_DATAREP. */
#include "dt_external.h"
#include "io.h"

#include <errno.h>
#include <stdlib.h>

#define IO_EXT32_CHUNK ((size_t)4 << 20)

int io_ext32_ok(const struct rdmpi_datatype *dt)
{
    size_t esize;

    return !rt_dt_ext32_size(dt, &esize) && esize == dt->size;
}

/* Whole elements at a time, a few MiB of them, converted in a staging
 * buffer. A collective write converts everything first and makes one
 * call, even with no data, since its two phases involve every rank. */
int io_ext32_move(struct io_file *f, MPI_Offset pos, void *buf, size_t count,
                  struct rdmpi_datatype *dt, int write, int coll, size_t *moved)
{
    struct rdmpi_datatype *byte = rt_dt_get(MPI_BYTE);
    size_t per = count, done = 0;
    char *tmp;
    int e = 0;

    *moved = 0;
    if (!(write && coll) && dt->size && IO_EXT32_CHUNK / dt->size &&
        IO_EXT32_CHUNK / dt->size < count)
        per = IO_EXT32_CHUNK / dt->size;
    if (!(tmp = malloc(per * dt->size + 1)))
        return ENOMEM;
    do {
        size_t k = count - done < per ? count - done : per, got = 0;
        char *at = (char *)buf + (MPI_Aint)done * dt->extent;

        if (write)
            rt_dt_ext32(dt, at, k, tmp, true);
        e = io_move(f, pos + (MPI_Offset)(done * dt->size), tmp, k * dt->size, byte, write, coll,
                    &got);
        if (!write)
            rt_dt_ext32(dt, at, got / dt->size, tmp, false);
        *moved += got;
        done += k;
        if (got < k * dt->size)
            break;
    } while (done < count && !e);
    free(tmp);
    return e;
}
