/* Schedules: building them, and the engine that runs one round at a time.
 * A round is every step up to the next fence: its local steps run when
 * reached, its sends and receives are posted, and the round ends when they
 * have all completed. */
#include "coll.h"

#include <stdlib.h>
#include <string.h>

struct rdmpi_datatype *coll_byte;

/* Scratch blocks beyond the schedule's inline space. Large ones come from
 * a one-entry cache: a 1 MiB allreduce would otherwise map and fault in
 * fresh pages on every call. Huge ones are not kept. */
struct coll_mem {
    struct coll_mem *next;
    size_t size;
    _Alignas(16) char data[];
};

#define CACHE_MIN (64 * 1024)
#define CACHE_MAX (64 * 1024 * 1024)
static struct coll_mem *cached;

static struct coll_mem *mem_get(size_t size)
{
    struct coll_mem *m;

    if (cached && cached->size >= size) {
        m = cached;
        cached = NULL;
        return m;
    }
    m = malloc(sizeof(*m) + size);
    if (m)
        m->size = size;
    return m;
}

static void mem_put(struct coll_mem *m)
{
    if (m->size >= CACHE_MIN && m->size <= CACHE_MAX && (!cached || cached->size < m->size)) {
        free(cached);
        cached = m;
        return;
    }
    free(m);
}

/* Field by field: this runs on every collective call, and a memset of the
 * header compiles to a `rep stos` whose start-up costs more than the stores. */
void coll_sched_init(struct coll_sched *s, struct rdmpi_comm *c, const char *fn)
{
    s->comm = c;
    s->pc = c->pml;
    s->lpc = c->inter ? c->local->pml : c->pml;
    s->build_local = false;
    s->rank = c->rank;
    s->size = c->size;
    s->fn = fn;
    s->op = NULL;
    s->steps = s->step_space;
    s->nsteps = 0;
    s->cap = COLL_INLINE_STEPS;
    s->comm_steps = 0;
    s->next = 0;
    s->reqs = s->req_space;
    s->nreqs = s->reaped = 0;
    s->reqcap = COLL_INLINE_REQS;
    s->err = 0;
    s->oom = false;
    s->mem = NULL;
    s->scratch_used = 0;
    s->now = s->posted = false;
    s->req = NULL;
    s->held = false;
    s->anext = s->aprev = NULL;
}

void coll_sched_fini(struct coll_sched *s)
{
    /* Steps hold references on their types (a non-blocking collective may
     * outlive the caller's handles). */
    for (int i = 0; i < s->nsteps; i++) {
        struct coll_step *st = &s->steps[i];
        if (st->kind == COLL_FENCE)
            continue;
        rt_dt_release(st->dt);
        if (st->kind == COLL_COPY)
            rt_dt_release(st->sdt);
    }
    while (s->mem) {
        struct coll_mem *m = s->mem;
        s->mem = m->next;
        mem_put(m);
    }
    if (s->steps != s->step_space)
        free(s->steps);
    if (s->reqs != s->req_space)
        free(s->reqs);
    if (s->op)
        coll_op_release(s->op);
}

static void issue(struct coll_sched *s, const struct coll_step *st);
static void wait_round(struct coll_sched *s);

static void out_of_memory(struct coll_sched *s)
{
    if (s->now && s->posted)
        rt_fatal("%s: out of memory in the middle of the collective", s->fn);
    s->oom = true;
}

/* The step to fill: a slot in the schedule, or (now) one on the caller's
 * stack, run by done(). */
static struct coll_step *add(struct coll_sched *s, enum coll_step_kind kind, struct coll_step *now)
{
    struct coll_step *st;

    if (RT_UNLIKELY(s->oom))
        return NULL;
    if (s->now) {
        now->kind = (uint8_t)kind;
        return now;
    }
    if (RT_UNLIKELY(s->nsteps == s->cap)) {
        int cap = 2 * s->cap;
        struct coll_step *n = malloc((size_t)cap * sizeof(*n));
        if (!n) {
            out_of_memory(s);
            return NULL;
        }
        memcpy(n, s->steps, (size_t)s->nsteps * sizeof(*n));
        if (s->steps != s->step_space)
            free(s->steps);
        s->steps = n;
        s->cap = cap;
    }
    st = &s->steps[s->nsteps++];
    st->kind = (uint8_t)kind;
    return st;
}

/* A filled step: run it now, or keep it (and its types) for the run. */
static void done(struct coll_sched *s, struct coll_step *st)
{
    if (s->now) {
        s->posted |= st->kind == COLL_SEND || st->kind == COLL_RECV;
        issue(s, st);
        return;
    }
    rt_dt_retain(st->dt);
    if (st->kind == COLL_COPY)
        rt_dt_retain(st->sdt);
    else if (st->kind != COLL_REDUCE)
        s->comm_steps++;
}

