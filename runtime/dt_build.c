/* Flattening: blocks of old types become merged segments of the new one. */
#include "dt_build.h"
#include "obj.h"

#include <stdlib.h>

void dtb_init(struct dt_build *b)
{
    memset(b, 0, sizeof(*b));
    b->align = 1;
}

void dtb_discard(struct dt_build *b)
{
    free(b->segs);
    free(b->kids);
}

static void add_seg(struct dt_build *b, MPI_Aint off, size_t len, size_t count, MPI_Aint stride)
{
    struct rt_dt_seg *last = b->nsegs ? &b->segs[b->nsegs - 1] : NULL;

    if (!len || !count)
        return;
    if (count > 1 && stride == (MPI_Aint)len) {
        len *= count;
        count = 1;
    }
    if (last && count == 1) {
        if (last->count == 1 && last->off + (MPI_Aint)last->len == off) {
            last->len += len;
            return;
        }
        /* Equal runs at a constant distance form a strided segment. */
        if (len == last->len && last->count == 1) {
            last->stride = off - last->off;
            last->count = 2;
            return;
        }
        if (len == last->len && off == last->off + (MPI_Aint)last->count * last->stride) {
            last->count++;
            return;
        }
    }
    if (b->nsegs == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 8;
        struct rt_dt_seg *n = realloc(b->segs, cap * sizeof(*n));
        if (!n) {
            b->oom = true;
            return;
        }
        b->segs = n;
        b->cap = cap;
    }
    b->segs[b->nsegs++] = (struct rt_dt_seg){
        .off = off, .len = len, .count = count, .stride = count > 1 ? stride : 0};
}

static void add_kid(struct dt_build *b, struct rdmpi_datatype *dt, size_t reps)
{
    if (b->nkids && b->kids[b->nkids - 1].dt == dt) {
        b->kids[b->nkids - 1].reps += reps;
        return;
    }
    if (b->nkids == b->kcap) {
        size_t cap = b->kcap ? 2 * b->kcap : 4;
        struct rt_dt_kid *n = realloc(b->kids, cap * sizeof(*n));
        if (!n) {
            b->oom = true;
            return;
        }
        b->kids = n;
        b->kcap = cap;
    }
    b->kids[b->nkids++] = (struct rt_dt_kid){dt, reps};
}

static void bound(MPI_Aint lo, MPI_Aint hi, MPI_Aint *l, MPI_Aint *u, bool *any)
{
    if (!*any || lo < *l)
        *l = lo;
    if (!*any || hi > *u)
        *u = hi;
    *any = true;
}

void dtb_blocks(struct dt_build *b, struct rdmpi_datatype *old, MPI_Aint disp, size_t count,
                size_t bl, MPI_Aint stride)
{
    MPI_Aint ext = old->extent, last, span;
    const struct rt_dt_seg *s0 = &old->segs[0];

    if (!bl || !count)
        return;
    if (count > 1 && stride == (MPI_Aint)bl * ext) {
        bl *= count; /* adjacent blocks: one block */
        count = 1;
    }
    last = (MPI_Aint)(bl - 1) * ext;       /* last copy within a block */
    span = (MPI_Aint)(count - 1) * stride; /* last block */
    bound(disp + (span < 0 ? span : 0) + old->lb + (last < 0 ? last : 0),
          disp + (span > 0 ? span : 0) + old->lb + ext + (last > 0 ? last : 0), &b->lb, &b->ub,
          &b->any);
    if (old->flags & RT_DT_RESIZED)
        b->resized = true;
    if (old->align > b->align)
        b->align = old->align;
    add_kid(b, old, bl * count);
    if (!old->size)
        return;
    bound(disp + (span < 0 ? span : 0) + old->true_lb + (last < 0 ? last : 0),
          disp + (span > 0 ? span : 0) + old->true_lb + old->true_extent + (last > 0 ? last : 0),
          &b->tlb, &b->tub, &b->tany);
    b->size += old->size * bl * count;
    b->nbasic += old->nbasic * bl * count;
    b->nelems += old->nelems * bl * count;
    if (old->nsegs == 1 && s0->count == 1) {
        /* One run per element: a block is one run, or a block is one
         * strided segment, or every block is one copy. */
        if ((MPI_Aint)s0->len == ext)
            add_seg(b, disp + s0->off, s0->len * bl, count, stride);
        else if (bl == 1)
            add_seg(b, disp + s0->off, s0->len, count, stride);
        else
            for (size_t c = 0; c < count; c++)
                add_seg(b, disp + (MPI_Aint)c * stride + s0->off, s0->len, bl, ext);
        return;
    }
    for (size_t c = 0; c < count && !b->oom; c++)
        for (size_t k = 0; k < bl && !b->oom; k++)
            for (size_t i = 0; i < old->nsegs; i++) {
                const struct rt_dt_seg *s = &old->segs[i];
                add_seg(b, disp + (MPI_Aint)c * stride + (MPI_Aint)k * ext + s->off, s->len,
                        s->count, s->stride);
            }
}

