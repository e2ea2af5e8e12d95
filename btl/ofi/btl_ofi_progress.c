/* btl/ofi progress: read the completion queue, deliver incoming messages
 * as they complete (the pml restores MPI's order), give receive buffers
 * back, finish sends and reads, report provider errors (through the
 * module's error callback: the pml decides), and retry what the provider
 * refused. Most providers here make progress only inside these calls, so
 * the pml must keep calling. */
#include "config.h"

#include "btl_ofi.h"
#include "log.h"
#include "rt.h"

#include <errno.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <string.h>

#define BATCH 16

int btl_ofi_post_recv(struct btl_ofi_module *m, struct btl_ofi_rbuf *b)
{
    ssize_t rc;

    if (m->multi_recv) {
        struct iovec iov = {b->data, b->size};
        void *desc = m->pool_desc;
        struct fi_msg msg = {.msg_iov = &iov,
                             .desc = &desc,
                             .iov_count = 1,
                             .addr = FI_ADDR_UNSPEC,
                             .context = &b->op.ctx};
        rc = fi_recvmsg(m->ep, &msg, FI_MULTI_RECV);
    } else {
        rc = fi_recv(m->ep, b->data, b->size, m->pool_desc, FI_ADDR_UNSPEC, &b->op.ctx);
    }
    if (rc == -FI_EAGAIN) {
        b->next = m->repost;
        m->repost = b;
        btl_ofi_slow(m);
        return 0;
    }
    if (rc)
        btl_ofi_error(m, "posting a receive buffer", (int)rc);
    return (int)rc;
}

static struct btl_ofi_peer *source(struct btl_ofi_module *m, fi_addr_t src, size_t len)
{
    if (src >= (fi_addr_t)m->nav)
        rt_fatal("btl/ofi: a %zu-byte message came from an address this rank never inserted "
                 "(fi_addr %#llx, provider %s)",
                 len, (unsigned long long)src, m->info->fabric_attr->prov_name);
    return &m->peers[m->rank_of[src]];
}

/* A message from p as the provider completed it. Empty ones are ours: a
 * hello, or p's goodbye with the count of pml messages before it. */
static int consume(struct btl_ofi_peer *p, uint32_t w, const void *data, size_t len)
{
    struct btl_ofi_module *m = p->m;

    p->used = 1;
    p->await_hello = 0;
    if (!len) {
        if (w & BTL_OFI_BYE) {
            p->bye_in = 1;
            p->bye_count = w & BTL_OFI_COUNT_MASK;
        }
        return 0;
    }
    if (RT_UNLIKELY(p->gone))
        return 0; /* a late credit from a process nobody reaches any more */
    p->rx_msgs++;
    m->count.recv_msgs++;
    m->count.recv_bytes += len;
    btl_deliver(p->world, data, len);
    return 1;
}

/* Without receive buffers no peer reaches this rank. */
static void repost_failed(struct btl_ofi_module *m)
{
    btl_error(&m->base, -1, -EIO, "btl/ofi: cannot post a receive buffer again (provider %s)",
              m->info->fabric_attr->prov_name);
}

static int on_recv(struct btl_ofi_module *m, struct btl_ofi_rbuf *b,
                   const struct fi_cq_data_entry *e, fi_addr_t src)
{
    int n = 0;

    /* A multi-receive buffer's release may come alone, without FI_RECV. */
    if (e->flags & FI_RECV) {
        const uint8_t *data = m->multi_recv ? e->buf : b->data;
        struct btl_ofi_peer *p = source(m, src, e->len);
        /* Every message of ours carries the word; sockets 1.17 sometimes
         * leaves FI_REMOTE_CQ_DATA out of the flags, so do not ask. */
        uint64_t w = e->data;
        size_t len = e->len;

        if (m->prefix) {
            if (RT_UNLIKELY(len < BTL_OFI_PREFIX))
                rt_fatal("btl/ofi: a %zu-byte message from rank %d is shorter than the %d-byte "
                         "prefix every message carries (provider %s)",
                         len, p->world, BTL_OFI_PREFIX, m->info->fabric_attr->prov_name);
            memcpy(&w, data, sizeof(w));
            data += BTL_OFI_PREFIX;
            len -= BTL_OFI_PREFIX;
        }
        /* Multi-receive packs messages end to end; the pml reads its
         * headers as structs, so give it 8-byte alignment. */
        if ((uintptr_t)data & 7)
            data = memcpy(m->align_buf, data, len);
        n = consume(p, (uint32_t)w, data, len);
    }
    if ((!m->multi_recv || (e->flags & FI_MULTI_RECV)) && btl_ofi_post_recv(m, b))
        repost_failed(m);
    return n;
}

/* Says hello where due (one_way_connect); a peer the provider refuses
 * stays on the list. */
static int say_hello(struct btl_ofi_module *m)
{
    struct btl_ofi_peer **pp = &m->due;
    int n = 0;

    while (*pp) {
        struct btl_ofi_peer *p = *pp;

        /* At finalize a message that lands while the peer closes its
         * endpoint crashes rxm (ofi_flush); the goodbye says enough. */
        if (!m->closing && p->hello_due && btl_ofi_send_empty(p, 0)) {
            pp = &p->next_due;
            continue;
        }
        p->hello_due = 0;
        n++;
        p->due = 0;
        *pp = p->next_due;
    }
    return n;
}

static int complete(struct btl_ofi_module *m, const struct fi_cq_data_entry *e, fi_addr_t src)
{
    struct btl_ofi_op *op = e->op_context;

    switch (op->kind) {
    case BTL_OFI_RECV: return on_recv(m, (struct btl_ofi_rbuf *)op, e, src);
    case BTL_OFI_SEND: btl_ofi_send_done((struct btl_ofi_frag *)op); return 1;
    case BTL_OFI_READ:
    case BTL_OFI_WRITE: btl_ofi_rma_done((struct btl_ofi_read *)op, 0); return 1;
    }
    return 0;
}

