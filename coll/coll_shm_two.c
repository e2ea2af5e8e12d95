/* Two ranks with a core each, more than 4 KiB and up to 16 KiB for the
 * reader to take (a bcast; an allgather's or alltoall's block; a reduce
 * from 8 KiB, the root reading; an allreduce, each rank reading): the
 * writer either copies its data into its slot, or publishes its buffer's
 * address there (COLL_SHM_ADDR in the sequence word) for the reader's
 * single-copy read. Which is faster depends on where the host has put
 * the two cores, and it moves them while a job runs: 8-16 KiB bcasts
 * through the slot took 0.45-0.7x the time of a read with the cores near
 * each other (a cache-line hand-off in about 50 ns), 1.4-2.1x with them
 * far apart (about 200 ns), while the read's system call costs about 2
 * us either way. So the reader times its calls, from entry until it has
 * its data (so the writer's copy into the slot, which must first take
 * the lines back from the reader's cache, counts too), asks through its
 * "done" line for the faster way, and every EXPLORE calls asks for the
 * other until it has timed it again, to notice a move. */
#include "coll_shm.h"
#include "param.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

RT_PARAM(p_way, "COLL_SHM_TWO_WAY", RT_PARAM_STRING, "auto",
         "Two ranks with a core each, 4-16 KiB for the reader (a bcast, an allgather's or "
         "alltoall's block, a reduce or allreduce): auto takes whichever of a copy through the "
         "shared segment and a single-copy read of the other's buffer the reader measures "
         "faster; slot or read forces one")

/* A way's time is the least of WINDOW timed calls (page faults and
 * preemption only add); calls are timed one in four, and every one while
 * a way is not yet known or is being re-timed, which happens every
 * EXPLORE calls. */
#define WINDOW  4
#define EXPLORE 256
enum { SLOT, READ, AUTO };

static int forced(void)
{
    static int way = -1;
    const char *v;

    if (way < 0) {
        v = rt_param_string(&p_way);
        way = !strcmp(v, "slot") ? SLOT : !strcmp(v, "read") ? READ : AUTO;
        if (way == AUTO && strcmp(v, "auto"))
            rt_fatal("RDMPI_COLL_SHM_TWO_WAY=%s: choose auto, slot or read", v);
    }
    return way;
}

/* Size classes, timed apart: up to 8 KiB, beyond, reduces, and
 * allreduces up to 8 KiB and beyond. */
#define REDUCE_CLASS    2
#define ALLREDUCE_CLASS 3

static int size_class(size_t len)
{
    return len > 8192;
}

static uint64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The faster way so far; a way not yet timed counts as fastest. */
static int best(const struct coll_shm_way *w)
{
    return w->est[READ] < w->est[SLOT] ? READ : SLOT;
}

/* The way rank r asks for data of class c. */
static int asked(const struct coll_shm *s, int r, int c)
{
    uint64_t want = __atomic_load_n(coll_shm_done_line(s, r) + 1, __ATOMIC_RELAXED);

    return s->direct && (want >> c & 1) ? READ : SLOT;
}

/* Counts a call of class c whose data came by `way` (timed from t0
 * unless 0), and asks for the way to use next. */
static void note(struct coll_shm *s, int c, int way, uint64_t t0)
{
    struct coll_shm_way *w = &s->way[c];
    uint64_t bit = (uint64_t)1 << c, want;
    int ask;

    if (!s->direct)
        return;
    if (t0) {
        uint64_t d = now_ns() - t0;
        uint32_t ns = d < UINT32_MAX ? (uint32_t)d | 1 : UINT32_MAX;

        if (!w->n[way] || ns < w->low[way])
            w->low[way] = ns;
        if (++w->n[way] == WINDOW) {
            w->est[way] = w->low[way];
            w->n[way] = 0;
            if (way + 1 == w->trying)
                w->trying = 0;
        }
    }
    if (++w->calls % EXPLORE == 0)
        w->trying = (uint8_t)(1 + !best(w));
    ask = forced() != AUTO ? forced() : w->trying ? w->trying - 1 : best(w);
    want = ask == READ ? s->want | bit : s->want & ~bit;
    if (want != s->want) {
        s->want = want;
        __atomic_store_n(coll_shm_done_line(s, s->me) + 1, want, __ATOMIC_RELAXED);
    }
}

/* The time now if this call of class c is to be timed. */
static uint64_t start(const struct coll_shm *s, int c)
{
    const struct coll_shm_way *w = &s->way[c];

    return s->direct && (!(w->calls & 3) || w->trying || !w->est[SLOT] || !w->est[READ]) ? now_ns()
                                                                                         : 0;
}

/* Takes len bytes of rank r's data for collective op into (buf, count,
 * dt), whichever way r published them: from its slot, or read at offset
 * lo of its buffer. Returns that way. */
static int take(struct coll_shm *s, int r, uint64_t op, size_t lo, void *buf, size_t count,
                struct rdmpi_datatype *dt, size_t len)
{
    uint64_t *sl = coll_shm_slot(s, r, op);
    int way = coll_shm_await_op(sl, op) & COLL_SHM_ADDR ? READ : SLOT;

