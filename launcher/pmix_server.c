/*
 * pmix_server.c: the PMIx server that mpirun hosts for its ranks.
 *
 * The upcalls run on PMIx's progress thread.  Each one copies what it
 * needs, hands it to the main loop and returns at once; the main loop
 * (job.c) answers later:
 *   - client_connected and client_finalized only set a per-rank flag and
 *     return PMIX_OPERATION_SUCCEEDED, which completes them on the spot (the
 *     callback must then NOT be called).  A rank is never kept waiting in
 *     PMIx_Finalize.  The flag is stored before the rank can exit, so when
 *     the main loop reaps a rank it sees whether it finalized.
 *   - abort, fence_nb, direct_modex, spawn, publish, lookup and unpublish
 *     queue an event (pmix_ev.h) with a copy of their arguments and the
 *     callback; the main loop answers: ln_pmix_event_done() here,
 *     spawn.c and names.c for theirs.
 * The queue is a mutex-protected list plus one byte on a self-pipe that
 * wakes the poll() of the main loop.
 *
 * Every namespace mpirun started (the first job, then each spawned one)
 * is registered here with its place in job->ranks, so that an upcall
 * names its caller by that index.
 */
#include "pmix_ev.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ln_event *q_head, **q_tail = &q_head;
static int wake_pipe[2] = {-1, -1};

/* The namespaces registered, newest first, each with its processes'
 * flags: set by the upcalls, read by the main loop (see ln_job's
 * reaping).  A spawn adds one while upcalls run, hence the lock; none
 * goes before ln_pmix_finalize. */
struct srv_ns {
    struct srv_ns *next;
    char name[PMIX_MAX_NSLEN + 1];
    int base, size;
    int registered; /* the library knows it: deregister it */
    atomic_int *connected, *finalized;
};
static pthread_mutex_t ns_lock = PTHREAD_MUTEX_INITIALIZER;
static struct srv_ns *ns_list;

static void wake_main(void)
{
    char c = 0;

    /* Non-blocking: a full pipe already guarantees a wake-up. */
    if (write(wake_pipe[1], &c, 1) < 0) {
        /* nothing to do */
    }
}

static void post(struct ln_event *ev)
{
    pthread_mutex_lock(&q_lock);
    ev->next = NULL;
    *q_tail = ev;
    q_tail = &ev->next;
    pthread_mutex_unlock(&q_lock);
    wake_main();
}

/* The namespace of process p (by name) or of index i (name NULL). */
static struct srv_ns *find_ns(const char *name, int i)
{
    struct srv_ns *n;

    pthread_mutex_lock(&ns_lock);
    for (n = ns_list; n; n = n->next)
        if (name ? !strncmp(n->name, name, PMIX_MAX_NSLEN) : i >= n->base && i < n->base + n->size)
            break;
    pthread_mutex_unlock(&ns_lock);
    return n;
}

/* The index in job->ranks of one of our processes, or -1 for anybody
 * else; *ns gets its namespace. */
static int our_proc(const pmix_proc_t *p, struct srv_ns **ns)
{
    struct srv_ns *n = p ? find_ns(p->nspace, 0) : NULL;

    if (!n || p->rank >= (pmix_rank_t)n->size)
        return -1;
    *ns = n;
    return n->base + (int)p->rank;
}

static int our_rank(const pmix_proc_t *p)
{
    struct srv_ns *n;

    return our_proc(p, &n);
}

static pmix_status_t up_connected(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb,
                                  void *cbdata)
{
    struct srv_ns *n;
    int i = our_proc(p, &n);

    (void)obj;
    (void)cb;
    (void)cbdata;
    if (i >= 0) {
        atomic_store(&n->connected[i - n->base], 1);
        wake_main();
    }
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t up_finalized(const pmix_proc_t *p, void *obj, pmix_op_cbfunc_t cb,
                                  void *cbdata)
{
    struct srv_ns *n;
    int i = our_proc(p, &n);

    (void)obj;
    (void)cb;
    (void)cbdata;
    if (i >= 0) {
        atomic_store(&n->finalized[i - n->base], 1);
        wake_main();
    }
    return PMIX_OPERATION_SUCCEEDED;
}

/* The rank has printed its own message; it waits in PMIx_Abort until the
 * main loop has started the teardown and runs cb. */
static pmix_status_t up_abort(const pmix_proc_t *p, void *obj, int status, const char msg[],
                              pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cb, void *cbdata)
{
    struct ln_event *ev = calloc(1, sizeof(*ev));

    (void)obj;
    (void)procs;
    (void)nprocs;
    if (!ev)
        return PMIX_ERR_NOMEM;
    ev->type = LN_EV_ABORT;
    ev->rank = our_rank(p);
    ev->status = status;
    ev->msg = msg && *msg ? strdup(msg) : NULL;
    ev->opcb = cb;
    ev->cbdata = cbdata;
    post(ev);
    return PMIX_SUCCESS;
}

/* Only called when the PMIx library cannot complete a fence by itself
 * (never with all ranks on this host unless
 * PMIX_MCA_pmix_server_fence_localonly_opt=0).  The data blob becomes ours.
 * With one host, this host's contribution is the whole result. */
static pmix_status_t up_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cb,
                              void *cbdata)
{
    struct ln_event *ev = calloc(1, sizeof(*ev));

    (void)procs;
    (void)nprocs;
    (void)info;
    (void)ninfo;
    if (!ev)
        return PMIX_ERR_NOMEM;
    ev->type = LN_EV_FENCE;
    ev->rank = -1;
    ev->mcb = cb;
    ev->cbdata = cbdata;
    ev->data = data;
    ev->ndata = ndata;
    post(ev);
    return PMIX_SUCCESS;
}

