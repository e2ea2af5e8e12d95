/* btl/sm setup and teardown: our segment in /dev/shm, the business card,
 * attaching the peers' segments, the CMA probe, and unlinking. The rings
 * come later, per pair, on first use (btl_sm_pair.c). */
#include "config.h"

#include "btl_sm.h"
#include "btl_sm_ring.h"
#include "log.h"
#include "modex.h"
#include "param.h"
#include "rt.h"
#include "shm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

RT_PARAM(p_budget, "SM_RING_BUDGET", RT_PARAM_SIZE, "4m",
         "Shared memory per process for the rings it sends into, should it talk to every "
         "local peer: each ring gets budget / local ranks, clamped to 8k..256k, and is "
         "made on the first message to its peer")
RT_PARAM(p_eager, "SM_EAGER_LIMIT", RT_PARAM_SIZE, "4112",
         "Largest pml message (header + payload) btl/sm sends in one piece; larger "
         "ones go by rendezvous. At most half a ring, at least 64. The default holds a "
         "4 KiB payload and its 16-byte match header")
RT_PARAM(p_cma, "SM_CMA", RT_PARAM_BOOL, "1",
         "Single-copy large messages by process_vm_readv (cross-memory attach); "
         "0 uses the copy pipeline and skips the probe and its warning")

/* Rings deeper than 64 KiB (15 messages of 4 KiB) keep a window of
 * non-blocking sends flowing while the reader copies out: osu_bw and
 * osu_bibw at 64 B-4 KiB took 1.4-2x the bandwidth with 256 KiB rings,
 * latency unchanged; 1 MiB rings added nothing. */
#define RING_MIN (8u << 10)
#define RING_MAX (256u << 10)
#define PAGE     4096u

struct btl_sm_state btl_sm;

static int my_index; /* our position in rt.local_peers */

static size_t bell_bytes(uint32_t nrings)
{
    return btl_sm_bell_words(nrings) * sizeof(uint64_t);
}

static size_t hdr_bytes(uint32_t nrings)
{
    return (BTL_SM_LINE + bell_bytes(nrings) + (size_t)BTL_SM_LINE * nrings + PAGE - 1) / PAGE *
           PAGE;
}

static uint64_t *bell_of(void *seg)
{
    return (uint64_t *)((char *)seg + BTL_SM_LINE);
}

static struct btl_sm_ctl *ctl_of(void *seg, uint32_t nrings, uint32_t ring)
{
    return (struct btl_sm_ctl *)((char *)seg + BTL_SM_LINE + bell_bytes(nrings)) + ring;
}

/* budget / local ranks, clamped, rounded down to a power of two. */
static uint32_t ring_size(void)
{
    size_t b = rt_param_size(&p_budget) / (size_t)rt.local_size;
    uint32_t r = RING_MAX;

    while (r > RING_MIN && r > b)
        r >>= 1;
    return r;
}

/* The largest message one entry can hold: an entry may use half a ring, so
 * a padding entry plus the entry always fit an empty ring. */
static size_t max_len(uint32_t ring_bytes)
{
    return ring_bytes / 2 - BTL_SM_HDR;
}

/* The peer that brings the count to the target unlinks: from then on the
 * name is free and a crash leaves nothing in /dev/shm. */
static void attach_done(struct btl_sm_seg *s, uint32_t n, const char *name)
{
    if (__atomic_add_fetch(&s->attached, n, __ATOMIC_ACQ_REL) == s->attach_target)
        rt_shm_unlink("btl/sm", name);
}

static int make_name(char *name, size_t size)
{
    if (rt_shm_name(name, size, ".%d", rt.node_rank)) {
        rt_warn("btl/sm: the segment name for namespace %s is too long", rt.nspace);
        return -ENAMETOOLONG;
    }
    return 0;
}

static int seg_create(uint32_t nrings, uint32_t ring_bytes)
{
    size_t size = hdr_bytes(nrings);
    struct timespec ts;
    struct btl_sm_seg *s;
    struct rt_shm m;
    int rc;

    if ((rc = make_name(btl_sm.name, sizeof(btl_sm.name))))
        return rc;
    if ((rc = rt_shm_create(&m, "btl/sm", btl_sm.name, size, RT_SHM_POPULATE, NULL)))
        return rc;
    s = m.base;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s->nonce = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40 ^
               (uint64_t)(uintptr_t)s;
    s->version = BTL_SM_VERSION;
    s->nrings = nrings;
    s->ring_bytes = ring_bytes;
    s->attach_target = nrings;
    /* The magic last: a peer that sees it sees a finished header. */
    __atomic_store_n(&s->magic, BTL_SM_MAGIC, __ATOMIC_RELEASE);
    btl_sm.seg = s;
    btl_sm.seg_size = size;
    return 0;
}

