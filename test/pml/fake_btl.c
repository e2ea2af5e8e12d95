/* The scripted BTL (fake_btl.h). Every message and every RDMA completion
 * is an event in one queue, in the order the pml made them; progress
 * delivers those queued before the poll began, skipping the ones a rule
 * keeps back, so what a rule holds is overtaken by what follows it. */
#include "config.h"

#include "btl_test.h"
#include "fake_btl.h"
#include "log.h"
#include "rt.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RULES  16
#define SWAP_POLLS 1000

struct fake_ev {
    struct fake_ev *next, *prev;
    unsigned long poll; /* queued at this poll count: deliverable from the next */
    int hold;           /* polls it still waits */
    int swap;           /* waits for an event to go ahead of it; polls left */
    int rdma;           /* 1: a get/put completion, 0: a message */
    int mod;            /* the module that carries it */
    void *dst;          /* rdma: copy len bytes src -> dst, then cb(ctx, status) */
    const void *src;
    btl_rdma_fn cb;
    void *ctx;
    int status;
    int error;            /* message: reported through the error callback, not delivered */
    struct btl_desc desc; /* message: buf = data, len its bytes */
    unsigned char data[];
};

struct fake_counts fake_counts;
struct fake_counts fake_module_counts[FAKE_MAX_MODULES];

static struct btl_module extra[FAKE_MAX_MODULES - 1];
static int nmods = 1;

static struct fake_rule rules[MAX_RULES];
static int left[MAX_RULES]; /* times still to act; -1: unlimited, 0: spent */
static int nrules;
static struct fake_ev queue = {.next = &queue, .prev = &queue};
static struct fake_ev *swap_ev; /* the event a SWAP keeps until another is queued */
static unsigned long polls;
static int polling;
static char fake_ep[FAKE_MAX_MODULES];

struct btl_module *fake_module(int k)
{
    return k ? &extra[k - 1] : &fake_btl_module;
}

void fake_btl_modules(int n)
{
    nmods = n < 1 ? 1 : n > FAKE_MAX_MODULES ? FAKE_MAX_MODULES : n;
}

static int mod_of(const struct btl_module *btl)
{
    for (int k = 0; k < nmods; k++)
        if (fake_module(k) == btl)
            return k;
    return 0;
}

static int mod_of_ep(const struct btl_endpoint *ep)
{
    return (int)((const char *)ep - fake_ep);
}

void fake_script(struct fake_rule rule)
{
    if (nrules == MAX_RULES) {
        fprintf(stderr, "fake_script: more than %d rules; call fake_clear between scenarios\n",
                MAX_RULES);
        abort();
    }
    rules[nrules] = rule;
    left[nrules++] = rule.times ? rule.times : -1;
}

void fake_clear(void)
{
    nrules = 0;
    swap_ev = NULL;
    for (struct fake_ev *e = queue.next; e != &queue; e = e->next)
        e->hold = e->swap = 0;
}

void fake_counts_reset(void)
{
    memset(&fake_counts, 0, sizeof(fake_counts));
    memset(fake_module_counts, 0, sizeof(fake_module_counts));
}

int fake_queued(void)
{
    int n = 0;

    for (struct fake_ev *e = queue.next; e != &queue; e = e->next)
        n++;
    return n;
}

int fake_held(void)
{
    int n = 0;

    for (struct fake_ev *e = queue.next; e != &queue; e = e->next)
        n += e->hold > 0 || e->swap > 0;
    return n;
}

/* The rule that takes this operation, or NULL. */
static const struct fake_rule *rule_for(enum fake_op op, int type, int mod)
{
    for (int i = 0; i < nrules; i++) {
        struct fake_rule *r = &rules[i];

        if (r->op != op || !left[i] || (r->type && r->type != type) ||
            (r->module && r->module != mod + 1))
            continue;
        if (r->after > 0) {
            r->after--;
            continue;
        }
        if (left[i] > 0)
            left[i]--;
        return r;
    }
    return NULL;
}

