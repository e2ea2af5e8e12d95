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
    uint32_t in[CID_WORDS + 1];
    int err;

    for (int d = 1; d < n; d <<= 1) {
        if (me & d)
            return pml_comm_sendrecv(over, mask, sizeof(in), member(members, me - d), NULL, 0,
                                     MPI_PROC_NULL, tag);
        if (me + d < n) {
            if ((err = pml_comm_sendrecv(over, NULL, 0, MPI_PROC_NULL, in, sizeof(in),
                                         member(members, me + d), tag)))
                return err;
            for (int w = 0; w <= CID_WORDS; w++)
                mask[w] &= in[w];
        }
    }
    return MPI_SUCCESS;
}

/* Agreements running in this process (several under MPI_THREAD_MULTIPLE),
 * by key: only the lowest key offers its free ids, and only while no
 * other offer is out (one that began before it arrived); the others offer
 * none and try again. Ids two agreements take thus never collide, and
 * the lowest key of the whole job soon offers at each of its members, so
 * it gets ids. */
#define MAX_AGREE 64
static uint64_t agreeing[MAX_AGREE];
static int nagreeing, offering;

static int lowest(uint64_t key)
{
    for (int i = 0; i < nagreeing; i++)
        if (agreeing[i] < key)
            return 0;
    return 1;
}

static void agree_done(uint64_t key)
{
    for (int i = 0; i < nagreeing; i++)
        if (agreeing[i] == key) {
            agreeing[i] = agreeing[--nagreeing];
            return;
        }
}

/* One round: AND the members' masks (and the remote group's, through
 * the bridge) and hand the result to every member. */
static int exchange(struct rdmpi_comm *over, const int *members, int n, int me, int tag,
                    struct rdmpi_comm *bridge, int bridge_peer, int btag, uint32_t *mask)
{
    uint32_t theirs[CID_WORDS + 1];
    int err;

    if ((err = reduce_band(over, members, n, me, tag, mask)))
        return err;
    if (me == 0 && bridge) {
        if ((err = pml_comm_sendrecv(bridge, mask, sizeof(theirs), bridge_peer, theirs,
                                     sizeof(theirs), bridge_peer, btag)))
            return err;
        for (int w = 0; w <= CID_WORDS; w++)
            mask[w] &= theirs[w];
    }
    return rt_comm_bcast(over, members, n, me, tag, mask, sizeof(theirs));
}

int rt_cid_agree(struct rdmpi_comm *over, const int *members, int n, int me, int tag,
                 struct rdmpi_comm *bridge, int bridge_peer, int btag, int keep,
                 uint32_t *cid)
{
    /* The last word says whether every member offered its ids. */
    uint32_t mask[CID_WORDS + 1];
    uint64_t key = (uint64_t)over->cid << 32 | (uint32_t)tag;
    unsigned spins = 0;
    int err;

    if (nagreeing == MAX_AGREE)
        return MPI_ERR_INTERN;
    agreeing[nagreeing++] = key;
    for (;;) {
        int offer = lowest(key) && !offering, got = 0;

        offering |= offer;
        for (int w = 0; w < CID_WORDS; w++)
            mask[w] = offer ? ~used[w] : 0;
        mask[CID_WORDS] = (uint32_t)offer;
        err = exchange(over, members, n, me, tag, bridge, bridge_peer, btag, mask);
        for (int w = 0; w < CID_WORDS && !err && !got; w++) {
            if (mask[w]) {
                *cid = (uint32_t)w * 32 + (uint32_t)__builtin_ctz(mask[w]);
                if (keep)
                    reserve(*cid);
                got = 1;
            }
        }
        if (offer)
            offering = 0;
        if (err || got)
            break;
        if (mask[CID_WORDS]) {
            err = MPI_ERR_INTERN;   /* every member offered, and no id is free */
            break;
        }
        rt_progress_idle(&spins);
    }
    agree_done(key);
    return err;
}
