/* btl/sm for processes added after connect (MPI_Comm_spawn, accept and
 * connect, join) that run on this host in another namespace: their
 * segments' doorbells and control lines count only their own job's local
 * ranks, so such a pair does not use them. Instead each process makes, for
 * each late peer, a late segment of its own that the peer writes into:
 * one header line (a struct btl_sm_seg nobody sleeps on), one control line
 * (our read index), one line for the writer's doorbell word (unread), and
 * from the next page a ring of BTL_SM_LATE_RING bytes. It is named
 * "<our card's name>.x.<writer namespace>.<writer rank>", so the writer
 * finds it from our card alone; we make it in add_peers, which every
 * process of both groups has finished before either sends (the connect
 * exchange agrees on that, runtime/dpm_conn.c), and the writer maps it on
 * its first message and unlinks the name. Progress polls the late rings
 * directly, and a process with late peers does not sleep in wait (their
 * writers cannot wake it). Single copy (CMA) follows the verdict of the
 * world's local peers; with none, late peers use the copy pipeline. */
#include "config.h"

#include "btl_sm.h"
#include "btl_sm_ring.h"
#include "log.h"
#include "modex.h"
#include "proc.h"
#include "request.h"
#include "shm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE      4096u
#define LATE_SIZE (PAGE + BTL_SM_LATE_RING)

static void *late_base(const uint8_t *ring)
{
    return (void *)(ring - PAGE);
}

