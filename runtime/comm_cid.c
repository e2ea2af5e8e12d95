/* Context ids: each process keeps a bitmap of the ids its communicators
 * use; creating a communicator ANDs the members' free maps (a binomial
 * reduce to the first member, then a broadcast back) and takes the lowest
 * id free everywhere, so an id is never reused while any member still has
 * a communicator with it. Ids 0 and 1 are MPI_COMM_WORLD and MPI_COMM_SELF. */
#include "comm.h"

#include <string.h>

#define CID_MAX 16384
#define CID_WORDS (CID_MAX / 32)

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

int rt_comm_bcast(struct rdmpi_comm *over, const int *members, int n, int me, int tag,
                  void *buf, size_t len)
{
    int err, d;

    if (me) {
        d = lowbit(me);
        if ((err = pml_comm_sendrecv(over, NULL, 0, MPI_PROC_NULL, buf, len,
                                     member(members, me - d), tag)))
            return err;
    } else {
        for (d = 1; d < n; d <<= 1)
            ;
    }
    for (d >>= 1; d > 0; d >>= 1)
        if (me + d < n && (err = pml_comm_sendrecv(over, buf, len, member(members, me + d),
                                                   NULL, 0, MPI_PROC_NULL, tag)))
            return err;
    return MPI_SUCCESS;
}

static int reduce_band(struct rdmpi_comm *over, const int *members, int n, int me, int tag,
                       uint32_t *mask)
{
    uint32_t in[CID_WORDS];
    int err;

    for (int d = 1; d < n; d <<= 1) {
        if (me & d)
            return pml_comm_sendrecv(over, mask, sizeof(in), member(members, me - d), NULL, 0,
                                     MPI_PROC_NULL, tag);
        if (me + d < n) {
            if ((err = pml_comm_sendrecv(over, NULL, 0, MPI_PROC_NULL, in, sizeof(in),
                                         member(members, me + d), tag)))
                return err;
            for (int w = 0; w < CID_WORDS; w++)
                mask[w] &= in[w];
        }
    }
    return MPI_SUCCESS;
}

int rt_cid_agree(struct rdmpi_comm *over, const int *members, int n, int me, int tag,
                 struct rdmpi_comm *bridge, int bridge_peer, int btag, int keep,
                 uint32_t *cid)
{
    uint32_t mask[CID_WORDS], theirs[CID_WORDS];
    int err;

    for (int w = 0; w < CID_WORDS; w++)
        mask[w] = ~used[w];
    if ((err = reduce_band(over, members, n, me, tag, mask)))
        return err;
    if (me == 0 && bridge) {
        if ((err = pml_comm_sendrecv(bridge, mask, sizeof(mask), bridge_peer, theirs,
                                     sizeof(theirs), bridge_peer, btag)))
            return err;
        for (int w = 0; w < CID_WORDS; w++)
            mask[w] &= theirs[w];
    }
    if ((err = rt_comm_bcast(over, members, n, me, tag, mask, sizeof(mask))))
        return err;
    for (int w = 0; w < CID_WORDS; w++) {
        if (mask[w]) {
            *cid = (uint32_t)w * 32 + (uint32_t)__builtin_ctz(mask[w]);
            if (keep)
                reserve(*cid);
            return MPI_SUCCESS;
        }
    }
    return MPI_ERR_INTERN;
}