/* A call-level rule: its return value, or 0 to go on. */
static int refuse(const struct fake_rule *r)
{
    if (!r)
        return 0;
    if (r->act == FAKE_EAGAIN) {
        fake_counts.eagain++;
        return -EAGAIN;
    }
    if (r->act == FAKE_FAIL) {
        fake_counts.failed++;
        return r->arg;
    }
    return 0;
}

static struct fake_ev *ev_new(size_t len, int mod)
{
    struct fake_ev *e = calloc(1, sizeof(*e) + len);

    if (!e) {
        rt_warn("fake BTL: out of memory for a %zu-byte event", len);
    } else {
        e->desc.buf = e->data;
        e->mod = mod;
    }
    return e;
}

static void ev_insert_before(struct fake_ev *at, struct fake_ev *e)
{
    e->next = at;
    e->prev = at->prev;
    at->prev->next = e;
    at->prev = e;
}

static void ev_remove(struct fake_ev *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
}

/* Queues e, shaped by rule r (HOLD, SWAP, DROP; NULL: as is). An event
 * waiting for a swap lets this one go ahead of it. */
static void ev_queue(struct fake_ev *e, const struct fake_rule *r)
{
    if (r && r->act == FAKE_DROP) {
        fake_counts.dropped++;
        free(e);
        return;
    }
    e->poll = polls;
    if (swap_ev) {
        /* It stays behind e even when a callback queued e mid-poll. */
        ev_insert_before(swap_ev, e);
        swap_ev->swap = 0;
        swap_ev->poll = polls;
        swap_ev = NULL;
    } else {
        ev_insert_before(&queue, e);
    }
    if (r && r->act == FAKE_HOLD) {
        e->hold = r->arg;
        fake_counts.held++;
    } else if (r && r->act == FAKE_ERROR) {
        e->error = r->arg ? r->arg : -EIO;
    } else if (r && r->act == FAKE_SWAP) {
        e->swap = r->arg > 0 ? r->arg : SWAP_POLLS;
        swap_ev = e;
        fake_counts.swapped++;
    }
}

static void msg_queue(struct fake_ev *e)
{
    fake_counts.msgs++;
    fake_module_counts[e->mod].msgs++;
    ev_queue(e, rule_for(FAKE_MSG, e->data[0], e->mod));
}

static int fake_init(struct btl_module *btl)
{
    (void)btl;
    return 0;
}

static int fake_connect(struct btl_module *btl, uint8_t *reach)
{
    (void)btl;
    reach[rt.rank] = 1;
    return 0;
}

static struct btl_endpoint *fake_endpoint(struct btl_module *btl, int peer)
{
    return peer == rt.rank ? (struct btl_endpoint *)&fake_ep[mod_of(btl)] : NULL;
}

static int fake_sendi(struct btl_endpoint *ep, const void *hdr, size_t hlen, const void *data,
                      size_t dlen)
{
    int mod = mod_of_ep(ep);
    struct fake_ev *e;
    int rc;

    fake_counts.sendi++;
    if (hlen + dlen > fake_module(mod)->sendi_limit)
        return -EMSGSIZE;
    if ((rc = refuse(rule_for(FAKE_SENDI, *(const uint8_t *)hdr, mod))))
        return rc;
    if (!(e = ev_new(hlen + dlen, mod)))
        return -ENOMEM;
    memcpy(e->data, hdr, hlen);
    if (dlen)
        memcpy(e->data + hlen, data, dlen);
    e->desc.len = hlen + dlen;
    msg_queue(e);
    return 0;
}

static struct btl_desc *fake_alloc(struct btl_endpoint *ep, size_t len)
{
    int mod = mod_of_ep(ep);
    struct fake_ev *e;

    fake_counts.alloc++;
    if (len > fake_module(mod)->eager_limit || refuse(rule_for(FAKE_ALLOC, 0, mod)) ||
        !(e = ev_new(len, mod)))
        return NULL;
    e->desc.len = len;
    return &e->desc;
}

