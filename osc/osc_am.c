/* The message engine: an origin sends headers, data and control messages
 * and tracks them to completion; a target applies what arrives, in
 * arrival order, from the progress source. */
#include "mpit.h"
#include "osc.h"

#include <stdlib.h>
#include <string.h>

static struct osc_win *wins;
static bool busy; /* the source runs MPI calls, which run progress again */

void osc_register(struct osc_win *o)
{
    o->next = wins;
    wins = o;
    rt_live_windows++;
    /* Once per start-up: a second registration is a no-op. */
    if (rt_progress_register(osc_progress))
        rt_fatal("osc: no room for the one-sided progress source");
}

void osc_unregister(struct osc_win *o)
{
    for (struct osc_win **p = &wins; *p; p = &(*p)->next)
        if (*p == o) {
            *p = o->next;
            rt_live_windows--;
            return;
        }
}

uint32_t osc_reply_id(struct osc_win *o)
{
    return o->next_reply++ & ((1u << 28) - 1);
}

/* ---- origin ---- */

static void push(struct osc_queue *q, struct osc_op *op)
{
    if (q->tail)
        q->tail->next = op;
    else
        q->head = op;
    q->tail = op;
}

struct osc_op *osc_send(struct osc_win *o, int t, struct osc_hdr *h, size_t hlen, const void *data,
                        size_t dcount, MPI_Datatype ddt, MPI_Request reply)
{
    bool inline_data = h->dlen && h->dlen <= OSC_INLINE_MAX;
    size_t len = hlen + (inline_data ? h->dlen : 0);
    struct osc_op *op = calloc(1, sizeof(*op) + len);
    struct osc_hdr *copy;

    if (!op)
        rt_fatal("osc: out of memory for an RMA operation");
    copy = (struct osc_hdr *)(op + 1);
    memcpy(copy, h, hlen);
    op->req[1] = op->req[2] = MPI_REQUEST_NULL;
    op->greq = MPI_REQUEST_NULL;
    if (inline_data) {
        copy->flags |= OSC_F_INLINE;
        rt_dt_pack(rt_dt_get(ddt), data, dcount, 0, (char *)copy + hlen, h->dlen);
    }
    PMPI_Isend(copy, (int)len, MPI_BYTE, t, OSC_TAG_HDR, o->comm, &op->req[0]);
    if (h->dlen && !inline_data)
        PMPI_Isend_c(data, (MPI_Count)dcount, ddt, t, OSC_TAG_DATA, o->comm, &op->req[1]);
    op->req[2] = reply;
    if (h->kind <= OSC_CAS) {
        o->sent[t]++;
        /* The target answers a fetching operation after applying it and
         * all that this origin sent it before: once the answer is in
         * (every flush completes the operations locally first), t owes
         * nothing and its flush needs no round trip. */
        o->unflushed[t] = reply == MPI_REQUEST_NULL;
    }
    push(&o->ops, op);
    return op;
}

/* Drops the operations of q that are complete, oldest first, up to the
 * first still running; true if none is left. Testing runs progress, which
 * reaps too: not while we walk. */
static bool reap(struct osc_queue *q)
{
    static bool reaping;

    if (reaping)
        return !q->head;
    reaping = true;
    while (q->head) {
        struct osc_op *op = q->head;
        int done = 0;

        if (op->settling)
            break;
        PMPI_Testall(3, op->req, &done, MPI_STATUSES_IGNORE);
        if (!done)
            break;
        if (!(q->head = op->next))
            q->tail = NULL;
        if (op->greq != MPI_REQUEST_NULL)
            PMPI_Grequest_complete(op->greq);
        free(op->buf);
        free(op);
    }
    reaping = false;
    return !q->head;
}

/* Sends and answers are messages: the wait may sleep until one comes
 * (rt_progress_wait), so under CPU load the answer wakes us at once rather
 * than after the time slice a yield hands to another program. */
void osc_complete_local(struct osc_win *o)
{
    unsigned spins = 0;

    while (!reap(&o->ops))
        if (!rt_progress())
            rt_progress_wait(&spins);
}

/* Synchronization's round trips, for MPI_T: under CPU load each waits
 * until the target is given the core. */
static uint64_t round_trips;

static uint64_t read_round_trips(const struct rt_pvar *v)
{
    (void)v;
    return round_trips;
}
RT_PVAR(pv_round_trips, "rdmpi_osc_round_trips", "rdmpi_osc", MPI_T_PVAR_CLASS_COUNTER,
        read_round_trips, 0,
        "LOCK, UNLOCK and FLUSH messages this process sent that wait for the target's answer")