void coll_send(struct coll_sched *s, const void *buf, size_t count, struct rdmpi_datatype *dt,
               int peer)
{
    struct coll_step now, *st = add(s, COLL_SEND, &now);

    if (!st)
        return;
    st->buf = (void *)buf;
    st->count = count;
    st->dt = dt;
    st->peer = peer;
    st->local = s->build_local;
    done(s, st);
}

void coll_recv(struct coll_sched *s, void *buf, size_t count, struct rdmpi_datatype *dt, int peer)
{
    struct coll_step now, *st = add(s, COLL_RECV, &now);

    if (!st)
        return;
    st->buf = buf;
    st->count = count;
    st->dt = dt;
    st->peer = peer;
    st->local = s->build_local;
    done(s, st);
}

void coll_copy(struct coll_sched *s, const void *src, size_t scount, struct rdmpi_datatype *sdt,
               void *dst, size_t dcount, struct rdmpi_datatype *ddt)
{
    struct coll_step now, *st;

    if (scount * sdt->size == 0 || dcount * ddt->size == 0 ||
        (src == dst && sdt == ddt && scount == dcount))
        return;
    if (!(st = add(s, COLL_COPY, &now)))
        return;
    st->src = src;
    st->scount = scount;
    st->sdt = sdt;
    st->buf = dst;
    st->count = dcount;
    st->dt = ddt;
    done(s, st);
}

void coll_reduce(struct coll_sched *s, const void *src, void *dst, size_t count,
                 struct rdmpi_datatype *dt, int order)
{
    struct coll_step now, *st;

    if (!count || !(st = add(s, COLL_REDUCE, &now)))
        return;
    st->src = src;
    st->buf = dst;
    st->count = count;
    st->dt = dt;
    st->order = (uint8_t)order;
    done(s, st);
}

/* Fences after no communication would only split local steps: skip them. */
void coll_fence(struct coll_sched *s)
{
    if (s->now) {
        wait_round(s);
        return;
    }
    if (!s->comm_steps)
        return;
    if (add(s, COLL_FENCE, NULL))
        s->comm_steps = 0;
}

void *coll_tmp_bytes(struct coll_sched *s, size_t bytes)
{
    struct coll_mem *m;

    bytes = (bytes + 15) & ~(size_t)15;
    if (s->oom)
        return NULL;
    if (bytes <= COLL_INLINE_SCRATCH - s->scratch_used) {
        void *p = s->scratch + s->scratch_used;
        s->scratch_used += bytes;
        return p;
    }
    if (!(m = mem_get(bytes))) {
        out_of_memory(s);
        return NULL;
    }
    m->next = s->mem;
    s->mem = m;
    return m->data;
}

void *coll_tmp(struct coll_sched *s, size_t count, const struct rdmpi_datatype *dt)
{
    char *p;

    if (!count)
        return NULL;
    p = coll_tmp_bytes(s, (size_t)dt->true_extent + (count - 1) * (size_t)dt->extent);
    return p ? p - dt->true_lb : NULL;
}

/* ---- the engine ---- */

void coll_sched_start(struct coll_sched *s)
{
    if (!s->req || !s->req->base.persistent)
        s->tag = coll_comm_next_tag(s->comm);
    s->next = 0;
    s->nreqs = s->reaped = 0;
    s->err = 0;
}

/* A slot for this round's next send or receive. */
static struct coll_pend *pend_new(struct coll_sched *s)
{
    if (RT_UNLIKELY(s->nreqs == s->reqcap)) {
        int cap = 2 * s->reqcap;
        struct coll_pend *n = malloc((size_t)cap * sizeof(*n));
        if (!n)
            rt_fatal("%s: out of memory for %d requests", s->fn, cap);
        memcpy(n, s->reqs, (size_t)s->nreqs * sizeof(*n));
        if (s->reqs != s->req_space)
            free(s->reqs);
        s->reqs = n;
        s->reqcap = cap;
    }
    return &s->reqs[s->nreqs++];
}

static void fail(struct coll_sched *s, const struct coll_pend *p, int err, size_t got, size_t want)
{
    if (s->err)
        return;
    s->err = err;
    s->err_peer = p->peer;
    s->err_local = p->local;
    s->err_got = got;
    s->err_want = want;
}

void coll_sched_mismatch(struct coll_sched *s, int peer, size_t got, size_t want)
{
    if (s->err)
        return;
    s->err = got > want ? MPI_ERR_TRUNCATE : MPI_ERR_NOT_SAME;
    s->err_peer = peer;
    s->err_local = false;
    s->err_got = got;
    s->err_want = want;
}

/* Collectives know every message's exact size: a shorter one means the
 * ranks passed different counts or types, as a longer one does. */
static void reap(struct coll_sched *s)
{
    for (int i = 0; i < s->nreqs; i++) {
        struct coll_pend *p = &s->reqs[i];
        const MPI_Status *st = &p->req->status;

        if (RT_UNLIKELY(st->MPI_ERROR))
            fail(s, p, st->MPI_ERROR, (size_t)st->rdmpi_count, p->want);
        else if (RT_UNLIKELY(p->recv && (size_t)st->rdmpi_count != p->want))
            fail(s, p, MPI_ERR_NOT_SAME, (size_t)st->rdmpi_count, p->want);
        pml_int_release(p->req);
    }
    s->nreqs = s->reaped = 0;
}

