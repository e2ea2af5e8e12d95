/* Datatypes on one rank: random nested types packed by the engine (whole
 * and cut at random offsets) against the reference walker, Pack/Unpack and
 * Pack_external round trips, extents, envelope/contents, Get_elements,
 * names, darray, external32 bytes, reference counting and bad input. */
#include "datatype.h"
#include "dtref.h"
#include "mpitap.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

static void fill(char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)(seed * 31u + i * 7u + (i >> 8));
}

static int ref_basic_n;
static size_t ref_budget;
static void count_fn(char *p, size_t n, void *ctx)
{
    (void)p, (void)ctx;
    if (n <= ref_budget) {
        ref_basic_n++;
        ref_budget -= n;
    } else {
        ref_budget = 0;
    }
}

/* Every check of one random type; returns the number of failures. */
static int one_type(unsigned seed)
{
    MPI_Datatype t;
    int fails = 0, count, size;
    char *smem, *dmem, *emem;
    size_t span, n;

    rnd_state = seed;
    t = rnd_type(3);
    MPI_Type_commit(&t);
    count = rnd_range(1, 4);
    MPI_Type_size(t, &size);
    char *src = span_alloc(t, count, &smem, &span);
    char *dst = span_alloc(t, count, &dmem, &span);
    char *exp = span_alloc(t, count, &emem, &span);
    fill(smem, span, seed);
    fill(dmem, span, seed + 1);
    memcpy(emem, dmem, span);
    n = (size_t)size * (size_t)count;
    char *ref = malloc(n + 1), *pk = malloc(n + 1), *cut = malloc(n + 1);
    char *ext32 = NULL;

    if (ref_pack(t, count, src, ref) != n) {
        diag("seed %u: reference size differs from MPI_Type_size %d", seed, size);
        fails++;
    }
    int pos = 0;
    MPI_Pack(src, count, t, pk, (int)n, &pos, MPI_COMM_SELF);
    if ((size_t)pos != n || memcmp(pk, ref, n)) {
        diag("seed %u: MPI_Pack differs from the reference", seed);
        fails++;
    }
    /* The engine resumed at random cuts gives the same stream. */
    {
        struct rdmpi_datatype *d = rt_dt_get(t);
        size_t off = 0;
        while (off < n) {
            size_t k = 1 + rnd((unsigned)(n - off < 67 ? n - off : 67));
            rt_dt_pack(d, src, (size_t)count, off, cut + off, k);
            off += k;
        }
        if (memcmp(cut, ref, n)) {
            diag("seed %u: pack cut at random offsets differs", seed);
            fails++;
        }
        ref_unpack(t, count, exp, ref);
        off = 0;
        while (off < n) {
            size_t k = 1 + rnd((unsigned)(n - off < 53 ? n - off : 53));
            rt_dt_unpack(d, dst, (size_t)count, off, ref + off, k);
            off += k;
        }
        if (memcmp(dmem, emem, span)) {
            diag("seed %u: unpack cut at random offsets differs", seed);
            fails++;
        }
    }
    /* Unpack whole. */
    fill(dmem, span, seed + 1);
    pos = 0;
    MPI_Unpack(ref, (int)n, &pos, dst, count, t, MPI_COMM_SELF);
    if (memcmp(dmem, emem, span)) {
        diag("seed %u: MPI_Unpack differs", seed);
        fails++;
    }
    /* external32 round trip. */
    {
        MPI_Aint esz, epos = 0, upos = 0;
        MPI_Pack_external_size("external32", count, t, &esz);
        ext32 = malloc((size_t)esz + 1);
        fill(dmem, span, seed + 1);
        MPI_Pack_external("external32", src, count, t, ext32, esz, &epos);
        MPI_Unpack_external("external32", ext32, esz, &upos, dst, count, t);
        if (epos != esz || upos != esz || memcmp(dmem, emem, span)) {
            diag("seed %u: external32 round trip differs", seed);
            fails++;
        }
    }
    /* Get_elements on a partial message. */
    {
        int k = (int)rnd((unsigned)n + 1), got;
        MPI_Status st;
        MPI_Sendrecv(ref, k, MPI_BYTE, 0, 5, dst, count, t, 0, 5, MPI_COMM_SELF, &st);
        ref_basic_n = 0;
        ref_budget = (size_t)k;
        {
            MPI_Aint ext = ref_extent(t);
            for (int i = 0; i < count; i++)
                ref_walk(t, src + i * ext, count_fn, NULL);
        }
        MPI_Get_elements(&st, t, &got);
        if (got != ref_basic_n && !(got == MPI_UNDEFINED)) {
            diag("seed %u: Get_elements %d for %d bytes, expected %d", seed, got, k, ref_basic_n);
            fails++;
        }
    }
    free(ref), free(pk), free(cut), free(ext32);
    free(smem), free(dmem), free(emem);
    rnd_free(&t);
    return fails;
}