void osc_ask(struct osc_win *o, int t, int kind, int lock, MPI_Request *answer)
{
    struct osc_hdr h = {.kind = (uint8_t)kind, .lock = (uint8_t)lock};

    round_trips++;
    h.reply = osc_reply_id(o);
    PMPI_Irecv(NULL, 0, MPI_BYTE, t, OSC_TAG_REPLY + (int)h.reply, o->comm, answer);
    osc_send(o, t, &h, sizeof(h), NULL, 0, MPI_BYTE, MPI_REQUEST_NULL);
}

void osc_control(struct osc_win *o, int t, int kind, int lock)
{
    MPI_Request r;

    osc_ask(o, t, kind, lock, &r);
    PMPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* The answer to an UNLOCK is remote completion. When t owes us nothing
 * (every operation of the epoch was direct, or its answer came back), the
 * UNLOCK goes without one, and MPI_Win_unlock does not wait for a target
 * that may be far from the core: the lock is released when t takes the
 * UNLOCK in, before any later request of ours, which travels behind it
 * (another origin waiting for the lock waits for t either way).
 * MPI_Win_free waits for every such UNLOCK to have been taken in. */
void osc_release(struct osc_win *o, int t, MPI_Request *answer)
{
    struct osc_hdr h = {.kind = OSC_UNLOCK, .flags = OSC_F_NOREPLY};

    *answer = MPI_REQUEST_NULL;
    if (o->unflushed[t]) {
        osc_ask(o, t, OSC_UNLOCK, 0, answer);
    } else {
        osc_send(o, t, &h, sizeof(h), NULL, 0, MPI_BYTE, MPI_REQUEST_NULL);
        o->released[t]++;
    }
    o->unflushed[t] = false;
}

/* ---- target ---- */

static struct osc_queue replies; /* answers being sent, any window */

static void reply(struct osc_win *o, int dst, uint32_t id, void *buf, size_t len)
{
    struct osc_op *op = calloc(1, sizeof(*op));

    if (!op)
        rt_fatal("osc: out of memory answering an RMA operation");
    op->buf = buf;
    op->req[1] = op->req[2] = op->greq = MPI_REQUEST_NULL;
    PMPI_Isend_c(buf, (MPI_Count)len, MPI_BYTE, dst, OSC_TAG_REPLY + (int)id, o->comm, &op->req[0]);
    push(&replies, op);
}

/* Packed bytes of the target data an operation names. */
static size_t region_bytes(const struct osc_hdr *h)
{
    const struct rt_dt_seg *s = (const void *)(h + 1);
    size_t per = 0;

    for (uint64_t i = 0; i < h->nsegs; i++)
        per += s[i].len * s[i].count;
    return per * h->count;
}

/* Whether [lo, hi) lies in attached memory: regions attached separately
 * that adjoin or overlap count as one (an operation may span them). */
static bool attached(const struct osc_win *o, const char *lo, const char *hi)
{
    const char *at = lo;

    while (at < hi) {
        const char *next = at;
        for (int r = 0; r < o->nregions; r++) {
            const char *b = o->regions[r].base, *e = b + o->regions[r].len;
            if (b <= at && e > next)
                next = e;
        }
        if (next == at)
            return false;
        at = next;
    }
    return true;
}

/* The target address of an operation, checked against attached memory
 * for dynamic windows (the origin checks the others' range). The bytes
 * touched lie between the lowest segment of the first element and the
 * end of the highest segment of the last (an extent may be negative). */
static char *target_base(struct osc_win *o, const struct osc_hdr *h, int src)
{
    const struct rt_dt_seg *s = (const void *)(h + 1);
    char *p;

    if (!o->dynamic)
        return o->mem + h->addr;
    p = (char *)(uintptr_t)h->addr;
    if (h->count && h->nsegs) {
        char *lo = NULL, *hi = NULL;
        for (uint64_t i = 0; i < h->nsegs; i++) {
            if (!s[i].len || !s[i].count)
                continue;
            for (int end = 0; end < 2; end++) {
                char *e = p + (end ? (int64_t)(h->count - 1) * h->extent : 0);
                char *a = e + s[i].off, *b = e + s[i].off;
                MPI_Aint span = (MPI_Aint)(s[i].count - 1) * s[i].stride;
                if (span < 0)
                    a += span;
                else
                    b += span;
                b += s[i].len;
                lo = !lo || a < lo ? a : lo;
                hi = !hi || b > hi ? b : hi;
            }
        }
        if (lo && !attached(o, lo, hi))
            rt_fatal("osc: rank %d accessed %p-%p of a dynamic window on rank %d, outside "
                     "the memory attached with MPI_Win_attach",
                     src, (void *)lo, (void *)hi, o->rank);
    }
    return p;
}

/* Copies between packed bytes and the target data: to_win 1 writes the
 * window, 0 reads it. */
static void walk(char *base, const struct osc_hdr *h, char *packed, bool to_win)
{
    const struct rt_dt_seg *s = (const void *)(h + 1);

    for (uint64_t i = 0; i < h->count; i++) {
        char *e = base + i * (uint64_t)h->extent;
        for (uint64_t k = 0; k < h->nsegs; k++)
            for (size_t b = 0; s[k].len && b < s[k].count; b++) {
                char *p = e + s[k].off + (MPI_Aint)b * s[k].stride;
                if (to_win)
                    memcpy(p, packed, s[k].len);
                else
                    memcpy(packed, p, s[k].len);
                packed += s[k].len;
            }
    }
}

/* target = origin op target, over elements of the predefined type the
 * target data is made of. Pair types (MINLOC/MAXLOC) have padding in
 * memory but not in the packed data: both sides are unpacked to arrays
 * for the op. */
static void accumulate(char *base, const struct osc_hdr *h, const char *in, size_t len)
{
    struct rdmpi_datatype *basic = rt_dt_get((MPI_Datatype)(intptr_t)h->basic);
    const struct rdmpi_op *op = coll_op_get((MPI_Op)(intptr_t)h->op);
    const struct rt_dt_seg *s = (const void *)(h + 1);
    size_t n = len / basic->size;

    if (op->index == COLL_OP_NO_OP || !len)
        return;
    if ((basic->flags & RT_DT_CONTIG) && basic->size == (size_t)basic->extent) {
        for (uint64_t i = 0; i < h->count; i++) {
            char *e = base + i * (uint64_t)h->extent;
            for (uint64_t k = 0; k < h->nsegs; k++)
                for (size_t b = 0; b < s[k].count; b++) {
                    coll_op_apply(op, in, e + s[k].off + (MPI_Aint)b * s[k].stride,
                                  s[k].len / basic->size, basic);
                    in += s[k].len;
                }
        }
        return;
    }
    {
        char *cur = malloc(len + 1), *a = malloc(n * (size_t)basic->extent + 1),
             *b = malloc(n * (size_t)basic->extent + 1);
        if (!cur || !a || !b)
            rt_fatal("osc: out of memory for a %zu-byte accumulate", len);
        walk(base, h, cur, false);
        rt_dt_unpack(basic, a, n, 0, in, len);
        rt_dt_unpack(basic, b, n, 0, cur, len);
        coll_op_apply(op, a, b, n, basic);
        rt_dt_pack(basic, b, n, 0, cur, len);
        walk(base, h, cur, true);
        free(cur);
        free(a);
        free(b);
    }
}

static bool grantable(const struct osc_win *o, int type)
{
    return o->excl < 0 && (type == MPI_LOCK_SHARED || !o->shared);
}

static void grant(struct osc_win *o, int src, int type, uint32_t id)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        o->excl = src;
    else
        o->shared++;
    reply(o, src, id, NULL, 0);
}