static int sm_init(struct btl_module *btl)
{
    struct btl_sm_card card = {.version = BTL_SM_VERSION, .pid = (uint32_t)getpid()};
    uint32_t nrings = (uint32_t)rt.local_size - 1, ring_bytes;
    size_t eager = rt_param_size(&p_eager);
    int rc;

    /* Alone on this host: no segment, nobody to reach now; the card
     * still names us, for processes added later (btl_sm_late.c). */
    if (!nrings) {
        if ((rc = make_name(btl_sm.name, sizeof(btl_sm.name))))
            return rc;
        snprintf(card.name, sizeof(card.name), "%s", btl_sm.name);
        card.ring_bytes = BTL_SM_LATE_RING;
        return rt_modex_put(BTL_SM_CARD_KEY, &card, sizeof(card));
    }
    for (my_index = 0; my_index <= (int)nrings && rt.local_peers[my_index] != rt.rank; my_index++)
        ;
    if (my_index > (int)nrings) {
        rt_warn("btl/sm: rank %d is not among the local peers the launcher listed", rt.rank);
        return -EINVAL;
    }
    ring_bytes = ring_size();
    if (eager < 64)
        rt_fatal("RDMPI_SM_EAGER_LIMIT=%zu is below the minimum of 64 bytes; unset it or "
                 "raise it",
                 eager);
    if (eager > max_len(ring_bytes)) {
        rt_info(my_index == 0 ? 1 : 2, "btl/sm: eager limit %zu capped at %zu, half a %u-byte ring",
                eager, max_len(ring_bytes), ring_bytes);
        eager = max_len(ring_bytes);
    }
    btl->eager_limit = btl->sendi_limit = eager;
    if ((rc = seg_create(nrings, ring_bytes)))
        return rc;
    btl_sm.nslots = ring_bytes / BTL_SM_SLOT;
    card.seg_size = btl_sm.seg_size;
    card.seg_addr = (uint64_t)(uintptr_t)btl_sm.seg;
    card.ring_bytes = ring_bytes;
    card.nrings = nrings;
    snprintf(card.name, sizeof(card.name), "%s", btl_sm.name);
    return rt_modex_put(BTL_SM_CARD_KEY, &card, sizeof(card));
}

/* Maps peer `world`'s segment and sets up both directions; 0, or -ENOENT
 * when the peer runs without sm, or another error (logged). */
static int attach(int i, int world, struct btl_sm_card **cardp)
{
    struct btl_sm_out *o = &btl_sm.out[i];
    struct btl_sm_card *c;
    struct btl_sm_seg *s;
    int peer_index = i < my_index ? i : i + 1;
    uint32_t mine = (uint32_t)(my_index < peer_index ? my_index : my_index - 1);
    struct rt_shm m;
    char who[32];
    size_t len;
    int rc;

    if (rt_modex_get(world, BTL_SM_CARD_KEY, (void **)&c, &len))
        return -ENOENT;
    *cardp = c;
    if (len != sizeof(*c) || c->version != BTL_SM_VERSION)
        rt_fatal("btl/sm: rank %d speaks btl/sm protocol %u (card of %zu bytes), this rank %u: "
                 "every rank must run the same rdmpi build",
                 world, len >= 4 ? c->version : 0, len, BTL_SM_VERSION);
    c->name[NAME_MAX] = 0;
    snprintf(who, sizeof(who), "btl/sm: rank %d", world);
    if ((rc = rt_shm_attach(&m, who, c->name, c->seg_size, RT_SHM_POPULATE)))
        return rc;
    s = m.base;
    if (__atomic_load_n(&s->magic, __ATOMIC_ACQUIRE) != BTL_SM_MAGIC ||
        s->nrings != btl_sm.seg->nrings || s->ring_bytes != c->ring_bytes ||
        c->ring_bytes < RING_MIN || (c->ring_bytes & (c->ring_bytes - 1))) {
        rt_warn("btl/sm: rank %d's segment /dev/shm%s is not what its card says", world, c->name);
        munmap(s, c->seg_size);
        return -EPROTO;
    }
    o->seg = s;
    o->seg_size = c->seg_size;
    o->rpub = &ctl_of(s, s->nrings, mine)->read;
    o->bell = &bell_of(s)[mine / BTL_SM_BELL_BITS];
    o->bell_bit = 1ull << (mine % BTL_SM_BELL_BITS);
    /* No ring yet (btl_sm_out): "full" sends the first claim to the slow
     * path, which makes it. */
    o->nslots = btl_sm.nslots;
    o->rcache = 0u - o->nslots;
    o->max_len = max_len(btl_sm.seg->ring_bytes);
    o->world = world;
    o->pid = (pid_t)c->pid;
    attach_done(s, 1, c->name);
    return 0;
}