/* Types whose elements are one vector (a resized MPI_CHAR; a vector
 * resized to whole strides), which the engine copies as one run: packed
 * and unpacked at random cuts, against the reference walker. */
static void tiled(void)
{
    MPI_Datatype v, t[2];
    int fails = 0, count = 1000;

    MPI_Type_create_resized(MPI_CHAR, 0, 2, &t[0]);
    MPI_Type_vector(3, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 6 * sizeof(int), &t[1]);
    MPI_Type_free(&v);
    for (int i = 0; i < 2; i++) {
        struct rdmpi_datatype *d;
        char *smem, *dmem, *emem;
        size_t span, n, off = 0;
        int size;

        MPI_Type_commit(&t[i]);
        d = rt_dt_get(t[i]);
        MPI_Type_size(t[i], &size);
        n = (size_t)size * (size_t)count;
        char *src = span_alloc(t[i], count, &smem, &span);
        char *dst = span_alloc(t[i], count, &dmem, &span);
        char *exp = span_alloc(t[i], count, &emem, &span);
        char *ref = malloc(n), *cut = malloc(n);

        fill(smem, span, 77);
        fill(dmem, span, 78);
        memcpy(emem, dmem, span);
        ref_pack(t[i], count, src, ref);
        for (size_t k; off < n; off += k) {
            k = 1 + rnd((unsigned)(n - off < 301 ? n - off : 301));
            rt_dt_pack(d, src, (size_t)count, off, cut + off, k);
        }
        fails += memcmp(cut, ref, n) != 0;
        ref_unpack(t[i], count, exp, ref);
        for (off = 0; off < n;) {
            size_t k = 1 + rnd((unsigned)(n - off < 211 ? n - off : 211));
            rt_dt_unpack(d, dst, (size_t)count, off, ref + off, k);
            off += k;
        }
        fails += memcmp(dmem, emem, span) != 0;
        free(smem);
        free(dmem);
        free(emem);
        free(ref);
        free(cut);
        MPI_Type_free(&t[i]);
    }
    CHECK_EQ_INT(fails, 0,
                 "elements that form one vector: pack and unpack at random cuts (%d failures)",
                 fails);
}

