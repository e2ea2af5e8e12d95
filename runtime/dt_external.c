/* The "external32" representation (MPI 4.1 sec. 5.2.5 and 14.5.2):
 * big-endian, standard sizes. A type's basic elements in packed order are
 * described by a run-length map of conversions; packing converts the
 * native packed stream through that map. */
#include "dt_external.h"

#include <float.h>
#include <stdlib.h>

enum conv { C_SWAP, C_NARROW_S, C_NARROW_U, C_LDOUBLE };

struct ent {
    uint8_t kind;
    uint8_t nsize, esize; /* native and external bytes */
    size_t count;
};

struct map {
    struct ent *e;
    size_t n, cap;
    size_t nbytes, ebytes; /* per element */
    bool oom;
};

static void put(struct map *m, enum conv kind, size_t nsize, size_t esize, size_t count)
{
    struct ent *last = m->n ? &m->e[m->n - 1] : NULL;

    if (!count)
        return;
    m->nbytes += nsize * count;
    m->ebytes += esize * count;
    if (last && last->kind == kind && last->nsize == nsize && last->esize == esize) {
        last->count += count;
        return;
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 8;
        struct ent *n = realloc(m->e, cap * sizeof(*n));
        if (!n) {
            m->oom = true;
            return;
        }
        m->e = n;
        m->cap = cap;
    }
    m->e[m->n++] = (struct ent){(uint8_t)kind, (uint8_t)nsize, (uint8_t)esize, count};
}

/* One element of a predefined type. */
static void predef(struct map *m, const struct rdmpi_datatype *d, size_t reps)
{
    MPI_Datatype h = rt_dt_handle((struct rdmpi_datatype *)d);
    size_t s = d->size;

#define PAIR(a, b)                                                                                 \
    for (size_t i = 0; i < reps; i++) {                                                            \
        put(m, C_SWAP, a, a, 1);                                                                   \
        put(m, C_SWAP, b, b, 1);                                                                   \
    }
    if (h == MPI_LONG)
        put(m, C_NARROW_S, s, 4, reps);
    else if (h == MPI_UNSIGNED_LONG)
        put(m, C_NARROW_U, s, 4, reps);
    else if (h == MPI_WCHAR)
        put(m, C_NARROW_U, s, 2, reps);
    else if (h == MPI_LONG_DOUBLE)
        put(m, C_LDOUBLE, s, 16, reps);
    else if (h == MPI_C_LONG_DOUBLE_COMPLEX || h == MPI_CXX_LONG_DOUBLE_COMPLEX)
        put(m, C_LDOUBLE, s / 2, 16, 2 * reps);
    else if (h == MPI_C_FLOAT_COMPLEX || h == MPI_C_DOUBLE_COMPLEX || h == MPI_COMPLEX ||
             h == MPI_DOUBLE_COMPLEX || h == MPI_CXX_FLOAT_COMPLEX || h == MPI_CXX_DOUBLE_COMPLEX ||
             h == MPI_COMPLEX4 || h == MPI_COMPLEX8 || h == MPI_COMPLEX16 || h == MPI_COMPLEX32)
        put(m, C_SWAP, s / 2, s / 2, 2 * reps);
    else if (h == MPI_FLOAT_INT || h == MPI_2INT || h == MPI_2INTEGER || h == MPI_2REAL) {
        PAIR(4, 4)
    } else if (h == MPI_DOUBLE_INT) {
        PAIR(8, 4)
    } else if (h == MPI_2DOUBLE_PRECISION) {
        PAIR(8, 8)
    } else if (h == MPI_SHORT_INT) {
        PAIR(2, 4)
    } else if (h == MPI_LONG_INT) {
        for (size_t i = 0; i < reps; i++) {
            put(m, C_NARROW_S, sizeof(long), 4, 1);
            put(m, C_SWAP, 4, 4, 1);
        }
    } else if (h == MPI_LONG_DOUBLE_INT) {
        for (size_t i = 0; i < reps; i++) {
            put(m, C_LDOUBLE, sizeof(long double), 16, 1);
            put(m, C_SWAP, 4, 4, 1);
        }
    } else
        put(m, C_SWAP, s, s, reps);
#undef PAIR
}

