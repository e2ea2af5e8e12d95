/* btl/ofi rail health: a rail whose link goes down without the provider
 * saying so (tcp retransmits for minutes; a read then never completes)
 * fails through the error callback, so the pml's failover takes over.
 *
 * A watcher thread sleeps in poll() on a netlink socket subscribed to
 * link changes (RTMGRP_LINK) and reads the state of every watched rail's
 * interface (SIOCGIFFLAGS) when one comes; every RDMPI_OFI_RAIL_STALL / 8
 * seconds it also asks each rail for a stall check. It only raises flags
 * (health, then slow, both seq_cst); the rank's own thread acts on them
 * in progress, behind the one test of slow that the queued-send, hello
 * and repost checks share, so an empty poll tests nothing more. */
#include "config.h"

#include "btl_ofi.h"
#include "log.h"
#include "param.h"
#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

RT_PARAM(p_stall, "OFI_RAIL_STALL", RT_PARAM_INT, "60",
         "Seconds a rail may have operations in flight while this rank polls and none "
         "completes before it counts as dead (a path that fails without its interface going "
         "down); its peers then go over the other rails, or fail. A peer that stops calling "
         "MPI that long while a read from it is in flight looks the same over tcp and shm "
         "(0: no stall check)")

#define HEALTH_LINK  1u /* the interface went down */
#define HEALTH_PROBE 2u /* time for a stall check */

static struct btl_ofi_module *watched[BTL_OFI_MAX_RAILS];
static int nwatched;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t watcher;
static int running, stop_fd[2] = {-1, -1}, nl_fd = -1, if_fd = -1;
static double stall_secs, probe_secs;

static void raise_flag(struct btl_ofi_module *m, unsigned bit)
{
    __atomic_fetch_or(&m->health, bit, __ATOMIC_SEQ_CST);
    __atomic_store_n(&m->slow, 1, __ATOMIC_SEQ_CST);
}

/* Whether interface name is up and running (carrier), as far as this
 * network namespace sees it; a vanished interface is down. */
