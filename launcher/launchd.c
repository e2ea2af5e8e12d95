/*
 * launchd.c: rdmpi-launchd, the per-host daemon of a multi-host mpirun.
 *
 *   rdmpi-launchd --ctl ADDR:PORT --node K --name HOST
 *                 [--auth munge --job ID [--munge-socket PATH]]
 *
 * started by mpirun through the launch agent (mh.c).  It reads the job's
 * secret from the first line of its standard input (what follows is rank
 * 0's input, if rank 0 is here), connects to mpirun, proves the secret and
 * receives the job.  With --auth munge there is no secret: it shows mpirun
 * a munge credential for job ID and mpirun's challenge, and checks
 * mpirun's for its own challenge (auth_munge.c).  Then it is mpirun's
 * single-host machinery for the ranks of host K (job.c, pmix_server.c,
 * iof.c): its PMIx server knows the
 * whole job (every host, every rank) and starts only its own ranks.  The
 * differences, all through the control connection:
 *   - a fence that needs the other hosts goes to mpirun, and completes
 *     with every host's data (ln_launchd_fence / LN_MSG_FENCE_DONE);
 *   - a failure's one line goes to mpirun, which prints the job's first
 *     one (ln_launchd_report), instead of to stderr;
 *   - mpirun's LN_MSG_END ends the ranks (as a signal to mpirun does),
 *     LN_MSG_SIGNAL passes a signal on;
 *   - if mpirun goes away, the ranks are killed at once.
 * At the end it says LN_MSG_DONE with its status, and removes its files.
 */
#include "launcher.h"
#include "ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct ln_job job;
static struct ln_opts opts;
static struct ln_conn ctl = {.fd = -1};
static char prefix[300];

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

static void usage(void)
{
    ln_err("usage: rdmpi-launchd --ctl ADDR:PORT --node K --name HOST [--auth munge --job ID "
           "[--munge-socket PATH]] (started by mpirun, with the job's secret on standard input "
           "unless --auth munge)");
}

/* The handshake's first half under the secret: our proof of it for
 * mpirun's challenge, and our own challenge, whose answer goes to want. */
static int hello_secret(const char *secret, uint32_t node, const uint8_t *chal, uint8_t *hello,
                        uint8_t want[LN_PROOF_LEN])
{
    hello[0] = (uint8_t)(node >> 24), hello[1] = (uint8_t)(node >> 16);
    hello[2] = (uint8_t)(node >> 8), hello[3] = (uint8_t)node;
    if (ln_auth_proof(secret, chal, node, hello + 4) || ln_random(hello + 36, LN_CHAL_LEN) ||
        ln_auth_proof(secret, hello + 36, LN_NODE_MPIRUN, want))
        return -EIO;
    return 0;
}

#ifdef HAVE_MUNGE
static struct munge_auth {
    const char *socket;
    struct ln_munge_bind ours; /* what mpirun's answer must bind */
} ma;

