/*
 * mh_munge.c: mpirun's munge helper, a child process that decodes the
 * daemons' credentials and encodes mpirun's answers (auth_munge.c).
 *
 * libmunge talks to munged over a unix socket and blocks: a munged that
 * is stopped or overloaded holds each call for 10 s and more.  mpirun's
 * event loop must never wait for it, so the calls run here, one request
 * at a time, and the loop only exchanges packets with the helper over a
 * non-blocking SOCK_SEQPACKET pair: a HELLO being checked just waits, under
 * its connection's deadline, like one still being read.  A child rather
 * than a thread because a stuck call cannot hold mpirun's end: the
 * helper is killed, never joined.
 */
#include "launcher.h"
#include "ctl.h"
#include "mh.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROBE_TAG UINT32_MAX

/* The helper's side of one request. */
static void serve_one(const char *socket, const struct ln_mungeh_req *q, struct ln_mungeh_res *r)
{
    memset(r, 0, sizeof(*r));
    r->tag = q->tag;
    r->gen = q->gen;
    if (q->tag == PROBE_TAG) {
        r->rc = ln_munge_encode(socket, &q->want, r->reply, r->why, sizeof(r->why));
        return;
    }
    r->rc = ln_munge_verify(socket, q->cred, &q->want, r->why, sizeof(r->why));
    if (r->rc)
        return;
    /* Our answer binds the daemon's challenge, under our node id. */
    struct ln_munge_bind ours = q->want;

    ours.node = LN_NODE_MPIRUN;
    memcpy(ours.nonce, q->dchal, LN_CHAL_LEN);
    r->rc = ln_munge_encode(socket, &ours, r->reply, r->why, sizeof(r->why));
}

static void serve(int fd, const char *socket)
{
    struct ln_mungeh_req q;
    struct ln_mungeh_res r;

    for (;;) {
        ssize_t n = recv(fd, &q, sizeof(q), 0);

        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof(q))
            _exit(0); /* mpirun closed its end */
        q.cred[LN_CRED_MAX] = 0;
        serve_one(socket, &q, &r);
        if (send(fd, &r, sizeof(r), MSG_NOSIGNAL) != (ssize_t)sizeof(r))
            _exit(0);
    }
}

int ln_mungeh_start(struct ln_mungeh *h, const char *socket, double timeout, char *why, size_t nwhy)
{
    struct ln_mungeh_req q = {.tag = PROBE_TAG};
    struct ln_mungeh_res r;
    int sv[2];
    sigset_t all;

    h->pid = 0;
    h->fd = -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        snprintf(why, nwhy, "socketpair: %s", strerror(errno));
        return -EIO;
    }
    h->pid = fork();
    if (h->pid < 0) {
        snprintf(why, nwhy, "cannot start the munge helper: fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        h->pid = 0;
        return -EIO;
    }
    if (h->pid == 0) {
        /* mpirun's signals are its signalfd's; the helper only serves. */
        sigfillset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(sv[0]);
        if (sv[1] > 3)
            close_range(3, (unsigned)sv[1] - 1, 0);
        close_range((unsigned)sv[1] + 1, ~0U, 0);
        serve(sv[1], socket);
    }
    close(sv[1]);
    h->fd = sv[0];
    /* The probe: munged answers an encode within timeout, or munge is not
     * usable here. */
    if (send(h->fd, &q, sizeof(q), MSG_NOSIGNAL) != (ssize_t)sizeof(q)) {
        snprintf(why, nwhy, "the munge helper ended at once");
        goto fail;
    }
    struct pollfd p = {.fd = h->fd, .events = POLLIN};
    int ms = (int)(timeout * 1000), rc;

    while ((rc = poll(&p, 1, ms)) < 0 && errno == EINTR)
        ;
    if (rc == 0) {
        snprintf(why, nwhy, "munged did not answer within %g s", timeout);
        goto fail;
    }
    if (recv(h->fd, &r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
        snprintf(why, nwhy, "the munge helper ended");
        goto fail;
    }
    if (r.rc) {
        snprintf(why, nwhy, "%s", r.why);
        goto fail;
    }
    return 0;
fail:
    ln_mungeh_stop(h);
    return -EIO;
}

int ln_mungeh_submit(struct ln_mungeh *h, const struct ln_mungeh_req *q)
{
    if (h->fd < 0 || send(h->fd, q, sizeof(*q), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(*q))
        return -EIO;
    return 0;
}

int ln_mungeh_result(struct ln_mungeh *h, struct ln_mungeh_res *r)
{
    ssize_t n;

    if (h->fd < 0)
        return -1;
    n = recv(h->fd, r, sizeof(*r), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (n != (ssize_t)sizeof(*r))
        return -1;
    r->why[sizeof(r->why) - 1] = 0;
    r->reply[LN_CRED_MAX] = 0;
    return 1;
}

/* Killed, not asked: it may be stuck in a call to munged. */
void ln_mungeh_stop(struct ln_mungeh *h)
{
    if (h->fd >= 0)
        close(h->fd);
    h->fd = -1;
    if (h->pid > 0) {
        kill(h->pid, SIGKILL);
        waitpid(h->pid, NULL, 0);
    }
    h->pid = 0;
}