    if (way == READ)
        coll_shm_read_into(s, r, coll_shm_addr_in(sl) + lo, buf, count, dt, len);
    else
        coll_shm_get_part(buf, count, dt, coll_shm_data(sl), 0, len);
    return way;
}

/* By the slot, a bcast goes in two halves, each its own collective
 * number, so the reader copies out the first while the root copies in
 * the second (OSU, 8 and 16 KiB: 0.95x and 0.9x the time of one piece). */
void coll_shm_two_bcast(struct coll_shm *s, void *buf, size_t count, struct rdmpi_datatype *dt,
                        int root)
{
    size_t len = count * dt->size, half = len / 2;
    int c = size_class(len), way;
    uint64_t op = ++s->op, *sl;
    void *tmp;

    if (s->me != root) {
        uint64_t t0 = start(s, c);

        sl = coll_shm_slot(s, root, op);
        way = coll_shm_await_op(sl, op) & COLL_SHM_ADDR ? READ : SLOT;
        if (way == READ) {
            coll_shm_read_into(s, root, coll_shm_addr_in(sl), buf, count, dt, len);
        } else {
            coll_shm_get_part(buf, count, dt, coll_shm_data(sl), 0, half);
            sl = coll_shm_slot(s, root, ++s->op);
            coll_shm_await(sl, s->op);
            coll_shm_get_part(buf, count, dt, coll_shm_data(sl), half, len - half);
        }
        note(s, c, way, t0);
        coll_shm_finish(s, s->op);
        return;
    }
    way = asked(s, !root, c);
    if (way == READ) {
        coll_shm_await_slot(s, op);
        coll_shm_publish_addr(coll_shm_slot(s, s->me, op), op,
                              coll_shm_readable(buf, count, dt, len, &tmp));
        coll_shm_finish(s, op);
        coll_shm_await_done(s, op);
        free(tmp);
        return;
    }
    for (int k = 0; k < 2; k++) {
        if (k)
            op = ++s->op;
        sl = coll_shm_slot(s, s->me, op);
        coll_shm_await_slot(s, op);
        coll_shm_put_part(coll_shm_data(sl), buf, count, dt, k ? half : 0, k ? len - half : half);
        coll_shm_publish(sl, op);
    }
    coll_shm_finish(s, op);
}

/* By the slot, a rank copies in only the block the other takes (an
 * alltoall's at the other's index); by a read, it publishes its whole
 * data and returns only once the other is done, so its buffer stays
 * valid while read. In-place alltoall always goes by the slot: our copy
 * into our buffer would race the other's read of it. */
void coll_shm_two_allgather(struct coll_shm *s, const struct coll_args *a, bool all_to_all)
{
    size_t block = a->rcount * a->rdt->size, nb = all_to_all ? 2 : 1;
    size_t lo = all_to_all ? (size_t)s->me * block : 0;
    int peer = !s->me, c = size_class(block), way = asked(s, peer, c), got;
    const void *src = a->sbuf;
    struct rdmpi_datatype *sdt = a->sdt;
    size_t scount = nb * a->scount;
    const char *mine = NULL;
    uint64_t op = ++s->op, t0 = start(s, c), *sl = coll_shm_slot(s, s->me, op);
    void *tmp = NULL;

    if (a->inplace) {
        src = all_to_all ? a->rbuf : coll_at(a->rbuf, (size_t)s->me * a->rcount, a->rdt);
        sdt = a->rdt;
        scount = nb * a->rcount;
        if (all_to_all)
            way = SLOT;
    }
    coll_shm_await_slot(s, op);
    if (way == SLOT) {
        coll_shm_put_part(coll_shm_data(sl), src, scount, sdt,
                          all_to_all ? (size_t)peer * block : 0, block);
        coll_shm_publish(sl, op);
        if (!all_to_all)
            mine = coll_shm_data(sl);
    } else {
        mine = coll_shm_readable(src, scount, sdt, nb * block, &tmp);
        coll_shm_publish_addr(sl, op, mine);
    }
    /* Our own block first, while the other may still be copying in. */
    if (!a->inplace) {
        if (!mine)
            mine = coll_shm_readable(src, scount, sdt, nb * block, &tmp);
        coll_shm_get_part(coll_at(a->rbuf, (size_t)s->me * a->rcount, a->rdt), a->rcount, a->rdt,
                          mine + lo, 0, block);
    }
    got = take(s, peer, op, lo, coll_at(a->rbuf, (size_t)peer * a->rcount, a->rdt), a->rcount,
               a->rdt, block);
    note(s, c, got, t0);
    coll_shm_finish(s, op);
    if (way == READ)
        coll_shm_await_done(s, op);
    free(tmp);
}

/* The other rank's data reaches the root through its slots in pieces,
 * folded as they come (coll_shm_reduce), or by the root's read of the
 * other's buffer, folded once read while the other returns. */