static int parse_job(const char *hex, uint8_t id[LN_JOBID_LEN])
{
    if (!hex || strlen(hex) != 2 * LN_JOBID_LEN)
        return -EINVAL;
    for (int i = 0; i < LN_JOBID_LEN; i++) {
        unsigned v;

        if (sscanf(hex + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdef", hex[2 * i]) ||
            !strchr("0123456789abcdef", hex[2 * i + 1]))
            return -EINVAL;
        id[i] = (uint8_t)v;
    }
    return 0;
}

/* Under munge: node, our challenge and our credential for mpirun's
 * challenge; *len gets the HELLO's size. */
static int hello_munge(struct munge_auth *a, uint32_t node, const uint8_t *chal, uint8_t *hello,
                       size_t *len)
{
    struct ln_munge_bind b = a->ours;
    char cred[LN_CRED_MAX + 1], why[256];

    b.node = node;
    memcpy(b.nonce, chal, LN_CHAL_LEN);
    if (ln_munge_encode(a->socket, &b, cred, why, sizeof(why))) {
        ln_err("cannot make a munge credential for mpirun: %s (munged's socket: %s)", why,
               a->socket ? a->socket : "libmunge's default");
        return -EIO;
    }
    a->ours.node = LN_NODE_MPIRUN;
    if (ln_random(a->ours.nonce, LN_CHAL_LEN))
        return -EIO;
    hello[0] = (uint8_t)(node >> 24), hello[1] = (uint8_t)(node >> 16);
    hello[2] = (uint8_t)(node >> 8), hello[3] = (uint8_t)node;
    memcpy(hello + 4, a->ours.nonce, LN_CHAL_LEN);
    memcpy(hello + 4 + LN_CHAL_LEN, cred, strlen(cred));
    *len = 4 + LN_CHAL_LEN + strlen(cred);
    return 0;
}
#endif

/* mpirun's answer (payload p of len bytes) proves it: the secret's proof
 * of our challenge, or its munge credential for it.  Else *why says so. */
static int proven_ok(int munge, const uint8_t *p, size_t len, const uint8_t want[LN_PROOF_LEN],
                     char *why, size_t nwhy)
{
#ifdef HAVE_MUNGE
    if (munge) {
        char cred[LN_CRED_MAX + 1];

        if (len > LN_CRED_MAX) {
            snprintf(why, nwhy, "its munge credential has %zu bytes, at most %d", len, LN_CRED_MAX);
            return 0;
        }
        memcpy(cred, p, len);
        cred[len] = 0;
        return ln_munge_verify(ma.socket, cred, &ma.ours, why, nwhy) == 0;
    }
#endif
    (void)munge;
    snprintf(why, nwhy, "it did not prove the job's secret");
    return len == LN_PROOF_LEN && ln_auth_equal(want, p);
}

/* The first line of stdin, read a byte at a time so that nothing after it
 * (rank 0's input) is consumed. */
static int read_secret(char out[LN_SECRET_HEX + 1])
{
    size_t n = 0;

    for (;;) {
        struct pollfd p = {.fd = 0, .events = POLLIN};
        char c;

        if (poll(&p, 1, 30000) <= 0 || read(0, &c, 1) != 1)
            return -EIO;
        if (c == '\n')
            break;
        if (n >= LN_SECRET_HEX)
            return -EIO;
        out[n++] = c;
    }
    out[n] = 0;
    return n == LN_SECRET_HEX ? 0 : -EIO;
}

static int connect_ctl(const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *a;
    int fd = -1, one = 1;

    if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof(host))
        return -EINVAL;
    snprintf(host, sizeof(host), "%.*s", (int)(colon - hostport), hostport);
    if (getaddrinfo(host, colon + 1, &hints, &res)) {
        ln_err("cannot resolve mpirun's address %s", hostport);
        return -EHOSTUNREACH;
    }
    for (a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) == 0)
            break;
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        ln_err("cannot connect to mpirun at %s: %s", hostport, strerror(errno));
        return -EHOSTUNREACH;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

/* Words of LN_MSG_JOB, in the order mh.c's build_job writes them. */
struct words {
    char *p, *end;
};

static const char *next_word(struct words *w)
{
    char *s = w->p;

    if (w->p >= w->end)
        return NULL;
    w->p += strlen(s) + 1;
    return s;
}

static int next_int(struct words *w, int *out)
{
    const char *s = next_word(w);
    char *end;
    long v;

    if (!s)
        return -EPROTO;
    v = strtol(s, &end, 10);
    if (*end || v < 0 || v > INT32_MAX)
        return -EPROTO;
    *out = (int)v;
    return 0;
}