/* A request for a process that the library does not serve itself.  Every
 * rank of the job is local, so no other host could answer: say so. */
static pmix_status_t up_dmodex(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
                               pmix_modex_cbfunc_t cb, void *cbdata)
{
    struct ln_event *ev = calloc(1, sizeof(*ev));

    (void)info;
    (void)ninfo;
    if (!ev)
        return PMIX_ERR_NOMEM;
    ev->type = LN_EV_DMODEX;
    ev->rank = our_rank(p);
    ev->mcb = cb;
    ev->cbdata = cbdata;
    post(ev);
    return PMIX_SUCCESS;
}

/* A new event from one of our processes (or anybody: rank -1). */
static struct ln_event *new_event(enum ln_ev_type type, const pmix_proc_t *p)
{
    struct ln_event *ev = calloc(1, sizeof(*ev));

    if (!ev)
        return NULL;
    ev->type = type;
    ev->rank = our_rank(p);
    if (p)
        PMIX_LOAD_PROCID(&ev->proc, p->nspace, p->rank);
    return ev;
}

/* Deep copies: what the library hands an upcall lives only until it
 * returns. */
static pmix_info_t *copy_info(const pmix_info_t *info, size_t n)
{
    pmix_info_t *c;

    if (!n)
        return NULL;
    PMIX_INFO_CREATE(c, n);
    for (size_t i = 0; c && i < n; i++)
        PMIx_Info_xfer(&c[i], &info[i]);
    return c;
}

static char **copy_keys(char **keys)
{
    size_t n = 0;
    char **c;

    while (keys && keys[n])
        n++;
    if (!(c = calloc(n + 1, sizeof(*c))))
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!(c[i] = strdup(keys[i]))) {
            PMIX_ARGV_FREE(c);
            return NULL;
        }
    return c;
}

static pmix_app_t *copy_apps(const pmix_app_t *apps, size_t n)
{
    pmix_app_t *c;

    PMIX_APP_CREATE(c, n);
    for (size_t i = 0; c && i < n; i++) {
        c[i].cmd = apps[i].cmd ? strdup(apps[i].cmd) : NULL;
        if (apps[i].argv)
            PMIX_ARGV_COPY(c[i].argv, apps[i].argv);
        if (apps[i].env)
            PMIX_ARGV_COPY(c[i].env, apps[i].env);
        c[i].cwd = apps[i].cwd ? strdup(apps[i].cwd) : NULL;
        c[i].maxprocs = apps[i].maxprocs;
        c[i].info = copy_info(apps[i].info, apps[i].ninfo);
        c[i].ninfo = c[i].info ? apps[i].ninfo : 0;
    }
    return c;
}

/* The main loop starts the processes, then answers (spawn.c). */
static pmix_status_t up_spawn(const pmix_proc_t *p, const pmix_info_t job_info[], size_t ninfo,
                              const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cb,
                              void *cbdata)
{
    struct ln_event *ev = new_event(LN_EV_SPAWN, p);

    if (!ev)
        return PMIX_ERR_NOMEM;
    ev->scb = cb;
    ev->cbdata = cbdata;
    ev->info = copy_info(job_info, ninfo);
    ev->ninfo = ev->info ? ninfo : 0;
    ev->apps = napps ? copy_apps(apps, napps) : NULL;
    ev->napps = ev->apps ? napps : 0;
    if ((ninfo && !ev->info) || (napps && !ev->apps)) {
        ln_pmix_event_free(ev);
        return PMIX_ERR_NOMEM;
    }
    post(ev);
    return PMIX_SUCCESS;
}

/* Publish, lookup and unpublish: names.c keeps the names. */
static pmix_status_t up_publish(const pmix_proc_t *p, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cb, void *cbdata)
{
    struct ln_event *ev = new_event(LN_EV_PUBLISH, p);

    if (!ev)
        return PMIX_ERR_NOMEM;
    ev->opcb = cb;
    ev->cbdata = cbdata;
    ev->info = copy_info(info, ninfo);
    ev->ninfo = ev->info ? ninfo : 0;
    if (ninfo && !ev->info) {
        ln_pmix_event_free(ev);
        return PMIX_ERR_NOMEM;
    }
    post(ev);
    return PMIX_SUCCESS;
}