bool coll_shm_two_reduce(struct coll_shm *s, const char *src, void *rbuf, size_t count,
                         struct rdmpi_datatype *dt, const struct rdmpi_op *op, int root,
                         uint64_t *t0)
{
    size_t span = dt->true_extent + (count - 1) * (size_t)dt->extent;
    char *res = (char *)rbuf + dt->true_lb, *tmp = NULL;
    uint64_t seq = s->op + 1, *sl;

    if (s->me != root) {
        if (asked(s, root, REDUCE_CLASS) == SLOT)
            return false;
        sl = coll_shm_slot(s, s->me, ++s->op);
        coll_shm_await_slot(s, seq);
        coll_shm_publish_addr(sl, seq, src);
        coll_shm_finish(s, seq);
        coll_shm_await_done(s, seq);
        return true;
    }
    *t0 = start(s, REDUCE_CLASS);
    sl = coll_shm_slot(s, !s->me, seq);
    if (!(coll_shm_await_op(sl, seq) & COLL_SHM_ADDR))
        return false;
    ++s->op;
    /* In place, our data is the result's buffer: read into a copy. */
    if (src == res && !(tmp = malloc(span)))
        rt_fatal("coll: out of memory for a %zu-byte reduce", span);
    coll_shm_read_peer(s, !s->me, tmp ? tmp : res, coll_shm_addr_in(sl), span);
    coll_shm_finish(s, seq);
    if (tmp)
        coll_op_apply(op, tmp - dt->true_lb, res - dt->true_lb, count, dt);
    else
        coll_op_apply(op, src - dt->true_lb, res - dt->true_lb, count, dt);
    free(tmp);
    note(s, REDUCE_CLASS, READ, *t0);
    return true;
}

void coll_shm_two_reduced(struct coll_shm *s, uint64_t t0)
{
    note(s, REDUCE_CLASS, SLOT, t0);
}

/* Copies the span bytes rank r published in slot sl, whichever way
 * (got), into dst. */
static void copy_in(struct coll_shm *s, int r, uint64_t *sl, int got, char *dst, size_t span)
{
    if (got == READ)
        coll_shm_read_peer(s, r, dst, coll_shm_addr_in(sl), span);
    else
        memcpy(dst, coll_shm_data(sl), span);
}

/* Each rank publishes its data the way the other asks and folds the
 * other's into its result in rank order, x0 op x1 on both, so both hold
 * the same bits. In place, our data is our result: it goes by the slot,
 * as our fold would race the other's read of it. */
void coll_shm_two_allreduce(struct coll_shm *s, const void *sbuf, void *rbuf, size_t count,
                            struct rdmpi_datatype *dt, const struct rdmpi_op *op)
{
    size_t span = dt->true_extent + (count - 1) * (size_t)dt->extent;
    bool inplace = sbuf == MPI_IN_PLACE;
    const char *src = (const char *)(inplace ? rbuf : sbuf) + dt->true_lb, *in;
    char *res = (char *)rbuf + dt->true_lb, *tmp = NULL;
    int peer = !s->me, c = ALLREDUCE_CLASS + size_class(span);
    int way = inplace ? SLOT : asked(s, peer, c), got;
    uint64_t seq = ++s->op, t0 = start(s, c), *sl = coll_shm_slot(s, s->me, seq), *from;

    coll_shm_await_slot(s, seq);
    if (way == SLOT) {
        memcpy(coll_shm_data(sl), src, span);
        coll_shm_publish(sl, seq);
    } else {
        coll_shm_publish_addr(sl, seq, src);
    }
    from = coll_shm_slot(s, peer, seq);
    got = coll_shm_await_op(from, seq) & COLL_SHM_ADDR ? READ : SLOT;
    /* A scratch buffer of whole extents (the op's kernels write an
     * element's padding too) where the other's data cannot be used in
     * place: read by rank 1, or for rank 0's in-place fold. */
    if ((s->me == 1 ? got == READ : inplace) && !(tmp = malloc(count * (size_t)dt->extent)))
        rt_fatal("coll: out of memory for a %zu-byte allreduce", span);
    if (s->me == 1) {
        /* res = x0 op x1 */
        in = coll_shm_data(from);
        if (tmp) {
            copy_in(s, peer, from, got, tmp, span);
            in = tmp;
        }
        if (!inplace)
            memcpy(res, src, span);
        coll_op_apply(op, in - dt->true_lb, res - dt->true_lb, count, dt);
    } else if (!inplace) {
        /* res = x1, then x0 op res */
        copy_in(s, peer, from, got, res, span);
        coll_op_apply(op, src - dt->true_lb, res - dt->true_lb, count, dt);
    } else {
        /* x0 is in res: tmp = x1, tmp = x0 op tmp, into res */
        copy_in(s, peer, from, got, tmp, span);
        coll_op_apply(op, res - dt->true_lb, tmp - dt->true_lb, count, dt);
        memcpy(res, tmp, span);
    }
    note(s, c, got, t0);
    coll_shm_finish(s, seq);
    if (way == READ)
        coll_shm_await_done(s, seq);
    free(tmp);
}
