/* The driver behind every collective entry point and the argument checks
 * they share. */
#include "coll_api.h"

#include <stdlib.h>
#include <string.h>

int coll_begin(struct coll_call *call, MPI_Comm comm, enum coll_mode mode, MPI_Request *req,
               const char *fn)
{
    int err;

    RT_CHECK_INIT(fn);
    call->comm = comm;
    call->fn = fn;
    call->mode = mode;
    call->req = req;
    call->op = NULL;
    call->used = 0;
    call->nheap = 0;
    if (RT_UNLIKELY((err = pml_check_comm(comm, fn, &call->c))))
        return err;
    call->nblocks = call->c->remote_size;
    if (mode != COLL_BLOCKING && RT_UNLIKELY((err = pml_check_reqp(comm, req, fn))))
        return err;
    return MPI_SUCCESS;
}

static void *call_alloc(struct coll_call *call, size_t bytes)
{
    void *p;

    bytes = (bytes + 15) & ~(size_t)15;
    if (bytes <= sizeof(call->small) - call->used) {
        p = call->small + call->used;
        call->used += bytes;
        return p;
    }
    if (call->nheap == (int)(sizeof(call->heap) / sizeof(call->heap[0])) || !(p = malloc(bytes)))
        return NULL;
    call->heap[call->nheap++] = p;
    return p;
}

int coll_abort(struct coll_call *call, int err)
{
    while (call->nheap)
        free(call->heap[--call->nheap]);
    return err;
}

static int raise_run_error(struct coll_call *call, const struct coll_sched *s)
{
    /* On an intercomm the peer is in one group or the other. */
    const char *who = !call->c->inter ? "rank" : s->err_local ? "local rank" : "remote rank";

    switch (s->err) {
    case MPI_ERR_TRUNCATE:
        return rdmpi_err_comm(call->comm, s->err, call->fn,
                              "%s %d sent more than the %zu bytes this rank expected: the "
                              "counts or datatypes differ across ranks",
                              who, s->err_peer, s->err_want);
    case MPI_ERR_NOT_SAME:
        return rdmpi_err_comm(call->comm, s->err, call->fn,
                              "%s %d sent %zu bytes where this rank expected %zu: the counts "
                              "or datatypes differ across ranks",
                              who, s->err_peer, s->err_got, s->err_want);
    default:
        return rdmpi_err_comm(call->comm, s->err, call->fn, "a transfer with %s %d failed", who,
                              s->err_peer);
    }
}

int coll_execute(struct coll_call *call, coll_build_fn build, const struct coll_args *a)
{
    struct coll_sched *s, local;
    int err;

    if (call->mode == COLL_BLOCKING) {
        s = &local;
        coll_sched_init(s, call->c, call->fn);
        coll_sched_now(s);
    } else if (!(s = coll_sched_new(call->c, call->fn))) {
        return coll_abort(call, rdmpi_err_comm(call->comm, MPI_ERR_NO_MEM, call->fn,
                                               "out of memory for the schedule"));
    }
    if (call->op) {
        coll_op_retain(call->op);
        s->op = call->op;
    }
    build(s, a);
    coll_abort(call, 0);
    if (RT_UNLIKELY(s->oom)) {
        if (s == &local)
            coll_sched_fini(s);
        else
            coll_sched_free(s);
        return rdmpi_err_comm(call->comm, MPI_ERR_NO_MEM, call->fn,
                              "out of memory for the schedule's buffers");
    }
    if (s != &local) {
        if ((err = coll_sched_post(s, call->req, call->mode == COLL_PERSISTENT))) {
            coll_sched_free(s);
            return rdmpi_err_comm(call->comm, err, call->fn, "out of requests");
        }
        return MPI_SUCCESS;
    }
    err = coll_sched_wait(s);
    if (RT_UNLIKELY(err))
        err = raise_run_error(call, s);
    coll_sched_fini(s);
    return err;
}

int coll_check_root(const struct coll_call *call, int root)
{
    if (RT_UNLIKELY(root < 0 || root >= call->c->size))
        return rdmpi_err_comm(call->comm, MPI_ERR_ROOT, call->fn,
                              "root is %d but the communicator has %d ranks; pass 0..%d "
                              "(the same on every rank)",
                              root, call->c->size, call->c->size - 1);
    return MPI_SUCCESS;
}

int coll_check_buf(const struct coll_call *call, const void *buf, MPI_Count count,
                   MPI_Datatype datatype, struct rdmpi_datatype **dt)
{
    return pml_check_buf(call->comm, buf, count, datatype, call->fn, dt);
}

int coll_check_type(const struct coll_call *call, MPI_Datatype datatype, struct rdmpi_datatype **dt)
{
    return pml_check_buf(call->comm, NULL, 0, datatype, call->fn, dt);
}

