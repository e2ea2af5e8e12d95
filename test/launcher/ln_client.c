/*
 * ln_client.c: a plain PMIx client that plays a rank for the launcher tests.
 *
 *   ln_client ACTION [ARG [RANK]]
 *
 * ACTION happens on RANK (every rank when RANK is omitted or -1); the other
 * ranks wait (sleep 30 s, then finalize), so that the test can see that
 * mpirun ends them.  Every rank first does what MPI_Init does: PMIx_Init,
 * the job info, Put/Commit/Fence(collect)/Get of a business card.
 *
 * Actions:
 *   hello          print "hello from rank R of N" (after checking job info)
 *   info           print the job info as key=value lines, one per rank
 *   exit S         finalize, exit S
 *   abort S        print a message, PMIx_Abort(S)
 *   segv           raise SIGSEGV
 *   nofinalize     exit 0 without PMIx_Finalize
 *   sleep S        sleep S seconds, finalize
 *   spam N         print N numbered lines as fast as possible, exit at once
 *   env VAR        print "R VAR=value" (or "R VAR unset")
 *   stdin          rank prints "R stdin: <line>" for each stdin line, then
 *                  "R stdin: EOF"
 *   partial        print "no newline" without a newline, then exit
 *   noinit         do not use PMIx at all: exit ARG (a plain program)
 */
#ifdef HAVE_CONFIG_H
#include "config.h" /* _GNU_SOURCE: pmix_common.h needs strdup, setenv */
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pmix.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;

/* Sanitizer builds: libpmix's own allocations at exit are not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}

/* ... and "segv" must die of SIGSEGV, not exit through ASan's handler. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "handle_segv=0";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}
static uint32_t size;

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "ln_client: %s failed: %s\n", what, PMIx_Error_string(rc));
    exit(99);
}

static pmix_value_t *get_job(const char *key)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc;

    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        die(key, rc);
    return v;
}

static pmix_value_t *get_mine(const char *key)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&me, key, NULL, 0, &v);

    if (rc != PMIX_SUCCESS)
        die(key, rc);
    return v;
}

/* What MPI_Init does: job info and a business-card exchange. */
static void init(void)
{
    pmix_status_t rc;
    pmix_value_t val, *v;
    pmix_info_t coll;
    pmix_proc_t wild;
    char card[64];
    bool yes = true;

    rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        die("PMIx_Init", rc);
    v = get_job(PMIX_JOB_SIZE);
    size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);

    snprintf(card, sizeof(card), "card-of-%u", me.rank);
    PMIX_VALUE_LOAD(&val, card, PMIX_STRING);
    if ((rc = PMIx_Put(PMIX_GLOBAL, "ln.card", &val)) != PMIX_SUCCESS)
        die("PMIx_Put", rc);
    PMIX_VALUE_DESTRUCT(&val);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        die("PMIx_Commit", rc);
    PMIX_INFO_LOAD(&coll, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if ((rc = PMIx_Fence(&wild, 1, &coll, 1)) != PMIX_SUCCESS)
        die("PMIx_Fence", rc);
    for (uint32_t r = 0; r < size; r++) {
        pmix_proc_t p;

        PMIX_LOAD_PROCID(&p, me.nspace, r);
        snprintf(card, sizeof(card), "card-of-%u", r);
        rc = PMIx_Get(&p, "ln.card", NULL, 0, &v);
        if (rc != PMIX_SUCCESS)
            die("PMIx_Get(card)", rc);
        if (v->type != PMIX_STRING || strcmp(v->data.string, card)) {
            fprintf(stderr, "ln_client: rank %u got a wrong card for rank %u\n", me.rank, r);
            exit(98);
        }
        PMIX_VALUE_RELEASE(v);
    }
}

static void fini(void)
{
    pmix_status_t rc = PMIx_Finalize(NULL, 0);

    if (rc != PMIX_SUCCESS)
        die("PMIx_Finalize", rc);
}

