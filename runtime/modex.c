#include "modex.h"
#include "log.h"
#include "proc.h"
#include "rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static pmix_proc_t self;
static int pmix_up;

/* Launchers we recognise by the variables they give their ranks. A rank
 * that sees one of them but no PMIx server must not run as a singleton:
 * N silent singletons are the worst outcome. */
static const struct {
    const char *prefix;
    const char *who;
    const char *fix;
} launchers[] = {
    {"PMIX_NAMESPACE=", "a PMIx launcher", "check that the launcher's PMIx server is running"},
    {"PMIX_SERVER_URI", "a PMIx launcher", "check that the launcher's PMIx server is running"},
    {"OMPI_COMM_WORLD_SIZE=", "Open MPI's mpirun", "launch with rdmpi's mpirun"},
    {"PMI_RANK=", "a PMI-1/PMI-2 launcher (MPICH's mpiexec/Hydra?)", "launch with rdmpi's mpirun"},
    {"PMI_FD=", "a PMI-1/PMI-2 launcher (MPICH's mpiexec/Hydra?)", "launch with rdmpi's mpirun"},
    {"HYDRA_", "MPICH's Hydra", "launch with rdmpi's mpirun"},
    {"HYDI_", "MPICH's Hydra", "launch with rdmpi's mpirun"},
    {"SLURM_STEP_ID=", "Slurm's srun without PMIx", "use `srun --mpi=pmix`"},
};

/* Where our own mpirun lives: next to the library, in ../bin. */
static void own_mpirun(char *buf, size_t len)
{
    Dl_info info;
    char lib[4096];

    snprintf(buf, len, "mpirun");
    if (!dladdr((void *)own_mpirun, &info) || !info.dli_fname)
        return;
    snprintf(lib, sizeof(lib), "%s", info.dli_fname);
    snprintf(buf, len, "%s/../bin/mpirun", dirname(lib));
}

static void refuse_singleton(pmix_status_t rc)
{
    char path[4200];

    for (char **e = environ; *e; e++) {
        for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
            if (strncmp(*e, launchers[i].prefix, strlen(launchers[i].prefix)))
                continue;
            own_mpirun(path, sizeof(path));
            rt_fatal("MPI_Init: this process was started by %s (it set %.*s) but "
                     "no PMIx server answered (%s), so it would run as a lone "
                     "singleton; %s (rdmpi's: %s -n N ./prog), or run the "
                     "program directly for one rank",
                     launchers[i].who, (int)strcspn(*e, "="), *e, PMIx_Error_string(rc),
                     launchers[i].fix, path);
        }
    }
}

static int get_u32(const pmix_proc_t *who, const char *key, uint32_t *out)
{
    pmix_value_t *v;

    if (PMIx_Get(who, key, NULL, 0, &v) != PMIX_SUCCESS)
        return -1;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_INT: *out = (uint32_t)v->data.integer; break;
    case PMIX_PROC_RANK: *out = v->data.rank; break;
    default: PMIX_VALUE_RELEASE(v); return -1;
    }
    PMIX_VALUE_RELEASE(v);
    return 0;
}

static char *get_string(const pmix_proc_t *who, const char *key)
{
    pmix_value_t *v;
    char *s = NULL;

    if (PMIx_Get(who, key, NULL, 0, &v) != PMIX_SUCCESS)
        return NULL;
    if (v->type == PMIX_STRING && v->data.string)
        s = strdup(v->data.string);
    PMIX_VALUE_RELEASE(v);
    return s;
}

static int parse_peers(const char *list)
{
    int n = 0;
    const char *p = list;

    rt.local_peers = calloc((size_t)rt.size, sizeof(int));
    if (!rt.local_peers)
        return -ENOMEM;
    while (p && *p && n < rt.size) {
        rt.local_peers[n++] = (int)strtol(p, NULL, 10);
        p = strchr(p, ',');
        if (p)
            p++;
    }
    rt.local_size = n;
    return 0;
}

static void fill_singleton(void)
{
    rt.rank = 0;
    rt.size = 1;
    rt.univ_size = 1;
    rt.local_rank = rt.node_rank = 0;
    rt.num_nodes = 1;
    rt.singleton = 1;
    parse_peers("0");
    gethostname(rt.hostname, sizeof(rt.hostname) - 1);
    snprintf(rt.nspace, sizeof(rt.nspace), "singleton.%d", (int)getpid());
}