int coll_check_op(struct coll_call *call, MPI_Op op, const struct rdmpi_datatype *dt)
{
    const char *why;

    if (RT_UNLIKELY(!(call->op = coll_op_get(op))))
        return rdmpi_err_comm(call->comm, MPI_ERR_OP, call->fn, "op is %s",
                              op == MPI_OP_NULL ? "MPI_OP_NULL" : "not a valid operation (freed?)");
    if (RT_UNLIKELY((why = coll_op_unsupported(call->op, dt)))) {
        int err = rdmpi_err_comm(call->comm, MPI_ERR_OP, call->fn, "%s on datatype %s: %s",
                                 call->op->name, dt->name[0] ? dt->name : "(unnamed)", why);
        call->op = NULL;
        return err;
    }
    return MPI_SUCCESS;
}

/* The bytes [lo, hi) a buffer's data may touch. */
static void span(const void *buf, size_t count, const struct rdmpi_datatype *dt, uintptr_t *lo,
                 uintptr_t *hi)
{
    *lo = (uintptr_t)buf + (uintptr_t)dt->true_lb;
    *hi = *lo + (uintptr_t)dt->true_extent + (count - 1) * (uintptr_t)dt->extent;
}

int coll_check_alias(const struct coll_call *call, const void *sbuf, size_t scount,
                     const struct rdmpi_datatype *sdt, const void *rbuf, size_t rcount,
                     const struct rdmpi_datatype *rdt)
{
    uintptr_t slo, shi, rlo, rhi;

    if (!sbuf || !rbuf || !scount || !rcount || !sdt->size || !rdt->size)
        return MPI_SUCCESS;
    span(sbuf, scount, sdt, &slo, &shi);
    span(rbuf, rcount, rdt, &rlo, &rhi);
    if (RT_LIKELY(shi <= rlo || rhi <= slo))
        return MPI_SUCCESS;
    return rdmpi_err_comm(call->comm, MPI_ERR_BUFFER, call->fn,
                          "the send and receive buffers overlap; pass MPI_IN_PLACE as the "
                          "send buffer to work in place");
}

/* One side of a call: block i is counts[i] elements of its type at
 * buf + displs[i] units (the type's extent for v, bytes for w), or the
 * single (buf, count, dt) of a regular form. */
struct alias_side {
    const char *buf;
    const MPI_Count *counts;
    const MPI_Aint *displs;
    struct rdmpi_datatype *const *dts;
    const struct rdmpi_datatype *dt;
    size_t count;
    int n;
};

/* Block i's bytes [lo, hi); false if it holds no data. */
static bool side_block(const struct alias_side *s, int i, uintptr_t *lo, uintptr_t *hi)
{
    const struct rdmpi_datatype *dt = s->dts ? s->dts[i] : s->dt;
    size_t count = s->counts ? (size_t)s->counts[i] : s->count;
    const char *buf = s->buf;

    if (!count || !dt->size)
        return false;
    if (s->counts)
        buf += s->displs[i] * (s->dts ? 1 : dt->extent);
    span(buf, count, dt, lo, hi);
    return true;
}

/* The hull of all blocks; false if the side holds no data. */
static bool side_hull(const struct alias_side *s, uintptr_t *lo, uintptr_t *hi)
{
    bool any = false;
    uintptr_t l, h;

    for (int i = 0; i < s->n; i++) {
        if (!side_block(s, i, &l, &h))
            continue;
        *lo = any && *lo < l ? *lo : l;
        *hi = any && *hi > h ? *hi : h;
        any = true;
    }
    return any;
}

int coll_check_alias_blocks(const struct coll_call *call, const struct coll_args *a)
{
    struct alias_side s = {a->sbuf, a->scounts, a->sdispls, a->sdts, a->sdt, a->scount, 1};
    struct alias_side r = {a->rbuf, a->rcounts, a->rdispls, a->rdts, a->rdt, a->rcount, 1};
    uintptr_t slo, shi, rlo, rhi;

    if (a->inplace || !a->sbuf || !a->rbuf)
        return MPI_SUCCESS;
    s.n = a->scounts ? call->nblocks : 1;
    r.n = a->rcounts ? call->nblocks : 1;
    /* Disjoint hulls settle every ordinary layout in one pass per side. */
    if (!side_hull(&s, &slo, &shi) || !side_hull(&r, &rlo, &rhi) || shi <= rlo || rhi <= slo)
        return MPI_SUCCESS;
    for (int i = 0; i < s.n; i++) {
        if (!side_block(&s, i, &slo, &shi))
            continue;
        for (int j = 0; j < r.n; j++)
            if (side_block(&r, j, &rlo, &rhi) && shi > rlo && rhi > slo)
                return rdmpi_err_comm(call->comm, MPI_ERR_BUFFER, call->fn,
                                      "send block %d overlaps receive block %d; the send and "
                                      "receive buffers may not overlap (MPI_IN_PLACE is the "
                                      "way to work in place)",
                                      a->scounts ? i : 0, a->rcounts ? j : 0);
    }
    return MPI_SUCCESS;
}

