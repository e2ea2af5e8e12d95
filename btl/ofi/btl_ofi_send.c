/* btl/ofi sending: sendi (fi_inject below the inject size, else a copy
 * into a registered buffer), alloc/send, the per-peer queue of sends held
 * back (provider -FI_EAGAIN, a read fence, a hello not yet come) retried
 * from progress in order, and empty messages (hello, goodbye). Flow
 * control is the pml's: its eager credits are sized by our window. */
#include "config.h"

#include "btl_ofi.h"
#include "log.h"
#include "rt.h"

#include <errno.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdio.h>
#include <string.h>

static struct btl_ofi_frag *frag_get(struct btl_ofi_module *m)
{
    struct btl_ofi_frag *f = m->free_frags;

    if (f)
        m->free_frags = f->next;
    return f;
}

static void frag_put(struct btl_ofi_module *m, struct btl_ofi_frag *f)
{
    f->next = m->free_frags;
    m->free_frags = f;
}

/* The likely cause of a failed operation with peer p, as the end of a
 * message: the device went away (deleted, driver unloaded, port down),
 * or the peer died. */
const char *btl_ofi_cause(const struct btl_ofi_peer *p, int err, char *buf, size_t len)
{
    const struct btl_ofi_module *m = p->m;

    if (err == FI_ENODEV || err == FI_ENETDOWN)
        snprintf(buf, len,
                 "the RDMA device %s went away or its port is down (removed with "
                 "rdma link or modprobe -r, or the link was lost)",
                 m->info->domain_attr->name);
    else
        snprintf(buf, len, "rank %d may have died%s", p->world,
                 p->suspect
                     ? ", or the provider closed the connection after a failed RDMA read or write"
                     : "");
    return buf;
}

/* A send the provider rejected for a reason other than resources: the
 * peer is gone or the fabric broke, which the pml hears through the
 * module's error callback. Once finalize began, peers may have closed
 * already; that is no error. */
static void send_failed(const struct btl_ofi_peer *p, size_t len, ssize_t rc)
{
    struct btl_ofi_module *m = p->m;
    char why[200];

    if (m->closing) {
        rt_info(2, "btl/ofi: a %zu-byte send to rank %d failed at finalize: %s", len, p->world,
                fi_strerror((int)-rc));
        return;
    }
    btl_error(&m->base, p->world, btl_ofi_errno(rc),
              "btl/ofi: a %zu-byte send to rank %d failed: %s (provider %s); %s", len, p->world,
              fi_strerror((int)-rc), m->info->fabric_attr->prov_name,
              btl_ofi_cause(p, (int)-rc, why, sizeof(why)));
}

/* Hands the provider len pml bytes at buf with our word w: as remote CQ
 * data, or written into the prefix room just before buf. Without ctx the
 * message is injected (no completion). */
static ssize_t tx(struct btl_ofi_module *m, uint8_t *buf, size_t len, uint64_t w, void *ctx,
                  fi_addr_t to)
{
    if (m->prefix) {
        memcpy(buf - BTL_OFI_PREFIX, &w, sizeof(w));
        buf -= BTL_OFI_PREFIX;
        len += BTL_OFI_PREFIX;
        return ctx ? fi_send(m->ep, buf, len, m->pool_desc, to, ctx)
                   : fi_inject(m->ep, buf, len, to);
    }
    return ctx ? fi_senddata(m->ep, buf, len, m->pool_desc, w, to, ctx)
               : fi_injectdata(m->ep, buf, len, w, to);
}

/* A read from p is in flight where sends must not pass it (read_fence in
 * btl_ofi_component.c): the send waits, queued or handed back. */
static int fenced(struct btl_ofi_peer *p)
{
    struct btl_ofi_module *m = p->m;

    if (RT_LIKELY(!p->reads || !m->read_fence))
        return 0;
    m->count.fenced++;
    return 1;
}

/* The provider took a message to p; pml messages are counted for the
 * goodbye. */
static void sent(struct btl_ofi_peer *p, size_t len)
{
    struct btl_ofi_module *m = p->m;

    p->used = 1;
    if (len) {
        p->tx_msgs++;
        m->count.eager_msgs++;
        m->count.eager_bytes += len;
    }
}

