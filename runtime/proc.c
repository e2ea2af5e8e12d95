/* The process table (proc.h): world ranks are indices 0..N-1 and need no
 * entry; added processes are kept in one array, never reused. */
#include "proc.h"
#include "log.h"
#include "modex.h"
#include "rt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static struct rt_proc **added; /* index - rt.size -> entry */
static int nadded, cap;
static int nlocal; /* of them on this host */

int (*rt_proc_connect_hook)(int first, int n);
void (*rt_proc_drop_hook)(int idx);

int rt_proc_count(void)
{
    return rt.size + nadded;
}

struct rt_proc *rt_proc_get(int idx)
{
    return idx >= rt.size && idx < rt.size + nadded ? added[idx - rt.size] : NULL;
}

const char *rt_proc_nspace(int idx)
{
    struct rt_proc *p = rt_proc_get(idx);

    return p ? p->nspace : rt.nspace;
}

uint32_t rt_proc_rank(int idx)
{
    struct rt_proc *p = rt_proc_get(idx);

    return p ? p->rank : (uint32_t)idx;
}

int rt_proc_is_local(int idx)
{
    struct rt_proc *p = rt_proc_get(idx);

    if (p)
        return p->local;
    for (int k = 0; k < rt.local_size; k++)
        if (rt.local_peers[k] == idx)
            return 1;
    return 0;
}

int rt_proc_cmp(int a, int b)
{
    int c = strcmp(rt_proc_nspace(a), rt_proc_nspace(b));
    uint32_t ra = rt_proc_rank(a), rb = rt_proc_rank(b);

    return c ? c : (ra > rb) - (ra < rb);
}

int rt_proc_find(const char *nspace, uint32_t rank)
{
    if (!strcmp(nspace, rt.nspace))
        return rank < (uint32_t)rt.size ? (int)rank : -1;
    for (int i = 0; i < nadded; i++)
        if (added[i]->rank == rank && !strcmp(added[i]->nspace, nspace))
            return rt.size + i;
    return -1;
}

int rt_proc_add(const char *nspace, uint32_t rank, const char *host, const void *cards,
                size_t cards_len, int *is_new)
{
    int idx = rt_proc_find(nspace, rank);
    struct rt_proc *p;

    *is_new = 0;
    if (idx >= 0)
        return idx;
    if (rt.size + nadded >= RT_PROC_MAX) {
        rt_warn("the process table is full: %d processes met in all (RT_PROC_MAX); "
                "disconnecting does not free indices",
                RT_PROC_MAX);
        return -1;
    }
    if (nadded == cap) {
        int c = cap ? 2 * cap : 16;
        struct rt_proc **t = realloc(added, (size_t)c * sizeof(*t));

        if (!t)
            return -1;
        added = t;
        cap = c;
    }
    if (!(p = calloc(1, sizeof(*p))) || !(p->cards = malloc(cards_len ? cards_len : 1))) {
        free(p);
        return -1;
    }
    snprintf(p->nspace, sizeof(p->nspace), "%s", nspace);
    snprintf(p->host, sizeof(p->host), "%s", host);
    p->rank = rank;
    p->local = !strcmp(host, rt.hostname);
    if (p->local)
        rt_progress_crowd(rt.local_size + ++nlocal);
    memcpy(p->cards, cards, cards_len);
    p->cards_len = cards_len;
    added[nadded++] = p;
    *is_new = 1;
    return rt.size + nadded - 1;
}

void rt_proc_retain(const int *idx, int n)
{
    for (int i = 0; i < n; i++) {
        struct rt_proc *p = rt_proc_get(idx[i]);

        if (p)
            p->refs++;
    }
}

void rt_proc_release(const int *idx, int n)
{
    for (int i = 0; i < n; i++) {
        struct rt_proc *p = rt_proc_get(idx[i]);

        if (p && !--p->refs && p->live) {
            p->live = 0;
            if (rt_proc_drop_hook)
                rt_proc_drop_hook(idx[i]);
        }
    }
}

/* Reads one card out of a blob; 0, or -ENOENT. */
static int blob_card(const uint8_t *b, size_t len, const char *key, void **data, size_t *dlen)
{
    size_t off = 0, klen = strlen(key);

    while (off + 2 <= len) {
        uint16_t kl;
        uint32_t vl;

        memcpy(&kl, b + off, 2);
        if (off + 2 + kl + 4 > len)
            break;
        memcpy(&vl, b + off + 2 + kl, 4);
        if (off + 6 + kl + vl > len)
            break;
        if (kl == klen && !memcmp(b + off + 2, key, klen)) {
            if (!(*data = malloc(vl ? vl : 1)))
                return -ENOMEM;
            memcpy(*data, b + off + 6 + kl, vl);
            *dlen = vl;
            return 0;
        }
        off += 6 + kl + vl;
    }
    return -ENOENT;
}

int rt_proc_card(int idx, const char *key, void **data, size_t *len)
{
    struct rt_proc *p = rt_proc_get(idx);

    return p ? blob_card(p->cards, p->cards_len, key, data, len) : -ENOENT;
}

int rt_proc_cards_pack(void **blob, size_t *len)
{
    const char *key;
    const void *data;
    size_t dlen, total = 0, off = 0;
    uint8_t *b;

    for (int i = 0; !rt_modex_own(i, &key, &data, &dlen); i++)
        total += 6 + strlen(key) + dlen;
    if (!(b = malloc(total ? total : 1)))
        return -ENOMEM;
    for (int i = 0; !rt_modex_own(i, &key, &data, &dlen); i++) {
        uint16_t kl = (uint16_t)strlen(key);
        uint32_t vl = (uint32_t)dlen;

        memcpy(b + off, &kl, 2);
        memcpy(b + off + 2, key, kl);
        memcpy(b + off + 2 + kl, &vl, 4);
        memcpy(b + off + 6 + kl, data, dlen);
        off += 6 + kl + dlen;
    }
    *blob = b;
    *len = total;
    return 0;
}

void *rt_proc_array(size_t elem)
{
    void *a = mmap(NULL, elem * RT_PROC_MAX, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    return a == MAP_FAILED ? NULL : a;
}

void rt_proc_array_free(void *a, size_t elem)
{
    if (a)
        munmap(a, elem * RT_PROC_MAX);
}

void rt_proc_finalize(void)
{
    for (int i = 0; i < nadded; i++) {
        free(added[i]->cards);
        free(added[i]);
    }
    free(added);
    added = NULL;
    nadded = cap = nlocal = 0;
}