static void fixed(void)
{
    MPI_Datatype v, s, r, c, sub, d;
    MPI_Aint lb, ext, tlb, text;
    int ni, na, nd, comb, ints[8], len;
    MPI_Aint aints[4];
    MPI_Datatype types[4];
    char name[MPI_MAX_OBJECT_NAME];

    MPI_Type_vector(3, 2, 4, MPI_INT, &v);
    MPI_Type_get_extent(v, &lb, &ext);
    CHECK_ALL ("vector(3,2,4,int): lb 0 extent 40 (got %ld %ld)", (long)lb, (long)ext) {
        CHECK_EQ_LONG(lb, 0);
        CHECK_EQ_LONG(ext, 40);
    }
    MPI_Type_get_envelope(v, &ni, &na, &nd, &comb);
    CHECK_ALL ("vector envelope") {
        CHECK_EQ_INT(comb, MPI_COMBINER_VECTOR);
        CHECK_EQ_INT(ni, 3);
        CHECK_EQ_INT(na, 0);
        CHECK_EQ_INT(nd, 1);
    }
    MPI_Type_get_contents(v, 8, 4, 4, ints, aints, types);
    CHECK_ALL ("vector contents") {
        CHECK_EQ_INT(ints[0], 3);
        CHECK_EQ_INT(ints[1], 2);
        CHECK_EQ_INT(ints[2], 4);
        CHECK_EQ_PTR(types[0], MPI_INT);
    }

    {
        int bl[2] = {1, 1};
        MPI_Aint ds[2] = {0, 8};
        MPI_Datatype ts[2] = {MPI_DOUBLE, MPI_CHAR};
        MPI_Type_create_struct(2, bl, ds, ts, &s);
        MPI_Type_get_extent(s, &lb, &ext);
        CHECK_EQ_LONG(ext, 16, "struct {double, char}: extent padded to 16 (got %ld)", (long)ext);
        MPI_Type_size(s, &len);
        CHECK_EQ_INT(len, 9, "struct {double, char}: size 9 (got %d)", len);
    }
    MPI_Type_create_resized(MPI_INT, -4, 12, &r);
    MPI_Type_get_extent(r, &lb, &ext);
    MPI_Type_get_true_extent(r, &tlb, &text);
    CHECK_ALL ("resized int: lb -4 extent 12, true 0/4") {
        CHECK_EQ_LONG(lb, -4);
        CHECK_EQ_LONG(ext, 12);
        CHECK_EQ_LONG(tlb, 0);
        CHECK_EQ_LONG(text, 4);
    }
    {
        int bl[2] = {1, 1}, ds[2] = {-2, 3};
        MPI_Type_indexed(2, bl, ds, MPI_INT, &c);
        MPI_Type_get_true_extent(c, &tlb, &text);
        CHECK_ALL ("indexed with negative displacement: true lb -8 extent 24") {
            CHECK_EQ_LONG(tlb, -8);
            CHECK_EQ_LONG(text, 24);
        }
    }
    {
        int sz[2] = {6, 8}, ss[2] = {3, 4}, st[2] = {1, 2};
        MPI_Type_create_subarray(2, sz, ss, st, MPI_ORDER_C, MPI_DOUBLE, &sub);
        MPI_Type_get_extent(sub, &lb, &ext);
        MPI_Type_get_true_extent(sub, &tlb, &text);
        CHECK_ALL ("subarray 6x8 [1:4,2:6]: extent %ld true lb %ld true extent %ld", (long)ext,
                   (long)tlb, (long)text) {
            CHECK_EQ_LONG(lb, 0);
            CHECK_EQ_LONG(ext, 6 * 8 * 8);
            CHECK_EQ_LONG(tlb, (1 * 8 + 2) * 8);
            CHECK_EQ_LONG(text, (2 * 8 + 4) * 8);
        }
        MPI_Type_get_envelope(sub, &ni, &na, &nd, &comb);
        CHECK_ALL ("subarray envelope") {
            CHECK_EQ_INT(comb, MPI_COMBINER_SUBARRAY);
            CHECK_EQ_INT(ni, 8);
            CHECK_EQ_INT(nd, 1);
        }
    }
    /* darray: 10 ints block over 4 processes, rank 3 holds 9; cyclic(2) rank 1 holds 2,3,6,7 */
    {
        int g = 10, dist = MPI_DISTRIBUTE_BLOCK, darg = MPI_DISTRIBUTE_DFLT_DARG, p = 4, sz;
        MPI_Type_create_darray(4, 3, 1, &g, &dist, &darg, &p, MPI_ORDER_C, MPI_INT, &d);
        MPI_Type_size(d, &sz);
        MPI_Type_get_true_extent(d, &tlb, &text);
        MPI_Type_get_extent(d, &lb, &ext);
        CHECK_ALL ("darray block rank 3: one int at 9 (size %d lb %ld)", sz, (long)tlb) {
            CHECK_EQ_INT(sz, 4);
            CHECK_EQ_LONG(tlb, 36);
            CHECK_EQ_LONG(ext, 40);
        }
        MPI_Type_free(&d);
        dist = MPI_DISTRIBUTE_CYCLIC;
        darg = 2;
        p = 2;
        MPI_Type_create_darray(2, 1, 1, &g, &dist, &darg, &p, MPI_ORDER_C, MPI_INT, &d);
        MPI_Type_commit(&d);
        int in[10], out[4] = {0}, pos = 0;
        for (int i = 0; i < 10; i++)
            in[i] = i;
        MPI_Pack(in, 1, d, out, sizeof(out), &pos, MPI_COMM_SELF);
        CHECK_ALL ("darray cyclic(2) over 2, rank 1: elements 2 3 6 7") {
            CHECK_EQ_INT(pos, 16);
            CHECK_EQ_INT(out[0], 2);
            CHECK_EQ_INT(out[1], 3);
            CHECK_EQ_INT(out[2], 6);
            CHECK_EQ_INT(out[3], 7);
        }
        MPI_Type_free(&d);
        int gs[2] = {4, 6}, ds2[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            da[2] = {MPI_DISTRIBUTE_DFLT_DARG, 1}, ps[2] = {2, 2}, a2[24], o2[6];
        MPI_Type_create_darray(4, 3, 2, gs, ds2, da, ps, MPI_ORDER_C, MPI_INT, &d);
        MPI_Type_commit(&d);
        for (int i = 0; i < 24; i++)
            a2[i] = i;
        pos = 0;
        MPI_Pack(a2, 1, d, o2, sizeof(o2), &pos, MPI_COMM_SELF);
        /* rank 3 = coords (1,1): rows 2-3, columns 1,3,5 */
        CHECK_ALL ("darray 4x6 block x cyclic on 2x2, rank 3") {
            CHECK_EQ_INT(pos, 24);
            CHECK_EQ_INT(o2[0], 13);
            CHECK_EQ_INT(o2[1], 15);
            CHECK_EQ_INT(o2[2], 17);
            CHECK_EQ_INT(o2[3], 19);
            CHECK_EQ_INT(o2[5], 23);
        }
        MPI_Type_free(&d);
    }
    MPI_Type_get_name(MPI_CHAR, name, &len);
    CHECK_ALL ("MPI_CHAR is named \"MPI_CHAR\"") {
        CHECK_EQ_STR(name, "MPI_CHAR");
        CHECK_EQ_INT(len, 8);
    }
    len = -1;
    name[0] = 0;
    CHECK_ALL ("MPI_DATATYPE_NULL is named (MPI-4.1): got \"%s\" of length %d, want "
               "\"MPI_DATATYPE_NULL\" of 17",
               name, len) {
        CHECK_MPI(MPI_Type_get_name(MPI_DATATYPE_NULL, name, &len));
        CHECK_EQ_STR(name, "MPI_DATATYPE_NULL");
        CHECK_EQ_INT(len, 17);
    }
    MPI_Type_size(MPI_DOUBLE_INT, &len);
    MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext);
    CHECK_ALL ("MPI_DOUBLE_INT: size 12, extent 16") {
        CHECK_EQ_INT(len, 12);
        CHECK_EQ_LONG(ext, 16);
    }
    MPI_Type_get_name(MPI_DOUBLE_INT, name, &len);
    CHECK_EQ_STR(name, "MPI_DOUBLE_INT", "MPI_DOUBLE_INT is named");
    MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, name, &len);
    CHECK_EQ_STR(name, "MPI_C_COMPLEX",
                 "the MPI_C_COMPLEX/MPI_C_FLOAT_COMPLEX handle is named "
                 "MPI_C_COMPLEX (got %s)",
                 name);
    /* A pair type is two basic elements, as the struct the standard defines
     * it to be (MPICH test datatype/get_elements_pairtype). */
    {
        struct dd {
            double a;
            int b;
            double c;
            int d;
        } src = {1.5, 2, 3.5, 4}, dst[2];
        int bl[4] = {1, 1, 1, 1}, n = 0;
        MPI_Aint ds[4] = {0, offsetof(struct dd, b), offsetof(struct dd, c),
                          offsetof(struct dd, d)};
        MPI_Datatype ts[4] = {MPI_DOUBLE, MPI_INT, MPI_DOUBLE, MPI_INT}, st4;
        MPI_Status stat;
        MPI_Type_create_struct(4, bl, ds, ts, &st4);
        MPI_Type_commit(&st4);
        MPI_Sendrecv(&src, 1, st4, 0, 5, dst, 2, MPI_DOUBLE_INT, 0, 5, MPI_COMM_SELF, &stat);
        MPI_Get_elements(&stat, MPI_DOUBLE_INT, &n);
        CHECK_ALL ("2 MPI_DOUBLE_INT received: 4 elements "
                   "(got %d)",
                   n) {
            CHECK_EQ_INT(n, 4);
            CHECK_TRUE(dst[0].c == 3.5);
            CHECK_EQ_INT(dst[0].d, 4);
        }
        MPI_Status_set_elements(&stat, MPI_DOUBLE_INT, 3);
        MPI_Get_elements(&stat, MPI_DOUBLE_INT, &n);
        int cnt = 0;
        MPI_Get_count(&stat, MPI_DOUBLE_INT, &cnt);
        CHECK_ALL ("set_elements(MPI_DOUBLE_INT, 3): 3 elements, count "
                   "undefined (got %d %d)",
                   n, cnt) {
            CHECK_EQ_INT(n, 3);
            CHECK_EQ_INT(cnt, MPI_UNDEFINED);
        }
        /* 32 bytes are 5 whole elements of 4 MPI_DOUBLE_INT (12 bytes each
         * pair); 33 end inside the sixth: undefined, as for a basic type. */
        {
            MPI_Datatype four;
            char bytes[64] = {0}, sink[64];
            MPI_Status cut;
            MPI_Type_contiguous(4, MPI_DOUBLE_INT, &four);
            MPI_Type_commit(&four);
            MPI_Sendrecv(bytes, 32, MPI_BYTE, 0, 6, sink, 64, MPI_BYTE, 0, 6, MPI_COMM_SELF, &cut);
            MPI_Get_elements(&cut, four, &n);
            CHECK_EQ_INT(n, 5);
            MPI_Sendrecv(bytes, 33, MPI_BYTE, 0, 6, sink, 64, MPI_BYTE, 0, 6, MPI_COMM_SELF, &cut);
            MPI_Get_elements(&cut, four, &n);
            CHECK_EQ_INT(n, MPI_UNDEFINED);
            MPI_Type_free(&four);
        }
        /* The Fortran views keep source, tag, error and count. */
        MPI_Fint f[MPI_F_STATUS_SIZE], g[MPI_F_STATUS_SIZE];
        MPI_F08_status f08;
        MPI_Status back;
        MPI_Status_set_elements(&stat, MPI_DOUBLE_INT, 4);
        int rc = MPI_Status_c2f(&stat, f) | MPI_Status_f2f08(f, &f08) | MPI_Status_f082f(&f08, g) |
                 MPI_Status_f2c(g, &back);
        MPI_Get_count(&back, MPI_DOUBLE_INT, &cnt);
        CHECK_ALL ("status to Fortran, Fortran 2008, Fortran and back: source %d tag %d count %d",
                   back.MPI_SOURCE, back.MPI_TAG, cnt) {
            CHECK_MPI(rc);
            CHECK_EQ_INT(f[MPI_F_SOURCE], 0);
            CHECK_EQ_INT(f[MPI_F_TAG], 5);
            CHECK_EQ_INT(f08.MPI_TAG, 5);
            CHECK_EQ_INT(back.MPI_SOURCE, 0);
            CHECK_EQ_INT(back.MPI_TAG, 5);
            CHECK_EQ_INT(back.MPI_ERROR, stat.MPI_ERROR);
            CHECK_EQ_INT(cnt, 2);
        }
        rc = MPI_Status_c2f08(&stat, &f08) | MPI_Status_f082c(&f08, &back);
        CHECK_ALL ("status to Fortran 2008 and back") {
            CHECK_MPI(rc);
            CHECK_EQ_INT(back.MPI_TAG, 5);
        }
        MPI_Type_free(&st4);
    }
    /* Vectors and contiguous types of huge counts build at once (MPICH
     * tests datatype/large_count, type_large). */
    {
        MPI_Datatype big, four, vbig, cbig;
        MPI_Count sz, lbx, extx;
        double t0 = MPI_Wtime();
        MPI_Type_contiguous(INT_MAX, MPI_CHAR, &big);
        MPI_Type_contiguous(4, MPI_INT, &four);
        MPI_Type_vector(INT_MAX / 2, 1, 3, four, &vbig);
        MPI_Type_contiguous_c(5033164800, MPI_CHAR, &cbig);
        t0 = MPI_Wtime() - t0;
        CHECK_TRUE(t0 < 5,
                   "contiguous(INT_MAX), vector(INT_MAX/2) and contiguous_c(5e9) take %.3f s", t0);
        MPI_Type_size_x(big, &sz);
        MPI_Type_get_extent_x(big, &lbx, &extx);
        CHECK_ALL ("contiguous(INT_MAX, char): one run") {
            CHECK_EQ_LONG(sz, INT_MAX);
            CHECK_EQ_LONG(lbx, 0);
            CHECK_EQ_LONG(extx, INT_MAX);
            CHECK_EQ_LONG(rt_dt_get(big)->nsegs, 1);
        }
        MPI_Type_size_x(vbig, &sz);
        MPI_Type_get_true_extent_x(vbig, &lbx, &extx);
        CHECK_ALL ("vector(INT_MAX/2, 1, 3, 4 ints): size, true extent, one strided segment") {
            CHECK_EQ_LONG(sz, 16LL * (INT_MAX / 2));
            CHECK_EQ_LONG(lbx, 0);
            CHECK_EQ_LONG(extx, 48LL * (INT_MAX / 2 - 1) + 16);
            CHECK_EQ_LONG(rt_dt_get(vbig)->nsegs, 1);
        }
        MPI_Type_size_x(cbig, &sz);
        CHECK_EQ_LONG(sz, 5033164800, "contiguous_c(5033164800, char) size");
        MPI_Type_free(&big), MPI_Type_free(&four), MPI_Type_free(&vbig), MPI_Type_free(&cbig);
    }
    /* A vector with a negative stride keeps type-map order. */
    {
        MPI_Datatype nv;
        int in[8] = {0, 1, 2, 3, 4, 5, 6, 7}, out[6] = {0}, pos = 0;
        MPI_Type_vector(3, 2, -3, MPI_INT, &nv);
        MPI_Type_commit(&nv);
        MPI_Type_get_extent(nv, &lb, &ext);
        MPI_Pack(in + 6, 1, nv, out, sizeof(out), &pos, MPI_COMM_SELF);
        CHECK_ALL ("vector(3, 2, -3, int): lb -24, extent 32, packs 6 7 3 4 0 1") {
            CHECK_EQ_LONG(lb, -24);
            CHECK_EQ_LONG(ext, 32);
            CHECK_EQ_INT(pos, 24);
            CHECK_EQ_INT(out[0], 6);
            CHECK_EQ_INT(out[1], 7);
            CHECK_EQ_INT(out[2], 3);
            CHECK_EQ_INT(out[4], 0);
            CHECK_EQ_INT(out[5], 1);
        }
        MPI_Type_free(&nv);
    }
    MPI_Type_set_name(v, "my vector");
    MPI_Type_get_name(v, name, &len);
    CHECK_EQ_STR(name, "my vector", "set_name/get_name on a derived type");
    {
        MPI_Datatype m;
        MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m);
        CHECK_EQ_PTR(m, MPI_REAL8, "match_size(REAL, 8) is MPI_REAL8");
        MPI_Type_create_f90_integer(9, &m);
        MPI_Type_size(m, &len);
        MPI_Type_get_envelope(m, &ni, &na, &nd, &comb);
        MPI_Type_get_contents(m, 8, 4, 4, ints, aints, types);
        CHECK_ALL ("f90_integer(9): 4 bytes, envelope F90_INTEGER (r)") {
            CHECK_EQ_INT(len, 4);
            CHECK_EQ_INT(comb, MPI_COMBINER_F90_INTEGER);
            CHECK_EQ_INT(ni, 1);
            CHECK_EQ_INT(na, 0);
            CHECK_EQ_INT(nd, 0);
            CHECK_EQ_INT(ints[0], 9);
        }
        /* MPICH test datatype/createf90types: the envelope records the call,
         * the type communicates and reduces, and stays (cannot be freed). */
        {
            MPI_Datatype f, f2;
            double a = 1.5, b = 2.0;
            MPI_Type_create_f90_real(7, MPI_UNDEFINED, &f);
            MPI_Type_get_envelope(f, &ni, &na, &nd, &comb);
            MPI_Type_get_contents(f, 8, 4, 4, ints, aints, types);
            CHECK_ALL ("f90_real(7, MPI_UNDEFINED): envelope F90_REAL (p, r)") {
                CHECK_EQ_INT(comb, MPI_COMBINER_F90_REAL);
                CHECK_EQ_INT(ni, 2);
                CHECK_EQ_INT(nd, 0);
                CHECK_EQ_INT(ints[0], 7);
                CHECK_EQ_INT(ints[1], MPI_UNDEFINED);
            }
            MPI_Type_size(f, &len);
            int e = MPI_Reduce_local(&a, &b, 1, f, MPI_SUM);
            CHECK_ALL ("f90_real(7, undefined) is 8 bytes and reduces") {
                CHECK_EQ_INT(len, 8);
                CHECK_TRUE(!e);
                CHECK_TRUE(b == 3.5);
            }
            MPI_Type_create_f90_real(7, MPI_UNDEFINED, &f2);
            MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
            CHECK_ALL ("the same (p, r) gives the same type, which cannot be freed") {
                CHECK_EQ_PTR(f2, f);
                CHECK_EQ_INT(MPI_Type_free(&f2), MPI_ERR_TYPE);
            }
            MPI_Type_create_f90_complex(3, 10, &f);
            MPI_Type_get_envelope(f, &ni, &na, &nd, &comb);
            MPI_Type_size(f, &len);
            CHECK_ALL ("f90_complex(3, 10): 8 bytes") {
                CHECK_EQ_INT(comb, MPI_COMBINER_F90_COMPLEX);
                CHECK_EQ_INT(len, 8);
            }
        }
        MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &m);
        CHECK_EQ_PTR(m, MPI_DOUBLE_INT, "value_index(double, int) is MPI_DOUBLE_INT");
    }
    {
        MPI_Aint a1, a2;
        double x[2];
        MPI_Get_address(&x[0], &a1);
        MPI_Get_address(&x[1], &a2);
        CHECK_EQ_LONG(MPI_Aint_diff(a2, a1), 8, "Get_address and Aint_diff");
    }
    {
        MPI_Status st;
        int source = 0, tag = 0, error = 0;
        MPI_Status_set_source(&st, 3);
        MPI_Status_set_tag(&st, 44);
        MPI_Status_set_error(&st, MPI_ERR_TRUNCATE);
        MPI_Status_get_source(&st, &source);
        MPI_Status_get_tag(&st, &tag);
        MPI_Status_get_error(&st, &error);
        CHECK_ALL ("Status_set/get_source, _tag, _error") {
            CHECK_EQ_INT(source, 3);
            CHECK_EQ_INT(tag, 44);
            CHECK_EQ_INT(error, MPI_ERR_TRUNCATE);
        }
    }
    /* Contiguous derived types are flagged to go without packing. */
    {
        MPI_Datatype cc;
        MPI_Type_contiguous(5, MPI_DOUBLE, &cc);
        CHECK_TRUE(rt_dt_contig(rt_dt_get(cc), 3), "contiguous(5, double) is contiguous");
        CHECK_TRUE(!rt_dt_contig(rt_dt_get(v), 1), "vector(3,2,4) is not");
        CHECK_EQ_LONG(rt_dt_get(sub)->nsegs, 1, "2-D subarray flattens to one strided segment");
        MPI_Type_free(&cc);
    }
    /* external32 bytes. */
    {
        int i1 = 1;
        double d1 = 1.0;
        long l1 = -2;
        long double ld = 1.0L;
        unsigned char o[16];
        MPI_Aint pos = 0, sz;
        MPI_Pack_external("external32", &i1, 1, MPI_INT, o, 16, &pos);
        CHECK_ALL ("external32 int 1 is 00 00 00 01") {
            CHECK_EQ_LONG(pos, 4);
            CHECK_EQ_INT(o[0], 0);
            CHECK_EQ_INT(o[3], 1);
        }
        pos = 0;
        MPI_Pack_external("external32", &d1, 1, MPI_DOUBLE, o, 16, &pos);
        CHECK_ALL ("external32 double 1.0") {
            CHECK_EQ_LONG(pos, 8);
            CHECK_EQ_INT(o[0], 0x3f);
            CHECK_EQ_INT(o[1], 0xf0);
            CHECK_EQ_INT(o[7], 0);
        }
        pos = 0;
        MPI_Pack_external_size("external32", 1, MPI_LONG, &sz);
        MPI_Pack_external("external32", &l1, 1, MPI_LONG, o, 16, &pos);
        CHECK_ALL ("external32 long is 4 bytes") {
            CHECK_EQ_LONG(sz, 4);
            CHECK_EQ_LONG(pos, 4);
            CHECK_EQ_INT(o[0], 0xff);
            CHECK_EQ_INT(o[3], 0xfe);
        }
        long back = 0;
        MPI_Aint up = 0;
        MPI_Unpack_external("external32", o, 4, &up, &back, 1, MPI_LONG);
        CHECK_EQ_LONG(back, -2, "external32 long -2 comes back sign-extended");
        pos = 0;
        MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE, o, 16, &pos);
        CHECK_ALL ("external32 long double 1.0 is binary128") {
            CHECK_EQ_LONG(pos, 16);
            CHECK_EQ_INT(o[0], 0x3f);
            CHECK_EQ_INT(o[1], 0xff);
            CHECK_EQ_INT(o[2], 0);
            CHECK_EQ_INT(o[15], 0);
        }
        long double ldb = 0;
        up = 0;
        MPI_Unpack_external("external32", o, 16, &up, &ldb, 1, MPI_LONG_DOUBLE);
        CHECK_TRUE(ldb == 1.0L, "external32 long double round trip");
        struct {
            double v;
            int i;
        } di = {2.5, 7}, dib = {0, 0};
        pos = up = 0;
        MPI_Pack_external_size("external32", 1, MPI_DOUBLE_INT, &sz);
        MPI_Pack_external("external32", &di, 1, MPI_DOUBLE_INT, o, 16, &pos);
        MPI_Unpack_external("external32", o, 16, &up, &dib, 1, MPI_DOUBLE_INT);
        CHECK_ALL ("external32 MPI_DOUBLE_INT: 12 bytes") {
            CHECK_EQ_LONG(sz, 12);
            CHECK_EQ_LONG(pos, 12);
            CHECK_TRUE(dib.v == 2.5);
            CHECK_EQ_INT(dib.i, 7);
        }
    }
    /* References: a type freed while a derived type and a request use it. */
    {
        MPI_Datatype inner, outer;
        int src[16], dst[16] = {0};
        MPI_Request rq[2];
        for (int i = 0; i < 16; i++)
            src[i] = i + 100;
        MPI_Type_vector(2, 1, 2, MPI_INT, &inner);
        MPI_Type_contiguous(2, inner, &outer);
        MPI_Type_free(&inner);
        MPI_Type_commit(&outer);
        MPI_Irecv(dst, 1, outer, 0, 9, MPI_COMM_SELF, &rq[0]);
        MPI_Isend(src, 1, outer, 0, 9, MPI_COMM_SELF, &rq[1]);
        MPI_Type_free(&outer);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        /* vector(2,1,2) has extent 3 ints: elements 0, 2, 3, 5 */
        CHECK_ALL ("types freed while in use by a derived type and by requests stay alive") {
            CHECK_EQ_INT(dst[0], 100);
            CHECK_EQ_INT(dst[2], 102);
            CHECK_EQ_INT(dst[3], 103);
            CHECK_EQ_INT(dst[5], 105);
            CHECK_EQ_INT(dst[1], 0);
            CHECK_EQ_INT(dst[4], 0);
        }
    }
    /* MPI_BOTTOM with absolute addresses. */
    {
        int x = 11, y = 0, bl[2] = {1, 1};
        double z = 2.5, w = 0;
        MPI_Aint ad[2];
        MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE}, sa, ra;
        MPI_Get_address(&x, &ad[0]);
        MPI_Get_address(&z, &ad[1]);
        MPI_Type_create_struct(2, bl, ad, ts, &sa);
        MPI_Get_address(&y, &ad[0]);
        MPI_Get_address(&w, &ad[1]);
        MPI_Type_create_struct(2, bl, ad, ts, &ra);
        MPI_Type_commit(&sa);
        MPI_Type_commit(&ra);
        MPI_Sendrecv(MPI_BOTTOM, 1, sa, 0, 4, MPI_BOTTOM, 1, ra, 0, 4, MPI_COMM_SELF,
                     MPI_STATUS_IGNORE);
        CHECK_ALL ("MPI_BOTTOM with absolute addresses") {
            CHECK_EQ_INT(y, 11);
            CHECK_TRUE(w == 2.5);
        }
        MPI_Type_free(&sa);
        MPI_Type_free(&ra);
    }
    /* get_contents hands back derived types the caller frees. */
    {
        MPI_Datatype outer, got[1];
        MPI_Type_contiguous(2, v, &outer);
        MPI_Type_get_contents(outer, 1, 0, 1, ints, aints, got);
        MPI_Type_get_envelope(got[0], &ni, &na, &nd, &comb);
        CHECK_EQ_INT(comb, MPI_COMBINER_VECTOR, "get_contents returns the vector");
        MPI_Type_free(&got[0]);
        MPI_Type_free(&outer);
    }
    /* A collective-free reduction check: Allreduce on a derived type of doubles. */
    {
        MPI_Datatype c3;
        double a[6] = {1, 2, 3, 4, 5, 6}, b[6];
        MPI_Type_contiguous(3, MPI_DOUBLE, &c3);
        MPI_Type_commit(&c3);
        int err = MPI_Allreduce(a, b, 2, c3, MPI_SUM, MPI_COMM_SELF);
        CHECK_ALL ("Allreduce MPI_SUM on contiguous(3, double)") {
            CHECK_TRUE(!err);
            CHECK_TRUE(b[0] == 1);
            CHECK_TRUE(b[5] == 6);
        }
        MPI_Type_free(&c3);
    }
    MPI_Type_free(&v);
    MPI_Type_free(&s);
    MPI_Type_free(&r);
    MPI_Type_free(&c);
    MPI_Type_free(&sub);
}

