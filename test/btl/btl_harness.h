/* Brings the BTLs up without the pml, the way MPI_Init would: runtime
 * facts from the launcher, btl_open_all, init, card exchange, connect, and
 * one endpoint per world rank from the highest-exclusivity BTL. */
#ifndef TEST_BTL_HARNESS_H
#define TEST_BTL_HARNESS_H

#include "config.h"

/* Every rank checks: test/tap.h's checks go to btl_point below. */
#define TAP_SINK btl_point
#include "../tap.h"

#include "btl.h"
#include "log.h"
#include "modex.h"
#include "rt.h"

#include <dirent.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Failed checks of this rank: its exit status (unused by the benchmark). */
__attribute__((unused)) static int failures;

/* The checks of test/tap.h print here: "# rank R ok|FAIL: ..." lines,
 * every one on rank 0 and the failures elsewhere. */
__attribute__((format(printf, 6, 7))) static inline void btl_point(int pass, const char *file,
                                                                   int line, const char *expr,
                                                                   const char *detail,
                                                                   const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    if (fmt[1]) {
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt + 1, ap);
        va_end(ap);
    } else {
        snprintf(msg, sizeof(msg), "%s", expr);
    }
    failures += !pass;
    if (!pass)
        printf("# rank %d FAIL: %s\n#   %s:%d: %s%s%s%s\n", rt.rank, msg, tap_base_(file), line,
               expr, *detail ? " (" : "", detail, *detail ? ")" : "");
    else if (rt.rank == 0)
        printf("# rank %d ok: %s\n", rt.rank, msg);
    fflush(stdout);
}

#define harness_die(...)                                                                           \
    do {                                                                                           \
        printf("Bail out! rank %d: ", rt.rank);                                                    \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        fflush(stdout);                                                                            \
        exit(1);                                                                                   \
    } while (0)

struct harness {
    btl_error_fn error; /* set before harness_init; NULL: errors end the job */
    struct btl_module **mods;
    int nmods;
    uint8_t **reach;            /* per module, per world rank: connect's answer */
    struct btl_module **btl_of; /* per world rank */
    struct btl_endpoint **ep;   /* per world rank */
};

/* The runtime facts and the PMIx client, before any BTL is opened. */
/* Test data the receiver can check without a copy: a splitmix64 word
 * per 8 bytes of (rank, offset). */
static inline uint64_t harness_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint8_t harness_pattern(int rank, size_t i)
{
    return (uint8_t)(harness_mix((uint64_t)rank << 40 | i >> 3) >> (8 * (i & 7)));
}

static inline void harness_pattern_fill(uint8_t *b, size_t len, int rank)
{
    for (size_t j = 0; j < len / 8; j++) {
        uint64_t w = harness_mix((uint64_t)rank << 40 | j);
        memcpy(b + 8 * j, &w, 8);
    }
    for (size_t i = len & ~(size_t)7; i < len; i++)
        b[i] = harness_pattern(rank, i);
}

static inline void harness_runtime(void)
{
    rt_log_init();
    if (rt_modex_init())
        harness_die("rt_modex_init failed");
    rt.ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    rt.oversubscribed = rt.local_size > rt.ncpus;
}

/* Opens and initialises the BTLs, after harness_runtime. */
static inline void harness_open(struct harness *h, btl_recv_fn recv)
{
    btl_recv_table[BTL_TAG_TEST] = recv;
    if (btl_open_all(&h->mods, &h->nmods, h->error))
        harness_die("btl_open_all failed");
    for (int i = 0; i < h->nmods; i++)
        if (h->mods[i]->init(h->mods[i]))
            harness_die("%s init failed", h->mods[i]->name);
}

/* Both. Before the exchange: the caller may rt_modex_put its own keys
 * between harness_init and harness_connect. */
static inline void harness_init(struct harness *h, btl_recv_fn recv)
{
    harness_runtime();
    harness_open(h, recv);
}

static inline void harness_connect(struct harness *h)
{
    h->reach = calloc((size_t)h->nmods + 1, sizeof(*h->reach));
    h->btl_of = calloc((size_t)rt.size, sizeof(*h->btl_of));
    h->ep = calloc((size_t)rt.size, sizeof(*h->ep));
    if (!h->reach || !h->btl_of || !h->ep)
        harness_die("out of memory");
    if (rt_modex_exchange())
        harness_die("rt_modex_exchange failed");
    for (int i = 0; i < h->nmods; i++) {
        uint8_t *reach = h->reach[i] = calloc((size_t)rt.size, 1);

        if (!reach)
            harness_die("out of memory");
        if (h->mods[i]->connect(h->mods[i], reach))
            harness_die("%s connect failed", h->mods[i]->name);
        for (int r = 0; r < rt.size; r++)
            if (reach[r] && !h->btl_of[r]) {
                h->btl_of[r] = h->mods[i];
                h->ep[r] = h->mods[i]->endpoint(h->mods[i], r);
            }
    }
}

static inline int harness_progress(struct harness *h)
{
    int n = 0;

    for (int i = 0; i < h->nmods; i++)
        n += h->mods[i]->progress(h->mods[i]);
    return n;
}

static inline void harness_finalize(struct harness *h)
{
    for (int i = 0; i < h->nmods; i++)
        h->mods[i]->flush(h->mods[i]);
    for (int i = 0; i < h->nmods; i++)
        h->mods[i]->finalize(h->mods[i]);
    btl_close_all();
    for (int i = 0; h->reach && i < h->nmods; i++)
        free(h->reach[i]);
    free(h->reach);
    free(h->btl_of);
    free(h->ep);
}

static inline struct btl_module *harness_find(struct harness *h, const char *name)
{
    for (int i = 0; i < h->nmods; i++)
        if (!strcmp(h->mods[i]->name, name))
            return h->mods[i];
    return NULL;
}

/* Between polls that found nothing: spinning ranks starve a peer that
 * shares the core (8 ranks on this 2-core VM). */
static inline void harness_idle(unsigned *spins)
{
    if (++*spins >= 64) {
        *spins = 0;
        sched_yield();
    }
}

/* Files of this job in /dev/shm (the sm segments): their number. */
static inline int harness_shm_files(void)
{
    char prefix[300];
    struct dirent *e;
    DIR *d = opendir("/dev/shm");
    int n = 0;

    snprintf(prefix, sizeof(prefix), "rdmpi-%u-%s-", (unsigned)getuid(), rt.nspace);
    if (!d)
        return 0;
    while ((e = readdir(d)))
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return n;
}

#endif
