/* Context ids: each process keeps a bitmap of the ids its communicators
 * use; creating a communicator ANDs the members' free maps (a binomial
 * reduce to the first member, then a broadcast back) and takes the lowest
 * id free everywhere, so an id is never reused while any member still has
 * a communicator with it. Ids 0 and 1 are MPI_COMM_WORLD and MPI_COMM_SELF. */
#include "comm.h"

#include <string.h>

#define CID_MAX   16384
#define CID_WORDS (CID_MAX / 32)
_Static_assert(CID_WORDS == RT_CID_WORDS, "comm.h's RT_CID_WORDS is CID_MAX / 32");

static uint32_t used[CID_WORDS] = {3};

static void reserve(uint32_t cid)
{
    used[cid / 32] |= 1u << (cid % 32);
}

void rt_cid_release(uint32_t cid)
{
    if (cid > 1 && cid < CID_MAX)
        used[cid / 32] &= ~(1u << (cid % 32));
}

static int member(const int *members, int i)
{
    return members ? members[i] : i;
}

/* Lowest set bit of a nonzero int: the distance to a node's parent. */
static int lowbit(int i)
{
    return i & -i;
}

int rt_comm_bcast(struct rdmpi_comm *over, const int *members, int n, int me, int tag, void *buf,
                  size_t len)
{
    int err, d;

    if (me) {
        d = lowbit(me);
        if ((err = rt_comm_sendrecv(over, NULL, 0, MPI_PROC_NULL, buf, len, member(members, me - d),
                                    tag)))
            return err;
    } else {
        for (d = 1; d < n; d <<= 1)
            ;
    }
    for (d >>= 1; d > 0; d >>= 1)
        if (me + d < n && (err = rt_comm_sendrecv(over, buf, len, member(members, me + d), NULL, 0,
                                                  MPI_PROC_NULL, tag)))
            return err;
    return MPI_SUCCESS;
}

static int reduce_band(struct rdmpi_comm *over, const int *members, int n, int me, int tag,
                       uint32_t *mask)
{
    uint32_t in[CID_WORDS + 1];
    int err;

    for (int d = 1; d < n; d <<= 1) {
        if (me & d)
            return rt_comm_sendrecv(over, mask, sizeof(in), member(members, me - d), NULL, 0,
                                    MPI_PROC_NULL, tag);
        if (me + d < n) {
            if ((err = rt_comm_sendrecv(over, NULL, 0, MPI_PROC_NULL, in, sizeof(in),
                                        member(members, me + d), tag)))
                return err;
            for (int w = 0; w <= CID_WORDS; w++)
                mask[w] &= in[w];
        }
    }
    return MPI_SUCCESS;
}

/* Ids an agreement of this process has proposed and not yet confirmed
 * or dropped (several run at once under MPI_THREAD_MULTIPLE): no other
 * agreement offers or takes them meanwhile. */
static uint32_t pending[CID_WORDS];

static int is_set(const uint32_t *m, uint32_t id)
{
    return (m[id / 32] >> (id % 32)) & 1;
}

void rt_cid_free_mask(uint32_t *mask)
{
    for (int w = 0; w < CID_WORDS; w++)
        mask[w] = ~used[w] & ~pending[w];
    mask[CID_WORDS] = 0;
}

uint32_t rt_cid_pick(const uint32_t *mask, int spread, unsigned *seed)
{
    uint32_t lowest[16];
    int k = 0;

    for (int w = 0; w < CID_WORDS && k < 16; w++)
        for (uint32_t m = mask[w]; m && k < 16; m &= m - 1)
            lowest[k++] = (uint32_t)w * 32 + (uint32_t)__builtin_ctz(m);
    *seed = *seed * 1103515245u + 12345u;
    return !k ? UINT32_MAX : lowest[spread ? (*seed >> 16) % (unsigned)k : 0];
}

int rt_cid_hold(uint32_t c)
{
    if (is_set(used, c) || is_set(pending, c))
        return 0;
    pending[c / 32] |= 1u << (c % 32);
    return 1;
}

void rt_cid_unhold(uint32_t c)
{
    pending[c / 32] &= ~(1u << (c % 32));
}

void rt_cid_reserve(uint32_t c)
{
    reserve(c);
}

/* Each attempt is two rounds. First the members AND their free ids (less
 * the ones other agreements here hold pending) and the first member picks
 * one of those free everywhere: the lowest, or on a retry one of the
 * lowest 16 at random, so two agreements that keep meeting part. Then
 * each member holds it pending if it is still free there, and the members
 * AND their answers: if every one holds it, it is theirs, else all drop it
 * and try again. No agreement ever waits for another, so threads creating
 * communicators in different orders on different ranks cannot block each
 * other. */
/* The bridge of rt_cid_agree: the leaders swap over a communicator. */
struct comm_bridge {
    struct rdmpi_comm *c;
    int peer, tag;
};

static int comm_swap(void *ctx, const void *mine, void *theirs, size_t len)
{
    struct comm_bridge *b = ctx;

    return rt_comm_sendrecv(b->c, mine, len, b->peer, theirs, len, b->peer, b->tag);
}

int rt_cid_agree(struct rdmpi_comm *over, const int *members, int n, int me, int tag,
                 struct rdmpi_comm *bridge, int bridge_peer, int btag, int keep, uint32_t *cid)
{
    struct comm_bridge b = {bridge, bridge_peer, btag};

    return rt_cid_agree_swap(over, members, n, me, tag, bridge ? comm_swap : NULL, &b, keep, cid);
}

int rt_cid_agree_swap(struct rdmpi_comm *over, const int *members, int n, int me, int tag,
                      rt_cid_swap_fn swap, void *ctx, int keep, uint32_t *cid)
{
    uint32_t mask[CID_WORDS + 1];
    unsigned spins = 0, seed = (unsigned)rt.rank * 2654435761u ^ (unsigned)tag;
    int err;

    for (int attempt = 0;; attempt++) {
        uint32_t c = UINT32_MAX;
        int held = 0;

        rt_cid_free_mask(mask);
        if ((err = reduce_band(over, members, n, me, tag, mask)))
            return err;
        if (me == 0) {
            if (swap) { /* both leaders pick from the same ids */
                uint32_t theirs[CID_WORDS + 1];

                if ((err = swap(ctx, mask, theirs, sizeof(theirs))))
                    return err;
                for (int w = 0; w < CID_WORDS; w++)
                    mask[w] &= theirs[w];
            }
            /* Leaders of an intercommunicator must agree: no random there. */
            mask[CID_WORDS] = rt_cid_pick(mask, attempt && !swap, &seed);
        }
        if ((err = rt_comm_bcast(over, members, n, me, tag, mask, sizeof(mask))))
            return err;
        c = mask[CID_WORDS];
        if (c == UINT32_MAX)
            return MPI_ERR_INTERN; /* no id is free at every member */
        /* Second round: is c still free at every member? */
        held = rt_cid_hold(c);
        memset(mask, 0, sizeof(mask));
        mask[0] = (uint32_t)held;
        err = reduce_band(over, members, n, me, tag, mask);
        if (!err && me == 0 && swap) {
            uint32_t theirs[CID_WORDS + 1];

            err = swap(ctx, mask, theirs, sizeof(theirs));
            mask[0] &= theirs[0];
        }
        if (!err)
            err = rt_comm_bcast(over, members, n, me, tag, mask, sizeof(mask));
        if (held)
            rt_cid_unhold(c);
        if (err)
            return err;
        if (mask[0]) {
            *cid = c;
            if (keep)
                reserve(c);
            return MPI_SUCCESS;
        }
        rt_progress_idle(&spins);
    }
}