/* Copies between any two layouts with the same type signature. */
static void copy(const struct coll_step *st)
{
    size_t sn = st->scount * st->sdt->size, dn = st->count * st->dt->size;
    size_t n = sn < dn ? sn : dn;
    bool sc = rt_dt_contig(st->sdt, st->scount), dc = rt_dt_contig(st->dt, st->count);
    char chunk[4096];

    if (sc && dc)
        memcpy((char *)st->buf + st->dt->lb, (const char *)st->src + st->sdt->lb, n);
    else if (dc)
        rt_dt_pack(st->sdt, st->src, st->scount, 0, (char *)st->buf + st->dt->lb, n);
    else if (sc)
        rt_dt_unpack(st->dt, st->buf, st->count, 0, (const char *)st->src + st->sdt->lb, n);
    else
        for (size_t off = 0; off < n; off += sizeof(chunk)) {
            size_t k = n - off < sizeof(chunk) ? n - off : sizeof(chunk);
            rt_dt_pack(st->sdt, st->src, st->scount, off, chunk, k);
            rt_dt_unpack(st->dt, st->buf, st->count, off, chunk, k);
        }
}

static void reduce(const struct coll_sched *s, const struct coll_step *st)
{
    if (st->order == COLL_SRC_LOWER || s->op->commute) {
        coll_op_apply(s->op, st->src, st->buf, st->count, st->dt);
        return;
    }
    /* dst op src with a function that computes in op inout: compute into
     * the (scratch) source, then move the result over. */
    coll_op_apply(s->op, st->buf, (void *)st->src, st->count, st->dt);
    struct coll_step c = {.src = st->src,
                          .scount = st->count,
                          .sdt = st->dt,
                          .buf = st->buf,
                          .count = st->count,
                          .dt = st->dt};
    copy(&c);
}

/* A send or receive just started, kept until its round ends. */
static void pend_add(struct coll_sched *s, const struct coll_step *st, struct rdmpi_request *r,
                     size_t count, bool recv)
{
    struct coll_pend *p = pend_new(s);

    p->req = r;
    p->want = coll_bytes(count, st->dt);
    p->peer = st->peer;
    p->recv = recv;
    p->local = st->local;
}

static void issue(struct coll_sched *s, const struct coll_step *st)
{
    struct rdmpi_request *r;
    size_t count;

    switch (st->kind) {
    case COLL_SEND:
        /* After a failed receive (ranks passed different counts) send
         * nothing: ranks downstream then see a size they did not expect
         * and fail too, rather than finishing on data they never got. */
        count = RT_UNLIKELY(s->err) ? 0 : st->count;
        if (RT_UNLIKELY(pml_int_isend(st->buf, count, st->dt, st->peer, s->tag,
                                      st->local ? s->lpc : s->pc, &r)))
            rt_fatal("%s: out of requests", s->fn);
        if (r)
            pend_add(s, st, r, count, false);
        break;
    case COLL_RECV:
        if (RT_UNLIKELY(pml_int_irecv(st->buf, st->count, st->dt, st->peer, s->tag,
                                      st->local ? s->lpc : s->pc, &r)))
            rt_fatal("%s: out of requests", s->fn);
        pend_add(s, st, r, st->count, true);
        break;
    case COLL_COPY: copy(st); break;
    case COLL_REDUCE: reduce(s, st); break;
    default: break;
    }
}

bool coll_sched_advance(struct coll_sched *s)
{
    for (;;) {
        while (s->reaped < s->nreqs) {
            if (!pml_int_done(s->reqs[s->reaped].req))
                return false;
            s->reaped++;
        }
        if (s->nreqs)
            reap(s);
        if (s->next == s->nsteps)
            return true;
        while (s->next < s->nsteps) {
            const struct coll_step *st = &s->steps[s->next++];
            if (st->kind == COLL_FENCE)
                break;
            issue(s, st);
        }
    }
}

static void wait_round(struct coll_sched *s)
{
    unsigned spins = 0;

    while (s->reaped < s->nreqs) {
        if (pml_int_done(s->reqs[s->reaped].req))
            s->reaped++;
        else if (!rt_progress())
            rt_progress_wait(&spins);
    }
    if (s->nreqs)
        reap(s);
}

void coll_sched_now(struct coll_sched *s)
{
    coll_sched_start(s);
    s->now = true;
}

int coll_sched_wait(struct coll_sched *s)
{
    wait_round(s);
    return s->err;
}

int coll_sched_run(struct coll_sched *s)
{
    unsigned spins = 0;

    coll_sched_start(s);
    while (!coll_sched_advance(s)) {
        if (!rt_progress())
            rt_progress_wait(&spins);
    }
    return s->err;
}
