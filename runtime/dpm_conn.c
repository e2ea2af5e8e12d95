/* Two groups become one intercommunicator (MPI_Comm_accept/connect, the
 * spawn's, MPI_Comm_join). Their roots talk over a socket, which works
 * between jobs of different launchers and hosts; inside each group the
 * root talks to its members over the group's communicator:
 *
 *   1. each member sends the root its record (namespace, rank, host and
 *      business cards, rt_proc_cards_pack); the roots swap their groups'
 *      records and each broadcasts the other's in its group;
 *   2. every member adds the other group's processes to its process table
 *      and makes them reachable (rt_proc_connect_hook: the pml and the
 *      BTLs); the members' results go to their root, the roots swap
 *      theirs, and each broadcasts both: from then on every process of
 *      either group can take the other's messages, so no message comes
 *      from a process not yet added, and either both groups fail or none;
 *   3. the context ids are agreed as MPI_Intercomm_create's, the roots'
 *      swap over the socket (rt_cid_agree_swap).
 *
 * On the socket every exchange is a swap: the root marked `first` writes,
 * then reads; the other reads, then writes. docs/dynamic.md. */
#include "dpm.h"
#include "log.h"
#include "proc.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The roots' line: a socket, or (MPI_Intercomm_create) a communicator
 * both roots are in, with the other's rank there and a tag. */
struct link {
    int fd, first;
    struct rdmpi_comm *pc;
    int peer, tag;
};

/* Waits for fd to be ready for ev, keeping this process's progress going
 * (its peers may need it while the other root takes its time). */
int rt_dpm_wait_fd(int fd, short ev)
{
    unsigned spins = 0;
    int rc = 1;

    rt_progress_patience(1);
    while (rc > 0) {
        struct pollfd p = {.fd = fd, .events = ev};
        int n = poll(&p, 1, 0);

        if (n > 0)
            rc = p.revents & (ev | POLLHUP | POLLERR) ? 0 : -EIO;
        else if (n < 0 && errno != EINTR)
            rc = -errno;
        else if (!rt_progress())
            rt_progress_idle(&spins);
    }
    rt_progress_patience(-1);
    return rc;
}