int rt_modex_init(void)
{
    pmix_status_t rc;
    pmix_proc_t wild;
    uint32_t u;
    char *s;

    /* A second start-up (sessions after MPI_Finalize) reuses the
     * connection: PMIx does not come back after PMIx_Finalize. */
    if (!pmix_up) {
        rc = PMIx_Init(&self, NULL, 0);
        if (rc != PMIX_SUCCESS) {
            refuse_singleton(rc);
            /* PMIx keeps working locally as a singleton; we do not need it. */
            if (rc == PMIX_ERR_UNREACH)
                PMIx_Finalize(NULL, 0);
            fill_singleton();
            return 0;
        }
        pmix_up = 1;
    }
    snprintf(rt.nspace, sizeof(rt.nspace), "%s", self.nspace);
    rt.rank = (int)self.rank;
    PMIX_LOAD_PROCID(&wild, self.nspace, PMIX_RANK_WILDCARD);

    if (get_u32(&wild, PMIX_JOB_SIZE, &u))
        rt_fatal("MPI_Init: the PMIx server did not say the job size (PMIX_JOB_SIZE)");
    rt.size = (int)u;
    rt.univ_size = get_u32(&wild, PMIX_UNIV_SIZE, &u) ? rt.size : (int)u;
    /* Per process: an MPMD job's programs have numbers of their own. */
    rt.appnum = get_u32(&self, PMIX_APPNUM, &u) && get_u32(&wild, PMIX_APPNUM, &u) ? 0 : (int)u;
    rt.num_nodes = get_u32(&wild, PMIX_NUM_NODES, &u) ? 1 : (int)u;
    rt.local_rank = get_u32(&self, PMIX_LOCAL_RANK, &u) ? 0 : (int)u;
    rt.node_rank = get_u32(&self, PMIX_NODE_RANK, &u) ? rt.local_rank : (int)u;
    rt.nodeid = get_u32(&self, PMIX_NODEID, &u) ? 0 : (int)u;

    s = get_string(&wild, PMIX_LOCAL_PEERS);
    if (!s)
        rt_fatal("MPI_Init: the PMIx server did not say which ranks share this "
                 "host (PMIX_LOCAL_PEERS)");
    if (parse_peers(s)) {
        free(s);
        return -ENOMEM;
    }
    free(s);

    s = get_string(&self, PMIX_HOSTNAME);
    if (s)
        snprintf(rt.hostname, sizeof(rt.hostname), "%s", s);
    else
        gethostname(rt.hostname, sizeof(rt.hostname) - 1);
    free(s);
    return 0;
}

static void finalize_at_exit(void)
{
    if (pmix_up)
        PMIx_Finalize(NULL, 0);
    pmix_up = 0;
}

/* The connection stays until exit, for a later session's start-up; only a
 * process that finalized says goodbye to the server. */
void rt_modex_finalize(void)
{
    static int hooked;

    if (pmix_up && !hooked++)
        atexit(finalize_at_exit);
}

/* Our own cards, kept for rt_modex_own; a key put again replaces its card. */
static struct own_card {
    char *key;
    void *data;
    size_t len;
} * own;
static int nown;

static int keep_own(const char *key, const void *data, size_t len)
{
    struct own_card *o = NULL, *t;
    void *copy = malloc(len ? len : 1);

    if (!copy)
        return -ENOMEM;
    memcpy(copy, data, len);
    for (int i = 0; i < nown && !o; i++)
        if (!strcmp(own[i].key, key))
            o = &own[i];
    if (!o) {
        char *k = strdup(key);

        if (!k || !(t = realloc(own, ((size_t)nown + 1) * sizeof(*own)))) {
            free(k);
            free(copy);
            return -ENOMEM;
        }
        own = t;
        o = &own[nown++];
        o->key = k;
        o->data = NULL;
    }
    free(o->data);
    o->data = copy;
    o->len = len;
    return 0;
}

int rt_modex_own(int i, const char **key, const void **data, size_t *len)
{
    if (i < 0 || i >= nown)
        return -ENOENT;
    *key = own[i].key;
    *data = own[i].data;
    *len = own[i].len;
    return 0;
}

int rt_modex_put(const char *key, const void *data, size_t len)
{
    pmix_value_t v;
    pmix_status_t rc;

    if (keep_own(key, data, len))
        return -ENOMEM;
    if (!pmix_up)
        return 0;
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)data;
    v.data.bo.size = len;
    rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (rc != PMIX_SUCCESS) {
        rt_warn("PMIx_Put(%s) failed: %s", key, PMIx_Error_string(rc));
        return -EIO;
    }
    return 0;
}

static int fence(int collect)
{
    pmix_info_t info;
    bool flag = true;
    pmix_status_t rc;

    if (!pmix_up)
        return 0;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        rt_warn("PMIx_Fence failed: %s", PMIx_Error_string(rc));
        return -EIO;
    }
    return 0;
}

int rt_modex_exchange(void)
{
    pmix_status_t rc;

    if (!pmix_up)
        return 0;
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        rt_warn("PMIx_Commit failed: %s", PMIx_Error_string(rc));
        return -EIO;
    }
    return fence(1);
}

int rt_modex_fence(void)
{
    return fence(0);
}

int rt_modex_get(int rank, const char *key, void **data, size_t *len)
{
    pmix_proc_t who;
    pmix_value_t *v;
    pmix_status_t rc;
    void *copy;

    if (rank >= rt.size)
        return rt_proc_card(rank, key, data, len);
    if (!pmix_up)
        return -ENOENT;
    PMIX_LOAD_PROCID(&who, self.nspace, (pmix_rank_t)rank);
    rc = PMIx_Get(&who, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        return -ENOENT;
    if (v->type != PMIX_BYTE_OBJECT) {
        PMIX_VALUE_RELEASE(v);
        return -EPROTO;
    }
    copy = malloc(v->data.bo.size ? v->data.bo.size : 1);
    if (!copy) {
        PMIX_VALUE_RELEASE(v);
        return -ENOMEM;
    }
    memcpy(copy, v->data.bo.bytes, v->data.bo.size);
    *len = v->data.bo.size;
    *data = copy;
    PMIX_VALUE_RELEASE(v);
    return 0;
}

void rt_modex_abort(int status, const char *msg)
{
    if (pmix_up)
        PMIx_Abort(status, msg ? msg : "", NULL, 0);
}
