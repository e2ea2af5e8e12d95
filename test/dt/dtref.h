/* Test helpers for datatypes: a reference type-map walker that knows
 * nothing of the library's engine (it reads each type back through
 * MPI_Type_get_envelope/get_contents), and a generator of random nested
 * derived types driven by a seed, so every rank builds the same ones. */
#ifndef TEST_DT_DTREF_H
#define TEST_DT_DTREF_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void (*ref_fn)(char *p, size_t n, void *ctx);

static MPI_Aint ref_extent(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

static void ref_walk(MPI_Datatype t, char *base, ref_fn fn, void *ctx);

/* Subarray: every index tuple in memory order. */
static void ref_subarray(const int *ints, MPI_Datatype old, char *base, ref_fn fn, void *ctx)
{
    int nd = ints[0], order = ints[1 + 3 * nd], idx[16] = {0};
    const int *sizes = ints + 1, *sub = ints + 1 + nd, *start = ints + 1 + 2 * nd;
    MPI_Aint ext = ref_extent(old);

    for (int d = 0; d < nd; d++)
        if (!sub[d])
            return;
    for (;;) {
        MPI_Aint lin = 0;
        for (int k = 0; k < nd; k++) {
            int d = order == MPI_ORDER_C ? k : nd - 1 - k;
            lin = lin * sizes[d] + start[d] + idx[d];
        }
        ref_walk(old, base + lin * ext, fn, ctx);
        /* increment the fastest dimension first */
        int k = nd - 1;
        for (; k >= 0; k--) {
            int d = order == MPI_ORDER_C ? k : nd - 1 - k;
            if (++idx[d] < sub[d])
                break;
            idx[d] = 0;
        }
        if (k < 0)
            return;
    }
}

static void ref_walk(MPI_Datatype t, char *base, ref_fn fn, void *ctx)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        int s;
        MPI_Type_size(t, &s);
        fn(base, (size_t)s, ctx);
        return;
    }
    int *in = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *a = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    MPI_Type_get_contents(t, ni, na, nd, in, a, ty);
    MPI_Aint ext = ref_extent(ty[0]);
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: ref_walk(ty[0], base, fn, ctx); break;
    case MPI_COMBINER_CONTIGUOUS:
        for (int i = 0; i < in[0]; i++)
            ref_walk(ty[0], base + i * ext, fn, ctx);
        break;
    case MPI_COMBINER_VECTOR:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                ref_walk(ty[0], base + ((MPI_Aint)i * in[2] + j) * ext, fn, ctx);
        break;
    case MPI_COMBINER_HVECTOR:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                ref_walk(ty[0], base + i * a[0] + j * ext, fn, ctx);
        break;
    case MPI_COMBINER_INDEXED:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                ref_walk(ty[0], base + ((MPI_Aint)in[1 + in[0] + i] + j) * ext, fn, ctx);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                ref_walk(ty[0], base + a[i] + j * ext, fn, ctx);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                ref_walk(ty[0], base + ((MPI_Aint)in[2 + i] + j) * ext, fn, ctx);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                ref_walk(ty[0], base + a[i] + j * ext, fn, ctx);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                ref_walk(ty[i], base + a[i] + j * ref_extent(ty[i]), fn, ctx);
        break;
    case MPI_COMBINER_SUBARRAY: ref_subarray(in, ty[0], base, fn, ctx); break;
    default: abort();
    }
    for (int i = 0; i < nd; i++) {
        int c2, x, y, z;
        MPI_Type_get_envelope(ty[i], &x, &y, &z, &c2);
        if (c2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&ty[i]);
    }
    free(in), free(a), free(ty);
}

struct ref_cur {
    char *p;
};

static void ref_pack_fn(char *p, size_t n, void *ctx)
{
    struct ref_cur *c = ctx;
    memcpy(c->p, p, n);
    c->p += n;
}

static void ref_unpack_fn(char *p, size_t n, void *ctx)
{
    struct ref_cur *c = ctx;
    memcpy(p, c->p, n);
    c->p += n;
}

static size_t ref_pack(MPI_Datatype t, int count, const void *buf, void *out)
{
    struct ref_cur c = {out};
    MPI_Aint ext = ref_extent(t);
    for (int i = 0; i < count; i++)
        ref_walk(t, (char *)buf + i * ext, ref_pack_fn, &c);
    return (size_t)(c.p - (char *)out);
}

static size_t ref_unpack(MPI_Datatype t, int count, void *buf, const void *in)
{
    struct ref_cur c = {(char *)in};
    MPI_Aint ext = ref_extent(t);
    for (int i = 0; i < count; i++)
        ref_walk(t, (char *)buf + i * ext, ref_unpack_fn, &c);
    return (size_t)(c.p - (char *)in);
}