/* The name of the late segment `reader_name` makes for writer (ns, rank). */
static int late_name(char *buf, size_t len, const char *reader_name, const char *ns, uint32_t rank)
{
    int n = snprintf(buf, len, "%s.x.%s.%u", reader_name, ns, rank);

    for (char *c = buf + strlen(reader_name); n > 0 && *c; c++)
        if (*c == '/')
            *c = '_';
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int grow_lists(void)
{
    if (!btl_sm.late_out) {
        btl_sm.late_out = rt_proc_array(sizeof(*btl_sm.late_out));
        btl_sm.late_in = rt_proc_array(sizeof(*btl_sm.late_in));
        if (!btl_sm.late_out || !btl_sm.late_in)
            return -ENOMEM;
    }
    if (btl_sm.nlate == btl_sm.late_cap) {
        int c = btl_sm.late_cap ? 2 * btl_sm.late_cap : 16;
        int *t = realloc(btl_sm.late, (size_t)c * sizeof(*t));

        if (!t)
            return -ENOMEM;
        btl_sm.late = t;
        btl_sm.late_cap = c;
    }
    return 0;
}

/* Our segment for writer idx: made, zeroed, its ring ready to read. */
static int make_in(int idx)
{
    struct btl_sm_in *in = &btl_sm.late_in[idx];
    char name[NAME_MAX + 1];
    struct btl_sm_seg *s;
    struct rt_shm m;
    int rc;

    if ((rc = late_name(name, sizeof(name), btl_sm.name, rt_proc_nspace(idx), rt_proc_rank(idx))))
        return rc;
    if ((rc = rt_shm_create(&m, "btl/sm", name, LATE_SIZE, RT_SHM_POPULATE,
                            "free /dev/shm, or RDMPI_BTL=^sm for processes started later")))
        return rc;
    s = m.base;
    s->version = BTL_SM_VERSION;
    s->nrings = 1;
    s->ring_bytes = BTL_SM_LATE_RING;
    __atomic_store_n(&s->magic, BTL_SM_MAGIC, __ATOMIC_RELEASE);
    *in = (struct btl_sm_in){.ring = (uint8_t *)m.base + PAGE,
                             .rpub = (uint32_t *)((char *)m.base + BTL_SM_LINE),
                             .nslots = BTL_SM_LATE_RING / BTL_SM_SLOT,
                             .world = idx,
                             .seg_name = strdup(name)};
    btl_sm.ring_bytes += BTL_SM_LATE_RING;
    return in->seg_name ? 0 : -ENOMEM;
}

int btl_sm_late_add(struct btl_module *btl, int first, int n, uint8_t *reach)
{
    int rc;

    if (!btl_sm.name[0])
        return 0; /* sm failed at init */
    /* No local world peer decided single copy: late peers copy. */
    if (!btl_sm.seg)
        btl->flags &= ~(uint32_t)(BTL_CAP_GET | BTL_CAP_PUT | BTL_CAP_DIRECT);
    for (int i = 0; i < n; i++) {
        int idx = first + i;
        struct btl_sm_card *c;
        struct btl_sm_out *o;
        size_t len;

        if (!rt_proc_is_local(idx) || rt_modex_get(idx, BTL_SM_CARD_KEY, (void **)&c, &len))
            continue;
        if (len != sizeof(*c) || c->version != BTL_SM_VERSION) {
            rt_info(1, "btl/sm: process %u of %s speaks btl/sm protocol %u: not by sm",
                    rt_proc_rank(idx), rt_proc_nspace(idx), len >= 4 ? c->version : 0);
            free(c);
            continue;
        }
        c->name[NAME_MAX] = 0;
        if ((rc = grow_lists()) || (rc = make_in(idx))) {
            free(c);
            return rc;
        }
        o = &btl_sm.late_out[idx];
        *o = (struct btl_sm_out){.nslots = BTL_SM_LATE_RING / BTL_SM_SLOT,
                                 .max_len = BTL_SM_LATE_RING / 2 - BTL_SM_HDR,
                                 .world = idx,
                                 .pid = (pid_t)c->pid,
                                 .late = 1};
        /* No ring yet: "full" sends the first claim to the slow path. */
        o->rcache = 0u - o->nslots;
        if (!(o->late_name = malloc(NAME_MAX + 1)) ||
            late_name(o->late_name, NAME_MAX + 1, c->name, rt.nspace, (uint32_t)rt.rank)) {
            free(c);
            return -ENOMEM;
        }
        free(c);
        btl_sm.late[btl_sm.nlate++] = idx;
        reach[i] = 1;
    }
    return 0;
}

/* The writer's first message: map the reader's segment for us. */
int btl_sm_late_attach(struct btl_sm_out *o)
{
    char *name = o->late_name, who[64];
    struct btl_sm_seg *s;
    struct rt_shm m;
    int rc;

    snprintf(who, sizeof(who), "btl/sm: process %u of %s", rt_proc_rank(o->world),
             rt_proc_nspace(o->world));
    if ((rc = rt_shm_attach(&m, who, name, LATE_SIZE, RT_SHM_POPULATE | RT_SHM_QUIET)))
        return btl_error(&btl_sm_module, o->world, rc,
                         "btl/sm: cannot map the ring %s for messages to %s (%s)", name, who + 8,
                         strerror(-rc));
    s = m.base;
    if (__atomic_load_n(&s->magic, __ATOMIC_ACQUIRE) != BTL_SM_MAGIC ||
        s->ring_bytes != BTL_SM_LATE_RING) {
        munmap(m.base, LATE_SIZE);
        return btl_error(&btl_sm_module, o->world, -EPROTO,
                         "btl/sm: the ring %s is not what this build makes", name);
    }
    rt_shm_unlink("btl/sm", name);
    free(name);
    o->late_name = NULL;
    o->seg = s;
    o->seg_size = LATE_SIZE;
    o->rpub = (const uint32_t *)((char *)s + BTL_SM_LINE);
    o->bell = (uint64_t *)((char *)s + 2 * BTL_SM_LINE);
    o->bell_bit = 1;
    o->ring = (uint8_t *)s + PAGE;
    btl_sm.ring_bytes += BTL_SM_LATE_RING;
    return 0;
}

/* One late ring: as btl_sm_progress's poll_ring, without the doorbell. */
static int poll_in(struct btl_sm_in *in, int *delivered, unsigned done)
{
    int k;

    if (btl_sm_take(in, 32, delivered, done, &k))
        return 1;
    if (in->r != in->rlast)
        btl_sm_give_back(in, in->r);
    return 0;
}

int btl_sm_late_poll(void)
{
    const unsigned done = rt_req_done_count;
    int delivered = 0;

    for (int k = 0; k < btl_sm.nlate; k++)
        if (poll_in(&btl_sm.late_in[btl_sm.late[k]], &delivered, done))
            break;
    return delivered;
}

static void drop(int idx)
{
    struct btl_sm_out *o = &btl_sm.late_out[idx];
    struct btl_sm_in *in = &btl_sm.late_in[idx];

    if (o->seg) {
        munmap(o->seg, o->seg_size);
        btl_sm.ring_bytes -= BTL_SM_LATE_RING;
    }
    free(o->late_name); /* if we never sent */
    if (in->ring) {
        munmap(late_base(in->ring), LATE_SIZE);
        btl_sm.ring_bytes -= BTL_SM_LATE_RING;
    }
    if (in->seg_name) {
        rt_shm_unlink("btl/sm", in->seg_name); /* the writer never sent */
        free(in->seg_name);
    }
    memset(o, 0, sizeof(*o));
    memset(in, 0, sizeof(*in));
}

void btl_sm_late_del(int peer)
{
    for (int k = 0; btl_sm.late_out && k < btl_sm.nlate; k++)
        if (btl_sm.late[k] == peer) {
            btl_sm.late[k] = btl_sm.late[--btl_sm.nlate];
            drop(peer);
            return;
        }
}

void btl_sm_late_close(void)
{
    while (btl_sm.nlate)
        drop(btl_sm.late[--btl_sm.nlate]);
    free(btl_sm.late);
    rt_proc_array_free(btl_sm.late_out, sizeof(*btl_sm.late_out));
    rt_proc_array_free(btl_sm.late_in, sizeof(*btl_sm.late_in));
    btl_sm.late = NULL;
    btl_sm.late_out = NULL;
    btl_sm.late_in = NULL;
    btl_sm.late_cap = 0;
}
