/* The pack engine: walks the flattened segments of (buf, count, dt) from
 * any byte offset of the packed stream. Finding the start costs a binary
 * search; after that each block is one copy, with fixed-size copies for
 * the small blocks of vectors of basic types. */
#include "datatype.h"

/* Copies nb blocks of blen bytes between mem (stride apart) and the packed
 * stream; `unpack` is a constant at each call site. */
static inline void blocks(char *mem, MPI_Aint stride, size_t blen, size_t nb, char *packed,
                          int unpack)
{
    size_t i = 0;

#define COPY(m, p, n)                                                                              \
    do {                                                                                           \
        if (unpack)                                                                                \
            memcpy((m), (p), (n));                                                                 \
        else                                                                                       \
            memcpy((p), (m), (n));                                                                 \
    } while (0)
    /* Small fixed sizes: four blocks per iteration keep the loads and
     * stores independent. */
#define LOOP(n)                                                                                    \
    for (; i + 4 <= nb; i += 4, mem += 4 * stride, packed += 4 * (n)) {                            \
        COPY(mem, packed, (n));                                                                    \
        COPY(mem + stride, packed + (n), (n));                                                     \
        COPY(mem + 2 * stride, packed + 2 * (n), (n));                                             \
        COPY(mem + 3 * stride, packed + 3 * (n), (n));                                             \
    }                                                                                              \
    for (; i < nb; i++, mem += stride, packed += (n))                                              \
        COPY(mem, packed, (n));                                                                    \
    return;
    switch (blen) {
    case 1: LOOP(1)
    case 2: LOOP(2)
    case 4: LOOP(4)
    case 8: LOOP(8)
    case 16: LOOP(16)
    default:
        for (; i < nb; i++, mem += stride, packed += blen)
            COPY(mem, packed, blen);
    }
#undef LOOP
#undef COPY
}

/* The segment holding packed byte `rem` of one element. */
static size_t find_seg(const struct rdmpi_datatype *dt, size_t rem)
{
    size_t lo = 0, hi = dt->nsegs - 1;

    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (dt->cum[mid] <= rem)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Copies `left` bytes between the packed stream and memory, starting at
 * byte b of block k of segment si of the element at base and going on
 * through the elements that follow. */
static inline void run(const struct rt_dt_seg *segs, size_t nsegs, MPI_Aint extent, char *base,
                       size_t si, size_t k, size_t b, char *packed, size_t left, int unpack)
{
    /* Integer arithmetic: buf is MPI_BOTTOM (NULL) with absolute addresses. */
    for (;; base = (char *)((uintptr_t)base + (uintptr_t)extent), si = 0) {
        for (; si < nsegs; si++, k = 0) {
            const struct rt_dt_seg *s = &segs[si];
            char *p = (char *)((uintptr_t)base + (uintptr_t)(s->off + (MPI_Aint)k * s->stride));
            size_t whole;

            if (b) { /* finish a block cut by the previous call */
                size_t n = s->len - b < left ? s->len - b : left;
                if (unpack)
                    memcpy(p + b, packed, n);
                else
                    memcpy(packed, p + b, n);
                packed += n;
                left -= n;
                if (!left)
                    return;
                b = 0;
                k++;
                p += s->stride;
            }
            whole = s->count - k;
            if (whole * s->len > left)
                whole = left / s->len;
            blocks(p, s->stride, s->len, whole, packed, unpack);
            packed += whole * s->len;
            left -= whole * s->len;
            k += whole;
            if (k < s->count) { /* the stream ends inside this block */
                if (left) {
                    p += (MPI_Aint)whole * s->stride;
                    if (unpack)
                        memcpy(p, packed, left);
                    else
                        memcpy(packed, p, left);
                }
                return;
            }
            if (!left)
                return;
        }
    }
}

static inline size_t walk(const struct rdmpi_datatype *dt, char *buf, size_t count, size_t offset,
                          char *packed, size_t len, int unpack)
{
    size_t total = dt->size * count, elem, si, k, b;
    const struct rt_dt_seg *s0 = &dt->segs[0];

    if (offset >= total || !len)
        return 0;
    if (len > total - offset)
        len = total - offset;
    if (rt_dt_contig(dt, count)) {
        if (unpack)
            memcpy(buf + dt->lb + offset, packed, len);
        else
            memcpy(packed, buf + dt->lb + offset, len);
        return len;
    }
    elem = offset / dt->size;
    b = offset % dt->size;
    si = find_seg(dt, b);
    b -= dt->cum[si];
    k = b / dt->segs[si].len;
    b %= dt->segs[si].len;
    /* One block per element, or blocks whose stride runs on across
     * elements (a resized MPI_CHAR, a vector padded to whole strides):
     * all the elements are one vector, copied without a turn of the
     * element loop per block. */
    if (dt->nsegs == 1 && (s0->count == 1 || (MPI_Aint)s0->count * s0->stride == dt->extent)) {
        struct rt_dt_seg v = {.off = s0->off,
                              .stride = s0->count == 1 ? dt->extent : s0->stride,
                              .len = s0->len,
                              .count = s0->count * count};

        run(&v, 1, 0, buf, 0, elem * s0->count + k, b, packed, len, unpack);
        return len;
    }
    run(dt->segs, dt->nsegs, dt->extent,
        (char *)((uintptr_t)buf + (uintptr_t)((MPI_Aint)elem * dt->extent)), si, k, b, packed, len,
        unpack);
    return len;
}

size_t rt_dt_pack(const struct rdmpi_datatype *dt, const void *buf, size_t count, size_t offset,
                  void *out, size_t len)
{
    return walk(dt, (char *)buf, count, offset, out, len, 0);
}

size_t rt_dt_unpack(const struct rdmpi_datatype *dt, void *buf, size_t count, size_t offset,
                    const void *in, size_t len)
{
    return walk(dt, buf, count, offset, (char *)in, len, 1);
}
