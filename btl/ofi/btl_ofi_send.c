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

static struct btl_ofi_frag *frag_get(void)
{
    struct btl_ofi_frag *f = btl_ofi.free_frags;

    if (f)
        btl_ofi.free_frags = f->next;
    return f;
}

static void frag_put(struct btl_ofi_frag *f)
{
    f->next = btl_ofi.free_frags;
    btl_ofi.free_frags = f;
}

/* The likely cause of a failed operation with peer p, as the end of a
 * message: the device went away (deleted, driver unloaded, port down),
 * or the peer died. */
const char *btl_ofi_cause(const struct btl_ofi_peer *p, int err, char *buf, size_t len)
{
    if (err == FI_ENODEV || err == FI_ENETDOWN)
        snprintf(buf, len,
                 "the RDMA device %s went away or its port is down (removed with "
                 "rdma link or modprobe -r, or the link was lost)",
                 btl_ofi.info->domain_attr->name);
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
    char why[200];

    if (btl_ofi.closing) {
        rt_info(2, "btl/ofi: a %zu-byte send to rank %d failed at finalize: %s", len, p->world,
                fi_strerror((int)-rc));
        return;
    }
    btl_error(&btl_ofi_module, p->world, btl_ofi_errno(rc),
              "btl/ofi: a %zu-byte send to rank %d failed: %s (provider %s); %s", len, p->world,
              fi_strerror((int)-rc), btl_ofi.info->fabric_attr->prov_name,
              btl_ofi_cause(p, (int)-rc, why, sizeof(why)));
}

/* Hands the provider len pml bytes at buf with our word w: as remote CQ
 * data, or written into the prefix room just before buf. Without ctx the
 * message is injected (no completion). */
static ssize_t tx(uint8_t *buf, size_t len, uint64_t w, void *ctx, fi_addr_t to)
{
    if (btl_ofi.prefix) {
        memcpy(buf - BTL_OFI_PREFIX, &w, sizeof(w));
        buf -= BTL_OFI_PREFIX;
        len += BTL_OFI_PREFIX;
        return ctx ? fi_send(btl_ofi.ep, buf, len, btl_ofi.pool_desc, to, ctx)
                   : fi_inject(btl_ofi.ep, buf, len, to);
    }
    return ctx ? fi_senddata(btl_ofi.ep, buf, len, btl_ofi.pool_desc, w, to, ctx)
               : fi_injectdata(btl_ofi.ep, buf, len, w, to);
}

/* A read from p is in flight where sends must not pass it (read_fence in
 * btl_ofi_component.c): the send waits, queued or handed back. */
static int fenced(const struct btl_ofi_peer *p)
{
    if (RT_LIKELY(!p->reads || !btl_ofi.read_fence))
        return 0;
    btl_ofi.count.fenced++;
    return 1;
}

/* The provider took a message to p; pml messages are counted for the
 * goodbye. */
static void sent(struct btl_ofi_peer *p, size_t len)
{
    p->used = 1;
    if (len) {
        p->tx_msgs++;
        btl_ofi.count.eager_msgs++;
        btl_ofi.count.eager_bytes += len;
    }
}

/* Hands f to the provider: 0, or -EAGAIN with f untouched. */
static int post(struct btl_ofi_frag *f)
{
    struct btl_ofi_peer *p = f->peer;
    size_t len = f->desc.len;
    ssize_t rc;

    if (p->await_hello || fenced(p))
        return -EAGAIN;
    if (len <= btl_ofi.inject && !p->suspect) {
        rc = tx(f->desc.buf, len, 0, NULL, p->addr);
        if (!rc) {
            btl_ofi.count.inject_msgs++;
            frag_put(f);
        }
    } else {
        rc = tx(f->desc.buf, len, 0, &f->op.ctx, p->addr);
        if (!rc)
            btl_ofi.outstanding++;
    }
    if (rc == -FI_EAGAIN) {
        btl_ofi.count.eagain++;
        return -EAGAIN;
    }
    if (rc) {
        send_failed(p, len, rc);
        frag_put(f);
        return 0;
    }
    sent(p, len);
    return 0;
}

/* An empty message with our word: a hello (0) or a goodbye. It passes
 * queued sends. 0, or -EAGAIN from the provider. */
int btl_ofi_send_empty(struct btl_ofi_peer *p, uint32_t word)
{
    ssize_t rc;

    if (fenced(p))
        return -EAGAIN;
    rc = tx(btl_ofi.inject_buf, 0, word, NULL, p->addr);
    if (rc == -FI_EAGAIN) {
        btl_ofi.count.eagain++;
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
    size_t len = hlen + dlen;
    struct btl_ofi_frag *f;
    ssize_t rc;

    /* Behind queued sends: going first would reorder more than the
     * provider does. */
    if (p->qhead || p->await_hello || fenced(p))
        return -EAGAIN;
    if (len <= btl_ofi.inject && !p->suspect) {
        memcpy(btl_ofi.inject_buf, hdr, hlen);
        if (dlen)
            memcpy(btl_ofi.inject_buf + hlen, data, dlen);
        rc = tx(btl_ofi.inject_buf, len, 0, NULL, p->addr);
        if (rc == -FI_EAGAIN) {
            btl_ofi.count.eagain++;
            return -EAGAIN;
        }
        if (rc) {
            send_failed(p, len, rc);
            return (int)rc;
        }
        btl_ofi.count.inject_msgs++;
        sent(p, len);
        return 0;
    }
    if (len > btl_ofi_module.sendi_limit)
        return -EMSGSIZE;
    if (!(f = frag_get()))
        return -EAGAIN;
    memcpy(f->desc.buf, hdr, hlen);
    if (dlen)
        memcpy((uint8_t *)f->desc.buf + hlen, data, dlen);
    f->desc.len = len;
    f->peer = p;
    if (post(f)) {
        frag_put(f);
        return -EAGAIN;
    }
    return 0;
}

struct btl_desc *btl_ofi_alloc(struct btl_endpoint *ep, size_t len)
{
    struct btl_ofi_frag *f;

    if (len > btl_ofi_module.eager_limit || !(f = frag_get()))
        return NULL;
    f->peer = (struct btl_ofi_peer *)ep;
    f->desc.len = len;
    return &f->desc;
}

void btl_ofi_send(struct btl_endpoint *ep, struct btl_desc *d)
{
    struct btl_ofi_peer *p = (struct btl_ofi_peer *)ep;
    struct btl_ofi_frag *f =
        (struct btl_ofi_frag *)((char *)d - offsetof(struct btl_ofi_frag, desc));

    if (!p->qhead && post(f) == 0)
        return;
    if (!p->qhead) {
        p->next_busy = btl_ofi.busy;
        btl_ofi.busy = p;
    }
    f->next = NULL;
    *p->qtail = f;
    p->qtail = &f->next;
}

/* Posts each busy peer's queue in order until the provider refuses. */
int btl_ofi_retry_sends(void)
{
    struct btl_ofi_peer **pp = &btl_ofi.busy;
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
    btl_ofi.outstanding--;
    frag_put(f);
}