/* Locks are granted in the order asked for, so a waiting exclusive lock
 * is not starved by a stream of shared ones. */
static void lock(struct osc_win *o, int src, int type, uint32_t id)
{
    struct osc_lockq *q, **tail;

    if (!o->waiting && grantable(o, type)) {
        grant(o, src, type, id);
        return;
    }
    if (!(q = malloc(sizeof(*q))))
        rt_fatal("osc: out of memory queueing a lock request");
    *q = (struct osc_lockq){src, type, id, NULL};
    for (tail = &o->waiting; *tail; tail = &(*tail)->next)
        ;
    *tail = q;
}

static void unlock(struct osc_win *o, int src, const struct osc_hdr *h)
{
    if (o->excl == src)
        o->excl = -1;
    else if (o->shared > 0)
        o->shared--;
    if (h->flags & OSC_F_NOREPLY)
        o->unlocked++;
    else
        reply(o, src, h->reply, NULL, 0);
    while (o->waiting && grantable(o, o->waiting->type)) {
        struct osc_lockq *q = o->waiting;
        o->waiting = q->next;
        grant(o, q->src, q->type, q->reply);
        free(q);
    }
}

static void apply(struct osc_win *o, struct osc_in *in)
{
    struct osc_hdr *h = in->hdr;
    size_t len = h->kind <= OSC_CAS ? region_bytes(h) : 0;
    char *base = h->kind <= OSC_CAS ? target_base(o, h, in->src) : NULL, *old = NULL;

    if (h->kind == OSC_GET || h->kind == OSC_GACC || h->kind == OSC_CAS) {
        if (!(old = malloc(len + 1)))
            rt_fatal("osc: out of memory answering a %zu-byte get", len);
        walk(base, h, old, false);
    }
    switch (h->kind) {
    case OSC_PUT: walk(base, h, in->payload, true); break;
    case OSC_ACC:
    case OSC_GACC:
        if (h->dlen)
            accumulate(base, h, in->payload, len);
        break;
    case OSC_CAS:
        /* data: the compare value, then the new one */
        if (!memcmp(old, in->payload, len))
            walk(base, h, in->payload + len, true);
        break;
    case OSC_LOCK: lock(o, in->src, h->lock, h->reply); return;
    case OSC_UNLOCK: unlock(o, in->src, h); return;
    case OSC_FLUSH: reply(o, in->src, h->reply, NULL, 0); return;
    case OSC_POST: o->posts[in->src]++; return;
    case OSC_COMPLETE: o->completes++; return;
    }
    if (old)
        reply(o, in->src, h->reply, old, len);
    o->processed++;
}