/* Hands f to the provider: 0, or -EAGAIN with f untouched. */
static int post(struct btl_ofi_frag *f)
{
    struct btl_ofi_peer *p = f->peer;
    struct btl_ofi_module *m = p->m;
    size_t len = f->desc.len;
    ssize_t rc;

    if (p->await_hello || fenced(p))
        return -EAGAIN;
    if (len <= m->inject && !p->suspect) {
        rc = tx(m, f->desc.buf, len, 0, NULL, p->addr);
        if (!rc) {
            m->count.inject_msgs++;
            frag_put(m, f);
        }
    } else {
        rc = tx(m, f->desc.buf, len, 0, &f->op.ctx, p->addr);
        if (!rc)
            m->outstanding++;
    }
    if (rc == -FI_EAGAIN) {
        m->count.eagain++;
        return -EAGAIN;
    }
    if (rc) {
        send_failed(p, len, rc);
        frag_put(m, f);
        return 0;
    }
    sent(p, len);
    return 0;
}

/* An empty message with our word: a hello (0) or a goodbye. It passes
 * queued sends. 0, or -EAGAIN from the provider. */
int btl_ofi_send_empty(struct btl_ofi_peer *p, uint32_t word)
{
    struct btl_ofi_module *m = p->m;
    ssize_t rc;

    if (fenced(p))
        return -EAGAIN;
    rc = tx(m, m->inject_buf, 0, word, NULL, p->addr);
    if (rc == -FI_EAGAIN) {
        m->count.eagain++;
        return -EAGAIN;
    }
    if (rc)
        send_failed(p, 0, rc);
    sent(p, 0);
    return 0;
}

int btl_ofi_sendi(struct btl_endpoint *ep, const void *hdr, size_t hlen, const void *data,
                  size_t dlen)
{
    struct btl_ofi_peer *p = (struct btl_ofi_peer *)ep;
    struct btl_ofi_module *m = p->m;
    size_t len = hlen + dlen;
    struct btl_ofi_frag *f;
    ssize_t rc;

    /* Behind queued sends: going first would reorder more than the
     * provider does. */
    if (p->qhead || p->await_hello || fenced(p))
        return -EAGAIN;
    if (len <= m->inject && !p->suspect) {
        memcpy(m->inject_buf, hdr, hlen);
        if (dlen)
            memcpy(m->inject_buf + hlen, data, dlen);
        rc = tx(m, m->inject_buf, len, 0, NULL, p->addr);
        if (rc == -FI_EAGAIN) {
            m->count.eagain++;
            return -EAGAIN;
        }
        if (rc) {
            send_failed(p, len, rc);
            return (int)rc;
        }
        m->count.inject_msgs++;
        sent(p, len);
        return 0;
    }
    if (len > m->base.sendi_limit)
        return -EMSGSIZE;
    if (!(f = frag_get(m)))
        return -EAGAIN;
    memcpy(f->desc.buf, hdr, hlen);
    if (dlen)
        memcpy((uint8_t *)f->desc.buf + hlen, data, dlen);
    f->desc.len = len;
    f->peer = p;
    if (post(f)) {
        frag_put(m, f);
        return -EAGAIN;
    }
    return 0;
}

struct btl_desc *btl_ofi_alloc(struct btl_endpoint *ep, size_t len)
{
    struct btl_ofi_peer *p = (struct btl_ofi_peer *)ep;
    struct btl_ofi_frag *f;

    if (len > p->m->base.eager_limit || !(f = frag_get(p->m)))
        return NULL;
    f->peer = p;
    f->desc.len = len;
    return &f->desc;
}

void btl_ofi_send(struct btl_endpoint *ep, struct btl_desc *d)
{
    struct btl_ofi_peer *p = (struct btl_ofi_peer *)ep;
    struct btl_ofi_module *m = p->m;
    struct btl_ofi_frag *f =
        (struct btl_ofi_frag *)((char *)d - offsetof(struct btl_ofi_frag, desc));

    if (!p->qhead && post(f) == 0)
        return;
    if (!p->qhead) {
        p->next_busy = m->busy;
        m->busy = p;
        btl_ofi_slow(m);
    }
    f->next = NULL;
    *p->qtail = f;
    p->qtail = &f->next;
}

/* Posts each busy peer's queue in order until the provider refuses. */
int btl_ofi_retry_sends(struct btl_ofi_module *m)
{
    struct btl_ofi_peer **pp = &m->busy;
    int n = 0;

    while (*pp) {
        struct btl_ofi_peer *p = *pp;

        while (p->qhead) {
            struct btl_ofi_frag *f = p->qhead, *next = f->next;

            if (post(f))
                break;
            p->qhead = next;
            n++;
        }
        if (p->qhead) {
            pp = &p->next_busy;
            continue;
        }
        p->qtail = &p->qhead;
        *pp = p->next_busy;
    }
    return n;
}

void btl_ofi_send_done(struct btl_ofi_frag *f)
{
    struct btl_ofi_module *m = f->peer->m;

    m->outstanding--;
    frag_put(m, f);
}