static void info(void)
{
    pmix_value_t *v;
    char line[1024];
    int n = 0;

    n += snprintf(line + n, sizeof(line) - n, "rank=%u", me.rank);
    v = get_job(PMIX_JOB_SIZE);
    n += snprintf(line + n, sizeof(line) - n, " size=%u", v->data.uint32);
    PMIX_VALUE_RELEASE(v);
    v = get_job(PMIX_UNIV_SIZE);
    n += snprintf(line + n, sizeof(line) - n, " univ=%u", v->data.uint32);
    PMIX_VALUE_RELEASE(v);
    v = get_job(PMIX_LOCAL_SIZE);
    n += snprintf(line + n, sizeof(line) - n, " lsize=%u", v->data.uint32);
    PMIX_VALUE_RELEASE(v);
    v = get_job(PMIX_LOCAL_PEERS);
    n += snprintf(line + n, sizeof(line) - n, " peers=%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
    v = get_mine(PMIX_LOCAL_RANK);
    n += snprintf(line + n, sizeof(line) - n, " lrank=%u", v->data.uint16);
    PMIX_VALUE_RELEASE(v);
    v = get_mine(PMIX_NODE_RANK);
    n += snprintf(line + n, sizeof(line) - n, " nrank=%u", v->data.uint16);
    PMIX_VALUE_RELEASE(v);
    v = get_mine(PMIX_HOSTNAME);
    n += snprintf(line + n, sizeof(line) - n, " host=%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
    v = get_mine(PMIX_APPNUM);
    n += snprintf(line + n, sizeof(line) - n, " appnum=%u", v->data.uint32);
    PMIX_VALUE_RELEASE(v);
    v = get_job(PMIX_JOBID);
    n += snprintf(line + n, sizeof(line) - n, " jobid=%s", v->data.string);
    PMIX_VALUE_RELEASE(v);
    v = get_job(PMIX_NUM_NODES);
    n += snprintf(line + n, sizeof(line) - n, " nodes=%u", v->data.uint32);
    PMIX_VALUE_RELEASE(v);
    n += snprintf(line + n, sizeof(line) - n, " nspace=%s", me.nspace);
    printf("%s\n", line);
}

int main(int argc, char **argv)
{
    const char *act = argc > 1 ? argv[1] : "hello";
    const char *arg = argc > 2 ? argv[2] : "0";
    int only = argc > 3 ? atoi(argv[3]) : -1;
    int mine;

    if (!strcmp(act, "noinit"))
        return atoi(arg);
    init();
    mine = only < 0 || (uint32_t)only == me.rank;
    if (!mine) {
        sleep(30);
        fini();
        return 0;
    }
    if (!strcmp(act, "hello")) {
        printf("hello from rank %u of %u\n", me.rank, size);
    } else if (!strcmp(act, "info")) {
        info();
    } else if (!strcmp(act, "exit")) {
        fini();
        return atoi(arg);
    } else if (!strcmp(act, "abort")) {
        char msg[128];

        snprintf(msg, sizeof(msg), "rank %u aborts with %d", me.rank, atoi(arg));
        fprintf(stderr, "ln_client: %s\n", msg);
        fflush(stderr);
        PMIx_Abort(atoi(arg), msg, NULL, 0);
        _exit(atoi(arg));
    } else if (!strcmp(act, "segv")) {
        fflush(stdout);
        raise(SIGSEGV);
    } else if (!strcmp(act, "nofinalize")) {
        fflush(stdout);
        _exit(0);
    } else if (!strcmp(act, "sleep")) {
        sleep(atoi(arg));
    } else if (!strcmp(act, "spam")) {
        long n = atol(arg);

        for (long i = 0; i < n; i++)
            printf("rank %u line %ld of %ld %s\n", me.rank, i, n,
                   "padding-padding-padding-padding-padding");
        fflush(stdout);
        fini();
        _exit(0);
    } else if (!strcmp(act, "env")) {
        const char *v = getenv(arg);

        if (v)
            printf("%u %s=%s\n", me.rank, arg, v);
        else
            printf("%u %s unset\n", me.rank, arg);
    } else if (!strcmp(act, "stdin")) {
        char line[4096];

        while (fgets(line, sizeof(line), stdin))
            printf("%u stdin: %s", me.rank, line);
        printf("%u stdin: EOF\n", me.rank);
    } else if (!strcmp(act, "partial")) {
        printf("no newline");
    } else {
        fprintf(stderr, "ln_client: unknown action %s\n", act);
        return 97;
    }
    fflush(stdout);
    fini();
    return 0;
}
