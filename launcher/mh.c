/*
 * mh.c: mpirun's side of a job over several hosts.
 *
 * mpirun listens on a TCP port of the one address the daemons are told
 * (pick_addr) and starts one rdmpi-launchd per host through the launch
 * agent ("ssh" by default: `AGENT HOST launchd --ctl ADDR:PORT --node K
 * --name HOST`; hosts that are this host are started without it).  The
 * agent's standard input carries the job's secret first (auth.c), then,
 * for the host of rank 0, mpirun's own standard input.  Its stdout and
 * stderr are mpirun's: each daemon writes its ranks' whole lines there
 * itself.
 *
 * Each daemon connects back, proves the secret (or, under --auth=munge,
 * shows a munge credential: auth_munge.c, mh_munge.c), gets the job
 * (LN_MSG_JOB) and serves PMIx to its ranks.  mpirun is the root of a
 * one-level tree:
 * a fence completes when every daemon has sent its hosts' data, and every
 * daemon gets all of it back in node order.  Failures end the job:
 *   - a daemon reports a rank's failure (LN_MSG_FAIL): mpirun prints the
 *     first such line and tells every other daemon to end its ranks;
 *   - an agent exits before its daemon connected (host unreachable, no
 *     daemon there), or a daemon's connection drops before it said DONE
 *     (daemon killed, host lost): mpirun names the host and ends the job;
 *   - --timeout, and SIGINT/SIGTERM/SIGHUP to mpirun (passed to the
 *     ranks); SIGUSR1/SIGUSR2 are passed on and do not end the job.
 * After the end is decided, daemons get the grace period plus a few
 * seconds to finish; then their agents are killed.
 */
#include "launcher.h"
#include "ctl.h"
#include "mh.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netdb.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

struct daemon {
    const char *host;
    pid_t agent; /* 0 once reaped */
    int agent_status;
    int stdin_fd;        /* write end of the agent's stdin, -1 */
    struct ln_conn conn; /* fd -1 until the daemon has proved itself */
    int connected;       /* proved the secret */
    int done;            /* sent LN_MSG_DONE */
    uint8_t *fence;      /* its data for the pending fence */
    size_t nfence;
    int in_fence;
    double drain_by; /* agent exited: the connection's end is awaited until then */
};

/* A connection that has not proved the job's secret yet.  It may send one
 * HELLO within MH_HELLO_S seconds and nothing else: it is read without
 * blocking the loop, and never more than the HELLO's bytes (a munge
 * HELLO's credential is at most LN_CRED_MAX). */
#define MH_HELLO_S         5.0
#define MH_HELLO_LEN       (8 + 36 + LN_CHAL_LEN)
#define MH_MUNGE_HELLO_MIN (8 + 4 + LN_CHAL_LEN + 1)
#define MH_MUNGE_HELLO_MAX (8 + 4 + LN_CHAL_LEN + LN_CRED_MAX)
/* How long munged has to answer mpirun's first credential. */
#define MH_MUNGE_PROBE_S 2.0
/* An agent that exited normally may have sent its last messages on a path
 * slower than its exit status (a relay, ssh): its connection is read on for
 * this long before the job ends over it. */
#define MH_DRAIN_S 5.0
/* Beyond this many, new connections wait in the listen backlog. */
#define MH_PENDING_MAX 64

struct pending {
    int fd; /* -1: free */
    double deadline;
    uint8_t chal[LN_CHAL_LEN];
    uint8_t buf[MH_MUNGE_HELLO_MAX];
    size_t len, want; /* read so far, the HELLO's whole size once known */
    uint32_t gen;     /* tells a munge helper's late answer from this one */
    int checking;     /* its credential is with the munge helper */
    char peer[INET6_ADDRSTRLEN + 8];
};

struct mh {
    struct ln_opts *o;
    struct ln_hosts *h;
    struct daemon *d;
    int n;
    char secret[LN_SECRET_HEX + 1];
    char nspace[64];
    int lfd, sfd;
    char addr[64];
    int port;
    int failed, exit_code, signals_seen;
    double t0, start_by, end_by, timeout_at;
    int relay; /* stdin goes to d[rank 0's host].stdin_fd */
    uint8_t *job;
    size_t njob;
    struct pending pend[MH_PENDING_MAX];
    int npend;
    uint32_t gen;
    enum ln_auth auth;        /* LN_AUTH_SECRET or LN_AUTH_MUNGE once chosen */
    const char *munge_socket; /* RDMPI_MUNGE_SOCKET, or NULL */
    uint8_t jobid[LN_JOBID_LEN];
    char jobhex[2 * LN_JOBID_LEN + 1];
#ifdef HAVE_MUNGE
    struct ln_mungeh mh;
#endif
};

static const int mh_signals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};

/* The address daemons can reach us at: RDMPI_LAUNCH_ADDR, else the first
 * IPv4 address of an interface that is up and not loopback (loopback if
 * there is none). */
