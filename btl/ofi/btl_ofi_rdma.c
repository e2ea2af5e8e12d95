/* btl/ofi memory registration, RDMA read and RDMA write. Registration goes straight to
 * fi_mr_reg: providers that pin (verbs) keep their own cache, invalidated
 * by libfabric's memory monitor, and we install no hooks that could fight
 * it. Every mr_mode bit the provider returned is honoured here. */
#include "config.h"

#include "btl_ofi.h"
#include "log.h"
#include "rt.h"

#include <errno.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* What a failed registration of len bytes tells the user: the locked-
 * memory limit and how to raise it when the provider ran out of memory. */
void btl_ofi_reg_text(const struct btl_ofi_module *m, char *buf, size_t size, size_t len, int rc)
{
    struct rlimit rl;
    int n = snprintf(buf, size, "registering %zu bytes with %s failed: %s", len,
                     m->info->fabric_attr->prov_name, fi_strerror(-rc));

    if (rc != -FI_ENOMEM || n < 0 || (size_t)n >= size)
        return;
    if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
        snprintf(buf + n, size - (size_t)n,
                 ": the locked-memory limit is %llu KiB (ulimit -l); raise it with 'ulimit -l "
                 "unlimited', memlock in /etc/security/limits.conf, or LimitMEMLOCK= for a "
                 "systemd service",
                 (unsigned long long)rl.rlim_cur >> 10);
    else
        snprintf(buf + n, size - (size_t)n, " (out of memory, or a pinning limit of the device)");
}

/* A message's buffer could not be registered: say it once, loudly; the
 * pml copies that message instead. */
static void reg_failed(struct btl_ofi_module *m, size_t len, int rc)
{
    static int warned;
    char text[400];

    m->count.reg_errors++;
    btl_ofi_reg_text(m, text, sizeof(text), len, rc);
    if (!warned++)
        rt_warn("btl/ofi: %s; large messages use the copy pipeline instead", text);
    else
        rt_info(2, "btl/ofi: %s", text);
}

int btl_ofi_mr_reg(struct btl_ofi_module *m, void *buf, size_t len, uint64_t access,
                   struct fid_mr **mr)
{
    /* Without FI_MR_PROV_KEY we pick keys, and they must be unique within
     * the domain (a reused one is -FI_ENOKEY). */
    uint64_t key = (m->mr_mode & FI_MR_PROV_KEY) ? 0 : m->next_key++ & m->key_mask;
    int rc = fi_mr_reg(m->domain, buf, len, access, 0, key, 0, mr, NULL);

    if (rc)
        return rc;
    if (m->mr_mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(*mr, &m->ep->fid, 0)) || (rc = fi_mr_enable(*mr))) {
            btl_ofi_error(m, "binding a memory region to the endpoint", rc);
            fi_close(&(*mr)->fid);
            return rc;
        }
    }
    return 0;
}

/* Remote reads and writes as the BTL offers them: a rendezvous reads
 * the sender's buffer or writes the receiver's. Memory that cannot take
 * writes (a const send buffer on a read-only page: verbs refuses remote
 * write access to it) is registered for reads alone where there are
 * reads. */
int btl_ofi_register(struct btl_module *btl, void *base, size_t len, struct btl_reg **reg,
                     void *rkey, uint64_t *raddr)
{
    const uint64_t rd = (btl->flags & BTL_CAP_GET) ? FI_REMOTE_READ | FI_READ : 0,
                   wr = FI_REMOTE_WRITE | FI_WRITE;
    struct btl_ofi_module *m = btl_ofi_of(btl);
    struct btl_ofi_rkey k;
    struct btl_reg *r;
    int rc;

    if (!(r = malloc(sizeof(*r)))) {
        rt_warn("btl/ofi: out of memory for a registration");
        return -ENOMEM;
    }
    /* FI_READ and FI_WRITE as well: the pml may hand it back as the local
     * side of a read or a write. */
    rc = btl_ofi_mr_reg(m, base, len, (btl->flags & BTL_CAP_PUT) ? rd | wr : rd, &r->mr);
    if (rc && rd && (btl->flags & BTL_CAP_PUT))
        rc = btl_ofi_mr_reg(m, base, len, rd, &r->mr);
    if (rc) {
        reg_failed(m, len, rc);
        free(r);
        return btl_ofi_errno(rc);
    }
    k.key = fi_mr_key(r->mr);
    k.base = (m->mr_mode & FI_MR_VIRT_ADDR) ? 0 : (uint64_t)(uintptr_t)base;
    memcpy(rkey, &k, sizeof(k));
    *raddr = (uint64_t)(uintptr_t)base;
    *reg = r;
    return 0;
}

void btl_ofi_deregister(struct btl_module *btl, struct btl_reg *reg)
{
    (void)btl;
    if (!reg)
        return;
    fi_close(&reg->mr->fid);
    free(reg);
}

/* Where m->deliver is set, a write completes once the target placed it
 * (FI_DELIVERY_COMPLETE), not once it left (the default). tcp (its quirks
 * row says write_delivery) checks the key and range only at the target,
 * which closes the connection on a bad one; with completion at transmit
 * the write had already succeeded, the message after it (the pml's
 * PUTFIN, by fi_inject) was lost and both ranks waited forever. Waiting
 * for delivery makes that write fail (FI_ECANCELED): the peer is suspect
 * and the next send reports the dead connection. With several rails the
 * FIN may overtake a write on another connection, so every write waits.
 * A provider that refuses the flag gets plain writes from then on. */
