/* The process table: every process this one may talk to, by a dense
 * process index. 0..N-1 are MPI_COMM_WORLD's ranks (their facts come from
 * PMIx); processes of other namespaces, met through MPI_Comm_spawn,
 * accept/connect or join, get the next indices with their identity, host
 * and business cards, carried by the connect exchange (runtime/dpm_conn.c).
 * Groups, communicators, the pml and the BTLs name peers by these indices,
 * so a world rank is its own index and nothing on the world's paths
 * changes. docs/dynamic.md, "The process table". */
#ifndef RT_PROC_H
#define RT_PROC_H

#include <stddef.h>
#include <stdint.h>

/* Indices this process may hand out in all (world ranks included): the
 * arrays indexed by them (rt_proc_array) are reserved at this size. An
 * index is never reused, so nothing indexed by one goes stale. */
#define RT_PROC_MAX (1 << 16)

/* An added process. */
struct rt_proc {
    char nspace[256];
    uint32_t rank;
    char host[256];
    int local;   /* on this host (same host name) */
    int refs;    /* communicators that reach it (rt_proc_retain) */
    int live;    /* the BTLs and the pml know it (added, not dropped) */
    void *cards; /* its business cards, rt_proc_cards_pack's format */
    size_t cards_len;
};

/* Indices known: rt.size plus those added. */
int rt_proc_count(void);
/* The index of (nspace, rank), or -1. */
int rt_proc_find(const char *nspace, uint32_t rank);
/* An added process's entry (index >= rt.size), else NULL. */
struct rt_proc *rt_proc_get(int idx);
/* A process's identity, for any index: its namespace and rank. */
const char *rt_proc_nspace(int idx);
uint32_t rt_proc_rank(int idx);
/* Whether idx runs on this host. */
int rt_proc_is_local(int idx);
/* Orders two processes the same way in every process (namespace, then
 * rank): <0, 0, >0. */
int rt_proc_cmp(int a, int b);

/* Adds (nspace, rank) with its host and cards (copied), or finds it:
 * its index, or -1 when out of memory or of indices. *added tells which. */
int rt_proc_add(const char *nspace, uint32_t rank, const char *host, const void *cards,
                size_t cards_len, int *added);

/* References from communicators (rt_comm_new/destroy): the last release of
 * an added process drops it from the pml and the BTLs (through the hook). */
void rt_proc_retain(const int *idx, int n);
void rt_proc_release(const int *idx, int n);
/* Set by the pml: makes idx[0..n) reachable (0, or an MPI error class), and
 * forgets one nobody reaches. */
extern int (*rt_proc_connect_hook)(int first, int n);
extern void (*rt_proc_drop_hook)(int idx);

/* A card of an added process, as rt_modex_get gives one (malloc'd). */
int rt_proc_card(int idx, const char *key, void **data, size_t *len);

/* This process's own cards as one blob (malloc'd): for each card, a
 * 16-bit key length, the key, a 32-bit length and the bytes. */
int rt_proc_cards_pack(void **blob, size_t *len);

/* Arrays indexed by process index: RT_PROC_MAX elements of elem bytes,
 * zeroed, reserved once and never moved, so an entry's address stays
 * valid while processes are added (pages come on first touch). NULL when
 * out of address space. */
void *rt_proc_array(size_t elem);
void rt_proc_array_free(void *a, size_t elem);

/* At finalize: forgets every added process. */
void rt_proc_finalize(void);

#endif