static void fake_send(struct btl_endpoint *ep, struct btl_desc *d)
{
    (void)ep;
    msg_queue((struct fake_ev *)((char *)d - offsetof(struct fake_ev, desc)));
}

static int rdma(enum fake_op op, int mod, void *dst, const void *src, size_t len, btl_rdma_fn cb,
                void *ctx)
{
    const struct fake_rule *r = rule_for(op, 0, mod);
    struct fake_counts *mc = &fake_module_counts[mod];
    struct fake_ev *e;
    int rc;

    if (op == FAKE_GET) {
        mc->gets++;
        mc->get_bytes += len;
        fake_counts.get_bytes += len;
    } else {
        mc->puts++;
        mc->put_bytes += len;
        fake_counts.put_bytes += len;
    }
    if ((rc = refuse(r)))
        return rc;
    if (!(e = ev_new(0, mod)))
        return -ENOMEM;
    e->rdma = 1;
    e->dst = dst;
    e->src = src;
    e->desc.len = len;
    e->cb = cb;
    e->ctx = ctx;
    if (r && r->act == FAKE_CFAIL) {
        e->status = r->arg;
        fake_counts.cfailed++;
    } else if (r && r->act == FAKE_ERROR) {
        e->status = r->arg ? r->arg : -EIO;
    }
    ev_queue(e, r);
    return 0;
}

static int fake_get(struct btl_endpoint *ep, void *local, struct btl_reg *lreg, uint64_t raddr,
                    const void *rkey, size_t len, btl_rdma_fn cb, void *ctx)
{
    (void)lreg;
    (void)rkey;
    fake_counts.gets++;
    return rdma(FAKE_GET, mod_of_ep(ep), local, (const void *)(uintptr_t)raddr, len, cb, ctx);
}

static int fake_put(struct btl_endpoint *ep, const void *local, struct btl_reg *lreg,
                    uint64_t raddr, const void *rkey, size_t len, btl_rdma_fn cb, void *ctx)
{
    (void)lreg;
    (void)rkey;
    fake_counts.puts++;
    return rdma(FAKE_PUT, mod_of_ep(ep), (void *)(uintptr_t)raddr, local, len, cb, ctx);
}

/* As btl/self: the address is the key. */
static int fake_register(struct btl_module *btl, void *base, size_t len, struct btl_reg **reg,
                         void *rkey, uint64_t *raddr)
{
    int rc;

    (void)len;
    (void)rkey;
    fake_counts.regs++;
    if ((rc = refuse(rule_for(FAKE_REG, 0, mod_of(btl)))))
        return rc;
    *reg = NULL;
    *raddr = (uint64_t)(uintptr_t)base;
    return 0;
}

static void fake_deregister(struct btl_module *btl, struct btl_reg *reg)
{
    (void)btl;
    (void)reg;
}

static void deliver(struct fake_ev *e)
{
    if (e->rdma && e->error) {
        fake_counts.errors++;
        btl_error(fake_module(e->mod), rt.rank, e->error,
                  "fake BTL: module %d lost rank %d during a %zu-byte %s (scripted)", e->mod,
                  rt.rank, e->desc.len, e->dst == e->src ? "transfer" : "RDMA operation");
        e->cb(e->ctx, e->error);
        free(e);
        return;
    }
    if (e->error) {
        fake_counts.errors++;
        btl_error(fake_module(e->mod), rt.rank, e->error,
                  "fake BTL: a %zu-byte message of header type %u to rank %d failed: %s "
                  "(scripted)",
                  e->desc.len, e->data[0], rt.rank, strerror(-e->error));
        free(e);
        return;
    }
    fake_counts.delivered++;
    if (!e->rdma) {
        btl_deliver(rt.rank, e->data, e->desc.len);
    } else {
        if (!e->status)
            memcpy(e->dst, e->src, e->desc.len);
        e->cb(e->ctx, e->status);
    }
    free(e);
}

/* Delivers what was queued before this poll and is not held back. What
 * the callbacks queue waits for the next poll, so a poll is bounded; a
 * poll from inside a callback (none today) does nothing. */
