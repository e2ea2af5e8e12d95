/* btl/sm rings made on first use: only pairs that talk have one, so the
 * shared memory a process maps grows with the peers it talks to, not with
 * the local ranks.
 *
 * Ring A->B is a /dev/shm object of its own, named after A's segment and
 * B's world rank, made by A (its writer) on its first message to B: A
 * creates and maps it, writes the message and raises its doorbell bit in
 * B's segment (btl_sm_notify). B, polling a bit whose ring it has not
 * mapped, maps the ring by that name and unlinks the name, so a running
 * job keeps in /dev/shm only the rings announced but not yet mapped. The
 * read index stays in B's segment (its control line for A), where A
 * already looks. */
#include "config.h"

#include "btl_sm.h"
#include "btl_sm_ring.h"
#include "log.h"
#include "rt.h"
#include "shm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The writer's side, from the first claim of ring space: 0, or the error
 * (rt_shm_create logged its details) reported through btl_error, so the
 * pml fails the peer's requests instead of retrying a send that cannot
 * go. The next claim tries again. */
int btl_sm_pair_create(struct btl_sm_out *o)
{
    size_t bytes = (size_t)o->nslots * BTL_SM_SLOT;
    struct rt_shm m;
    char name[NAME_MAX + 1];
    int rc;

    if ((rc = rt_shm_name(name, sizeof(name), ".%d.%d", rt.node_rank, o->world)) ||
        (rc = rt_shm_create(&m, "btl/sm", name, bytes, RT_SHM_POPULATE,
                            "RDMPI_SM_RING_BUDGET lowers the need")))
        return btl_error(&btl_sm_module, o->world, rc,
                         "btl/sm: cannot make the ring for messages to rank %d (%s); free "
                         "/dev/shm or lower RDMPI_SM_RING_BUDGET",
                         o->world, strerror(-rc));
    o->ring = m.base;
    btl_sm.ring_bytes += bytes;
    return 0;
}

/* The reader's side, from progress: ring i's bit came up and the ring is
 * not mapped yet. The writer made it before it raised the bit. A ring
 * that cannot be mapped is reported through btl_error and its bit taken
 * down, so progress does not retry on every poll (the writer's next
 * message raises it again, and the mapping is retried then); `lost` has
 * finalize unlink the name all the same. */
void btl_sm_pair_attach(int i)
{
    struct btl_sm_in *in = &btl_sm.in[i];
    size_t bytes = (size_t)in->nslots * BTL_SM_SLOT;
    char name[NAME_MAX + 1], who[32];
    struct rt_shm m;
    int rc;

    if (!in->seg_name) {
        rc = -ENOENT;
        btl_error(&btl_sm_module, in->world, rc,
                  "btl/sm: rank %d sends to this rank by shared memory, but this rank could "
                  "not attach its segment (see the warning above); RDMPI_BTL=^sm avoids sm",
                  in->world);
        goto failed;
    }
    snprintf(who, sizeof(who), "btl/sm: rank %d", in->world);
    if (snprintf(name, sizeof(name), "%s.%d", in->seg_name, rt.rank) >= (int)sizeof(name))
        rc = -ENAMETOOLONG;
    else
        rc = rt_shm_attach(&m, who, name, bytes, RT_SHM_POPULATE);
    if (rc) {
        btl_error(&btl_sm_module, in->world, rc,
                  "btl/sm: rank %d announced its ring to this rank, which cannot map it (%s)",
                  in->world, strerror(-rc));
        goto failed;
    }
    rt_shm_unlink("btl/sm", name);
    in->ring = m.base;
    btl_sm.active[btl_sm.nactive++] = i;
    btl_sm.ring_bytes += bytes;
    return;
failed:
    in->lost = 1;
    __atomic_fetch_and(&btl_sm.bell[i / BTL_SM_BELL_BITS], ~(1ull << (i % BTL_SM_BELL_BITS)),
                       __ATOMIC_RELAXED);
}

/* Every BTL_SM_SWEEP polls: an entry in a mapped ring whose bit is down
 * (the doorbell race of btl_sm_notify) gets its bit back. */
void btl_sm_pair_sweep(void)
{
    for (int k = 0; k < btl_sm.nactive; k++) {
        int i = btl_sm.active[k];
        struct btl_sm_in *in = &btl_sm.in[i];
        uint64_t *w = &btl_sm.bell[i / BTL_SM_BELL_BITS];
        uint64_t bit = 1ull << (i % BTL_SM_BELL_BITS);

        if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit) &&
            __atomic_load_n(btl_sm_slot(in->ring, in->r, in->nslots), __ATOMIC_RELAXED))
            __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
    }
    btl_sm.sweep = 0;
}

/* At finalize: unmaps both directions' rings, and unlinks the names of
 * rings announced to us that we never mapped (their writers leave that
 * to us). */
void btl_sm_pair_close(void)
{
    char name[NAME_MAX + 1];

    for (int i = 0; btl_sm.out && i < btl_sm.npeers; i++)
        if (btl_sm.out[i].ring)
            munmap(btl_sm.out[i].ring, (size_t)btl_sm.out[i].nslots * BTL_SM_SLOT);
    for (int i = 0; btl_sm.in && i < btl_sm.npeers; i++) {
        struct btl_sm_in *in = &btl_sm.in[i];

        if (in->ring)
            munmap(in->ring, (size_t)in->nslots * BTL_SM_SLOT);
        else if (in->seg_name &&
                 (in->lost ||
                  __atomic_load_n(&btl_sm.bell[i / BTL_SM_BELL_BITS], __ATOMIC_ACQUIRE) &
                      1ull << (i % BTL_SM_BELL_BITS)) &&
                 snprintf(name, sizeof(name), "%s.%d", in->seg_name, rt.rank) < (int)sizeof(name))
            rt_shm_unlink("btl/sm", name);
        free(in->seg_name);
    }
}