static void *dup_array(const void *src, size_t n, size_t elem, bool *oom)
{
    void *p;

    if (!n)
        return NULL;
    if (!(p = malloc(n * elem))) {
        *oom = true;
        return NULL;
    }
    return memcpy(p, src, n * elem);
}

int dt_set_env(struct rdmpi_datatype *d, const struct dt_env *env, struct rdmpi_datatype *old,
               size_t reps)
{
    bool oom = false;
    int *ints = dup_array(env->ints, (size_t)env->ni, sizeof(int), &oom);
    MPI_Aint *aints = dup_array(env->aints, (size_t)env->na, sizeof(MPI_Aint), &oom);
    MPI_Count *counts = dup_array(env->counts, (size_t)env->nc, sizeof(MPI_Count), &oom);
    struct rdmpi_datatype **types = dup_array(env->types, (size_t)env->nd, sizeof(*types), &oom);
    struct rt_dt_kid *kid = old ? malloc(sizeof(*kid)) : NULL;

    if (oom || (old && !kid)) {
        free(ints), free(aints), free(counts), free(types), free(kid);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < env->nd; i++)
        rt_dt_retain(types[i]);
    for (int i = 0; i < d->nd; i++)
        rt_dt_release(d->types[i]);
    free(d->ints), free(d->aints), free(d->counts), free(d->types);
    d->combiner = env->combiner;
    d->ni = env->ni, d->na = env->na, d->nc = env->nc, d->nd = env->nd;
    d->ints = ints, d->aints = aints, d->counts = counts, d->types = types;
    if (old) {
        free(d->kids);
        kid->dt = old;
        kid->reps = reps;
        d->kids = kid;
        d->nkids = 1;
        d->basic = old->basic;
    }
    return MPI_SUCCESS;
}

static MPI_Aint round_up(MPI_Aint v, MPI_Aint a)
{
    MPI_Aint r = v % a;

    return r ? v + (r > 0 ? a - r : -r) : v;
}

struct rdmpi_datatype *dtb_finish(struct dt_build *b, const struct dt_env *env, bool pad)
{
    struct rdmpi_datatype *d;
    size_t *cum;

    if (b->oom || !(d = rt_obj_new(RT_KIND_DATATYPE, sizeof(*d)))) {
        dtb_discard(b);
        return NULL;
    }
    d->refs = 1;
    d->size = b->size;
    d->nbasic = b->nbasic;
    d->nelems = b->nelems;
    d->align = b->align;
    d->lb = b->lb;
    d->extent = b->ub - b->lb;
    d->true_lb = b->tlb;
    d->true_extent = b->tub - b->tlb;
    if (b->resized)
        d->flags |= RT_DT_RESIZED;
    else if (pad && b->any)
        d->extent = round_up(d->extent, (MPI_Aint)b->align);
    d->kids = b->kids;
    d->nkids = b->nkids;
    for (size_t i = 0; i < d->nkids; i++) {
        struct rdmpi_datatype *kb = d->kids[i].dt->size ? d->kids[i].dt->basic : d->basic;
        d->basic = i && kb != d->basic ? NULL : kb;
        if (!d->basic)
            break;
    }
    if (b->nsegs <= 1) {
        d->segs = &d->seg1;
        d->cum = d->cum1;
        if (b->nsegs)
            d->seg1 = b->segs[0];
        free(b->segs);
    } else {
        d->segs = realloc(b->segs, b->nsegs * sizeof(*d->segs));
        if (!d->segs)
            d->segs = b->segs;
        d->cum = NULL;
    }
    d->nsegs = b->nsegs;
    if (d->segs != &d->seg1 && !(d->cum = malloc((d->nsegs + 1) * sizeof(size_t)))) {
        d->nsegs = 0;
        rt_dt_release(d);
        return NULL;
    }
    cum = d->cum;
    cum[0] = 0;
    for (size_t i = 0; i < d->nsegs; i++)
        cum[i + 1] = cum[i] + d->segs[i].len * d->segs[i].count;
    /* Contiguous: sent straight from the user's buffer. */
    if (!d->size || (d->nsegs == 1 && d->segs[0].count == 1 && d->segs[0].off == d->lb))
        d->flags |= RT_DT_CONTIG;
    if (dt_set_env(d, env, NULL, 0)) {
        rt_dt_release(d);
        return NULL;
    }
    return d;
}
