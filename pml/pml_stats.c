/* The transport report: which BTL and provider carried what. The pml counts
 * per BTL on its send paths (pml.h, struct pml_stats); each BTL adds its
 * own counts through its report op. At finalize, with RDMPI_REPORT set
 * (mpirun --report-transport), every rank sends its rows to rank 0 over the
 * pml and rank 0 prints one table for the job. At verbosity 1 the first rank
 * of each class (same host, same BTLs opened) says what it chose and why. */
#include "log.h"
#include "modex.h"
#include "mpit.h"
#include "param.h"
#include "pml_check.h"

#include <stdlib.h>
#include <string.h>

RT_PARAM(p_report, "REPORT", RT_PARAM_BOOL, "0",
         "Print one table at MPI_Finalize (rank 0, stderr): per BTL and provider, MPI "
         "messages and bytes sent eagerly and by rendezvous, RDMA reads, fallbacks taken "
         "(mpirun --report-transport). Set it for every rank")

#define MAX_BTLS  BTL_MAX_MODULES /* modules a rank may run (self, sm, ofi's rails) */
#define CLASS_KEY "rdmpi.pml.class"

static struct pml_stats stats[MAX_BTLS];

/* MPI_T performance variables: one counter of every BTL's stats, summed. */
static uint64_t stats_total(const struct rt_pvar *v)
{
    uint64_t n = 0;

    for (int i = 0; i < MAX_BTLS; i++)
        n += *(const uint64_t *)((const char *)&stats[i] + v->arg);
    return n;
}

#define PML_PVAR(field, dsc)                                                                       \
    RT_PVAR(pv_##field, "rdmpi_pml_" #field, "rdmpi_pml", MPI_T_PVAR_CLASS_COUNTER, stats_total,   \
            offsetof(struct pml_stats, field), dsc)
PML_PVAR(eager_msgs, "MPI messages this process sent eagerly (payload in the first packet)")
PML_PVAR(eager_bytes, "Payload bytes of the messages this process sent eagerly")
PML_PVAR(rndv_msgs, "MPI messages this process sent by rendezvous")
PML_PVAR(rndv_bytes, "Payload bytes of the messages this process sent by rendezvous")
PML_PVAR(fb_read, "Rendezvous receives whose RDMA read (or the sender's write) failed and fell "
                  "back to the copy pipeline")
PML_PVAR(fb_nordma, "Rendezvous receives by copy pipeline: the BTL can neither read nor write, or "
                    "registration failed")
PML_PVAR(fb_credit, "Eager-sized sends that went by rendezvous because the peer's credits ran out")
PML_PVAR(ooo_msgs, "Messages that arrived ahead of an earlier one from the same sender and "
                   "waited for it (MPI order restored by the pml)")

/* One BTL of one rank, as shipped to rank 0 (same build everywhere). */
enum {
    V_EAGER_MSGS,
    V_EAGER_BYTES,
    V_RNDV_MSGS,
    V_RNDV_BYTES,
    V_READS,
    V_READ_BYTES,
    V_WRITES,
    V_WRITE_BYTES,
    V_FB_READ,
    V_FB_NORDMA,
    V_FB_CREDIT,
    NV
};
static const char *const vname[NV] = {"eager_msgs", "eager_bytes", "rndv_msgs", "rndv_bytes",
                                      "reads",      "read_bytes",  "writes",    "write_bytes",
                                      "fb_read",    "fb_nordma",   "fb_credit"};
struct row {
    char btl[16]; /* empty: unused slot */
    char transport[BTL_REPORT_TEXT];
    char extra_name[BTL_REPORT_EXTRA][24];
    uint64_t v[NV];
    uint64_t extra[BTL_REPORT_EXTRA];
    uint64_t ranks; /* rank 0's sum: ranks that ran this row */
};

static int btl_index(const struct btl_module *m)
{
    for (int i = 0; i < pml_nbtls; i++)
        if (pml_btls[i] == m)
            return i;
    return -1;
}

static void describe(struct btl_module *m, struct btl_report *r)
{
    memset(r, 0, sizeof(*r));
    if (!BTL_HAS(m, report) || m->report(m, r))
        snprintf(r->transport, sizeof(r->transport), "(no report)");
}

/* The opened BTLs' names: ranks with the same list on one host choose the
 * same way, so one of them speaks for all at verbosity 1. */
static char opened[64];
static int report_on;

void pml_stats_publish(void)
{
    report_on = rt_param_bool(&p_report) == 1; /* a bad value fails MPI_Init, not finalize */
    opened[0] = 0;
    for (int i = 0; i < pml_nbtls; i++)
        snprintf(opened + strlen(opened), sizeof(opened) - strlen(opened), "%s%s", i ? "," : "",
                 pml_btls[i]->name);
    if (rt_verbosity >= 1)
        rt_modex_put(CLASS_KEY, opened, strlen(opened) + 1);
}