static int read_job(char *payload, size_t len, int node, const char *name)
{
    struct words w = {payload, payload + len};
    const char *s;
    int np, nnodes, v, argc, nenv;

    memset(&opts, 0, sizeof(opts));
    s = next_word(&w);
    if (!s || next_int(&w, &np) || next_int(&w, &nnodes) || np <= 0 || nnodes <= node)
        return -EPROTO;
    opts.np = np;
    if (ln_job_init(&job, &opts))
        return -ENOMEM;
    snprintf(job.nspace, sizeof(job.nspace), "%s", s);
    snprintf(job.host, sizeof(job.host), "%s", name);
    job.nnodes = nnodes;
    job.nodeid = node;
    job.node_names = calloc((size_t)nnodes, sizeof(char *));
    job.node_of = calloc((size_t)np, sizeof(int));
    if (!job.node_names || !job.node_of)
        return -ENOMEM;
    for (int k = 0; k < nnodes; k++)
        if (!(job.node_names[k] = (char *)next_word(&w)))
            return -EPROTO;
    job.nlocal = 0;
    for (int r = 0; r < np; r++) {
        if (next_int(&w, &job.node_of[r]) || job.node_of[r] >= nnodes)
            return -EPROTO;
        job.nlocal += job.node_of[r] == node;
    }
    if (next_int(&w, &opts.tag_output) || next_int(&w, &v))
        return -EPROTO;
    opts.bind = (enum ln_bind)v;
    if (next_int(&w, &opts.report_bindings))
        return -EPROTO;
    if (next_int(&w, &opts.verbose) || !(s = next_word(&w)))
        return -EPROTO;
    opts.kill_grace = atof(s);
    if (!(s = next_word(&w)))
        return -EPROTO;
    opts.output_dir = *s ? s : NULL;
    if (next_int(&w, &nenv))
        return -EPROTO;
    opts.rank_env = calloc((size_t)nenv + 1, sizeof(char *));
    if (!opts.rank_env)
        return -ENOMEM;
    for (int i = 0; i < nenv; i++) {
        if (!(s = next_word(&w)) || !(opts.rank_env[i] = strdup(s)))
            return -EPROTO;
        opts.nrank_env++;
    }
    if (!(s = next_word(&w)))
        return -EPROTO;
    opts.wdir = *s ? s : NULL;
    if (next_int(&w, &v) || v < 1)
        return -EPROTO;
    if (!(opts.apps = calloc((size_t)v, sizeof(*opts.apps))))
        return -ENOMEM;
    opts.napps = v;
    for (int k = 0; k < opts.napps; k++) {
        struct ln_app *a = &opts.apps[k];

        if (next_int(&w, &a->np) || !(s = next_word(&w)) || next_int(&w, &nenv) || nenv < 0)
            return -EPROTO;
        a->wdir = *s ? s : NULL;
        if (!(a->env = calloc((size_t)nenv + 1, sizeof(char *))))
            return -ENOMEM;
        for (int i = 0; i < nenv; i++) {
            if (!(s = next_word(&w)) || !(a->env[i] = strdup(s)))
                return -EPROTO;
            a->nenv++;
        }
        if (!(s = next_word(&w)) || !(a->prog = strdup(s)) || next_int(&w, &argc) || argc < 1)
            return -EPROTO;
        if (!(a->argv = calloc((size_t)argc + 1, sizeof(char *))))
            return -ENOMEM;
        for (int i = 0; i < argc; i++)
            if (!(a->argv[i] = (char *)next_word(&w)))
                return -EPROTO;
    }
    if (!(s = next_word(&w)))
        return -EPROTO;
    if (*s && chdir(s) < 0)
        ln_err("cannot enter mpirun's directory %s on this host (%s); the ranks start in "
               "the daemon's",
               s, strerror(errno));
    job.bind = ln_binds(opts.bind, job.nlocal, job.ncpus);
    return 0;
}

static void report(struct ln_job *j, int code, const char *msg)
{
    if (j->ctl_fd < 0 ||
        ln_ctl_send_u32(j->ctl_fd, LN_MSG_FAIL, (uint32_t)code, msg, strlen(msg) + 1))
        ln_err("%s", msg);
}

static void fence(struct ln_job *j, struct ln_event *ev)
{
    size_t len;
    const char *data = ln_pmix_fence_data(ev, &len);

    if (j->fence) /* one fence at a time: MPI's are collective */
        ln_pmix_fence_complete(j->fence, 0, NULL, 0);
    j->fence = ev;
    if (ln_ctl_send(j->ctl_fd, LN_MSG_FENCE, data, len))
        ln_err("cannot send fence data to mpirun");
}