/* ---- random types ---- */

static uint64_t rnd_state;

static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rnd_state >> 33) % n;
}

static int rnd_range(int lo, int hi)
{
    return lo + (int)rnd((unsigned)(hi - lo + 1));
}

/* Frees t unless it is predefined. */
static void rnd_free(MPI_Datatype *t)
{
    int x, y, z, c;
    MPI_Type_get_envelope(*t, &x, &y, &z, &c);
    if (c != MPI_COMBINER_NAMED)
        MPI_Type_free(t);
}

/* A random type of at most `depth` levels; the caller frees it. Predefined
 * types come back as themselves (rnd_free knows). */
static MPI_Datatype rnd_type(int depth)
{
    static const MPI_Datatype basic[] = {MPI_CHAR,   MPI_SHORT, MPI_INT,
                                         MPI_DOUBLE, MPI_FLOAT, MPI_LONG_LONG};
    MPI_Datatype old, t = MPI_DATATYPE_NULL;
    int bl[4], di[4], n;
    MPI_Aint ad[4];

    if (depth == 0 || rnd(4) == 0)
        return basic[rnd(6)];
    old = rnd_type(depth - 1);
    MPI_Aint ext = ref_extent(old);
    switch (rnd(10)) {
    case 0: MPI_Type_contiguous(rnd_range(1, 3), old, &t); break;
    case 1: {
        int b = rnd_range(1, 3), s = rnd_range(-4, 5);
        MPI_Type_vector(rnd_range(1, 4), b, s, old, &t);
        break;
    }
    case 2:
        MPI_Type_create_hvector(rnd_range(1, 4), rnd_range(1, 2),
                                ext * rnd_range(-3, 3) + rnd_range(-3, 7), old, &t);
        break;
    case 3:
        n = rnd_range(1, 4);
        for (int i = 0; i < n; i++)
            bl[i] = rnd_range(0, 3), di[i] = rnd_range(-5, 10);
        MPI_Type_indexed(n, bl, di, old, &t);
        break;
    case 4:
        n = rnd_range(1, 4);
        for (int i = 0; i < n; i++)
            bl[i] = rnd_range(0, 2), ad[i] = rnd_range(-40, 80);
        MPI_Type_create_hindexed(n, bl, ad, old, &t);
        break;
    case 5:
        n = rnd_range(1, 4);
        for (int i = 0; i < n; i++)
            di[i] = rnd_range(-4, 12);
        MPI_Type_create_indexed_block(n, rnd_range(1, 2), di, old, &t);
        break;
    case 6: {
        MPI_Datatype ty[3];
        n = rnd_range(1, 3);
        ty[0] = old;
        for (int i = 1; i < n; i++)
            ty[i] = rnd_type(depth - 1);
        for (int i = 0; i < n; i++)
            bl[i] = rnd_range(1, 2), ad[i] = rnd_range(-32, 64);
        MPI_Type_create_struct(n, bl, ad, ty, &t);
        for (int i = 1; i < n; i++)
            rnd_free(&ty[i]);
        break;
    }
    case 7: {
        MPI_Aint tlb, text;
        MPI_Type_get_true_extent(old, &tlb, &text);
        MPI_Type_create_resized(old, tlb - rnd_range(0, 8), text + rnd_range(1, 16), &t);
        break;
    }
    case 8: MPI_Type_dup(old, &t); break;
    default: {
        int sizes[3], sub[3], start[3], nd = rnd_range(1, 3);
        for (int i = 0; i < nd; i++) {
            sizes[i] = rnd_range(1, 5);
            sub[i] = rnd_range(1, sizes[i]);
            start[i] = rnd_range(0, sizes[i] - sub[i]);
        }
        MPI_Type_create_subarray(nd, sizes, sub, start, rnd(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN,
                                 old, &t);
        break;
    }
    }
    rnd_free(&old);
    return t;
}

/* A buffer for count elements of t: returns the pointer to pass to MPI
 * (origin), with `span` bytes from *mem holding every byte of the data. */
static char *span_alloc(MPI_Datatype t, int count, char **mem, size_t *span)
{
    MPI_Aint tlb, text, lb, ext;
    MPI_Type_get_true_extent(t, &tlb, &text);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Aint lo = tlb + (ext < 0 ? (count - 1) * ext : 0);
    MPI_Aint hi = tlb + text + (ext > 0 ? (count - 1) * ext : 0);
    *span = count ? (size_t)(hi - lo) : 0;
    *mem = malloc(*span + 1);
    return *mem - lo;
}

#endif
