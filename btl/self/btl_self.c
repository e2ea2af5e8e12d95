/* btl/self: a rank's messages to itself.
 *
 * sendi and send queue the message and progress delivers it; they never
 * call the receive callback themselves. The pml sends while it is updating
 * the state that callback reads (sequence numbers, credits, queues), so a
 * delivery from inside sendi would run the receive path on half-made state.
 * The queue keeps the pml's FIFO guarantee trivially. RDMA is memcpy. */
#include "config.h"

#include "btl_self.h"
#include "log.h"
#include "rt.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Large messages to self go by rendezvous, where get() is one memcpy; two
 * copies through the queue only pay off below this. */
#define SELF_EAGER 4096

struct self_msg {
    struct self_msg *next;
    struct btl_desc desc; /* what alloc() hands out; desc.len is the length */
    unsigned char data[SELF_EAGER];
};

/* Delivery queue, and delivered messages kept for reuse. */
static struct self_msg *head, **tail = &head, *spare;

/* get() and put() calls, for the transport report. */
static uint64_t reads, read_bytes, writes, write_bytes;

/* The pml needs a non-NULL endpoint; self has no per-peer state. */
static struct {
    char unused;
} self_ep;

static struct self_msg *msg_get(void)
{
    struct self_msg *m = spare;

    if (m) {
        spare = m->next;
        return m;
    }
    m = malloc(sizeof(*m));
    if (!m)
        rt_warn("btl/self: out of memory queueing a message to self");
    return m;
}

static void msg_queue(struct self_msg *m)
{
    m->next = NULL;
    *tail = m;
    tail = &m->next;
}

static int self_init(struct btl_module *btl)
{
    (void)btl;
    return 0;
}

static int self_connect(struct btl_module *btl, uint8_t *reach)
{
    (void)btl;
    reach[rt.rank] = 1;
    return 0;
}

static struct btl_endpoint *self_endpoint(struct btl_module *btl, int peer)
{
    (void)btl;
    return peer == rt.rank ? (struct btl_endpoint *)&self_ep : NULL;
}

static int self_sendi(struct btl_endpoint *ep, const void *hdr, size_t hlen, const void *data,
                      size_t dlen)
{
    struct self_msg *m;

    (void)ep;
    if (hlen + dlen > SELF_EAGER)
        return -EMSGSIZE;
    if (!(m = msg_get()))
        return -ENOMEM;
    memcpy(m->data, hdr, hlen);
    if (dlen)
        memcpy(m->data + hlen, data, dlen);
    m->desc.len = hlen + dlen;
    msg_queue(m);
    return 0;
}

static struct btl_desc *self_alloc(struct btl_endpoint *ep, size_t len)
{
    struct self_msg *m;

    (void)ep;
    if (len > SELF_EAGER || !(m = msg_get()))
        return NULL;
    m->desc.buf = m->data;
    m->desc.len = len;
    return &m->desc;
}

static void self_send(struct btl_endpoint *ep, struct btl_desc *d)
{
    (void)ep;
    msg_queue((struct self_msg *)((char *)d - offsetof(struct self_msg, desc)));
}

/* Delivers what was queued before this call; messages the callbacks send
 * to self wait for the next call, so one poll is bounded. */
static __attribute__((noinline)) int deliver_queued(void)
{
    struct self_msg *m = head, *next;
    int n = 0;

    head = NULL;
    tail = &head;
    for (; m; m = next, n++) {
        next = m->next;
        btl_deliver(rt.rank, m->data, m->desc.len);
        m->next = spare;
        spare = m;
    }
    return n;
}

/* Every poll of every rank comes here and the queue is nearly always
 * empty: that case is one test, with no registers to save. */
static int self_progress(struct btl_module *btl)
{
    (void)btl;
    return RT_LIKELY(!head) ? 0 : deliver_queued();
}

/* Only this process sends through self: nothing to sleep for. */
static int self_wait(struct btl_module *btl, unsigned timeout_us)
{
    (void)btl;
    (void)timeout_us;
    return head != NULL;
}