/* A failed operation, with libfabric's and the provider's own words. A
 * read or write fails back to the pml, which copies that message instead;
 * any other failure goes to the error callback, except once finalize began
 * (peers may be gone). */
static int on_error(struct btl_ofi_module *m)
{
    const char *prov = m->info->fabric_attr->prov_name, *detail;
    struct fi_cq_err_entry err = {0};
    struct btl_ofi_op *op;
    static int warned;
    char buf[256], why[200];
    ssize_t rc = fi_cq_readerr(m->cq, &err, 0);

    if (rc == -FI_EAGAIN)
        return 0;
    if (rc < 0) {
        btl_error(&m->base, -1, btl_ofi_errno(rc), "btl/ofi: fi_cq_readerr failed on %s: %s", prov,
                  fi_strerror((int)-rc));
        return 0;
    }
    op = err.op_context;
    /* shm 1.17 reports a failed read with a negative code and no context. */
    if (err.err < 0)
        err.err = -err.err;
    detail = fi_cq_strerror(m->cq, err.prov_errno, err.err_data, buf, sizeof(buf));
    if (!detail)
        detail = "";
    if (op && (op->kind == BTL_OFI_READ || op->kind == BTL_OFI_WRITE)) {
        struct btl_ofi_read *r = (struct btl_ofi_read *)op;
        const int write = op->kind == BTL_OFI_WRITE;

        if (!warned++)
            rt_warn("btl/ofi: an RDMA %s of %zu bytes %s rank %d failed: %s (%s: %s); "
                    "that message is copied instead if the connection survived",
                    write ? "write" : "read", r->len, write ? "to" : "from", r->peer->world,
                    fi_strerror(err.err), prov, detail);
        else
            rt_info(1, "btl/ofi: an RDMA %s of %zu bytes %s rank %d failed: %s (%s: %s)",
                    write ? "write" : "read", r->len, write ? "to" : "from", r->peer->world,
                    fi_strerror(err.err), prov, detail);
        if (write)
            m->count.write_errors++;
        else
            m->count.read_errors++;
        r->peer->suspect = 1;
        btl_ofi_rma_done(r, btl_ofi_errno(-err.err));
        return 1;
    }
    if (op && op->kind == BTL_OFI_SEND) {
        struct btl_ofi_frag *f = (struct btl_ofi_frag *)op;

        if (!m->closing)
            btl_error(&m->base, f->peer->world, -err.err,
                      "btl/ofi: a %zu-byte send to rank %d failed: %s (%s: %s); %s", f->desc.len,
                      f->peer->world, fi_strerror(err.err), prov, detail,
                      btl_ofi_cause(f->peer, err.err, why, sizeof(why)));
        btl_ofi_send_done(f);
        return 1;
    }
    if (!m->closing && op)
        btl_error(&m->base, -1, -err.err, "btl/ofi: a receive failed: %s (%s: %s)",
                  fi_strerror(err.err), prov, detail);
    else if (!m->closing)
        btl_error(&m->base, -1, -err.err,
                  "btl/ofi: an operation failed: %s (%s: %s), and the provider's report names "
                  "no operation, so it cannot be retried or traced to a peer (%d sends and "
                  "reads were in flight)",
                  fi_strerror(err.err), prov, detail, m->outstanding);
    return 0;
}

/* Everything but the CQ: buffers to post again, queued sends, hellos,
 * the health watcher's flags. slow is cleared first, so whatever is
 * raised meanwhile (by this work or the watcher) sets it again. */
static int slow_work(struct btl_ofi_module *m)
{
    int events = 0;

    __atomic_store_n(&m->slow, 0, __ATOMIC_SEQ_CST);
    while (m->repost) {
        struct btl_ofi_rbuf *b = m->repost;
        m->repost = b->next;
        if (btl_ofi_post_recv(m, b))
            repost_failed(m);
        if (m->repost == b)
            break; /* refused again; next time */
    }
    if (m->busy)
        events += btl_ofi_retry_sends(m);
    if (m->due)
        say_hello(m);
    if (__atomic_load_n(&m->health, __ATOMIC_SEQ_CST))
        events += btl_ofi_health(m);
    if (m->repost || m->busy || m->due)
        btl_ofi_slow(m);
    return events;
}

int btl_ofi_progress(struct btl_module *btl)
{
    struct btl_ofi_module *m = btl_ofi_of(btl);
    struct fi_cq_data_entry e[BATCH];
    fi_addr_t src[BATCH];
    ssize_t n;
    int events = 0;

    /* A receive callback that polls again could overwrite the message it
     * is handling in align_buf. A failed rail holds on for good. */
    if (RT_UNLIKELY(!m->ep || m->in_progress))
        return 0;
    m->in_progress = 1;
    n = fi_cq_readfrom(m->cq, e, BATCH, src);
    if (n > 0) {
        m->reaped += (uint64_t)n;
        for (ssize_t i = 0; i < n; i++)
            events += complete(m, &e[i], src[i]);
    } else if (n == -FI_EAVAIL) {
        events += on_error(m);
    } else if (n != -FI_EAGAIN) {
        btl_error(btl, -1, btl_ofi_errno(n),
                  "btl/ofi: reading the completion queue failed on %s: %s",
                  m->info->fabric_attr->prov_name, fi_strerror((int)-n));
    }
    if (RT_UNLIKELY(__atomic_load_n(&m->slow, __ATOMIC_RELAXED)))
        events += slow_work(m);
    m->in_progress--;
    return events;
}
