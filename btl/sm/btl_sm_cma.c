/* btl/sm single copy: get and put are process_vm_readv/writev on the peer's
 * pid (cross-memory attach). Addresses are plain virtual addresses, so
 * registration has nothing to do. A put longer than put_limit is queued
 * and written one put_limit chunk per progress call: the pml starts the
 * sender's half of a split rendezvous from a ring callback, and a 32 MiB
 * copy there would hold every other peer's messages for milliseconds. */
#include "config.h"

#include "btl_sm.h"
#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* Reads the nonce of the peer's segment through its pid and compares it
 * with our own mapping: this proves both the permission and that the pid
 * names the process that owns the segment (not so across pid namespaces). */
int btl_sm_cma_probe(const struct btl_sm_out *o, uint64_t seg_addr)
{
    uint64_t nonce = 0;
    struct iovec l = {&nonce, sizeof(nonce)};
    struct iovec r = {(void *)(uintptr_t)(seg_addr + offsetof(struct btl_sm_seg, nonce)),
                      sizeof(nonce)};
    ssize_t n = process_vm_readv(o->pid, &l, 1, &r, 1, 0);

    if (n < 0)
        return -errno;
    if (n != (ssize_t)sizeof(nonce) || nonce != ((const struct btl_sm_seg *)o->seg)->nonce)
        return -ESRCH;
    return 0;
}

/* The kernel may copy less than asked (a fault part way, or a very large
 * request), so loop until done. ESRCH says the peer process is gone: the
 * pml hears it through the error callback. */
static int cma_copy(const struct btl_sm_out *o, void *local, uint64_t raddr, size_t len, int write)
{
    while (len) {
        struct iovec l = {local, len}, r = {(void *)(uintptr_t)raddr, len};
        ssize_t n = write ? process_vm_writev(o->pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(o->pid, &l, 1, &r, 1, 0);

        if (n <= 0) {
            int rc = n < 0 ? -errno : -EFAULT;

            if (rc == -ESRCH)
                return btl_error(&btl_sm_module, o->world, rc,
                                 "btl/sm: %s %zu bytes of rank %d failed: its process %d is gone",
                                 write ? "writing" : "reading", len, o->world, (int)o->pid);
            rt_warn("btl/sm: %s %zu bytes at %#" PRIx64 " of rank %d (pid %d) failed: %s",
                    write ? "process_vm_writev of" : "process_vm_readv of", len, raddr, o->world,
                    (int)o->pid, strerror(-rc));
            return rc;
        }
        local = (char *)local + n;
        raddr += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

int btl_sm_get(struct btl_endpoint *ep, void *local, struct btl_reg *lreg, uint64_t raddr,
               const void *rkey, size_t len, btl_rdma_fn cb, void *ctx)
{
    int rc;

    (void)lreg;
    (void)rkey;
    if (!btl_sm.cma)
        return -ENOTSUP;
    if ((rc = cma_copy((const struct btl_sm_out *)ep, local, raddr, len, 0)))
        return rc;
    btl_sm.reads++;
    btl_sm.read_bytes += len;
    cb(ctx, 0);
    return 0;
}

/* A queued put: what is left of it. */
struct btl_sm_put {
    struct btl_sm_put *next;
    const struct btl_sm_out *o;
    const char *local;
    uint64_t raddr;
    size_t left, len;
    btl_rdma_fn cb;
    void *ctx;
};

int btl_sm_put(struct btl_endpoint *ep, const void *local, struct btl_reg *lreg, uint64_t raddr,
               const void *rkey, size_t len, btl_rdma_fn cb, void *ctx)
{
    struct btl_sm_put *p;
    int rc;

    (void)lreg;
    (void)rkey;
    if (!btl_sm.cma)
        return -ENOTSUP;
    if (len > btl_sm_module.put_limit) {
        if (!(p = malloc(sizeof(*p))))
            return -ENOMEM;
        *p = (struct btl_sm_put){.o = (const struct btl_sm_out *)ep,
                                 .local = local,
                                 .raddr = raddr,
                                 .left = len,
                                 .len = len,
                                 .cb = cb,
                                 .ctx = ctx};
        *(btl_sm.puts ? &btl_sm.puts_tail->next : &btl_sm.puts) = p;
        btl_sm.puts_tail = p;
        return 0;
    }
    if ((rc = cma_copy((const struct btl_sm_out *)ep, (void *)local, raddr, len, 1)))
        return rc;
    btl_sm.writes++;
    btl_sm.write_bytes += len;
    cb(ctx, 0);
    return 0;
}

/* Writes the next chunk of the oldest queued put; 1 when it did any work.
 * The put completes (or fails) through its callback. */
int btl_sm_put_progress(void)
{
    struct btl_sm_put *p = btl_sm.puts;
    size_t n;
    int rc;

    if (!p)
        return 0;
    n = p->left < btl_sm_module.put_limit ? p->left : btl_sm_module.put_limit;
    rc = cma_copy(p->o, (void *)p->local, p->raddr, n, 1);
    p->local += n;
    p->raddr += n;
    p->left -= n;
    if (!rc && p->left)
        return 1;
    btl_sm.puts = p->next;
    if (!rc) {
        btl_sm.writes++;
        btl_sm.write_bytes += p->len;
    }
    p->cb(p->ctx, rc);
    free(p);
    return 1;
}

/* The address is the key: nothing to pin, no state (reg stays NULL). */
int btl_sm_register(struct btl_module *btl, void *base, size_t len, struct btl_reg **reg,
                    void *rkey, uint64_t *raddr)
{
    (void)btl;
    (void)len;
    (void)rkey;
    *reg = NULL;
    *raddr = (uint64_t)(uintptr_t)base;
    return 0;
}

void btl_sm_deregister(struct btl_module *btl, struct btl_reg *reg)
{
    (void)btl;
    (void)reg;
}