static void pick_addr(struct mh *m)
{
    const char *env = getenv("RDMPI_LAUNCH_ADDR");
    struct ifaddrs *ifs, *i;

    snprintf(m->addr, sizeof(m->addr), "127.0.0.1");
    if (env && *env) {
        snprintf(m->addr, sizeof(m->addr), "%s", env);
        return;
    }
    if (getifaddrs(&ifs) < 0)
        return;
    for (i = ifs; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
            !(i->ifa_flags & IFF_LOOPBACK)) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, m->addr,
                      sizeof(m->addr));
            break;
        }
    freeifaddrs(ifs);
}

/* Listens on the one address the daemons are told (pick_addr), never on
 * every address: elsewhere on the network nobody reaches the port. */
static int listen_ctl(struct mh *m)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res;
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    int rc = getaddrinfo(m->addr, NULL, &hints, &res);

    if (rc) {
        ln_err("cannot open the daemons' control port on %s: %s; set RDMPI_LAUNCH_ADDR to an "
               "IPv4 address of this host that the daemons can reach",
               m->addr, gai_strerror(rc));
        return -EINVAL;
    }
    memcpy(&sa, res->ai_addr, sizeof(sa));
    freeaddrinfo(res);
    sa.sin_port = 0;
    m->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (m->lfd < 0 || bind(m->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
        listen(m->lfd, 256) < 0 || getsockname(m->lfd, (struct sockaddr *)&sa, &len) < 0) {
        ln_err("cannot open the daemons' control port on %s: %s%s", m->addr, strerror(errno),
               errno == EADDRNOTAVAIL ? "; set RDMPI_LAUNCH_ADDR to an IPv4 address of this host"
                                      : "");
        return -EIO;
    }
    m->port = ntohs(sa.sin_port);
    return 0;
}

/* Append a NUL-terminated word to the job message. */
static int word(struct mh *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int word(struct mh *m, const char *fmt, ...)
{
    va_list ap;
    int n;
    uint8_t *b;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    b = realloc(m->job, m->njob + (size_t)n + 1);
    if (!b)
        return -ENOMEM;
    m->job = b;
    va_start(ap, fmt);
    vsnprintf((char *)b + m->njob, (size_t)n + 1, fmt, ap);
    va_end(ap);
    m->njob += (size_t)n + 1;
    return 0;
}

/* The job as launchd.c reads it back, word by word. */
static int build_job(struct mh *m)
{
    struct ln_opts *o = m->o;
    int rc = 0;

    rc |= word(m, "%s", m->nspace);
    rc |= word(m, "%d", o->np);
    rc |= word(m, "%d", m->n);
    for (int k = 0; k < m->n; k++)
        rc |= word(m, "%s", m->h->v[k].name);
    for (int r = 0; r < o->np; r++)
        rc |= word(m, "%d", m->h->node_of[r]);
    rc |= word(m, "%d", o->tag_output);
    rc |= word(m, "%d", (int)o->bind);
    rc |= word(m, "%d", o->report_bindings);
    rc |= word(m, "%d", o->verbose);
    rc |= word(m, "%.17g", o->kill_grace);
    rc |= word(m, "%s", o->output_dir ? o->output_dir : "");
    rc |= word(m, "%zu", o->nrank_env);
    for (size_t i = 0; i < o->nrank_env; i++)
        rc |= word(m, "%s", o->rank_env[i]);
    rc |= word(m, "%s", o->wdir ? o->wdir : "");
    rc |= word(m, "%d", o->napps);
    for (int k = 0; k < o->napps; k++) {
        const struct ln_app *a = &o->apps[k];
        int argc = 0;

        rc |= word(m, "%d", a->np);
        rc |= word(m, "%s", a->wdir ? a->wdir : "");
        rc |= word(m, "%zu", a->nenv);
        for (size_t i = 0; i < a->nenv; i++)
            rc |= word(m, "%s", a->env[i]);
        rc |= word(m, "%s", a->prog);
        while (a->argv[argc])
            argc++;
        rc |= word(m, "%d", argc);
        for (int i = 0; i < argc; i++)
            rc |= word(m, "%s", a->argv[i]);
    }
    /* Ranks start in mpirun's directory, as on one host (relative paths
     * in the program's arguments and --output-filename mean the same). */
    char cwd[PATH_MAX];

    rc |= word(m, "%s", getcwd(cwd, sizeof(cwd)) ? cwd : "");
    return rc ? -ENOMEM : 0;
}

/* The daemon: RDMPI_LAUNCHD, else the one beside mpirun when there is one
 * (the build tree, where both are built in launcher/), else the installed
 * one in pkglibexecdir.  Other hosts get the same path. */
static void launchd_path(char *buf, size_t len)
{
    const char *env = getenv("RDMPI_LAUNCHD");
    char self[PATH_MAX];
    ssize_t n;

    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return;
    }
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {
        self[n] = 0;
        *strrchr(self, '/') = 0;
        if (snprintf(buf, len, "%s/rdmpi-launchd", self) < (int)len && access(buf, X_OK) == 0)
            return;
    }
    snprintf(buf, len, "%s/rdmpi-launchd", LN_PKGLIBEXECDIR);
}

