/* Direct access to a peer's memory for the layers above (collectives
 * through a shared segment, one-sided windows): whether the BTL reaching a
 * peer reads and writes its memory with no registration (BTL_CAP_DIRECT:
 * btl/sm with cross-memory attach, btl/self), and a blocking read or
 * write. */
#include "pml.h"

#include <errno.h>

bool pml_direct_ok(int wpeer)
{
    const struct btl_module *b = pml_peers[wpeer].btl;

    return b && (b->flags & BTL_CAP_DIRECT);
}

static void got(void *ctx, int status)
{
    *(int *)ctx = status ? status : 1;
}

int pml_rdma(int wpeer, void *local, uint64_t raddr, size_t len, bool write)
{
    struct pml_peer *p = &pml_peers[wpeer];
    unsigned spins = 0;

    while (len) {
        size_t lim = write ? p->btl->put_limit : p->btl->get_limit, n = len < lim ? len : lim;
        int done = 0, rc = write ? p->btl->put(p->ep, local, NULL, raddr, NULL, n, got, &done)
                                 : p->btl->get(p->ep, local, NULL, raddr, NULL, n, got, &done);

        if (rc == -EAGAIN) {
            if (!rt_progress())
                rt_progress_idle(&spins);
            continue;
        }
        while (!rc && !done)
            rt_progress();
        if (rc || done < 0)
            return rc ? rc : done;
        local = (char *)local + n;
        raddr += n;
        len -= n;
    }
    return 0;
}