/* reps elements of d: a one-entry map multiplies its count, others repeat. */
static void build(struct map *m, const struct rdmpi_datatype *d, size_t reps)
{
    struct map sub = {0};

    if (!d->size || !reps || m->oom)
        return;
    if (d->flags & RT_DT_PREDEF) {
        predef(m, d, reps);
        return;
    }
    for (size_t i = 0; i < d->nkids; i++)
        build(&sub, d->kids[i].dt, d->kids[i].reps);
    if (sub.oom)
        m->oom = true;
    else if (sub.n == 1)
        put(m, sub.e[0].kind, sub.e[0].nsize, sub.e[0].esize, sub.e[0].count * reps);
    else
        for (size_t r = 0; r < reps && !m->oom; r++)
            for (size_t i = 0; i < sub.n; i++)
                put(m, sub.e[i].kind, sub.e[i].nsize, sub.e[i].esize, sub.e[i].count);
    free(sub.e);
}

int rt_dt_ext32_size(const struct rdmpi_datatype *d, size_t *esize)
{
    struct map m = {0};

    build(&m, d, 1);
    free(m.e);
    if (m.oom)
        return MPI_ERR_NO_MEM;
    *esize = m.ebytes;
    return MPI_SUCCESS;
}

static void swap(unsigned char *dst, const unsigned char *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

/* x87 extended (in 16 bytes) <-> IEEE binary128, both as integers. */
static void ld_out(unsigned char *out, const unsigned char *in)
{
#if LDBL_MANT_DIG == 64
    uint64_t mant, se = 0, hi, lo;
    memcpy(&mant, in, 8);
    memcpy(&se, in + 8, 2);
    hi = (se & 0xffff) << 48 | (mant & 0x7fffffffffffffffull) >> 15;
    lo = mant << 49;
    for (int i = 0; i < 8; i++) {
        out[i] = (unsigned char)(hi >> (56 - 8 * i));
        out[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
    }
#else
    swap(out, in, 16);
#endif
}

static void ld_in(unsigned char *out, const unsigned char *in)
{
#if LDBL_MANT_DIG == 64
    uint64_t hi = 0, lo = 0, mant, exp;
    uint16_t se;
    for (int i = 0; i < 8; i++) {
        hi = hi << 8 | in[i];
        lo = lo << 8 | in[8 + i];
    }
    se = (uint16_t)(hi >> 48);
    exp = se & 0x7fff;
    mant = (exp ? 1ull << 63 : 0) | (hi & 0xffffffffffffull) << 15 | lo >> 49;
    memset(out, 0, 16);
    memcpy(out, &mant, 8);
    memcpy(out + 8, &se, 2);
#else
    swap(out, in, 16);
#endif
}

/* Converts count elements between native packed (nat) and external (ext). */
static void convert(const struct map *m, unsigned char *nat, unsigned char *ext, size_t count,
                    bool to_ext)
{
    for (size_t c = 0; c < count; c++)
        for (size_t i = 0; i < m->n; i++) {
            const struct ent *e = &m->e[i];
            for (size_t k = 0; k < e->count; k++, nat += e->nsize, ext += e->esize) {
                switch (e->kind) {
                case C_SWAP:
                    if (to_ext)
                        swap(ext, nat, e->nsize);
                    else
                        swap(nat, ext, e->nsize);
                    break;
                case C_NARROW_S:
                case C_NARROW_U:
                    if (to_ext) {
                        swap(ext, nat, e->esize);
                    } else {
                        bool neg = e->kind == C_NARROW_S && (ext[0] & 0x80);
                        memset(nat, neg ? 0xff : 0, e->nsize);
                        swap(nat, ext, e->esize);
                    }
                    break;
                case C_LDOUBLE:
                    if (to_ext)
                        ld_out(ext, nat);
                    else
                        ld_in(nat, ext);
                    break;
                }
            }
        }
}

int rt_dt_ext32(const struct rdmpi_datatype *d, void *buf, size_t count, void *ext, bool to_ext)
{
    struct map m = {0};
    unsigned char *tmp;
    size_t n = d->size * count;

    build(&m, d, 1);
    if (m.oom || !(tmp = malloc(n ? n : 1))) {
        free(m.e);
        return MPI_ERR_NO_MEM;
    }
    if (to_ext) {
        rt_dt_pack(d, buf, count, 0, tmp, n);
        convert(&m, tmp, ext, count, true);
    } else {
        convert(&m, tmp, ext, count, false);
        rt_dt_unpack(d, buf, count, 0, tmp, n);
    }
    free(tmp);
    free(m.e);
    return MPI_SUCCESS;
}
