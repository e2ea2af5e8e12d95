/* The shared segment of a communicator whose ranks are all on this host.
 * Rank 0 creates it and names it to the others; each maps it and says
 * whether that worked; rank 0 then unlinks it (a crash from here on leaves
 * nothing in /dev/shm) and tells everyone whether to use it. All three
 * rounds are messages on one collective tag, inside the collective call
 * that every rank reaches as its COLL_SHM_AFTER-th. */
#include "coll_shm.h"
#include "param.h"
#include "shm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

RT_PARAM(p_shm, "COLL_SHM", RT_PARAM_BOOL, "1",
         "Small blocking collectives (barrier, bcast, reduce, allreduce, allgather, alltoall, "
         "allgatherv, alltoallv, alltoallw, gather(v), scatter(v), reduce_scatter) "
         "on a communicator whose ranks share a host go through a shared segment instead of "
         "messages")
RT_PARAM(p_after, "COLL_SHM_AFTER", RT_PARAM_INT, "16",
         "Blocking collectives a communicator runs by messages before it sets up its shared "
         "segment (so short-lived communicators never make one)")
RT_PARAM(p_max, "COLL_SHM_MAX", RT_PARAM_SIZE, "16k",
         "Largest contribution of one rank (bytes; for alltoall all its blocks) the shared "
         "segment carries in one piece; with a core per rank allreduces stop at 4096 (beyond "
         "that messages measured faster) and reduces to a root at 8 KiB; large "
         "communicators get less (a segment's slots carry at most 4 MiB)")

/* Data a segment's slots carry at most (their headers come on top, so
 * that a 4-rank segment holds 16 whole 64 KiB pieces: a 1 MiB bcast). */
#define BUDGET (4u << 20)
#define NEVER  UINT32_MAX

RT_PARAM(p_max_over, "COLL_SHM_MAX_OVERSUB", RT_PARAM_SIZE, "64k",
         "When ranks outnumber cores, slots hold up to this many bytes (within the segment's "
         "4 MiB): larger pieces, fewer switches between ranks")
RT_PARAM(p_piece_max, "COLL_SHM_PIECE_MAX", RT_PARAM_SIZE, "1m",
         "When ranks outnumber cores, a bcast moving up to this many bytes (and no more than "
         "the slots hold at once) goes through the "
         "shared segment in slot-sized pieces, an allgather or alltoall up to n/2 slots per "
         "rank (with a core per rank, single-copy reads measured faster above one slot, or "
         "two for a bcast on 2 ranks)")

RT_PARAM(p_reduce_max, "COLL_SHM_REDUCE_MAX", RT_PARAM_SIZE, "1m",
         "When ranks outnumber cores, allreduces up to this size (and no more than a bcast "
         "through the slots carries) go through the shared segment in pieces, as a reduce to "
         "rank 0 and a bcast, and reduces to a root at any size; larger allreduces read each "
         "other's buffers (with a core per rank: reduces to a root up to 16 KiB, allreduces "
         "up to 4096 bytes in one piece)")

RT_PARAM(p_direct, "COLL_SHM_DIRECT", RT_PARAM_BOOL, "1",
         "Blocking allreduce (when ranks outnumber cores), and two-rank reduce, allgather "
         "and alltoall, too large for the shared segment's slots read the other ranks' "
         "buffers directly (single copy), their addresses passed through the segment, "
         "instead of exchanging messages")

/* What each rank tells rank 0 it can do. */
enum { CAN_MAP = 1, CAN_READ = 2 };

/* Rank 0's first message. */
struct shm_offer {
    uint64_t size, max, piece_max, reduce_max;
    char name[200]; /* empty: no segment */
};

static bool all_local(const struct rdmpi_comm *c)
{
    for (int r = 0; r < c->size; r++) {
        int w = rt_comm_world_rank(c, r), i;

        for (i = 0; i < rt.local_size && rt.local_peers[i] != w; i++)
            ;
        if (i == rt.local_size && w != rt.rank)
            return false;
    }
    return true;
}

/* Every other rank's memory can be read and written by get and put with
 * no registration. */
static bool can_read(const struct rdmpi_comm *c)
{
    if (!rt_param_bool(&p_direct))
        return false;
    for (int r = 0; r < c->size; r++)
        if (r != c->rank && !pml_direct_ok(rt_comm_world_rank(c, r)))
            return false;
    return true;
}

/* Populated now: a slot's first use would otherwise fault its pages in,
 * in the writer and the reader, several microseconds each. Quiet: a
 * communicator without the segment runs its collectives on messages. */
static void *map(const char *name, size_t size, bool create)
{
    struct rt_shm m;
    int flags = RT_SHM_POPULATE | RT_SHM_QUIET;

    if (create ? rt_shm_create(&m, "coll", name, size, flags,
                               "RDMPI_COLL_SHM_MAX lowers the need, RDMPI_COLL_SHM=0 avoids it")
               : rt_shm_attach(&m, "coll", name, size, flags))
        return NULL;
    return m.base;
}