static void mpirun_gone(struct ln_job *j)
{
    if (!j->failed) {
        j->exit_code = LN_EXIT_INTERNAL;
        ln_err("lost the connection to mpirun; ending the job's ranks on host %s", j->host);
    }
    ln_job_end(j, SIGKILL);
    ln_conn_close(&ctl);
    j->ctl_fd = -1;
    if (j->fence) {
        ln_pmix_fence_complete(j->fence, 0, NULL, 0);
        j->fence = NULL;
    }
}

static void read_ctl(struct ln_job *j)
{
    int eof = ln_conn_fill(&ctl) < 0;
    uint32_t type;
    uint8_t *p;
    size_t len;

    while (ctl.fd >= 0 && ln_conn_next(&ctl, &type, &p, &len)) {
        uint32_t v = len >= 4 ? ln_get_u32(p) : 0;

        switch (type) {
        case LN_MSG_FENCE_DONE:
            if (j->fence) {
                ln_pmix_fence_complete(j->fence, 1, (char *)p, len);
                j->fence = NULL;
                p = NULL; /* the library's now */
            }
            break;
        case LN_MSG_END:
            if (!j->failed)
                j->exit_code = 128 + (int)v;
            ln_job_end(j, (int)v);
            break;
        case LN_MSG_SIGNAL: ln_job_signal(j, (int)v); break;
        default: break;
        }
        free(p);
    }
    if (eof)
        mpirun_gone(j);
}

/* If this daemon is killed (SIGKILL: no cleanup of its own), its ranks
 * die with it (PR_SET_PDEATHSIG) and this child removes what the job left
 * on the host: the PMIx directory and the host's /dev/shm segments.  It
 * waits for the end of a pipe only the daemon holds, in a session of its
 * own, so that killing the daemon's process group spares it.  Forked
 * before PMIx starts threads. */
static void janitor(void)
{
    int p[2];
    pid_t pid;
    char c;

    if (pipe(p) < 0)
        return;
    pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);

        setsid();
        dup2(null, 0), dup2(null, 1), dup2(null, 2);
        if (p[0] > 3)
            close_range(3, (unsigned)p[0] - 1, 0);
        close_range((unsigned)p[0] + 1, ~0U, 0);
        while (read(p[0], &c, 1) < 0 && errno == EINTR)
            ;
        ln_shm_remove_job(&job);
        ln_tmpdir_remove(&job);
        _exit(0);
    }
    close(p[0]);
    if (pid > 0)
        fcntl(p[1], F_SETFD, FD_CLOEXEC);
    else
        close(p[1]);
}

static const struct ln_daemon_ops ops = {.report = report, .fence = fence, .read = read_ctl};

int main(int argc, char **argv)
{
    const char *hostport = NULL, *name = NULL;
    const char *auth = NULL, *jobhex = NULL, *munge_socket = NULL;
    char secret[LN_SECRET_HEX + 1];
    uint8_t hello[4 + LN_CHAL_LEN + LN_CRED_MAX], want[LN_PROOF_LEN] = {0}, *p = NULL;
    uint32_t type, proven = LN_MSG_PROVEN, htype = LN_MSG_HELLO;
    size_t len, hlen = 36 + LN_CHAL_LEN;
    int node = -1, code = LN_EXIT_INTERNAL, rc, munge = 0;
    char why[256] = "it sent no answer";

    signal(SIGPIPE, SIG_IGN);
    job.devnull = job.sfd = job.ctl_fd = -1;
    ln_prefix = "rdmpi-launchd";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--ctl"))
            hostport = argv[i + 1];
        else if (!strcmp(argv[i], "--node"))
            node = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--name"))
            name = argv[i + 1];
        else if (!strcmp(argv[i], "--auth"))
            auth = argv[i + 1];
        else if (!strcmp(argv[i], "--job"))
            jobhex = argv[i + 1];
        else if (!strcmp(argv[i], "--munge-socket"))
            munge_socket = argv[i + 1];
    }
    if (!hostport || node < 0 || !name || (auth && strcmp(auth, "munge"))) {
        usage();
        return LN_EXIT_USAGE;
    }
    snprintf(prefix, sizeof(prefix), "rdmpi-launchd (host %s)", name);
    ln_prefix = prefix;
    munge = auth != NULL;