static ssize_t write_one(struct btl_ofi_module *m, struct btl_ofi_peer *p, void *local, size_t len,
                         void *desc, uint64_t addr, uint64_t key, void *ctx)
{
    struct iovec iov = {local, len};
    struct fi_rma_iov riov = {addr, len, key};
    struct fi_msg_rma msg = {&iov, &desc, 1, p->addr, &riov, 1, ctx, 0};
    ssize_t rc;

    if (!m->deliver)
        return fi_writemsg(m->ep, &msg, FI_COMPLETION);
    rc = fi_writemsg(m->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
    if (rc == -FI_EBADFLAGS) {
        rt_info(2,
                "btl/ofi: %s refuses FI_DELIVERY_COMPLETE on writes; a write to a bad "
                "address may then go unnoticed",
                m->info->fabric_attr->prov_name);
        m->deliver = 0;
        rc = fi_writemsg(m->ep, &msg, FI_COMPLETION);
    }
    return rc;
}

/* Starts one fi_read (into local) or fi_write (from local) of len bytes
 * at the peer's raddr. Without FI_MR_VIRT_ADDR the provider addresses
 * offsets into the region, so the key's base comes off raddr. */
static int rma_start(struct btl_ofi_peer *p, enum btl_ofi_kind kind, void *local,
                     struct btl_reg *lreg, uint64_t raddr, const void *rkey, size_t len,
                     btl_rdma_fn cb, void *ctx)
{
    const int write = kind == BTL_OFI_WRITE;
    const char *what = write ? "write" : "read";
    struct btl_ofi_module *m = p->m;
    struct btl_ofi_read *r = m->free_reads;
    struct btl_ofi_rkey k;
    void *desc = NULL;
    ssize_t rc;

    if (!r) {
        m->count.eagain++;
        return -EAGAIN;
    }
    memcpy(&k, rkey, sizeof(k));
    r->lmr = NULL;
    /* FI_MR_LOCAL: the local buffer needs a descriptor too. */
    if (m->mr_mode & FI_MR_LOCAL) {
        if (lreg) {
            desc = fi_mr_desc(lreg->mr);
        } else if ((rc = btl_ofi_mr_reg(m, local, len, write ? FI_WRITE : FI_READ, &r->lmr))) {
            reg_failed(m, len, (int)rc);
            return btl_ofi_errno(rc);
        } else {
            desc = fi_mr_desc(r->lmr);
        }
    }
    rc = write ? write_one(m, p, local, len, desc, raddr - k.base, k.key, &r->op.ctx)
               : fi_read(m->ep, local, len, desc, p->addr, raddr - k.base, k.key, &r->op.ctx);
    if (rc) {
        if (r->lmr)
            fi_close(&r->lmr->fid);
        if (rc == -FI_EAGAIN) {
            m->count.eagain++;
            return -EAGAIN;
        }
        char why[200];

        rt_warn("btl/ofi: an RDMA %s of %zu bytes %s rank %d failed to start: %s "
                "(provider %s); %s",
                what, len, write ? "to" : "from", p->world, fi_strerror((int)-rc),
                m->info->fabric_attr->prov_name, btl_ofi_cause(p, (int)-rc, why, sizeof(why)));
        if (write)
            m->count.write_errors++;
        else
            m->count.read_errors++;
        return btl_ofi_errno(rc);
    }
    m->free_reads = r->next;
    r->op.kind = kind;
    r->cb = cb;
    r->cbctx = ctx;
    r->len = len;
    r->peer = p;
    m->outstanding++;
    if (write) {
        m->count.writes++;
        m->count.write_bytes += len;
    } else {
        p->reads++;
        m->count.reads++;
        m->count.read_bytes += len;
    }
    return 0;
}

int btl_ofi_get(struct btl_endpoint *ep, void *local, struct btl_reg *lreg, uint64_t raddr,
                const void *rkey, size_t len, btl_rdma_fn cb, void *ctx)
{
    return rma_start((struct btl_ofi_peer *)ep, BTL_OFI_READ, local, lreg, raddr, rkey, len, cb,
                     ctx);
}

/* The write's completion means the data is at the peer (libfabric's
 * default FI_TRANSMIT_COMPLETE on a reliable endpoint) and a message sent
 * after it is not seen before the data: rxm over tcp keeps one ordered
 * stream per pair, verbs RC orders a send behind earlier writes, shm
 * writes before it completes. So the pml's FIN after the last write's
 * callback is safe. */
int btl_ofi_put(struct btl_endpoint *ep, const void *local, struct btl_reg *lreg, uint64_t raddr,
                const void *rkey, size_t len, btl_rdma_fn cb, void *ctx)
{
    return rma_start((struct btl_ofi_peer *)ep, BTL_OFI_WRITE, (void *)local, lreg, raddr, rkey,
                     len, cb, ctx);
}

/* The slot is free again before the callback, which may issue the next
 * read or write at once. */
void btl_ofi_rma_done(struct btl_ofi_read *r, int status)
{
    struct btl_ofi_module *m = r->peer->m;
    btl_rdma_fn cb = r->cb;
    void *ctx = r->cbctx;

    if (r->lmr)
        fi_close(&r->lmr->fid);
    r->lmr = NULL;
    r->next = m->free_reads;
    m->free_reads = r;
    m->outstanding--;
    if (r->op.kind == BTL_OFI_READ)
        r->peer->reads--;
    cb(ctx, status);
}