static int fake_progress(struct btl_module *btl)
{
    struct fake_ev *e, *next;
    int n = 0, mod = mod_of(btl);

    if (polling)
        return 0;
    polling = 1;
    polls++;
    for (e = queue.next; e != &queue; e = next) {
        next = e->next;
        if (e->poll >= polls || e->mod != mod)
            continue;
        if (e->hold > 0) {
            e->hold--;
            continue;
        }
        if (e->swap > 0) {
            if (--e->swap > 0)
                continue;
            if (swap_ev == e)
                swap_ev = NULL; /* nothing came to overtake it */
        }
        ev_remove(e);
        deliver(e);
        n++;
    }
    polling = 0;
    return n;
}

/* Finalize: everything goes, rules or not. */
static int fake_flush(struct btl_module *btl)
{
    (void)btl;
    fake_clear();
    while (queue.next != &queue)
        for (int k = 0; k < nmods; k++)
            fake_progress(fake_module(k));
    return 0;
}

static int fake_finalize(struct btl_module *btl)
{
    (void)btl;
    while (queue.next != &queue) {
        struct fake_ev *e = queue.next;
        ev_remove(e);
        free(e);
    }
    nrules = 0;
    swap_ev = NULL;
    return 0;
}

/* The process talks only to itself: an added process is never reached. */
static int fake_add_peers(struct btl_module *btl, int first, int n, uint8_t *reach)
{
    (void)btl;
    (void)first;
    (void)n;
    (void)reach;
    return 0;
}

static void fake_del_peer(struct btl_module *btl, int peer)
{
    (void)btl;
    (void)peer;
}

static int fake_report(struct btl_module *btl, struct btl_report *r)
{
    const struct fake_counts *c = &fake_module_counts[mod_of(btl)];

    snprintf(r->transport, sizeof(r->transport), "the test's scripted loopback (test/pml), rail %u",
             btl->rail);
    r->reads = c->gets;
    r->read_bytes = c->get_bytes;
    r->writes = c->puts;
    r->write_bytes = c->put_bytes;
    return 0;
}

struct btl_module fake_btl_module = {
    .size = sizeof(struct btl_module),
    .version = BTL_IFACE_VERSION,
    .name = "fake",
    .eager_limit = 4096,
    .sendi_limit = 1024,
    .get_limit = SIZE_MAX,
    .put_limit = SIZE_MAX,
    .alignment = 1,
    .rkey_size = 0,
    .exclusivity = 1000,
    .latency_ns = 20,
    .bandwidth_mbs = 20000,
    .flags = BTL_CAP_SENDI | BTL_CAP_GET | BTL_CAP_PUT | BTL_CAP_DIRECT,
    .init = fake_init,
    .connect = fake_connect,
    .finalize = fake_finalize,
    .endpoint = fake_endpoint,
    .add_peers = fake_add_peers,
    .del_peer = fake_del_peer,
    .sendi = fake_sendi,
    .alloc = fake_alloc,
    .send = fake_send,
    .get = fake_get,
    .put = fake_put,
    .register_mem = fake_register,
    .deregister_mem = fake_deregister,
    .progress = fake_progress,
    .flush = fake_flush,
    .report = fake_report,
};

/* The module is the test's, not a copy: its changes before MPI_Init
 * hold. */
static int fake_open(struct btl_component *c, struct btl_module **mods, int max)
{
    int n = nmods < max ? nmods : max;

    (void)c;
    for (int k = 0; k < n; k++) {
        if (k) {
            extra[k - 1] = fake_btl_module;
            extra[k - 1].rail = (uint32_t)k;
        }
        mods[k] = fake_module(k);
    }
    return n;
}

struct btl_component fake_btl_component = {
    .size = sizeof(struct btl_component),
    .version = BTL_IFACE_VERSION,
    .name = "fake",
    .open = fake_open,
};

void fake_btl_install(void)
{
    btl_test_install(&fake_btl_component);
}