static bool test(MPI_Request *r)
{
    int done = 1;

    if (*r != MPI_REQUEST_NULL)
        PMPI_Test(r, &done, MPI_STATUS_IGNORE);
    return done;
}

/* Posts the data receives of arrived headers in arrival order, so each
 * pairs with its header (data from one origin arrives in order), and at
 * once, so data does not pile up unexpected in front of later headers. */
static void post_data(struct osc_win *o)
{
    struct osc_in *in;

    while ((in = o->in_post) && test(&in->req)) {
        struct osc_hdr *h = in->hdr;

        if (h->flags & OSC_F_INLINE) {
            in->payload = (char *)(h + 1) + h->nsegs * sizeof(struct rt_dt_seg);
        } else if (h->dlen) {
            if (!(in->data = malloc(h->dlen)))
                rt_fatal("osc: out of memory for %llu bytes of RMA data",
                         (unsigned long long)h->dlen);
            in->payload = in->data;
            PMPI_Irecv_c(in->data, (MPI_Count)h->dlen, MPI_BYTE, in->src, OSC_TAG_DATA, o->comm,
                         &in->dreq);
        }
        in->data_posted = true;
        o->in_post = in->next;
    }
}

/* Takes in new headers and applies what is complete, in arrival order. */
static int serve(struct osc_win *o)
{
    int n = 0, flag = 1;

    while (flag) {
        MPI_Message m;
        MPI_Status st;
        MPI_Count bytes;
        struct osc_in *in;

        PMPI_Improbe(MPI_ANY_SOURCE, OSC_TAG_HDR, o->comm, &flag, &m, &st);
        if (!flag)
            break;
        PMPI_Get_count_c(&st, MPI_BYTE, &bytes);
        if (!(in = calloc(1, sizeof(*in))) || !(in->hdr = malloc((size_t)bytes)))
            rt_fatal("osc: out of memory receiving an RMA operation");
        in->src = st.MPI_SOURCE;
        in->dreq = MPI_REQUEST_NULL;
        PMPI_Imrecv_c(in->hdr, bytes, MPI_BYTE, &m, &in->req);
        if (o->in_tail)
            o->in_tail->next = in;
        else
            o->in_head = in;
        o->in_tail = in;
        if (!o->in_post)
            o->in_post = in;
        post_data(o);
        n++;
    }
    post_data(o);
    while (o->in_head && o->in_head->data_posted && test(&o->in_head->dreq)) {
        struct osc_in *in = o->in_head;

        o->in_head = in->next;
        if (!o->in_head)
            o->in_tail = NULL;
        apply(o, in);
        free(in->hdr);
        free(in->data);
        free(in);
        n++;
    }
    return n;
}

int osc_progress(void)
{
    int n = 0;

    if (busy || (!wins && !replies.head))
        return 0;
    busy = true;
    for (struct osc_win *o = wins; o; o = o->next) {
        n += serve(o);
        reap(&o->ops);
    }
    reap(&replies);
    busy = false;
    return n;
}