static struct ln_event *keys_event(enum ln_ev_type type, const pmix_proc_t *p, char **keys,
                                   const pmix_info_t info[], size_t ninfo)
{
    struct ln_event *ev = new_event(type, p);

    if (!ev)
        return NULL;
    ev->keys = copy_keys(keys);
    ev->info = copy_info(info, ninfo);
    ev->ninfo = ev->info ? ninfo : 0;
    if (!ev->keys || (ninfo && !ev->info)) {
        ln_pmix_event_free(ev);
        return NULL;
    }
    return ev;
}

static pmix_status_t up_lookup(const pmix_proc_t *p, char **keys, const pmix_info_t info[],
                               size_t ninfo, pmix_lookup_cbfunc_t cb, void *cbdata)
{
    struct ln_event *ev = keys_event(LN_EV_LOOKUP, p, keys, info, ninfo);

    if (!ev)
        return PMIX_ERR_NOMEM;
    ev->lcb = cb;
    ev->cbdata = cbdata;
    post(ev);
    return PMIX_SUCCESS;
}

static pmix_status_t up_unpublish(const pmix_proc_t *p, char **keys, const pmix_info_t info[],
                                  size_t ninfo, pmix_op_cbfunc_t cb, void *cbdata)
{
    struct ln_event *ev = keys_event(LN_EV_UNPUBLISH, p, keys, info, ninfo);

    if (!ev)
        return PMIX_ERR_NOMEM;
    ev->opcb = cb;
    ev->cbdata = cbdata;
    post(ev);
    return PMIX_SUCCESS;
}

static pmix_server_module_t module = {
    .client_connected = up_connected,
    .client_finalized = up_finalized,
    .abort = up_abort,
    .fence_nb = up_fence,
    .direct_modex = up_dmodex,
    .publish = up_publish,
    .lookup = up_lookup,
    .unpublish = up_unpublish,
    .spawn = up_spawn,
};

int ln_pmix_wake_fd(void)
{
    return wake_pipe[0];
}

void ln_pmix_clear_wake(void)
{
    char buf[256];

    while (read(wake_pipe[0], buf, sizeof(buf)) > 0)
        ;
}

struct ln_event *ln_pmix_take_events(void)
{
    struct ln_event *list;

    pthread_mutex_lock(&q_lock);
    list = q_head;
    q_head = NULL;
    q_tail = &q_head;
    pthread_mutex_unlock(&q_lock);
    return list;
}

struct ln_event *ln_pmix_event_next(struct ln_event *ev)
{
    return ev->next;
}

enum ln_ev_type ln_pmix_event_type(const struct ln_event *ev)
{
    return ev->type;
}

int ln_pmix_event_rank(const struct ln_event *ev)
{
    return ev->rank;
}

int ln_pmix_event_status(const struct ln_event *ev)
{
    return ev->status;
}

const char *ln_pmix_event_msg(const struct ln_event *ev)
{
    return ev->msg;
}

int ln_pmix_connected(int i)
{
    struct srv_ns *n = find_ns(NULL, i);

    return n && atomic_load(&n->connected[i - n->base]);
}

int ln_pmix_finalized(int i)
{
    struct srv_ns *n = find_ns(NULL, i);

    return n && atomic_load(&n->finalized[i - n->base]);
}

static void release_blob(void *cbdata)
{
    free(cbdata);
}

void ln_pmix_event_free(struct ln_event *ev)
{
    free(ev->msg);
    free(ev->data);
    if (ev->info)
        PMIX_INFO_FREE(ev->info, ev->ninfo);
    if (ev->apps)
        PMIX_APP_FREE(ev->apps, ev->napps);
    if (ev->keys)
        PMIX_ARGV_FREE(ev->keys);
    free(ev);
}

/* Abort, fence and direct modex complete here; a spawn or a name request
 * that reaches this point (the job is ending) is refused. */
void ln_pmix_event_done(struct ln_event *ev)
{
    switch (ev->type) {
    case LN_EV_ABORT:
        if (ev->opcb)
            ev->opcb(PMIX_SUCCESS, ev->cbdata);
        break;
    case LN_EV_FENCE:
        /* release_blob frees the data once the library is done. */
        if (ev->mcb) {
            ev->mcb(PMIX_SUCCESS, ev->data, ev->ndata, ev->cbdata, release_blob, ev->data);
            ev->data = NULL;
        }
        break;
    case LN_EV_DMODEX:
        if (ev->mcb)
            ev->mcb(PMIX_ERR_NOT_FOUND, NULL, 0, ev->cbdata, NULL, NULL);
        break;
    case LN_EV_SPAWN:
        if (ev->scb)
            ev->scb(PMIX_ERR_JOB_CANCELED, NULL, ev->cbdata);
        break;
    case LN_EV_PUBLISH:
    case LN_EV_UNPUBLISH:
        if (ev->opcb)
            ev->opcb(PMIX_ERR_JOB_CANCELED, ev->cbdata);
        break;
    case LN_EV_LOOKUP:
        if (ev->lcb)
            ev->lcb(PMIX_ERR_JOB_CANCELED, NULL, 0, ev->cbdata);
        break;
    }
    ln_pmix_event_free(ev);
}