static void bad_input(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, u, pre = MPI_INT;
    int buf[4], pos = 0, e;
    char out[4];

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT,
                 "negative count: MPI_ERR_COUNT");
    MPI_Fint fs[MPI_F_STATUS_SIZE];
    CHECK_EQ_INT(MPI_Status_c2f(MPI_STATUS_IGNORE, fs), MPI_ERR_ARG,
                 "MPI_Status_c2f of MPI_STATUS_IGNORE: MPI_ERR_ARG");
    CHECK_EQ_INT(MPI_Type_vector(2, 1, 1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE,
                 "MPI_DATATYPE_NULL oldtype: MPI_ERR_TYPE");
    CHECK_EQ_INT(MPI_Type_free(&pre), MPI_ERR_TYPE, "freeing a predefined type: MPI_ERR_TYPE");
    MPI_Type_contiguous(2, MPI_INT, &u);
    e = MPI_Send(buf, 1, u, 0, 1, MPI_COMM_SELF);
    CHECK_EQ_INT(e, MPI_ERR_TYPE, "sending with an uncommitted type: MPI_ERR_TYPE");
    e = MPI_Pack(buf, 1, u, out, 4, &pos, MPI_COMM_SELF);
    CHECK_EQ_INT(e, MPI_ERR_TYPE, "packing an uncommitted type: MPI_ERR_TYPE");
    MPI_Type_commit(&u);
    pos = 0;
    CHECK_EQ_INT(MPI_Pack(buf, 1, u, out, 4, &pos, MPI_COMM_SELF), MPI_ERR_TRUNCATE,
                 "packing 8 bytes into 4: MPI_ERR_TRUNCATE");
    {
        MPI_Aint p = 0;
        CHECK_EQ_INT(MPI_Pack_external("native", buf, 1, u, out, 4, &p),
                     MPI_ERR_UNSUPPORTED_DATAREP,
                     "datarep \"native\": MPI_ERR_UNSUPPORTED_DATAREP");
    }
    {
        int ints[1];
        CHECK_EQ_INT(MPI_Type_get_contents(MPI_INT, 1, 0, 0, ints, NULL, NULL), MPI_ERR_ARG,
                     "get_contents of a predefined type: MPI_ERR_ARG");
    }
    {
        int bl[1] = {-1}, ds[1] = {0};
        CHECK_EQ_INT(MPI_Type_indexed(1, bl, ds, MPI_INT, &t), MPI_ERR_ARG,
                     "negative blocklength: MPI_ERR_ARG");
    }
    {
        int sz = 4, ss = 5, st = 0;
        CHECK_EQ_INT(MPI_Type_create_subarray(1, &sz, &ss, &st, MPI_ORDER_C, MPI_INT, &t),
                     MPI_ERR_ARG, "subarray larger than the array: MPI_ERR_ARG");
    }
    MPI_Datatype stale = u;
    MPI_Type_free(&u);
    CHECK_EQ_PTR(u, MPI_DATATYPE_NULL, "MPI_Type_free sets the handle to MPI_DATATYPE_NULL");
    CHECK_EQ_INT(MPI_Type_commit(&stale), MPI_ERR_TYPE, "a freed type: MPI_ERR_TYPE");
}

int main(int argc, char **argv)
{
    int fails = 0, n = argc > 1 ? atoi(argv[1]) : 400;

    MPI_Init(&argc, &argv);
    for (int i = 0; i < n; i++)
        fails += one_type(1000u + (unsigned)i);
    CHECK_EQ_INT(fails, 0,
                 "%d random nested types: pack, cut pack/unpack, unpack, external32, "
                 "Get_elements (%d failures)",
                 n, fails);
    fixed();
    tiled();
    bad_input();
    MPI_Finalize();
    return done_testing();
}