/* Decides single copy: the first refusal is reported once per host (by the
 * lowest local rank; the others say it at verbosity 1). */
static void probe_cma(int i, const struct btl_sm_card *c)
{
    int rc;

    if (!btl_sm.cma || (rc = btl_sm_cma_probe(&btl_sm.out[i], c->seg_addr)) == 0)
        return;
    btl_sm.cma = 0;
    btl_sm.cma_off = rc;
    if (my_index == 0)
        rt_warn("btl/sm: cannot read rank %d's memory with process_vm_readv (%s); large "
                "messages on this host use the copy pipeline instead of single copy "
                "(RDMPI_SM_CMA=0 silences this)",
                btl_sm.out[i].world, strerror(-rc));
    else
        rt_info(1, "btl/sm: no process_vm_readv to rank %d (%s): copy pipeline",
                btl_sm.out[i].world, strerror(-rc));
}

static int sm_connect(struct btl_module *btl, uint8_t *reach)
{
    int npeers = rt.local_size - 1, reached = 0;
    uint32_t missing = 0;

    if (!btl_sm.seg)
        return 0;
    btl_sm.in = calloc((size_t)npeers, sizeof(*btl_sm.in));
    btl_sm.out = calloc((size_t)npeers, sizeof(*btl_sm.out));
    btl_sm.active = calloc((size_t)npeers, sizeof(*btl_sm.active));
    if (!btl_sm.in || !btl_sm.out || !btl_sm.active) {
        rt_warn("btl/sm: out of memory for %d peers", npeers);
        return -ENOMEM;
    }
    btl_sm.cma = rt_param_bool(&p_cma) != 0;
    btl_sm.cma_off = !btl_sm.cma;
    for (int i = 0; i < npeers; i++) {
        int world = rt.local_peers[i < my_index ? i : i + 1];
        struct btl_sm_card *c = NULL;
        int rc;

        /* The peer's ring to us is mapped when its doorbell bit first
         * comes up; the poll loop looks only at rings whose bit is up. */
        btl_sm.in[i].rpub = &ctl_of(btl_sm.seg, (uint32_t)npeers, (uint32_t)i)->read;
        btl_sm.in[i].world = world;
        if ((rc = attach(i, world, &c)) == 0) {
            probe_cma(i, c);
            btl_sm.in[i].nslots = c->ring_bytes / BTL_SM_SLOT;
            if (!(btl_sm.in[i].seg_name = strdup(c->name))) {
                free(c);
                rt_warn("btl/sm: out of memory for %d peers", npeers);
                return -ENOMEM;
            }
            reach[world] = 1;
            reached++;
        } else if (rc == -ENOENT) {
            missing++; /* the peer runs without sm and will not attach ours */
        }
        free(c);
    }
    if (missing)
        attach_done(btl_sm.seg, missing, btl_sm.name);
    btl_sm.bell = bell_of(btl_sm.seg);
    btl_sm.nbell = btl_sm_bell_words((uint32_t)npeers);
    btl_sm.nbusy = ((uint32_t)npeers + BTL_SM_BELL_BITS - 1) / BTL_SM_BELL_BITS;
    btl_sm.npeers = npeers;
    btl_sm.wake = rt_progress_sleeps();
    if (!btl_sm.cma)
        btl->flags &= ~(uint32_t)(BTL_CAP_GET | BTL_CAP_PUT | BTL_CAP_DIRECT);
    rt_info(my_index == 0 ? 1 : 2,
            "btl/sm: %d of %d local peers, rings of %u KiB made on first use, a segment of "
            "%zu KiB, eager limit %zu, single copy %s",
            reached, npeers, btl_sm.seg->ring_bytes >> 10, btl_sm.seg_size >> 10, btl->eager_limit,
            btl_sm.cma ? "by process_vm_readv" : "off: copy pipeline");
    return 0;
}

static struct btl_endpoint *sm_endpoint(struct btl_module *btl, int peer)
{
    (void)btl;
    if (peer >= rt.size)
        return btl_sm.late_out && btl_sm.late_out[peer].late
                   ? (struct btl_endpoint *)&btl_sm.late_out[peer]
                   : NULL;
    for (int i = 0; i < btl_sm.npeers; i++)
        if (btl_sm.out[i].world == peer && btl_sm.out[i].seg)
            return (struct btl_endpoint *)&btl_sm.out[i];
    return NULL;
}

/* A published entry is in the peer's memory already; queued puts are
 * owed, and written here. */
static int sm_flush(struct btl_module *btl)
{
    (void)btl;
    while (btl_sm.puts)
        btl_sm_put_progress();
    return 0;
}