/* Is a lower rank on this host of the same class? Then it speaks. */
static int first_of_class(void)
{
    int first = 1;

    for (int k = 0; k < rt.local_size && first; k++) {
        int q = rt.local_peers[k];
        void *other;
        size_t len;

        if (q >= rt.rank || rt_modex_get(q, CLASS_KEY, &other, &len))
            continue;
        first = len != strlen(opened) + 1 || memcmp(other, opened, len);
        free(other);
    }
    return first;
}

/* "... reach itself by self (...); 3 ranks by sm (...): ..." */
static void say_choice(void)
{
    const char *env = getenv("RDMPI_BTL");
    char line[1024];
    size_t n;

    n = (size_t)snprintf(line, sizeof(line),
                         "pml: rank %d and the ranks like it on %s (opened %s%s%s) reach", rt.rank,
                         rt.hostname, opened, env && *env ? " from RDMPI_BTL=" : "",
                         env && *env ? env : "");
    for (int i = 0; i < pml_nbtls && n < sizeof(line); i++) {
        struct btl_module *m = pml_btls[i];
        struct btl_report r;
        int peers = 0, self = 0;
        char who[48];

        for (int p = 0; p < rt.size; p++)
            if (pml_peers[p].btl == m ||
                (pml_route_has(p, m) && pml_rail_like(pml_peers[p].btl, m)))
                p == rt.rank ? self++ : peers++;
        if (!peers)
            snprintf(who, sizeof(who), "itself");
        else
            snprintf(who, sizeof(who), "%s%d rank%s", self ? "itself and " : "", peers,
                     peers == 1 ? "" : "s");
        describe(m, &r);
        n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %s by %s (%s)", i ? ";" : "", who,
                              m->name, r.transport);
    }
    if (n < sizeof(line))
        snprintf(line + n, sizeof(line) - n,
                 ": each peer takes the opened BTL of highest exclusivity that reaches it, and "
                 "its rendezvous data the rails of that kind beside it");
    rt_info(1, "%s", line);
}

void pml_stats_connect(void)
{
    memset(stats, 0, sizeof(stats));
    for (int r = 0; r < rt.size; r++)
        pml_stats_rebind(r);
    if (rt_verbosity >= 1 && first_of_class())
        say_choice();
}

void pml_stats_rebind(int r)
{
    int i = btl_index(pml_peers[r].btl);

    pml_peers[r].stats = &stats[i < 0 ? 0 : i];
}

static void fill(struct row *rows)
{
    memset(rows, 0, MAX_BTLS * sizeof(*rows));
    for (int i = 0; i < pml_nbtls && i < MAX_BTLS; i++) {
        struct row *w = &rows[i];
        const struct pml_stats *s = &stats[i];
        struct btl_report r;

        describe(pml_btls[i], &r);
        snprintf(w->btl, sizeof(w->btl), "%s", pml_btls[i]->name);
        memcpy(w->transport, r.transport, sizeof(w->transport));
        w->transport[sizeof(w->transport) - 1] = 0;
        for (int k = 0; k < BTL_REPORT_EXTRA && r.extra_name[k]; k++) {
            snprintf(w->extra_name[k], sizeof(w->extra_name[k]), "%s", r.extra_name[k]);
            w->extra[k] = r.extra[k];
        }
        w->v[V_EAGER_MSGS] = s->eager_msgs;
        w->v[V_EAGER_BYTES] = s->eager_bytes;
        w->v[V_RNDV_MSGS] = s->rndv_msgs;
        w->v[V_RNDV_BYTES] = s->rndv_bytes;
        w->v[V_READS] = r.reads;
        w->v[V_READ_BYTES] = r.read_bytes;
        w->v[V_WRITES] = r.writes;
        w->v[V_WRITE_BYTES] = r.write_bytes;
        w->v[V_FB_READ] = s->fb_read;
        w->v[V_FB_NORDMA] = s->fb_nordma;
        w->v[V_FB_CREDIT] = s->fb_credit;
        w->ranks = 1;
    }
}

/* Adds row w into the job's rows, keyed by BTL and transport text. */
static void merge(struct row *job, int *njob, int max, const struct row *w)
{
    int j;

    for (j = 0; j < *njob; j++)
        if (!strcmp(job[j].btl, w->btl) && !strcmp(job[j].transport, w->transport))
            break;
    if (j == *njob) {
        if (*njob == max)
            return;
        job[(*njob)++] = *w;
        return;
    }
    for (int k = 0; k < NV; k++)
        job[j].v[k] += w->v[k];
    for (int k = 0; k < BTL_REPORT_EXTRA; k++)
        job[j].extra[k] += w->extra[k];
    job[j].ranks += w->ranks;
}