const char *ln_pmix_fence_data(const struct ln_event *ev, size_t *len)
{
    *len = ev->ndata;
    return ev->data;
}

/* Hand every host's data (malloc'd, now the library's until it releases
 * it) to the fence's callback. */
void ln_pmix_fence_complete(struct ln_event *ev, int ok, char *all, size_t len)
{
    if (ev->mcb)
        ev->mcb(ok ? PMIX_SUCCESS : PMIX_ERROR, all, len, ev->cbdata, release_blob, all);
    else
        free(all);
    ln_pmix_event_free(ev);
}

/* Waiting for the library's asynchronous registration calls. */
struct waiter {
    pthread_mutex_t m;
    pthread_cond_t c;
    int pending;
    pmix_status_t status;
};

static void waiter_init(struct waiter *w, int pending)
{
    pthread_mutex_init(&w->m, NULL);
    pthread_cond_init(&w->c, NULL);
    w->pending = pending;
    w->status = PMIX_SUCCESS;
}

static void op_done(pmix_status_t st, void *cbdata)
{
    struct waiter *w = cbdata;

    pthread_mutex_lock(&w->m);
    if (st != PMIX_SUCCESS && w->status == PMIX_SUCCESS)
        w->status = st;
    w->pending--;
    pthread_cond_broadcast(&w->c);
    pthread_mutex_unlock(&w->m);
}

/* Wait until every operation called back, at most timeout seconds.
 * Returns the first failure status, or PMIX_ERR_TIMEOUT. */
static pmix_status_t waiter_wait(struct waiter *w, double timeout)
{
    struct timespec ts;
    pmix_status_t st;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)timeout;
    ts.tv_nsec += (long)((timeout - (time_t)timeout) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->m);
    while (w->pending > 0)
        if (pthread_cond_timedwait(&w->c, &w->m, &ts) == ETIMEDOUT)
            break;
    st = w->pending > 0 ? PMIX_ERR_TIMEOUT : w->status;
    pthread_mutex_unlock(&w->m);
    return st;
}

/* The waiter may still be referenced by the library after a timeout, so a
 * waiter that timed out is leaked rather than destroyed. */
static struct waiter *waiter_new(int pending)
{
    struct waiter *w = malloc(sizeof(*w));

    if (w)
        waiter_init(w, pending);
    return w;
}

static void waiter_free(struct waiter *w, pmix_status_t st)
{
    if (st == PMIX_ERR_TIMEOUT)
        return;
    pthread_mutex_destroy(&w->m);
    pthread_cond_destroy(&w->c);
    free(w);
}