static int host_is_me(const char *name)
{
    char me[256] = "";

    gethostname(me, sizeof(me) - 1);
    return !strcmp(name, "localhost") || !strcmp(name, me);
}

static int start_daemon(struct mh *m, int k, const char *launchd)
{
    struct daemon *d = &m->d[k];
    char ctl[128], node[16], *argv[64];
    char agent[1024];
    int argc = 0, in[2];
    pid_t pid;

    snprintf(ctl, sizeof(ctl), "%s:%d", m->addr, m->port);
    snprintf(node, sizeof(node), "%d", k);
    snprintf(agent, sizeof(agent), "%s", m->o->launch_agent ? m->o->launch_agent : "ssh");
    if (!host_is_me(d->host)) {
        for (char *save = NULL, *t = strtok_r(agent, " \t", &save); t && argc < 48;
             t = strtok_r(NULL, " \t", &save))
            argv[argc++] = t;
        argv[argc++] = (char *)d->host;
    }
    argv[argc++] = (char *)launchd;
    argv[argc++] = "--ctl";
    argv[argc++] = ctl;
    argv[argc++] = "--node";
    argv[argc++] = node;
    argv[argc++] = "--name";
    argv[argc++] = (char *)d->host;
    if (m->auth == LN_AUTH_MUNGE) {
        argv[argc++] = "--auth";
        argv[argc++] = "munge";
        argv[argc++] = "--job";
        argv[argc++] = m->jobhex;
        if (m->munge_socket) {
            argv[argc++] = "--munge-socket";
            argv[argc++] = (char *)m->munge_socket;
        }
    }
    argv[argc] = NULL;

    if (pipe2(in, O_CLOEXEC) < 0) {
        ln_err("pipe: %s", strerror(errno));
        return -errno;
    }
    pid = fork();
    if (pid < 0) {
        ln_err("cannot start the daemon for host %s: fork: %s", d->host, strerror(errno));
        close(in[0]);
        close(in[1]);
        return -errno;
    }
    if (pid == 0) {
        ln_signals_default();
        setpgid(0, 0); /* the terminal's Ctrl-C is mpirun's to pass on */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(in[0], 0);
        execvp(argv[0], argv);
        fprintf(stderr, "mpirun: cannot start the daemon for host %s: %s: %s\n", d->host, argv[0],
                strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(in[0]);
    d->agent = pid;
    /* The secret first; the pipe is empty, so this cannot block. */
    if (m->auth == LN_AUTH_SECRET) {
        char line[LN_SECRET_HEX + 2];

        snprintf(line, sizeof(line), "%s\n", m->secret);
        ln_write_all(in[1], line, strlen(line));
    }
    if (m->h->node_of[0] == k) {
        d->stdin_fd = in[1];
        m->relay = 1;
    } else {
        close(in[1]);
    }
    ln_verbose(&(struct ln_job){.opts = m->o}, "started the daemon for host %s (%s%s)", d->host,
               argv[0], host_is_me(d->host) ? "" : " as launch agent");
    return 0;
}

/* --auth: the secret, or munge when asked for or (auto) when built in and
 * munged answers; munge also starts the helper that mh_munge.c is. */
static int choose_auth(struct mh *m)
{
    const char *s = getenv("RDMPI_MUNGE_SOCKET");

    m->munge_socket = s && *s ? s : NULL;
    m->auth = m->o->auth;
#ifdef HAVE_MUNGE
    if (m->auth != LN_AUTH_SECRET) {
        char why[256];

        if (!ln_mungeh_start(&m->mh, m->munge_socket, MH_MUNGE_PROBE_S, why, sizeof(why))) {
            m->auth = LN_AUTH_MUNGE;
        } else if (m->auth == LN_AUTH_MUNGE) {
            ln_err("--auth=munge: munged does not answer at %s: %s; start munged there, set "
                   "RDMPI_MUNGE_SOCKET to its socket, or use --auth=secret",
                   m->munge_socket ? m->munge_socket : "libmunge's default socket", why);
            return -EIO;
        } else {
            ln_verbose(&(struct ln_job){.opts = m->o},
                       "--auth=auto: munged does not answer (%s); the daemons prove a per-job "
                       "secret",
                       why);
            m->auth = LN_AUTH_SECRET;
        }
    }
#else
    m->auth = LN_AUTH_SECRET; /* options.c refuses munge */
#endif
    if (m->auth == LN_AUTH_SECRET)
        return ln_secret_new(m->secret);
    int rc = ln_random(m->jobid, sizeof(m->jobid));

    for (int i = 0; i < LN_JOBID_LEN; i++)
        snprintf(m->jobhex + 2 * i, 3, "%02x", m->jobid[i]);
    ln_verbose(&(struct ln_job){.opts = m->o}, "the daemons authenticate with munge (job id %s)",
               m->jobhex);
    return rc;
}

static void send_all(struct mh *m, uint32_t type, uint32_t v, int except)
{
    for (int k = 0; k < m->n; k++)
        if (k != except && m->d[k].conn.fd >= 0)
            ln_ctl_send_u32(m->d[k].conn.fd, type, v, NULL, 0);
}

/* The first failure decides the status and has the one line. */
static void end_job(struct mh *m, int code, int except, int sig, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void end_job(struct mh *m, int code, int except, int sig, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];

    if (m->failed)
        return;
    m->failed = 1;
    m->exit_code = code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ln_err("%s", msg);
    send_all(m, LN_MSG_END, (uint32_t)sig, except);
    m->end_by = ln_now() + m->o->kill_grace + 5;
}

static void fence_check(struct mh *m)
{
    size_t total = 0, off = 0;
    char *all;

    for (int k = 0; k < m->n; k++) {
        if (!m->d[k].in_fence)
            return;
        total += m->d[k].nfence;
    }
    all = malloc(total ? total : 1);
    if (!all) {
        end_job(m, LN_EXIT_INTERNAL, -1, SIGTERM, "out of memory in a fence");
        return;
    }
    for (int k = 0; k < m->n; k++) {
        memcpy(all + off, m->d[k].fence, m->d[k].nfence);
        off += m->d[k].nfence;
        free(m->d[k].fence);
        m->d[k].fence = NULL;
        m->d[k].nfence = 0;
        m->d[k].in_fence = 0;
    }
    for (int k = 0; k < m->n; k++)
        if (m->d[k].conn.fd >= 0)
            ln_ctl_send(m->d[k].conn.fd, LN_MSG_FENCE_DONE, all, total);
    free(all);
}

static void handle_msg(struct mh *m, int k, uint32_t type, uint8_t *p, size_t len);

/* A daemon's connection closed or its agent ended: take what it still
 * sent, wait a moment for the agent's status, and unless the daemon had
 * finished (or the job is already ending) end the job naming the host. */
static void daemon_gone(struct mh *m, int k)
{
    struct daemon *d = &m->d[k];
    uint32_t type;
    uint8_t *p;
    size_t len;
    char name[32];
    int st = d->agent_status, known = !d->agent;

    if (d->conn.fd >= 0) {
        ln_conn_fill(&d->conn);
        while (ln_conn_next(&d->conn, &type, &p, &len))
            handle_msg(m, k, type, p, len);
        ln_conn_close(&d->conn);
    }
    if (d->done || m->failed)
        return;
    for (int i = 0; d->agent && i < 50; i++) {
        if (waitpid(d->agent, &st, WNOHANG) == d->agent) {
            d->agent = 0;
            d->agent_status = st;
            known = 1;
            break;
        }
        usleep(10000);
    }
    if (!d->connected)
        end_job(m, LN_EXIT_INTERNAL, k, SIGTERM,
                "cannot reach host %s: the launch agent exited with status %d before the "
                "daemon connected; ending the job",
                d->host, known && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    else if (known && WIFSIGNALED(st))
        end_job(m, LN_EXIT_INTERNAL, k, SIGTERM,
                "the daemon on host %s was killed by signal %d (%s); ending the job", d->host,
                WTERMSIG(st), ln_signame(WTERMSIG(st), name, sizeof(name)));
    else if (known)
        end_job(m, LN_EXIT_INTERNAL, k, SIGTERM,
                "the daemon on host %s exited with status %d while its ranks ran; ending the job",
                d->host, WEXITSTATUS(st));
    else
        end_job(m, LN_EXIT_INTERNAL, k, SIGTERM,
                "lost the connection to the daemon on host %s; ending the job", d->host);
}

static void handle_msg(struct mh *m, int k, uint32_t type, uint8_t *p, size_t len)
{
    struct daemon *d = &m->d[k];

    switch (type) {
    case LN_MSG_FENCE:
        free(d->fence);
        d->fence = p;
        d->nfence = len;
        d->in_fence = 1;
        fence_check(m);
        return;
    case LN_MSG_FAIL:
        if (len >= 4) {
            int code = (int)ln_get_u32(p);

            end_job(m, code, k, SIGTERM, "%s", (char *)p + 4);
        }
        break;
    case LN_MSG_DONE:
        d->done = 1;
        if (len >= 4 && ln_get_u32(p) && !m->failed)
            end_job(m, (int)ln_get_u32(p), k, SIGTERM,
                    "the daemon on host %s failed (status %u); ending the job", d->host,
                    ln_get_u32(p));
        break;
    default: break;
    }
    free(p);
}

static void read_daemon(struct mh *m, int k)
{
    struct daemon *d = &m->d[k];
    uint32_t type;
    uint8_t *p;
    size_t len;
    int eof = ln_conn_fill(&d->conn) < 0;

    while (d->conn.fd >= 0 && ln_conn_next(&d->conn, &type, &p, &len))
        handle_msg(m, k, type, p, len);
    if (eof && d->conn.fd >= 0)
        daemon_gone(m, k);
}

/* Each refused connection is logged once, naming the peer and why. */
static void refuse(struct mh *m, struct pending *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void refuse(struct mh *m, struct pending *p, const char *fmt, ...)
{
    va_list ap;
    char why[256];

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    ln_err("refused a control connection from %s: %s", p->peer, why);
    close(p->fd);
    p->fd = -1;
    m->npend--;
}

/* Takes the connections waiting in the backlog while a slot is free, and
 * sends each its challenge. */
static void accept_daemons(struct mh *m)
{
    for (int i = 0; i < MH_PENDING_MAX && m->npend < MH_PENDING_MAX; i++) {
        struct pending *p = &m->pend[i];
        struct sockaddr_in sa;
        socklen_t salen = sizeof(sa);
        char ip[INET_ADDRSTRLEN] = "?";
        int one = 1;

        if (p->fd >= 0)
            continue;
        p->fd = accept4(m->lfd, (struct sockaddr *)&sa, &salen, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (p->fd < 0)
            return;
        m->npend++;
        p->gen = ++m->gen;
        p->checking = 0;
        p->want = 8;
        if (sa.sin_family == AF_INET)
            inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
        snprintf(p->peer, sizeof(p->peer), "%s:%d", ip, ntohs(sa.sin_port));
        p->len = 0;
        p->deadline = ln_now() + MH_HELLO_S;
        setsockopt(p->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        /* The challenge fits an empty socket buffer: this does not block. */
        if (ln_random(p->chal, sizeof(p->chal)) ||
            ln_ctl_send(p->fd, LN_MSG_CHALLENGE, p->chal, sizeof(p->chal)))
            refuse(m, p, "cannot send the challenge");
    }
}

/* The daemon of node has proved itself: its connection becomes that
 * node's, and gets our proof (of type ptype) and the job. */
static void admit(struct mh *m, struct pending *p, uint32_t node, uint32_t ptype, const void *proof,
                  size_t plen)
{
    struct ln_conn c = {.fd = p->fd};

    if (m->d[node].conn.fd >= 0) {
        refuse(m, p, "the daemon of host %s is already connected", m->d[node].host);
        return;
    }
    p->fd = -1;
    m->npend--;
    if (ln_ctl_send(c.fd, ptype, proof, plen)) {
        ln_conn_close(&c);
        return;
    }
    m->d[node].conn = c;
    ln_verbose(&(struct ln_job){.opts = m->o}, "daemon of host %s connected after %.1f ms",
               m->d[node].host, (ln_now() - m->t0) * 1e3);
    m->d[node].connected = 1;
    /* Too late to start anything: it goes without a job. */
    if (m->failed ? ln_ctl_send_u32(c.fd, LN_MSG_END, SIGTERM, NULL, 0)
                  : ln_ctl_send(c.fd, LN_MSG_JOB, m->job, m->njob))
        daemon_gone(m, (int)node);
}

/* A whole HELLO: the daemon of a node proves the secret under our
 * challenge. */
static void hello(struct mh *m, struct pending *p, uint32_t node)
{
    uint8_t want[LN_PROOF_LEN];

    if (ln_auth_proof(m->secret, p->chal, node, want)) {
        refuse(m, p, "cannot check its proof");
        return;
    }
    /* The proof answers this connection's challenge: a HELLO recorded
     * from another connection or job fails here. */
    if (!ln_auth_equal(want, p->buf + 12)) {
        refuse(m, p, "it did not prove the job's secret");
        return;
    }
    if (ln_auth_proof(m->secret, p->buf + 12 + LN_PROOF_LEN, LN_NODE_MPIRUN, want)) {
        refuse(m, p, "cannot answer its challenge");
        return;
    }
    admit(m, p, node, LN_MSG_PROVEN, want, sizeof(want));
}

#ifdef HAVE_MUNGE
/* A whole munge HELLO goes to the helper; the loop goes on meanwhile
 * (munge_answers takes its verdict). */
static void hello_munge(struct mh *m, struct pending *p, uint32_t node)
{
    struct ln_mungeh_req q = {.tag = (uint32_t)(p - m->pend), .gen = p->gen};
    size_t clen = p->len - (8 + 4 + LN_CHAL_LEN);

    memcpy(q.want.job, m->jobid, LN_JOBID_LEN);
    q.want.node = node;
    memcpy(q.want.nonce, p->chal, LN_CHAL_LEN);
    memcpy(q.dchal, p->buf + 12, LN_CHAL_LEN);
    memcpy(q.cred, p->buf + 12 + LN_CHAL_LEN, clen);
    q.cred[clen] = 0;
    if (strlen(q.cred) != clen) {
        refuse(m, p, "a NUL byte in its munge credential");
        return;
    }
    if (ln_mungeh_submit(&m->mh, &q)) {
        refuse(m, p, "mpirun's munge helper cannot take it (ended, or %d checks queued)", m->npend);
        return;
    }
    p->checking = 1;
}

static void munge_answers(struct mh *m)
{
    struct ln_mungeh_res r;
    int got;

    while ((got = ln_mungeh_result(&m->mh, &r)) > 0) {
        struct pending *p = r.tag < MH_PENDING_MAX ? &m->pend[r.tag] : NULL;

        if (!p || p->fd < 0 || p->gen != r.gen || !p->checking)
            continue; /* refused meanwhile, at its deadline */
        p->checking = 0;
        if (r.rc)
            refuse(m, p, "%s", r.why);
        else
            admit(m, p, ln_get_u32(p->buf + 8), LN_MSG_PROVEN_MUNGE, r.reply, strlen(r.reply));
    }
    if (got < 0) {
        ln_err("mpirun's munge helper ended; no more daemons can be checked");
        ln_mungeh_stop(&m->mh);
        for (int i = 0; i < MH_PENDING_MAX; i++)
            if (m->pend[i].fd >= 0 && m->pend[i].checking)
                refuse(m, &m->pend[i], "mpirun's munge helper ended");
    }
}
#endif

/* Reads what a pending connection sent, up to the HELLO's size; the
 * header alone already tells a HELLO from anything else. */
static void read_pending(struct mh *m, struct pending *p)
{
    uint32_t type = m->auth == LN_AUTH_MUNGE ? LN_MSG_HELLO_MUNGE : LN_MSG_HELLO, node;
    ssize_t n = read(p->fd, p->buf + p->len, p->want - p->len);

    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        refuse(m, p, "it closed before a whole HELLO (%zu of %d bytes)", p->len, MH_HELLO_LEN);
        return;
    }
    p->len += (size_t)n;
    if (p->len < 8)
        return;
    if (ln_get_u32(p->buf + 4) != type) {
        refuse(m, p, "message type %u where the %sHELLO (%u) was due", ln_get_u32(p->buf + 4),
               type == LN_MSG_HELLO ? "" : "munge ", type);
        return;
    }
    if (p->want == 8 && type == LN_MSG_HELLO) {
        if (ln_get_u32(p->buf) != MH_HELLO_LEN - 8) {
            refuse(m, p, "a HELLO of %u bytes announced, it has %d", ln_get_u32(p->buf),
                   MH_HELLO_LEN - 8);
            return;
        }
        p->want = MH_HELLO_LEN;
    } else if (p->want == 8) {
        if (ln_get_u32(p->buf) < MH_MUNGE_HELLO_MIN - 8 ||
            ln_get_u32(p->buf) > MH_MUNGE_HELLO_MAX - 8) {
            refuse(m, p, "a munge HELLO of %u bytes announced, it has %d to %d", ln_get_u32(p->buf),
                   MH_MUNGE_HELLO_MIN - 8, MH_MUNGE_HELLO_MAX - 8);
            return;
        }
        p->want = 8 + ln_get_u32(p->buf);
    }
    if (p->len < p->want)
        return;
    node = ln_get_u32(p->buf + 8);
    if (node >= (uint32_t)m->n) {
        refuse(m, p, "node %u in its HELLO, the job has %d hosts", node, m->n);
        return;
    }
#ifdef HAVE_MUNGE
    if (type == LN_MSG_HELLO_MUNGE) {
        hello_munge(m, p, node);
        return;
    }
#endif
    hello(m, p, node);
}

/* Refuses pending connections past their deadline; returns the next one. */
static double expire_pending(struct mh *m, double now)
{
    double next = 0;

    for (int i = 0; i < MH_PENDING_MAX; i++) {
        struct pending *p = &m->pend[i];

        if (p->fd < 0)
            continue;
        if (now >= p->deadline && p->checking)
            refuse(m, p, "munged did not check its credential within %g s", MH_HELLO_S);
        else if (now >= p->deadline)
            refuse(m, p, "no HELLO within %g s (%zu of %zu bytes)", MH_HELLO_S, p->len,
                   p->want == 8 && m->auth == LN_AUTH_SECRET ? (size_t)MH_HELLO_LEN : p->want);
        else if (!next || p->deadline < next)
            next = p->deadline;
    }
    return next;
}

static void reap_agents(struct mh *m)
{
    pid_t pid;
    int st;

    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
#ifdef HAVE_MUNGE
        if (pid == m->mh.pid)
            m->mh.pid = 0; /* munge_answers sees its end */
#endif
        for (int k = 0; k < m->n; k++)
            if (m->d[k].agent == pid) {
                m->d[k].agent = 0;
                m->d[k].agent_status = st;
                if (WIFEXITED(st) && m->d[k].conn.fd >= 0 && !m->d[k].done && !m->failed)
                    m->d[k].drain_by = ln_now() + MH_DRAIN_S;
                else
                    daemon_gone(m, k);
                break;
            }
    }
}

static void handle_signals(struct mh *m)
{
    struct signalfd_siginfo si;
    char name[32];

    while (read(m->sfd, &si, sizeof(si)) == sizeof(si)) {
        int sig = (int)si.ssi_signo;

        if (sig == SIGCHLD) {
            reap_agents(m);
        } else if (sig == SIGUSR1 || sig == SIGUSR2) {
            send_all(m, LN_MSG_SIGNAL, (uint32_t)sig, -1);
        } else if (++m->signals_seen > 1) {
            send_all(m, LN_MSG_END, SIGKILL, -1);
        } else {
            end_job(m, 128 + sig, -1, sig, "caught %s; ending the job",
                    ln_signame(sig, name, sizeof(name)));
        }
    }
}

static void relay_stdin(struct mh *m)
{
    int k = m->h->node_of[0];
    char buf[65536];
    ssize_t n = read(0, buf, sizeof(buf));

    if (n > 0 && m->d[k].stdin_fd >= 0 && !ln_write_all(m->d[k].stdin_fd, buf, (size_t)n))
        return;
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (m->d[k].stdin_fd >= 0)
        close(m->d[k].stdin_fd);
    m->d[k].stdin_fd = -1;
    m->relay = 0;
}

static int running(const struct mh *m)
{
    for (int k = 0; k < m->n; k++)
        if (m->d[k].agent || m->d[k].conn.fd >= 0)
            return 1;
    return 0;
}

static void kill_agents(struct mh *m)
{
    for (int k = 0; k < m->n; k++)
        if (m->d[k].agent)
            kill(-m->d[k].agent, SIGKILL);
}

/* Poll slots: -1 signals, -2 the port, -3 stdin, -4 - i pending i. */
#define MH_WHO_MUNGE (-4 - MH_PENDING_MAX)

static int loop(struct mh *m)
{
    struct pollfd *pfd = calloc((size_t)m->n + 4 + MH_PENDING_MAX, sizeof(*pfd));
    int *who = calloc((size_t)m->n + 4 + MH_PENDING_MAX, sizeof(int));
    int killed = 0;

    if (!pfd || !who) {
        free(pfd);
        free(who);
        return -ENOMEM;
    }
    while (running(m)) {
        double now = ln_now(), next = 0, pend_next;
        int n = 0;

        if (!m->failed && m->timeout_at && now >= m->timeout_at)
            end_job(m, LN_EXIT_TIMEOUT, -1, SIGTERM, "timeout after %g s; ending the job",
                    m->o->timeout);
        if (!m->failed && now >= m->start_by)
            for (int k = 0; k < m->n; k++)
                if (m->d[k].conn.fd < 0 && !m->d[k].done) {
                    end_job(m, LN_EXIT_INTERNAL, -1, SIGTERM,
                            "cannot reach host %s: no daemon connected within %g s; ending "
                            "the job",
                            m->d[k].host, m->start_by - m->t0);
                    break;
                }
        if (m->failed && now >= m->end_by && !killed) {
            kill_agents(m);
            killed = 1;
        }

        for (int k = 0; k < m->n; k++)
            if (m->d[k].drain_by && m->d[k].conn.fd >= 0 && now >= m->d[k].drain_by)
                daemon_gone(m, k);
        pend_next = expire_pending(m, now);
        pfd[n].fd = m->sfd, pfd[n].events = POLLIN, who[n++] = -1;
        if (m->npend < MH_PENDING_MAX)
            pfd[n].fd = m->lfd, pfd[n].events = POLLIN, who[n++] = -2;
        if (m->relay)
            pfd[n].fd = 0, pfd[n].events = POLLIN, who[n++] = -3;
        /* One being checked is not read: it has sent all it may. */
        for (int i = 0; i < MH_PENDING_MAX; i++)
            if (m->pend[i].fd >= 0 && !m->pend[i].checking)
                pfd[n].fd = m->pend[i].fd, pfd[n].events = POLLIN, who[n++] = -4 - i;
#ifdef HAVE_MUNGE
        if (m->mh.fd >= 0)
            pfd[n].fd = m->mh.fd, pfd[n].events = POLLIN, who[n++] = MH_WHO_MUNGE;
#endif
        for (int k = 0; k < m->n; k++)
            if (m->d[k].conn.fd >= 0)
                pfd[n].fd = m->d[k].conn.fd, pfd[n].events = POLLIN, who[n++] = k;

        for (int k = 0; k < m->n && !m->failed; k++)
            if (m->d[k].conn.fd < 0 && !m->d[k].done)
                next = m->start_by;
        if (m->timeout_at && !m->failed && (!next || m->timeout_at < next))
            next = m->timeout_at;
        if (m->failed && !killed)
            next = m->end_by;
        if (pend_next && (!next || pend_next < next))
            next = pend_next;
        for (int k = 0; k < m->n; k++)
            if (m->d[k].drain_by && m->d[k].conn.fd >= 0 && (!next || m->d[k].drain_by < next))
                next = m->d[k].drain_by;
        int ms = next ? (next <= now ? 0 : (int)((next - now) * 1000) + 1) : -1;

        if (poll(pfd, (nfds_t)n, ms) < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n; i++) {
            if (!pfd[i].revents)
                continue;
            if (who[i] == -1)
                handle_signals(m);
            else if (who[i] == -2)
                accept_daemons(m);
            else if (who[i] == -3)
                relay_stdin(m);
#ifdef HAVE_MUNGE
            else if (who[i] == MH_WHO_MUNGE)
                munge_answers(m);
#endif
            else if (who[i] <= -4) {
                if (m->pend[-4 - who[i]].fd == pfd[i].fd)
                    read_pending(m, &m->pend[-4 - who[i]]);
            } else if (m->d[who[i]].conn.fd == pfd[i].fd)
                read_daemon(m, who[i]);
        }
    }
    free(pfd);
    free(who);
    return 0;
}

int ln_mh_run(struct ln_opts *o, struct ln_hosts *h)
{
    struct mh m = {.o = o, .h = h, .n = h->n, .lfd = -1, .sfd = -1};
#ifdef HAVE_MUNGE
    m.mh.fd = -1;
#endif
    char launchd[PATH_MAX];
    sigset_t set;
    int rc = 0;

    m.t0 = ln_now();
    m.d = calloc((size_t)m.n, sizeof(*m.d));
    if (!m.d)
        return LN_EXIT_INTERNAL;
    for (int k = 0; k < m.n; k++) {
        m.d[k].host = h->v[k].name;
        m.d[k].stdin_fd = -1;
        m.d[k].conn.fd = -1;
    }
    for (int i = 0; i < MH_PENDING_MAX; i++)
        m.pend[i].fd = -1;
    snprintf(m.nspace, sizeof(m.nspace), "rdmpi.%d", (int)getpid());
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof(mh_signals) / sizeof(int); i++)
        sigaddset(&set, mh_signals[i]);
    if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
        (m.sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
        ln_err("cannot set up signal handling: %s", strerror(errno));
        rc = -EIO;
    }
    pick_addr(&m);
    if (!rc)
        rc = choose_auth(&m);
    if (!rc && (rc = listen_ctl(&m)) == 0)
        rc = build_job(&m);
    if (rc) {
        m.failed = 1; /* so that ln_mh_run returns exit_code */
        m.exit_code = LN_EXIT_INTERNAL;
        goto out;
    }
    ln_verbose(&(struct ln_job){.opts = o}, "listening for the daemons on %s:%d", m.addr, m.port);
    launchd_path(launchd, sizeof(launchd));
    if (o->timeout > 0)
        m.timeout_at = m.t0 + o->timeout;
    {
        const char *s = getenv("RDMPI_LAUNCH_TIMEOUT");
        double lt = s && *s ? atof(s) : 30;

        m.start_by = m.t0 + (lt > 0 ? lt : 30);
    }
    for (int k = 0; k < m.n && !m.failed; k++)
        if (start_daemon(&m, k, launchd))
            end_job(&m, LN_EXIT_INTERNAL, -1, SIGTERM, "ending the job");
    loop(&m);
    ln_verbose(&(struct ln_job){.opts = o}, "job done after %.1f ms, exit status %d",
               (ln_now() - m.t0) * 1e3, m.exit_code);
out:
    for (int k = 0; k < m.n; k++) {
        ln_conn_close(&m.d[k].conn);
        free(m.d[k].fence);
        if (m.d[k].stdin_fd >= 0)
            close(m.d[k].stdin_fd);
    }
    for (int i = 0; i < MH_PENDING_MAX; i++)
        if (m.pend[i].fd >= 0)
            close(m.pend[i].fd);
    if (m.lfd >= 0)
        close(m.lfd);
    if (m.sfd >= 0)
        close(m.sfd);
#ifdef HAVE_MUNGE
    ln_mungeh_stop(&m.mh);
#endif
    free(m.d);
    free(m.job);
    return m.failed ? m.exit_code : 0;
}