static int digits(uint64_t v)
{
    int d = 1;

    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

static void print(const struct row *job, int njob)
{
    int wid[NV + 1] = {5};
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);

    if (!f) {
        rt_warn("out of memory printing the transport report");
        return;
    }
    for (int k = 0; k < NV; k++)
        wid[k + 1] = (int)strlen(vname[k]);
    for (int j = 0; j < njob; j++) {
        if (digits(job[j].ranks) > wid[0])
            wid[0] = digits(job[j].ranks);
        for (int k = 0; k < NV; k++)
            if (digits(job[j].v[k]) > wid[k + 1])
                wid[k + 1] = digits(job[j].v[k]);
    }
    fprintf(f, "rdmpi transport report: %d rank%s on %d host%s\n", rt.size, rt.size == 1 ? "" : "s",
            rt.num_nodes, rt.num_nodes == 1 ? "" : "s");
    fprintf(f, "%-5s %*s", "btl", wid[0], "ranks");
    for (int k = 0; k < NV; k++)
        fprintf(f, " %*s", wid[k + 1], vname[k]);
    fprintf(f, "  transport\n");
    for (int j = 0; j < njob; j++) {
        fprintf(f, "%-5s %*llu", job[j].btl, wid[0], (unsigned long long)job[j].ranks);
        for (int k = 0; k < NV; k++)
            fprintf(f, " %*llu", wid[k + 1], (unsigned long long)job[j].v[k]);
        fprintf(f, "  %s\n", job[j].transport);
        for (int k = 0; k < BTL_REPORT_EXTRA && job[j].extra_name[k][0]; k++)
            fprintf(f, "%s %s %llu%s", k ? "," : "      also:", job[j].extra_name[k],
                    (unsigned long long)job[j].extra[k],
                    k + 1 < BTL_REPORT_EXTRA && job[j].extra_name[k + 1][0] ? "" : "\n");
    }
    fputs("a row per module: each btl/ofi rail has its own, so the bytes per rail show;\n"
          "msgs, bytes: MPI messages sent and their payload; reads: RDMA reads by receivers;\n"
          "writes: RDMA writes by senders (write rendezvous, their half of a split one);\n"
          "fallbacks: fb_read RDMA read or write failed, message copied; fb_nordma copy\n"
          "pipeline, no RDMA (CMA refused or off, registration failed); fb_credit eager-sized,\n"
          "by rendezvous (no credits)\n",
          f);
    fclose(f);
    fputs(text, stderr);
    fflush(stderr);
    free(text);
}

/* Before the finalize drain, so the gather's own messages are neither
 * counted nor left behind. Off: one flag test. */
void pml_stats_report(void)
{
    struct pml_comm *pc = rt_comm_predef[0]->pml;
    struct row mine[MAX_BTLS], *all, job[MAX_BTLS * 8];
    struct pml_req **reqs;
    int njob = 0;

    if (!report_on)
        return;
    fill(mine);
    if (rt.rank != 0) {
        struct pml_req *s = pml_req_alloc();

        if (!s)
            rt_fatal("out of requests sending the transport report");
        pml_isend(mine, sizeof(mine), rt_dt_get(MPI_BYTE), 0, PML_TAG_REPORT, pc, PML_STANDARD, s);
        pml_wait(s);
        pml_req_release(s);
        return;
    }
    all = calloc((size_t)rt.size, sizeof(mine));
    reqs = calloc((size_t)rt.size, sizeof(*reqs));
    if (!all || !reqs)
        rt_fatal("out of memory gathering the transport report of %d ranks", rt.size);
    memcpy(all, mine, sizeof(mine));
    for (int r = 1; r < rt.size; r++) {
        if (!(reqs[r] = pml_req_alloc()))
            rt_fatal("out of requests gathering the transport report");
        pml_recv_setup(reqs[r], all + (size_t)r * MAX_BTLS, sizeof(mine), rt_dt_get(MPI_BYTE), r,
                       PML_TAG_REPORT, pc);
        pml_irecv(reqs[r]);
    }
    for (int r = 1; r < rt.size; r++) {
        pml_wait(reqs[r]);
        pml_req_release(reqs[r]);
    }
    for (size_t i = 0; i < (size_t)rt.size * MAX_BTLS; i++)
        if (all[i].btl[0])
            merge(job, &njob, (int)(sizeof(job) / sizeof(job[0])), &all[i]);
    print(job, njob);
    free(all);
    free(reqs);
}