#ifdef HAVE_MUNGE
    ma.socket = munge_socket;
    if (munge && parse_job(jobhex, ma.ours.job)) {
        ln_err("--auth munge needs --job with mpirun's %d hex digits, got '%s'", 2 * LN_JOBID_LEN,
               jobhex ? jobhex : "");
        return LN_EXIT_USAGE;
    }
#else
    (void)jobhex, (void)munge_socket;
    if (munge) {
        ln_err("--auth munge: this rdmpi-launchd was built without libmunge (configure "
               "--with-munge, Debian package libmunge-dev); mpirun's --auth=secret works");
        return LN_EXIT_USAGE;
    }
#endif
    if (!munge && read_secret(secret)) {
        ln_err("no job secret on standard input (rdmpi-launchd is started by mpirun)");
        return LN_EXIT_USAGE;
    }
    if ((ctl.fd = connect_ctl(hostport)) < 0)
        return LN_EXIT_INTERNAL;
    if (!ln_conn_wait(&ctl, 10, &type, &p, &len) || type != LN_MSG_CHALLENGE ||
        len != LN_CHAL_LEN) {
        ln_err("mpirun at %s did not answer", hostport);
        goto out_conn;
    }
    /* Our challenge: whoever answers must know the secret (or have
     * munge's credential for it) too. */
#ifdef HAVE_MUNGE
    if (munge) {
        rc = hello_munge(&ma, (uint32_t)node, p, hello, &hlen);
        htype = LN_MSG_HELLO_MUNGE, proven = LN_MSG_PROVEN_MUNGE;
    } else
#endif
    {
        rc = hello_secret(secret, (uint32_t)node, p, hello, want);
        memset(secret, 0, sizeof(secret));
    }
    free(p);
    p = NULL;
    if (rc)
        goto out_conn;
    if (ln_ctl_send(ctl.fd, htype, hello, hlen) || !ln_conn_wait(&ctl, 10, &type, &p, &len) ||
        type != proven || !proven_ok(munge, p, len, want, why, sizeof(why))) {
        ln_err("mpirun at %s refused this daemon, or it is not the job's mpirun (%s)", hostport,
               why);
        goto out_conn;
    }
    free(p);
    p = NULL;
    if (!ln_conn_wait(&ctl, 30, &type, &p, &len) || type != LN_MSG_JOB) {
        if (p && type == LN_MSG_END) { /* the job ended before it began */
            code = 0;
            goto out_conn;
        }
        ln_err("mpirun at %s refused this daemon or sent no job", hostport);
        goto out_conn;
    }
    if ((rc = read_job((char *)p, len, node, name))) {
        ln_err("cannot read the job from mpirun: %s", strerror(-rc));
        goto out_job;
    }
    job.ctl_fd = ctl.fd;
    job.daemon = &ops;

    setenv("PMIX_MCA_gds", "hash", 0);
    setenv("IPATH_NO_BACKTRACE", "1", 0);
    setenv("HFI_NO_BACKTRACE", "1", 0);
    ln_sweep_stale();
    if (opts.output_dir && ln_output_dirs(&job, 0))
        goto out_job;
    if (ln_tmpdir_create(&job))
        goto out_job;
    janitor();
    if (ln_pmix_init(&job) || ln_pmix_register_clients(&job, 0))
        goto out_pmix;
    ln_job_spawn(&job);
    code = ln_job_run(&job);

out_pmix:
    if (job.fence) {
        ln_pmix_fence_complete(job.fence, 0, NULL, 0);
        job.fence = NULL;
    }
    ln_pmix_finalize(&job, code);
    ln_shm_remove_job(&job);
    ln_tmpdir_remove(&job);
out_job:
    if (ctl.fd >= 0)
        ln_ctl_send_u32(ctl.fd, LN_MSG_DONE, (uint32_t)code, NULL, 0);
    free(job.node_names);
    free(job.node_of);
    job.node_names = NULL;
    job.node_of = NULL;
    /* Their words are the payload's; ln_opts_free takes the rest. */
    for (int k = 0; k < opts.napps; k++)
        free(opts.apps[k].argv);
    ln_job_free(&job);
    ln_opts_free(&opts);
out_conn:
    free(p);
    ln_conn_close(&ctl);
    return code;
}