/* Peers may still be reading our entries or writing into our rings; their
 * mappings keep the memory alive after ours go. */
static int sm_finalize(struct btl_module *btl)
{
    btl_sm_late_close();
    btl_sm_pair_close();
    for (int i = 0; btl_sm.out && i < btl_sm.npeers; i++)
        if (btl_sm.out[i].seg)
            munmap(btl_sm.out[i].seg, btl_sm.out[i].seg_size);
    if (btl_sm.seg) {
        munmap(btl_sm.seg, btl_sm.seg_size);
        /* Normally gone already; not if a local peer never attached. */
        if (rt_shm_unlink("btl/sm", btl_sm.name))
            rt_info(2, "btl/sm: unlinked /dev/shm%s at finalize: a peer never attached",
                    btl_sm.name);
    }
    free(btl_sm.in);
    free(btl_sm.out);
    free(btl_sm.active);
    memset(&btl_sm, 0, sizeof(btl_sm));
    (void)btl;
    return 0;
}

static void sm_del_peer(struct btl_module *btl, int peer)
{
    (void)btl;
    btl_sm_late_del(peer);
}

static int sm_report(struct btl_module *btl, struct btl_report *r)
{
    int n;

    (void)btl;
    if (!btl_sm.seg) {
        snprintf(r->transport, sizeof(r->transport), "shared memory, no local peer");
        return 0;
    }
    n = snprintf(r->transport, sizeof(r->transport), "shared memory rings of %u KiB, ",
                 btl_sm.seg->ring_bytes >> 10);
    if (btl_sm.cma)
        snprintf(r->transport + n, sizeof(r->transport) - (size_t)n,
                 "single copy by process_vm_readv");
    else if (btl_sm.cma_off == 1)
        snprintf(r->transport + n, sizeof(r->transport) - (size_t)n,
                 "single copy off (RDMPI_SM_CMA=0)");
    else
        snprintf(r->transport + n, sizeof(r->transport) - (size_t)n,
                 "single copy refused (process_vm_readv: %s)", strerror(-btl_sm.cma_off));
    r->reads = btl_sm.reads;
    r->read_bytes = btl_sm.read_bytes;
    r->writes = btl_sm.writes;
    r->write_bytes = btl_sm.write_bytes;
    r->extra_name[0] = "ring full";
    r->extra[0] = btl_sm.ring_full;
    r->extra_name[1] = "sleeps";
    r->extra[1] = btl_sm.sleeps;
    r->extra_name[2] = "wake-ups";
    r->extra[2] = btl_sm.wakes;
    r->extra_name[3] = "sleeps timed out";
    r->extra[3] = btl_sm.timeouts;
    r->extra_name[4] = "ring bytes mapped";
    r->extra[4] = btl_sm.ring_bytes;
    return 0;
}

static const struct btl_module sm_template = {
    .size = sizeof(struct btl_module),
    .version = BTL_IFACE_VERSION,
    .name = "sm",
    .eager_limit = 4112,
    .sendi_limit = 4112,
    .get_limit = 4u << 20,
    .put_limit = 4u << 20,
    .alignment = 1,
    .rkey_size = 0,
    .exclusivity = 500,
    .latency_ns = 170,
    .bandwidth_mbs = 13000,
    .flags =
        BTL_CAP_SENDI | BTL_CAP_GET | BTL_CAP_PUT | BTL_CAP_WAIT | BTL_CAP_DIRECT | BTL_CAP_ORDERED,
    .init = sm_init,
    .connect = sm_connect,
    .finalize = sm_finalize,
    .endpoint = sm_endpoint,
    .add_peers = btl_sm_late_add,
    .del_peer = sm_del_peer,
    .sendi = btl_sm_sendi,
    .alloc = btl_sm_alloc,
    .send = btl_sm_send,
    .get = btl_sm_get,
    .put = btl_sm_put,
    .register_mem = btl_sm_register,
    .deregister_mem = btl_sm_deregister,
    .progress = btl_sm_progress,
    .flush = sm_flush,
    .report = sm_report,
    .wait = btl_sm_wait,
};

struct btl_module btl_sm_module;

/* One module for all local peers: connect learns which of them attach. */
static int sm_open(struct btl_component *c, struct btl_module **mods, int max)
{
    (void)c;
    if (max < 1)
        return 0;
    btl_sm_module = sm_template;
    mods[0] = &btl_sm_module;
    return 1;
}

static void sm_close(struct btl_component *c)
{
    (void)c;
    memset(&btl_sm_module, 0, sizeof(btl_sm_module));
}

struct btl_component btl_sm_component = {
    .size = sizeof(struct btl_component),
    .version = BTL_IFACE_VERSION,
    .name = "sm",
    .open = sm_open,
    .close = sm_close,
};