int rt_dpm_put(int fd, const void *buf, size_t len)
{
    const char *b = buf;

    while (len) {
        ssize_t n;

        if (rt_dpm_wait_fd(fd, POLLOUT))
            return -EIO;
        n = send(fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            return -EIO;
        b += n;
        len -= (size_t)n;
    }
    return 0;
}

int rt_dpm_get(int fd, void *buf, size_t len)
{
    char *b = buf;

    while (len) {
        ssize_t n;

        if (rt_dpm_wait_fd(fd, POLLIN))
            return -EIO;
        n = recv(fd, b, len, MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            return -EIO; /* 0: the other side closed */
        b += n;
        len -= (size_t)n;
    }
    return 0;
}

/* mine goes out, theirs comes in; lengths may differ. */
static int swap2(const struct link *l, const void *mine, size_t mlen, void *theirs, size_t tlen)
{
    if (l->pc)
        return rt_comm_sendrecv(l->pc, mine, mlen, l->peer, theirs, tlen, l->peer, l->tag) ? -EIO
                                                                                           : 0;
    if (l->first)
        return rt_dpm_put(l->fd, mine, mlen) || rt_dpm_get(l->fd, theirs, tlen) ? -EIO : 0;
    return rt_dpm_get(l->fd, theirs, tlen) || rt_dpm_put(l->fd, mine, mlen) ? -EIO : 0;
}

static int cid_swap(void *ctx, const void *mine, void *theirs, size_t len)
{
    return swap2(ctx, mine, len, theirs, len) ? MPI_ERR_PORT : MPI_SUCCESS;
}

/* ---- records ---- */

/* One process: u32 rank, u16 namespace length, namespace, u16 host
 * length, host, u32 cards length, cards. */
static int my_record(uint8_t **out, size_t *len)
{
    uint16_t nl = (uint16_t)strlen(rt.nspace), hl = (uint16_t)strlen(rt.hostname);
    uint32_t rank = (uint32_t)rt.rank, cl;
    void *cards;
    size_t clen, off = 0;
    uint8_t *b;

    if (rt_proc_cards_pack(&cards, &clen))
        return MPI_ERR_NO_MEM;
    cl = (uint32_t)clen;
    *len = 4 + 2 + nl + 2 + hl + 4 + clen;
    if (!(b = malloc(*len))) {
        free(cards);
        return MPI_ERR_NO_MEM;
    }
    memcpy(b + off, &rank, 4), off += 4;
    memcpy(b + off, &nl, 2), off += 2;
    memcpy(b + off, rt.nspace, nl), off += nl;
    memcpy(b + off, &hl, 2), off += 2;
    memcpy(b + off, rt.hostname, hl), off += hl;
    memcpy(b + off, &cl, 4), off += 4;
    memcpy(b + off, cards, clen);
    free(cards);
    *out = b;
    return MPI_SUCCESS;
}

/* Parses n records: the processes' indices into idx, adding the ones not
 * known; those to connect (new, or dropped since) into conn, *nconn. */
static int add_records(const uint8_t *b, size_t len, int n, int *idx, int *conn, int *nconn)
{
    size_t off = 0;

    *nconn = 0;
    for (int i = 0; i < n; i++) {
        char ns[256], host[256];
        uint32_t rank, cl;
        uint16_t nl, hl;
        struct rt_proc *p;
        int is_new;

        if (off + 6 > len)
            return MPI_ERR_INTERN;
        memcpy(&rank, b + off, 4), off += 4;
        memcpy(&nl, b + off, 2), off += 2;
        if (nl >= sizeof(ns) || off + nl + 2 > len)
            return MPI_ERR_INTERN;
        memcpy(ns, b + off, nl), ns[nl] = 0, off += nl;
        memcpy(&hl, b + off, 2), off += 2;
        if (hl >= sizeof(host) || off + hl + 4 > len)
            return MPI_ERR_INTERN;
        memcpy(host, b + off, hl), host[hl] = 0, off += hl;
        memcpy(&cl, b + off, 4), off += 4;
        if (off + cl > len)
            return MPI_ERR_INTERN;
        if ((idx[i] = rt_proc_add(ns, rank, host, b + off, cl, &is_new)) < 0)
            return MPI_ERR_NO_MEM;
        off += cl;
        if ((p = rt_proc_get(idx[i])) && !p->live)
            conn[(*nconn)++] = idx[i];
    }
    return MPI_SUCCESS;
}

/* ---- within a group ---- */

struct group {
    struct rdmpi_comm *c;
    int *m; /* members, the root first */
    int n, me;
};

static int bcast(struct group *g, void *buf, size_t len)
{
    return rt_comm_bcast(g->c, g->m, g->n, g->me, RT_TAG_COMM, buf, len);
}

/* The root gathers the members' records into one blob. */
static int gather(struct group *g, uint8_t **blob, size_t *blen)
{
    uint8_t *mine, *all;
    size_t len, total;
    int err = MPI_SUCCESS;

    if (my_record(&mine, &len))
        rt_fatal("connecting two groups: out of memory for this process's record");
    if (g->me) {
        uint64_t l = len;

        err = rt_comm_sendrecv(g->c, &l, sizeof(l), g->m[0], NULL, 0, MPI_PROC_NULL, RT_TAG_COMM);
        if (!err)
            err = rt_comm_sendrecv(g->c, mine, len, g->m[0], NULL, 0, MPI_PROC_NULL, RT_TAG_COMM);
        free(mine);
        return err;
    }
    all = mine;
    total = len;
    for (int i = 1; i < g->n && !err; i++) {
        uint64_t l;
        uint8_t *t;

        if ((err = rt_comm_sendrecv(g->c, NULL, 0, MPI_PROC_NULL, &l, sizeof(l), g->m[i],
                                    RT_TAG_COMM)))
            break;
        if (!(t = realloc(all, total + l))) {
            err = MPI_ERR_NO_MEM;
            break;
        }
        all = t;
        err = rt_comm_sendrecv(g->c, NULL, 0, MPI_PROC_NULL, all + total, l, g->m[i], RT_TAG_COMM);
        total += l;
    }
    *blob = all;
    *blen = total;
    return err;
}

/* The worst of the members' results, at the root. */
static int reduce_err(struct group *g, int err)
{
    if (g->me)
        return rt_comm_sendrecv(g->c, &err, sizeof(err), g->m[0], NULL, 0, MPI_PROC_NULL,
                                RT_TAG_COMM)
                   ? MPI_ERR_OTHER
                   : err;
    for (int i = 1; i < g->n; i++) {
        int e = MPI_SUCCESS;

        if (rt_comm_sendrecv(g->c, NULL, 0, MPI_PROC_NULL, &e, sizeof(e), g->m[i], RT_TAG_COMM))
            e = MPI_ERR_OTHER;
        if (!err)
            err = e;
    }
    return err;
}

/* The roots' swap of a result, shared with both groups: each process
 * learns whether both sides succeeded, else the first error. */
static int agree(struct group *g, const struct link *l, int err, int *theirs)
{
    int both[2] = {reduce_err(g, err), MPI_SUCCESS};

    if (!g->me && (l->fd >= 0 || l->pc) && swap2(l, &both[0], sizeof(int), &both[1], sizeof(int)))
        both[1] = MPI_ERR_PORT;
    if (!g->me && l->fd < 0 && !l->pc)
        both[1] = MPI_ERR_PORT;
    if (bcast(g, both, sizeof(both)))
        return MPI_ERR_OTHER;
    *theirs = both[1];
    return both[0] ? both[0] : both[1];
}

static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (!why || !len || why[0])
        return; /* the first reason stands */
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

/* Processes connected here with no communicator yet: undone on failure. */
static void undo(const int *conn, int n)
{
    for (int i = 0; i < n; i++) {
        struct rt_proc *p = rt_proc_get(conn[i]);

        if (p && p->live && !p->refs) {
            p->live = 0;
            if (rt_proc_drop_hook)
                rt_proc_drop_hook(conn[i]);
        }
    }
}

static int connect_procs(const int *conn, int n)
{
    for (int i = 0; i < n; i++) {
        int err = rt_proc_connect_hook ? rt_proc_connect_hook(conn[i], 1) : MPI_ERR_INTERN;

        if (err) {
            undo(conn, i);
            return err;
        }
        rt_proc_get(conn[i])->live = 1;
    }
    return MPI_SUCCESS;
}

static int meet(struct rdmpi_comm *c, int root, struct link l, int err, struct rdmpi_comm **out,
                char *why, size_t why_len)
{
    int fd = l.fd;
    struct group g = {c, NULL, c->size, (c->rank - root + c->size) % c->size};
    uint8_t *mine = NULL, *theirs = NULL;
    size_t mlen = 0;
    /* [error, their count, their bytes] */
    uint64_t hdr[3] = {(uint64_t)err, 0, 0};
    int *rw = NULL, *conn = NULL, nconn = 0, rn, other = MPI_SUCCESS;
    struct rdmpi_group *rg = NULL;
    uint32_t cid, lcid;

    *out = NULL;
    if (!(g.m = malloc((size_t)c->size * sizeof(int))))
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < c->size; i++)
        g.m[i] = (root + i) % c->size;

    /* 1. The records. A failed gather still takes part in the swap. */
    {
        int gerr = gather(&g, &mine, &mlen);

        if (!g.me) {
            uint64_t my[3] = {(uint64_t)(err ? err : gerr), (uint64_t)c->size, mlen};

            if (fd < 0 && !l.pc) {
                hdr[0] = err ? (uint64_t)err : MPI_ERR_PORT;
            } else if (swap2(&l, my, sizeof(my), hdr, sizeof(hdr))) {
                hdr[0] = MPI_ERR_PORT;
                say(why, why_len, "the other group's root closed the connection");
            } else if (my[0] || hdr[0]) {
                hdr[0] = my[0] ? my[0] : hdr[0];
                say(why, why_len, "%s group failed before the exchange",
                    my[0] ? "this" : "the other");
            } else if (!(theirs = malloc(hdr[2] ? hdr[2] : 1))) {
                hdr[0] = MPI_ERR_NO_MEM;
            } else if (swap2(&l, mine, mlen, theirs, hdr[2])) {
                hdr[0] = MPI_ERR_PORT;
                say(why, why_len, "the other group's root closed the connection");
            }
        }
    }
    free(mine);
    if (bcast(&g, hdr, sizeof(hdr))) {
        hdr[0] = MPI_ERR_OTHER;
        goto fail;
    }
    if ((err = (int)hdr[0])) {
        /* The root's reason, for every member's message. */
        char r[256] = "";

        if (!g.me)
            snprintf(r, sizeof(r), "%s", why ? why : "");
        if (!bcast(&g, r, sizeof(r)) && g.me && r[0])
            say(why, why_len, "%s", r);
        goto fail;
    }
    rn = (int)hdr[1];
    if (g.me && !(theirs = malloc(hdr[2] ? hdr[2] : 1)))
        rt_fatal("MPI_Comm_accept/connect: out of memory for the other group's %d records", rn);
    if (bcast(&g, theirs, hdr[2])) {
        err = MPI_ERR_OTHER;
        goto fail;
    }

    /* 2. Every member adds and reaches the other group; all agree. */
    rw = malloc(((size_t)rn + 1) * sizeof(int));
    conn = malloc(((size_t)rn + 1) * sizeof(int));
    err = !rw || !conn ? MPI_ERR_NO_MEM : add_records(theirs, hdr[2], rn, rw, conn, &nconn);
    if (!err && (err = connect_procs(conn, nconn)))
        nconn = 0;
    if ((err = agree(&g, &l, err, &other))) {
        undo(conn, nconn);
        say(why, why_len,
            "%s group could not reach the other's processes (no transport "
            "reaches them: RDMPI_VERBOSE=1 says why)",
            other ? "the other" : "this");
        goto fail;
    }

    /* 3. The ids, then the intercommunicator. */
    if ((err = rt_cid_agree(c, g.m, g.n, g.me, RT_TAG_COMM, NULL, 0, 0, 1, &lcid))) {
        undo(conn, nconn);
        goto fail;
    }
    if ((err = rt_cid_agree_swap(c, g.m, g.n, g.me, RT_TAG_COMM, cid_swap, &l, 1, &cid))) {
        rt_cid_release(lcid);
        undo(conn, nconn);
        goto fail;
    }
    if (!rt_comm_group(c) || !(rg = rt_group_new(rw, rn))) {
        rt_cid_release(lcid);
        rt_cid_release(cid);
        undo(conn, nconn);
        err = MPI_ERR_NO_MEM;
        goto fail;
    }
    *out = rt_intercomm_new(c->group, rg, cid, lcid, c, &err);
    rt_group_release(rg);
    if (!*out)
        undo(conn, nconn);
fail:
    if (err)
        say(why, why_len, "the exchange between the groups failed");
    free(theirs);
    free(rw);
    free(conn);
    free(g.m);
    return err;
}

int rt_dpm_meet(struct rdmpi_comm *c, int root, int fd, int first, int err, struct rdmpi_comm **out,
                char *why, size_t why_len)
{
    int rc;

    rt_progress_patience(1);
    rc = meet(c, root, (struct link){fd, first, NULL, 0, 0}, err, out, why, why_len);
    rt_progress_patience(-1);
    return rc;
}

int rt_dpm_meet_over(struct rdmpi_comm *c, int root, struct rdmpi_comm *pc, int peer, int tag,
                     struct rdmpi_comm **out, char *why, size_t why_len)
{
    int rc;

    rt_progress_patience(1);
    rc = meet(c, root, (struct link){-1, 0, pc, peer, tag}, MPI_SUCCESS, out, why, why_len);
    rt_progress_patience(-1);
    return rc;
}