#define ADD(list, key, val, type)                                                                  \
    do {                                                                                           \
        pmix_status_t add_rc_ = PMIx_Info_list_add(list, key, val, type);                          \
        if (add_rc_ != PMIX_SUCCESS) {                                                             \
            ln_err("cannot describe the job to PMIx (%s: %s)", key, PMIx_Error_string(add_rc_));   \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* "a,b,c" of the n ranks on node k (sep ','), or of all nodes (';');
 * node_of NULL: all on node 0. */
static char *rank_lists(const struct ln_job *job, int n, const int *node_of, int only)
{
    size_t cap = (size_t)n * 8 + (size_t)job->nnodes + 1, len = 0;
    char *s = malloc(cap);

    if (!s)
        return NULL;
    s[0] = 0;
    for (int k = 0; k < job->nnodes; k++) {
        int first = 1;

        if (only >= 0 && k != only)
            continue;
        if (only < 0 && k)
            len += snprintf(s + len, cap - len, ";");
        for (int r = 0; r < n; r++)
            if ((node_of ? node_of[r] : 0) == k) {
                len += snprintf(s + len, cap - len, first ? "%d" : ",%d", r);
                first = 0;
            }
    }
    return s;
}

static const char *node_name(const struct ln_job *job, int k)
{
    return job->node_names ? job->node_names[k] : job->host;
}

/* The node-level facts of node k, as an info list. */
static void *node_list(const struct ln_job *job, int k, const char *peers, uint32_t nsize,
                       pmix_rank_t leader)
{
    uint32_t id = (uint32_t)k;
    void *nl = PMIx_Info_list_start();

    if (!nl || PMIx_Info_list_add(nl, PMIX_HOSTNAME, node_name(job, k), PMIX_STRING) ||
        PMIx_Info_list_add(nl, PMIX_NODEID, &id, PMIX_UINT32) ||
        PMIx_Info_list_add(nl, PMIX_NODE_SIZE, &nsize, PMIX_UINT32) ||
        PMIx_Info_list_add(nl, PMIX_LOCAL_SIZE, &nsize, PMIX_UINT32) ||
        PMIx_Info_list_add(nl, PMIX_LOCALLDR, &leader, PMIX_PROC_RANK) ||
        PMIx_Info_list_add(nl, PMIX_LOCAL_PEERS, peers, PMIX_STRING)) {
        if (nl)
            PMIx_Info_list_release(nl);
        return NULL;
    }
    return nl;
}

/* Build the job, node and per-process info and register namespace nsk.
 * With several hosts every daemon describes the whole job (every node and
 * every rank) and starts only its own ranks.  A spawned namespace is all
 * on this host and names its parent. */
static int register_nspace(struct ln_job *job, int nsk)
{
    const struct ln_ns *ns = &job->ns[nsk];
    const int *node_of = nsk ? NULL : job->node_of;
    uint32_t n = (uint32_t)ns->size, napps = (uint32_t)ns->napps, nnodes = (uint32_t)job->nnodes;
    uint32_t me = (uint32_t)job->nodeid, nlocal = nsk ? n : (uint32_t)job->nlocal;
    uint32_t univ = (uint32_t)job->univ_size;
    pmix_proc_t parent;
    bool yes = true;
    pmix_rank_t leader = 0;
    char *peers = NULL, *nodemap = NULL, *procmap = NULL, *names = NULL, *allranks = NULL;
    void *jl = NULL, *nl = NULL, *pl = NULL;
    pmix_data_array_t jarr = {0}, darr;
    struct waiter *w = NULL;
    pmix_status_t st;
    uint16_t *lrank = NULL;
    int *count = NULL;
    size_t ncap = 1, nlen = 0;
    int rc = -EIO;

    if (nsk) {
        const struct ln_rank *pr = &job->ranks[ns->parent];

        PMIX_LOAD_PROCID(&parent, job->ns[pr->ns].name, (pmix_rank_t)pr->rank);
    }
    lrank = calloc(n, sizeof(*lrank));
    count = calloc((size_t)job->nnodes, sizeof(*count));
    for (int k = 0; k < job->nnodes; k++)
        ncap += strlen(node_name(job, k)) + 1;
    names = malloc(ncap);
    peers = rank_lists(job, (int)n, node_of, job->nodeid);
    allranks = rank_lists(job, (int)n, node_of, -1);
    if (!lrank || !count || !names || !peers || !allranks) {
        ln_err("out of memory");
        rc = -ENOMEM;
        goto out;
    }
    names[0] = 0;
    for (int k = 0; k < job->nnodes; k++)
        nlen += snprintf(names + nlen, ncap - nlen, k ? ",%s" : "%s", node_name(job, k));
    for (uint32_t r = 0; r < n; r++) {
        int k = node_of ? node_of[r] : 0;

        lrank[r] = (uint16_t)count[k]++;
    }
    for (uint32_t r = 0; r < n; r++)
        if (!node_of || node_of[r] == job->nodeid) {
            leader = r;
            break;
        }

    st = PMIx_generate_regex(names, &nodemap);
    if (st == PMIX_SUCCESS)
        st = PMIx_generate_ppn(allranks, &procmap);
    if (st != PMIX_SUCCESS) {
        ln_err("PMIx cannot encode the node and process maps: %s", PMIx_Error_string(st));
        goto out;
    }

    jl = PMIx_Info_list_start();
    ADD(jl, PMIX_UNIV_SIZE, &univ, PMIX_UINT32);
    ADD(jl, PMIX_JOB_SIZE, &n, PMIX_UINT32);
    ADD(jl, PMIX_MAX_PROCS, &univ, PMIX_UINT32);
    ADD(jl, PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
    ADD(jl, PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
    ADD(jl, PMIX_JOBID, ns->name, PMIX_STRING);
    if (nsk) {
        ADD(jl, PMIX_PARENT_ID, &parent, PMIX_PROC);
        ADD(jl, PMIX_SPAWNED, &yes, PMIX_BOOL);
    }
    ADD(jl, PMIX_TMPDIR, job->tmpdir, PMIX_STRING);
    ADD(jl, PMIX_NODE_MAP, nodemap, PMIX_REGEX);
    ADD(jl, PMIX_PROC_MAP, procmap, PMIX_REGEX);
    /* This node's facts, both at job level (what simple clients ask for
     * without naming a node) and as node arrays for every node. */
    ADD(jl, PMIX_HOSTNAME, job->host, PMIX_STRING);
    ADD(jl, PMIX_NODEID, &me, PMIX_UINT32);
    ADD(jl, PMIX_LOCAL_SIZE, &nlocal, PMIX_UINT32);
    ADD(jl, PMIX_NODE_SIZE, &nlocal, PMIX_UINT32);
    ADD(jl, PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
    ADD(jl, PMIX_LOCAL_PEERS, peers, PMIX_STRING);

    for (int k = 0; k < job->nnodes; k++) {
        char *kpeers = rank_lists(job, (int)n, node_of, k);
        pmix_rank_t kl = (pmix_rank_t)atoi(kpeers ? kpeers : "0");

        nl = kpeers ? node_list(job, k, kpeers, (uint32_t)count[k], kl) : NULL;
        free(kpeers);
        if (!nl) {
            ln_err("cannot describe node %d to PMIx", k);
            goto out;
        }
        st = PMIx_Info_list_convert(nl, &darr);
        PMIx_Info_list_release(nl);
        nl = NULL;
        if (st != PMIX_SUCCESS)
            goto conv_fail;
        ADD(jl, PMIX_NODE_INFO_ARRAY, &darr, PMIX_DATA_ARRAY);
        PMIx_Data_array_destruct(&darr);
    }

    /* One array per program (MPMD); PMIX_APPNUM must come first. */
    for (uint32_t a = 0, first = 0; a < napps; a++) {
        uint32_t size = a + 1 < napps ? (uint32_t)ns->apps[a].np : n - first;
        pmix_rank_t ldr = first;

        pl = PMIx_Info_list_start();
        ADD(pl, PMIX_APPNUM, &a, PMIX_UINT32);
        ADD(pl, PMIX_APP_SIZE, &size, PMIX_UINT32);
        ADD(pl, PMIX_APPLDR, &ldr, PMIX_PROC_RANK);
        st = PMIx_Info_list_convert(pl, &darr);
        if (st != PMIX_SUCCESS)
            goto conv_fail;
        PMIx_Info_list_release(pl);
        pl = NULL;
        ADD(jl, PMIX_APP_INFO_ARRAY, &darr, PMIX_DATA_ARRAY);
        PMIx_Data_array_destruct(&darr);
        first += size;
    }

    /* One array per rank; PMIX_RANK must come first. */
    for (uint32_t r = 0; r < n; r++) {
        pmix_rank_t pr = r;
        uint32_t k = node_of ? (uint32_t)node_of[r] : 0;
        int first, app = ln_app_of(ns->apps, ns->napps, (int)r, &first);
        uint32_t appnum = (uint32_t)app;
        pmix_rank_t apprank = r - (pmix_rank_t)first;

        pl = PMIx_Info_list_start();
        ADD(pl, PMIX_RANK, &pr, PMIX_PROC_RANK);
        ADD(pl, PMIX_GLOBAL_RANK, &pr, PMIX_PROC_RANK);
        ADD(pl, PMIX_APP_RANK, &apprank, PMIX_PROC_RANK);
        ADD(pl, PMIX_LOCAL_RANK, &lrank[r], PMIX_UINT16);
        ADD(pl, PMIX_NODE_RANK, &lrank[r], PMIX_UINT16);
        ADD(pl, PMIX_APPNUM, &appnum, PMIX_UINT32);
        ADD(pl, PMIX_NODEID, &k, PMIX_UINT32);
        ADD(pl, PMIX_HOSTNAME, node_name(job, (int)k), PMIX_STRING);
        /* Also per process: clients ask their own rank for these. */
        if (nsk) {
            ADD(pl, PMIX_PARENT_ID, &parent, PMIX_PROC);
            ADD(pl, PMIX_SPAWNED, &yes, PMIX_BOOL);
        }
        st = PMIx_Info_list_convert(pl, &darr);
        if (st != PMIX_SUCCESS)
            goto conv_fail;
        PMIx_Info_list_release(pl);
        pl = NULL;
        ADD(jl, PMIX_PROC_INFO_ARRAY, &darr, PMIX_DATA_ARRAY);
        PMIx_Data_array_destruct(&darr);
    }

    st = PMIx_Info_list_convert(jl, &jarr);
    if (st != PMIX_SUCCESS)
        goto conv_fail;

    w = waiter_new(1);
    if (!w) {
        ln_err("out of memory");
        rc = -ENOMEM;
        goto out;
    }
    st = PMIx_server_register_nspace(ns->name, (int)nlocal, jarr.array, jarr.size, op_done, w);
    if (st == PMIX_OPERATION_SUCCEEDED)
        op_done(PMIX_SUCCESS, w);
    else if (st != PMIX_SUCCESS)
        op_done(st, w);
    st = waiter_wait(w, 30);
    waiter_free(w, st);
    if (st != PMIX_SUCCESS) {
        ln_err("PMIx_server_register_nspace(%s) failed: %s", ns->name, PMIx_Error_string(st));
        goto out;
    }
    rc = 0;
    goto out;

conv_fail:
    ln_err("cannot describe the job to PMIx: %s", PMIx_Error_string(st));
out:
    if (jarr.array)
        PMIx_Data_array_destruct(&jarr);
    if (pl)
        PMIx_Info_list_release(pl);
    if (nl)
        PMIx_Info_list_release(nl);
    if (jl)
        PMIx_Info_list_release(jl);
    free(procmap);
    free(nodemap);
    free(peers);
    free(allranks);
    free(names);
    free(lrank);
    free(count);
    return rc;
}

/* libevent, under libpmix, prints "[warn] Epoll MOD(1) on fd N failed ...
 * Bad file descriptor" now and then when a rank's connection goes away
 * during teardown: harmless, and not ours to show to users.  libevent is
 * loaded with libpmix, so its log hook is found at run time; its warnings
 * are shown at -v -v only, its errors always. */
static int libevent_verbose;

static void libevent_log(int severity, const char *msg)
{
    if (severity >= 3 /* EVENT_LOG_ERR */ || libevent_verbose)
        ln_err("libevent: %s", msg);
}

static void quiet_libevent(const struct ln_job *job)
{
    void (*set_cb)(void (*)(int, const char *));

    libevent_verbose = job->opts->verbose >= 2;
    *(void **)&set_cb = dlsym(RTLD_DEFAULT, "event_set_log_callback");
    if (set_cb)
        set_cb(libevent_log);
}

int ln_pmix_init(struct ln_job *job)
{
    char srv_nspace[PMIX_MAX_NSLEN + 1];
    pmix_rank_t srv_rank = 0;
    pmix_info_t info[4];
    pmix_status_t st;
    double t;

    if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
        ln_err("pipe: %s", strerror(errno));
        return -errno;
    }
    quiet_libevent(job);
    snprintf(job->ns[0].name, sizeof(job->ns[0].name), "%s", job->nspace);
    job->ns[0].apps = job->opts->apps;
    job->ns[0].napps = job->opts->napps;

    /* The server's own identity differs from the job's namespace, so
     * that the server is never mistaken for rank 0 of the job. */
    snprintf(srv_nspace, sizeof(srv_nspace), "mpirun.%d", (int)getpid());
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, job->tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, job->tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_SERVER_NSPACE, srv_nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_SERVER_RANK, &srv_rank, PMIX_PROC_RANK);

    /* PMIx_server_init loads the hwloc topology.  hwloc's I/O discovery
     * (PCI config space, 2-3 ms per device in a VM) and its plugins
     * (OpenCL, X11, libxml) cost more than all the rest of our startup,
     * and nobody here needs them: turn them off for the server only,
     * unless the user chose hwloc settings. */
    int set_comp = !getenv("HWLOC_COMPONENTS");
    int set_black = !getenv("HWLOC_PLUGINS_BLACKLIST");

    if (set_comp)
        setenv("HWLOC_COMPONENTS", "-linuxio,-pci,-opencl,-gl", 1);
    if (set_black)
        setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_opencl,hwloc_gl,hwloc_pci,hwloc_xml_libxml", 1);
    t = ln_now();
    st = PMIx_server_init(&module, info, 4);
    if (set_comp)
        unsetenv("HWLOC_COMPONENTS");
    if (set_black)
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
    for (int i = 0; i < 4; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    if (st != PMIX_SUCCESS) {
        ln_err("cannot start the PMIx server: %s (it listens on 127.0.0.1: is the loopback "
               "interface up? ip link set lo up)",
               PMIx_Error_string(st));
        return -EIO;
    }
    job->pmix_up = 1;
    ln_verbose(job, "PMIx_server_init %.1f ms", (ln_now() - t) * 1e3);

    return ln_pmix_register_ns(job, 0);
}

int ln_pmix_register_ns(struct ln_job *job, int k)
{
    const struct ln_ns *ns = &job->ns[k];
    struct srv_ns *n = calloc(1, sizeof(*n));
    double t = ln_now();

    if (n) {
        n->connected = calloc((size_t)ns->size, sizeof(*n->connected));
        n->finalized = calloc((size_t)ns->size, sizeof(*n->finalized));
    }
    if (!n || !n->connected || !n->finalized) {
        if (n) {
            free(n->connected);
            free(n->finalized);
        }
        free(n);
        ln_err("out of memory");
        return -ENOMEM;
    }
    snprintf(n->name, sizeof(n->name), "%s", ns->name);
    n->base = ns->base;
    n->size = ns->size;
    /* Listed first, so that an early connect finds its flags. */
    pthread_mutex_lock(&ns_lock);
    n->next = ns_list;
    ns_list = n;
    pthread_mutex_unlock(&ns_lock);
    if (register_nspace(job, k))
        return -EIO;
    n->registered = 1;
    ln_verbose(job, "register_nspace(%s) %.1f ms", ns->name, (ln_now() - t) * 1e3);
    return 0;
}

/* Register every local process of namespace k, then wait once for all
 * the callbacks: the library must know a client before that client
 * connects. */
int ln_pmix_register_clients(struct ln_job *job, int k)
{
    const struct ln_ns *ns = &job->ns[k];
    struct waiter *w = waiter_new(k ? ns->size : job->nlocal);
    pmix_status_t st;

    if (!w) {
        ln_err("out of memory");
        return -ENOMEM;
    }
    for (int r = 0; r < ns->size; r++) {
        pmix_proc_t proc;

        if (!k && !ln_is_local(job, r))
            continue;
        PMIX_LOAD_PROCID(&proc, ns->name, r);
        st = PMIx_server_register_client(&proc, geteuid(), getegid(), NULL, op_done, w);
        if (st == PMIX_OPERATION_SUCCEEDED)
            op_done(PMIX_SUCCESS, w);
        else if (st != PMIX_SUCCESS)
            op_done(st, w);
    }
    st = waiter_wait(w, 30);
    waiter_free(w, st);
    if (st != PMIX_SUCCESS) {
        ln_err("PMIx_server_register_client failed: %s", PMIx_Error_string(st));
        return -EIO;
    }
    return 0;
}

/* *env is a NULL-terminated array of malloc'd strings; PMIx appends the
 * variables that let the rank find this server. */
static void load_proc(const struct ln_job *job, int i, pmix_proc_t *proc)
{
    const struct ln_rank *r = &job->ranks[i];

    PMIX_LOAD_PROCID(proc, job->ns[r->ns].name, (pmix_rank_t)r->rank);
}

int ln_pmix_setup_fork(struct ln_job *job, int i, char ***env)
{
    pmix_proc_t proc;
    pmix_status_t st;
    char who[300];

    load_proc(job, i, &proc);
    st = PMIx_server_setup_fork(&proc, env);
    if (st != PMIX_SUCCESS) {
        ln_err("PMIx_server_setup_fork(%s) failed: %s", ln_rank_name(job, i, who, sizeof(who)),
               PMIx_Error_string(st));
        return -EIO;
    }
    return 0;
}

/* Namespaces and clients are deregistered only here, at the end: with
 * libpmix 4.2, deregistering an ended client or namespace while the job
 * went on left a later client hanging in PMIx_Init, its handshake unread
 * by the server (a spawn loop: 1 hang in 8-15 runs of 20 spawns; none in
 * 30 runs without deregistering). What an ended namespace keeps in the
 * library (its job info and peers, a few KiB) stays until mpirun ends. */
static void deregister_ns(const char *name)
{
    struct waiter *w = waiter_new(1);
    pmix_status_t st;

    if (!w)
        return;
    PMIx_server_deregister_nspace(name, op_done, w);
    st = waiter_wait(w, 5);
    waiter_free(w, st);
}

/* libpmix's server finalize has deadlocked here once (a sanitizer CI
 * run, after a SIGINT teardown: its progress thread waiting on a lock
 * nobody held, PMIx_server_finalize waiting on that thread). The ranks
 * are gone by then, so a watchdog gives it FINALIZE_WAIT seconds, then
 * removes the job's files, says why and ends the process with the job's
 * status: a hung launcher is worse than a skipped library cleanup. */
#define FINALIZE_WAIT 10

struct watchdog {
    struct ln_job *job;
    int code;
    int done;
    pthread_mutex_t m;
    pthread_cond_t c;
};

static void *watchdog_run(void *arg)
{
    struct watchdog *wd = arg;
    struct timespec until;
    int timed_out = 0;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += FINALIZE_WAIT;
    pthread_mutex_lock(&wd->m);
    while (!wd->done && !timed_out)
        timed_out = pthread_cond_timedwait(&wd->c, &wd->m, &until) == ETIMEDOUT;
    pthread_mutex_unlock(&wd->m);
    if (!timed_out)
        return NULL;
    ln_err("the PMIx server library did not finish within %d s after the job ended (a "
           "libpmix deadlock); leaving without it",
           FINALIZE_WAIT);
    ln_shm_remove_job(wd->job);
    ln_tmpdir_remove(wd->job);
    _exit(wd->code);
}

/* Starts the watchdog with every signal blocked, so that signals keep
 * going to the main thread. Returns 0 if it runs. */
static int watchdog_start(struct watchdog *wd, pthread_t *t)
{
    sigset_t all, old;
    int rc;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(t, NULL, watchdog_run, wd);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

static void watchdog_stop(struct watchdog *wd, pthread_t t)
{
    pthread_mutex_lock(&wd->m);
    wd->done = 1;
    pthread_cond_signal(&wd->c);
    pthread_mutex_unlock(&wd->m);
    pthread_join(t, NULL);
}

void ln_pmix_finalize(struct ln_job *job, int code)
{
    struct watchdog wd = {job, code, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
    struct ln_event *ev;
    double t = ln_now();
    pthread_t wt;

    if (job->pmix_up) {
        for (struct srv_ns *n = ns_list; n; n = n->next)
            if (n->registered) {
                deregister_ns(n->name);
                n->registered = 0;
            }
        /* Requests that raced with the end of the job, and lookups still
         * waiting for a name, get an answer, so that the library can
         * release them. */
        ln_names_finalize();
        while ((ev = ln_pmix_take_events())) {
            while (ev) {
                struct ln_event *next = ev->next;

                ln_pmix_event_done(ev);
                ev = next;
            }
        }
        if (watchdog_start(&wd, &wt)) {
            PMIx_server_finalize();
        } else {
            PMIx_server_finalize();
            watchdog_stop(&wd, wt);
        }
        job->pmix_up = 0;
        ln_verbose(job, "PMIx finalize %.1f ms", (ln_now() - t) * 1e3);
    }
    if (wake_pipe[0] >= 0) {
        close(wake_pipe[0]);
        close(wake_pipe[1]);
        wake_pipe[0] = wake_pipe[1] = -1;
    }
    pthread_mutex_lock(&ns_lock);
    while (ns_list) {
        struct srv_ns *n = ns_list;

        ns_list = n->next;
        free(n->connected);
        free(n->finalized);
        free(n);
    }
    pthread_mutex_unlock(&ns_lock);
}
