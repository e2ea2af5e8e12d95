/* MPI_Init and MPI_Finalize: bring the layers up in order, and down. */
#include "comm.h"
#include "datatype.h"
#include "dpm.h"
#include "errors.h"
#include "log.h"
#include "modex.h"
#include "param.h"
#include "proc.h"
#include "rt.h"

#include <pmix.h>
#include <rdma/fabric.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rt_state rt = {.rank = -1};

static struct rt_layer *layers;

/* Kept sorted by order so init runs low to high and finalize high to low. */
void rt_layer_register(struct rt_layer *l)
{
    struct rt_layer **p = &layers;

    while (*p && (*p)->order <= l->order)
        p = &(*p)->next;
    l->next = *p;
    *p = l;
}

RT_PARAM(p_cpus, "CPUS", RT_PARAM_INT, "0",
         "Cores this host's ranks share, against which 'ranks outnumber cores' is decided "
         "(yielding, collective algorithms); 0: the online CPUs. In a container with a CPU "
         "quota, give the quota")

static int count_cpus(void)
{
    cpu_set_t set;
    long n = rt_param_int(&p_cpus);

    if (n > 0)
        return (int)n;
    /* The launcher may pin us to one core; the host's cores decide
     * oversubscription, so count those. */
    n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > 0)
        return (int)n;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        return CPU_COUNT(&set);
    return 1;
}

/* The predefined communicators get each layer's slot before the layer
 * connects, so its start-up can already talk on MPI_COMM_WORLD. */
static int predef_init(struct rt_layer *l)
{
    int rc;

    if (!l->comm_init)
        return 0;
    for (int i = 0; i < RT_COMM_NPREDEF; i++)
        if ((rc = l->comm_init(rt_comm_predef[i])))
            return rc;
    return 0;
}

static void predef_fini(struct rt_layer *l)
{
    if (l->comm_fini)
        for (int i = RT_COMM_NPREDEF - 1; i >= 0; i--)
            l->comm_fini(rt_comm_predef[i]);
}

static int init_layers(void)
{
    struct rt_layer *l;
    int rc;

    for (l = layers; l; l = l->next)
        if (l->init && (rc = l->init()))
            return rc;
    if ((rc = rt_modex_exchange()))
        return rc;
    for (l = layers; l; l = l->next) {
        if ((rc = predef_init(l)))
            return rc;
        if (l->connect && (rc = l->connect()))
            return rc;
        if (l->progress && (rc = rt_progress_register(l->progress)))
            return rc;
        if (l->services && (rc = rt_comm_services_add(l->services))) {
            rt_warn("layer %s offers a communicator service another layer offers already", l->name);
            return rc;
        }
    }
    return 0;
}

/* Undoes the layers before `upto` (NULL: all) in reverse order. */
static int comm_fini_before(struct rdmpi_comm *c, struct rt_layer *l, struct rt_layer *upto)
{
    int kept;

    if (l == upto)
        return 0;
    kept = comm_fini_before(c, l->next, upto);
    if (l->comm_fini && l->comm_fini(c) > 0)
        kept = 1;
    return kept;
}

int rt_layers_comm_init(struct rdmpi_comm *c)
{
    for (struct rt_layer *l = layers; l; l = l->next)
        if (l->comm_init && l->comm_init(c)) {
            comm_fini_before(c, layers, l);
            return MPI_ERR_NO_MEM;
        }
    return MPI_SUCCESS;
}

int rt_layers_comm_fini(struct rdmpi_comm *c)
{
    return comm_fini_before(c, layers, NULL);
}

static void finalize_layers(struct rt_layer *l)
{
    if (!l)
        return;
    finalize_layers(l->next);
    if (l->services)
        rt_comm_services_remove(l->services);
    if (l->finalize)
        l->finalize();
    predef_fini(l);
    if (l->progress)
        rt_progress_unregister(l->progress);
}

/* Brings the layers up for MPI_Init or the first session. */
void rt_up(int required, const char *fn)
{
    int rc;

    rt.main_thread = pthread_self();
    rt_log_init();
    /* Under a launcher stdout is a pipe, which libc buffers fully: lines
     * would show up late and out of step with stderr. Open MPI's pty gives
     * line buffering; so do we. */
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, NULL, _IOLBF, 0);
    rt_progress_catch_dump();
    if ((rc = rt_modex_init()))
        rt_fatal("%s: could not reach the launcher (error %d)", fn, rc);
    rt.ncpus = count_cpus();
    rt.oversubscribed = rt.local_size > rt.ncpus;
    rt_progress_setup();
    rt_dt_init();
    if ((rc = rt_comm_init()))
        rt_fatal("%s: could not create MPI_COMM_WORLD (error %d)", fn, rc);
    if ((rc = init_layers()))
        rt_fatal("%s: start-up failed (error %d); run with RDMPI_VERBOSE=1 for detail", fn, rc);

    rt.thread_level = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                      : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                       : required;
    rt_mt = rt.thread_level == MPI_THREAD_MULTIPLE;
    rt_progress_update();
    rt.up = 1;
}