/* Rank 0: make the segment and fill in the offer (name empty on failure). */
static void *offer(struct rdmpi_comm *c, struct shm_offer *o)
{
    size_t max = rt_param_size(&p_max), fit = BUDGET / ((size_t)c->size * COLL_SHM_SLOTS);
    void *p;

    if (coll_oversubscribed && rt_param_size(&p_max_over) > max)
        max = rt_param_size(&p_max_over);
    if (max > fit)
        max = fit & ~(size_t)(COLL_SHM_LINE - 1);

    o->max = max;
    o->piece_max = coll_oversubscribed ? rt_param_size(&p_piece_max) : 0;
    if (o->piece_max < max)
        o->piece_max = max;
    o->reduce_max = coll_oversubscribed ? rt_param_size(&p_reduce_max) : COLL_SHM_REDUCE_MAX;
    o->size =
        (size_t)c->size * COLL_SHM_LINE + (size_t)c->size * COLL_SHM_SLOTS * COLL_SHM_STRIDE(max);
    o->name[0] = 0;
    if (rt_shm_name(o->name, sizeof(o->name), ".coll%u.%d", c->cid, rt.rank)) {
        o->name[0] = 0;
        return NULL;
    }
    if (!(p = map(o->name, o->size, true)))
        o->name[0] = 0;
    return p;
}

static void setup(struct rdmpi_comm *c)
{
    bool ok = c->size <= COLL_SHM_MAX_RANKS && !c->inter && rt_param_bool(&p_shm) && all_local(c);
    int tag = coll_comm_next_tag(c), n = c->size;
    struct shm_offer o;
    struct coll_shm *s;
    uint8_t mine, all;
    void *p = NULL;

    memset(&o, 0, sizeof(o));
    if (c->rank == 0) {
        if (ok)
            p = offer(c, &o);
        all = o.name[0] ? CAN_MAP | (can_read(c) ? CAN_READ : 0) : 0;
        for (int r = 1; r < n; r++)
            rt_comm_sendrecv(c, &o, sizeof(o), r, NULL, 0, MPI_PROC_NULL, tag);
        for (int r = 1; r < n; r++) {
            if (rt_comm_sendrecv(c, NULL, 0, MPI_PROC_NULL, &mine, 1, r, tag))
                mine = 0;
            all &= mine;
        }
        rt_shm_unlink("coll", o.name);
        for (int r = 1; r < n; r++)
            rt_comm_sendrecv(c, &all, 1, r, NULL, 0, MPI_PROC_NULL, tag);
    } else {
        if (rt_comm_sendrecv(c, NULL, 0, MPI_PROC_NULL, &o, sizeof(o), 0, tag))
            o.name[0] = 0;
        if (ok && o.name[0])
            p = map(o.name, o.size, false);
        mine = p ? CAN_MAP | (can_read(c) ? CAN_READ : 0) : 0;
        rt_comm_sendrecv(c, &mine, 1, 0, NULL, 0, MPI_PROC_NULL, tag);
        if (rt_comm_sendrecv(c, NULL, 0, MPI_PROC_NULL, &all, 1, 0, tag))
            all = 0;
    }
    coll_comm(c)->shm_calls = NEVER;
    if (!(all & CAN_MAP) || !(s = calloc(1, sizeof(*s) + (size_t)n * sizeof(int)))) {
        if (p)
            munmap(p, o.size);
        rt_info(2, "coll: %s keeps its collectives on messages (no shared segment)", c->name);
        return;
    }
    s->base = p;
    s->size = o.size;
    s->max = o.max;
    s->piece_max = o.piece_max;
    s->reduce_max = o.reduce_max;
    s->n = n;
    s->me = c->rank;
    s->direct = all & CAN_READ;
    for (int r = 0; r < n; r++)
        s->world[r] = rt_comm_world_rank(c, r);
    coll_comm(c)->shm = s;
    rt_info(2, "coll: %s: small collectives through a %zu KiB shared segment%s", c->name,
            o.size >> 10, s->direct ? ", larger ones by reading each other's buffers" : "");
}

struct coll_shm *coll_shm_get(struct rdmpi_comm *c)
{
    static int after = -1;
    struct coll_comm *cc = coll_comm(c);

    if (RT_LIKELY(cc->shm != NULL))
        return cc->shm;
    if (cc->shm_calls == NEVER || c->size < 2)
        return NULL;
    if (after < 0)
        after = rt_param_int(&p_after);
    if (cc->shm_calls++ < (uint32_t)after)
        return NULL;
    setup(c);
    return cc->shm;
}

void coll_comm_release(struct rdmpi_comm *c)
{
    struct coll_comm *cc = coll_comm(c);
    struct coll_shm *s = cc->shm;

    if (!s)
        return;
    munmap(s->base, s->size);
    free(s);
    cc->shm = NULL;
}