static int self_get(struct btl_endpoint *ep, void *local, struct btl_reg *lreg, uint64_t raddr,
                    const void *rkey, size_t len, btl_rdma_fn cb, void *ctx)
{
    (void)ep;
    (void)lreg;
    (void)rkey;
    memcpy(local, (const void *)(uintptr_t)raddr, len);
    reads++;
    read_bytes += len;
    cb(ctx, 0);
    return 0;
}

static int self_put(struct btl_endpoint *ep, const void *local, struct btl_reg *lreg,
                    uint64_t raddr, const void *rkey, size_t len, btl_rdma_fn cb, void *ctx)
{
    (void)ep;
    (void)lreg;
    (void)rkey;
    memcpy((void *)(uintptr_t)raddr, local, len);
    writes++;
    write_bytes += len;
    cb(ctx, 0);
    return 0;
}

/* The address is the key: nothing to pin, no state (reg stays NULL). */
static int self_register(struct btl_module *btl, void *base, size_t len, struct btl_reg **reg,
                         void *rkey, uint64_t *raddr)
{
    (void)btl;
    (void)len;
    (void)rkey;
    *reg = NULL;
    *raddr = (uint64_t)(uintptr_t)base;
    return 0;
}

static void self_deregister(struct btl_module *btl, struct btl_reg *reg)
{
    (void)btl;
    (void)reg;
}

static int self_flush(struct btl_module *btl)
{
    while (head)
        self_progress(btl);
    return 0;
}

static int self_finalize(struct btl_module *btl)
{
    struct self_msg *lists[2] = {head, spare}, *next;

    (void)btl;
    for (int i = 0; i < 2; i++)
        for (struct self_msg *m = lists[i]; m; m = next) {
            next = m->next;
            free(m);
        }
    head = spare = NULL;
    tail = &head;
    reads = read_bytes = writes = write_bytes = 0;
    return 0;
}

/* An added process is never this one. */
static int self_add_peers(struct btl_module *btl, int first, int n, uint8_t *reach)
{
    (void)btl;
    (void)first;
    (void)n;
    (void)reach;
    return 0;
}

static void self_del_peer(struct btl_module *btl, int peer)
{
    (void)btl;
    (void)peer;
}

static int self_report(struct btl_module *btl, struct btl_report *r)
{
    (void)btl;
    snprintf(r->transport, sizeof(r->transport), "loopback within the process, by memcpy");
    r->reads = reads;
    r->read_bytes = read_bytes;
    r->writes = writes;
    r->write_bytes = write_bytes;
    return 0;
}

static const struct btl_module self_template = {
    .size = sizeof(struct btl_module),
    .version = BTL_IFACE_VERSION,
    .name = "self",
    .eager_limit = SELF_EAGER,
    .sendi_limit = SELF_EAGER,
    .get_limit = SIZE_MAX,
    .put_limit = SIZE_MAX,
    .alignment = 1,
    .rkey_size = 0,
    .exclusivity = 1000,
    .latency_ns = 20,
    .bandwidth_mbs = 20000,
    .flags =
        BTL_CAP_SENDI | BTL_CAP_GET | BTL_CAP_PUT | BTL_CAP_WAIT | BTL_CAP_DIRECT | BTL_CAP_ORDERED,
    .init = self_init,
    .connect = self_connect,
    .finalize = self_finalize,
    .endpoint = self_endpoint,
    .add_peers = self_add_peers,
    .del_peer = self_del_peer,
    .sendi = self_sendi,
    .alloc = self_alloc,
    .send = self_send,
    .get = self_get,
    .put = self_put,
    .register_mem = self_register,
    .deregister_mem = self_deregister,
    .progress = self_progress,
    .flush = self_flush,
    .report = self_report,
    .wait = self_wait,
};

/* The one module: this process always reaches itself. */
static struct btl_module self_module;

static int self_open(struct btl_component *c, struct btl_module **mods, int max)
{
    (void)c;
    if (max < 1)
        return 0;
    self_module = self_template;
    mods[0] = &self_module;
    return 1;
}

static void self_close(struct btl_component *c)
{
    (void)c;
    memset(&self_module, 0, sizeof(self_module));
}

struct btl_component btl_self_component = {
    .size = sizeof(struct btl_component),
    .version = BTL_IFACE_VERSION,
    .name = "self",
    .open = self_open,
    .close = self_close,
};