/* Takes the layers down once neither MPI_Init nor a session needs them.
 * A peer may still be in either model: the layers' drain and the last
 * fence are collective over the job, whichever call each rank makes. */
void rt_down(void)
{
    /* Layers drain their traffic (FINs, credits) before the last fence, so
     * no peer waits on a message we never send. */
    finalize_layers(layers);
    rt_port_close_all();
    rt_proc_finalize();
    rt_progress_clear(); /* the sources added on first use */
    rt_modex_fence();
    rt_comm_finalize();
    rt_modex_finalize();
    free(rt.local_peers);
    rt.local_peers = NULL;
    rt.up = 0;
}

static int do_init(int required, int *provided, const char *fn)
{
    if (rt.initialized || rt.finalized)
        rt_abort_job(1, rt.finalized
                            ? "MPI_Init called after MPI_Finalize; MPI can be initialised once"
                            : "MPI_Init called twice; call it once per process");
    /* Sessions may have brought the layers up already. */
    if (!rt.up)
        rt_up(required, fn);
    if (provided)
        *provided = rt.thread_level;
    rt.initialized = 1;
    rt_dpm_init(); /* a spawned process meets its parents */
    return MPI_SUCCESS;
}

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int *argc, char ***argv)
{
    RT_API_ENTER();
    (void)argc;
    (void)argv;
    return do_init(MPI_THREAD_SINGLE, NULL, "MPI_Init");
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    RT_API_ENTER();
    (void)argc;
    (void)argv;
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        rt_fatal("MPI_Init_thread: required=%d is not a thread level; pass "
                 "MPI_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE",
                 required);
    if (!provided)
        rt_fatal("MPI_Init_thread: provided is NULL; pass the address of an int");
    return do_init(required, provided, "MPI_Init_thread");
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int *flag)
{
    RT_API_ENTER();
    *flag = rt.initialized;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int *flag)
{
    RT_API_ENTER();
    *flag = rt.finalized;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void)
{
    RT_API_ENTER();
    int rc;

    if (RT_UNLIKELY(!rt.initialized || rt.finalized))
        rt_not_initialized("MPI_Finalize");
    /* MPI_COMM_SELF's delete callbacks run first, while MPI still works. */
    if ((rc = rt_attr_finalize()))
        return rc;
    /* Sessions still open keep the layers up; the last one takes them down. */
    if (!rt.sessions)
        rt_down();
    rt.finalized = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int *provided)
{
    RT_API_ENTER();
    RT_CHECK_INIT("MPI_Query_thread");
    *provided = rt.thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int *flag)
{
    RT_API_ENTER();
    RT_CHECK_INIT("MPI_Is_thread_main");
    *flag = pthread_equal(pthread_self(), rt.main_thread) != 0;
    return MPI_SUCCESS;
}

_Noreturn void rt_abort_job(int status, const char *msg)
{
    /* What the program printed before the error must not be lost. */
    fflush(stdout);
    fflush(stderr);
    if (msg && *msg) {
        char line[1100];
        int n;

        if (rt.rank >= 0)
            n = snprintf(line, sizeof(line), "rdmpi[%d]: %s\n", rt.rank, msg);
        else
            n = snprintf(line, sizeof(line), "rdmpi: %s\n", msg);
        if (n > (int)sizeof(line))
            n = (int)sizeof(line);
        if (write(STDERR_FILENO, line, (size_t)n) < 0)
            n = 0;
    }
    rt_modex_abort(status, msg);
    _exit(status);
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    RT_API_ENTER();
    struct rdmpi_comm *c = rt_comm_get(comm);
    char msg[RT_COMM_DESCRIBE_MAX + 128], who[RT_COMM_DESCRIBE_MAX];

    /* mpirun tells MPI_Abort from other errors by the "MPI_Abort(" start. */
    if (c && c->name[0])
        snprintf(msg, sizeof(msg), "MPI_Abort(%s, %d) called: ending the job", c->name, errorcode);
    else
        snprintf(msg, sizeof(msg), "MPI_Abort(comm, %d) called on %s: ending the job", errorcode,
                 c ? rt_comm_describe(c, who, sizeof(who)) : "an invalid communicator");
    /* Exit statuses are 8 bits; 0 would read as success. */
    rt_abort_job((errorcode & 0xff) ? (errorcode & 0xff) : 1, msg);
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char *name, int *resultlen)
{
    RT_API_ENTER();
    char host[MPI_MAX_PROCESSOR_NAME];
    const char *h = rt.hostname;

    if (!rt.up || !h[0]) {
        gethostname(host, sizeof(host) - 1);
        host[sizeof(host) - 1] = 0;
        h = host;
    }
    *resultlen = snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", h);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int *version, int *subversion)
{
    RT_API_ENTER();
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char *version, int *resultlen)
{
    RT_API_ENTER();
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "rdmpi %s (MPI %d.%d), PMIx %s, built with libfabric %d.%d", PACKAGE_VERSION,
                     MPI_VERSION, MPI_SUBVERSION, PMIx_Get_version(), FI_MAJOR_VERSION,
                     FI_MINOR_VERSION);

    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

double rt_wtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void)
{
    return rt_wtime();
}

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void)
{
    struct timespec ts;

    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