static int iface_up(const char *name)
{
    struct ifreq ifr = {0};

    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
    if (ioctl(if_fd, SIOCGIFFLAGS, &ifr) < 0)
        return errno != ENODEV && errno != ENXIO;
    return (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
}

/* Empties the socket (the messages only say that something changed;
 * ENOBUFS, an overrun, says the same) and looks at every rail. */
static void on_link_change(void)
{
    char buf[8192];

    while (recv(nl_fd, buf, sizeof(buf), MSG_DONTWAIT) > 0 || errno == ENOBUFS)
        ;
    pthread_mutex_lock(&lock);
    for (int k = 0; k < nwatched; k++) {
        struct btl_ofi_module *m = watched[k];

        if (m->ifindex && !m->link_down && !iface_up(m->choice.iface)) {
            m->link_down = 1;
            raise_flag(m, HEALTH_LINK);
        }
    }
    pthread_mutex_unlock(&lock);
}

static void *watch(void *arg)
{
    struct pollfd pf[2] = {{.fd = stop_fd[0], .events = POLLIN}, {.fd = nl_fd, .events = POLLIN}};
    const int timeout = probe_secs > 0 ? (int)(probe_secs * 1000) : -1;

    (void)arg;
    for (;;) {
        int rc = poll(pf, nl_fd >= 0 ? 2 : 1, timeout);

        if (rc < 0 && errno != EINTR)
            break;
        if (pf[0].revents)
            break;
        if (rc > 0 && pf[1].revents) {
            on_link_change();
            continue;
        }
        if (rc == 0) {
            pthread_mutex_lock(&lock);
            for (int k = 0; k < nwatched; k++)
                raise_flag(watched[k], HEALTH_PROBE);
            pthread_mutex_unlock(&lock);
        }
    }
    return NULL;
}

/* A netlink socket for link changes, non-blocking; -1 (and a note) if
 * this host refuses one: then only the stall check is left. */
static int open_netlink(void)
{
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK};
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);

    if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
        return fd;
    rt_info(1,
            "btl/ofi: no netlink socket for link changes (%s); a rail whose link goes down "
            "is found by the stall check alone (RDMPI_OFI_RAIL_STALL)",
            strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

static int start(void)
{
    int rc;

    stall_secs = (double)rt_param_int(&p_stall);
    probe_secs = stall_secs > 0 ? stall_secs / 8 : 0;
    if (probe_secs > 0 && probe_secs < 0.05)
        probe_secs = 0.05;
    if (pipe2(stop_fd, O_CLOEXEC) < 0)
        return -errno;
    if_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    nl_fd = if_fd >= 0 ? open_netlink() : -1;
    if ((rc = pthread_create(&watcher, NULL, watch, NULL))) {
        rt_warn("btl/ofi: cannot start the rail watcher thread: %s; a rail whose link goes down "
                "without an error stalls its operations",
                strerror(rc));
        btl_ofi_health_stop();
        return -rc;
    }
    running = 1;
    return 0;
}

void btl_ofi_health_watch(struct btl_ofi_module *m)
{
    if (!running && stop_fd[0] < 0 && start())
        return;
    /* A provider's "interface" may be none of this host's (shm's is
     * "shm"): then only the stall check watches it. */
    m->ifindex = m->choice.iface[0] ? if_nametoindex(m->choice.iface) : 0;
    if (!m->ifindex && stall_secs <= 0)
        return;
    m->stall_since = m->last_probe = rt_wtime();
    pthread_mutex_lock(&lock);
    if (nwatched < BTL_OFI_MAX_RAILS)
        watched[nwatched++] = m;
    /* The link may have gone before the thread listened. */
    if (m->ifindex && if_fd >= 0 && !iface_up(m->choice.iface)) {
        m->link_down = 1;
        raise_flag(m, HEALTH_LINK);
    }
    pthread_mutex_unlock(&lock);
}

void btl_ofi_health_stop(void)
{
    int *fds[] = {&stop_fd[0], &stop_fd[1], &nl_fd, &if_fd};

    if (running) {
        ssize_t w = write(stop_fd[1], "x", 1);

        (void)w;
        pthread_join(watcher, NULL);
        running = 0;
    }
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
    nwatched = 0;
}

/* The rail is gone: every peer it reaches hears it through the error
 * callback (the pml moves them to another rail, or fails them), then its
 * RDMA operations in flight fail back to the pml, which issues their
 * chunks again elsewhere. The rail is never polled again (its second
 * hold on in_progress), so a late completion cannot write into a buffer
 * the pml gave back: the provider progresses only inside our calls. */
static void rail_down(struct btl_ofi_module *m, const char *cause)
{
    char *free_slot;
    int n = (int)m->nreads;

    m->failed = 1;
    m->in_progress++;
    for (int r = 0; m->peers && r < rt.size; r++) { /* none before connect */
        struct btl_ofi_peer *p = &m->peers[r];

        if (p->addr == FI_ADDR_NOTAVAIL)
            continue;
        p->await_hello = 1; /* nothing more is sent on it */
        btl_error(&m->base, r, -ENETDOWN, "btl/ofi: rail %d (%s) lost rank %d: %s", m->rail,
                  m->transport, r, cause);
    }
    if (!(free_slot = calloc((size_t)n + 1, 1)))
        rt_fatal("btl/ofi: out of memory failing rail %d's operations", m->rail);
    for (struct btl_ofi_read *r = m->free_reads; r; r = r->next)
        free_slot[r - m->reads] = 1;
    for (int k = 0; k < n; k++)
        if (!free_slot[k])
            btl_ofi_rma_done(&m->reads[k], -ENETDOWN);
    free(free_slot);
    m->free_reads = NULL;
}

/* Operations in flight and none completed since the last check, probe
 * after probe while this rank polled (probes come every probe_secs; a
 * longer gap means it computed, and a peer's progress may have waited
 * for ours): a dead path the interface does not show. */
static void stall_check(struct btl_ofi_module *m)
{
    const double now = rt_wtime();
    char cause[200];

    if (!m->outstanding || m->reaped != m->stall_reaped || now - m->last_probe > 3 * probe_secs) {
        m->stall_reaped = m->reaped;
        m->stall_since = now;
    } else if (now - m->stall_since >= stall_secs) {
        snprintf(cause, sizeof(cause),
                 "%d operations in flight and none completed for %.0f s while this rank "
                 "waited (RDMPI_OFI_RAIL_STALL=%.0f; a dead path, or a peer that stopped "
                 "calling MPI)",
                 m->outstanding, now - m->stall_since, stall_secs);
        rail_down(m, cause);
    }
    m->last_probe = now;
}

int btl_ofi_health(struct btl_ofi_module *m)
{
    unsigned h = __atomic_exchange_n(&m->health, 0, __ATOMIC_SEQ_CST);
    char cause[200];

    if (m->failed)
        return 0;
    if (h & HEALTH_LINK) {
        snprintf(cause, sizeof(cause), "its interface %s went down (link state, netlink)",
                 m->choice.iface);
        rail_down(m, cause);
        return 1;
    }
    if (h & HEALTH_PROBE)
        stall_check(m);
    return m->failed;
}