int coll_counts(struct coll_call *call, const int *v, const MPI_Count *vc, const char *what,
                const MPI_Count **out)
{
    int n = call->nblocks;
    MPI_Count *o;

    if (RT_UNLIKELY(!v && !vc))
        return rdmpi_err_comm(call->comm, MPI_ERR_ARG, call->fn,
                              "%s is NULL; pass an array of %d counts", what, n);
    if (vc) {
        for (int i = 0; i < n; i++)
            if (RT_UNLIKELY(vc[i] < 0))
                return rdmpi_err_comm(call->comm, MPI_ERR_COUNT, call->fn,
                                      "%s[%d] is %lld; counts must be >= 0", what, i,
                                      (long long)vc[i]);
        *out = vc;
        return MPI_SUCCESS;
    }
    if (!(o = call_alloc(call, (size_t)n * sizeof(*o))))
        return rdmpi_err_comm(call->comm, MPI_ERR_NO_MEM, call->fn, "out of memory");
    for (int i = 0; i < n; i++) {
        if (RT_UNLIKELY(v[i] < 0))
            return rdmpi_err_comm(call->comm, MPI_ERR_COUNT, call->fn,
                                  "%s[%d] is %d; counts must be >= 0", what, i, v[i]);
        o[i] = v[i];
    }
    *out = o;
    return MPI_SUCCESS;
}

int coll_counts_same(struct coll_call *call, MPI_Count count, const MPI_Count **out)
{
    int n = call->nblocks;
    MPI_Count *o = call_alloc(call, (size_t)n * sizeof(*o));

    if (!o)
        return rdmpi_err_comm(call->comm, MPI_ERR_NO_MEM, call->fn, "out of memory");
    for (int i = 0; i < n; i++)
        o[i] = count;
    *out = o;
    return MPI_SUCCESS;
}

int coll_displs(struct coll_call *call, const int *v, const MPI_Aint *vc, const char *what,
                const MPI_Aint **out)
{
    int n = call->nblocks;
    MPI_Aint *o;

    if (RT_UNLIKELY(!v && !vc))
        return rdmpi_err_comm(call->comm, MPI_ERR_ARG, call->fn,
                              "%s is NULL; pass an array of %d displacements", what, n);
    if (vc) {
        *out = vc;
        return MPI_SUCCESS;
    }
    if (!(o = call_alloc(call, (size_t)n * sizeof(*o))))
        return rdmpi_err_comm(call->comm, MPI_ERR_NO_MEM, call->fn, "out of memory");
    for (int i = 0; i < n; i++)
        o[i] = v[i];
    *out = o;
    return MPI_SUCCESS;
}

int coll_types(struct coll_call *call, const MPI_Datatype *v, const char *what,
               struct rdmpi_datatype *const **out)
{
    int n = call->nblocks, err;
    struct rdmpi_datatype **o;

    if (RT_UNLIKELY(!v))
        return rdmpi_err_comm(call->comm, MPI_ERR_ARG, call->fn,
                              "%s is NULL; pass an array of %d datatypes", what, n);
    if (!(o = call_alloc(call, (size_t)n * sizeof(*o))))
        return rdmpi_err_comm(call->comm, MPI_ERR_NO_MEM, call->fn, "out of memory");
    for (int i = 0; i < n; i++)
        if (RT_UNLIKELY((err = coll_check_type(call, v[i], &o[i]))))
            return err;
    *out = o;
    return MPI_SUCCESS;
}

RT_PARAM(p_scale, "COLL_OVERSUBSCRIBED_SCALE", RT_PARAM_INT, "4",
         "When ranks outnumber cores, the size thresholds between collective algorithms with "
         "few rounds and algorithms with few bytes are multiplied by this (each round then "
         "costs a context switch)")

size_t coll_threshold(const struct coll_sched *s, const struct rt_param *p, size_t *cache)
{
    static long scale = -1;

    if (RT_UNLIKELY(*cache == (size_t)-1))
        *cache = rt_param_size(p);
    if (RT_UNLIKELY(scale < 0)) {
        long v = rt_param_int(&p_scale);
        scale = v > 0 ? v : 1;
    }
    return coll_oversub(s) ? *cache * (size_t)scale : *cache;
}

size_t coll_sum(const MPI_Count *v, int n)
{
    size_t s = 0;

    for (int i = 0; i < n; i++)
        s += (size_t)v[i];
    return s;
}
