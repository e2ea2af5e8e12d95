#include "obj.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct pool {
    size_t *sizes; /* each object's size: requests of one kind differ */
    int cap;
    int *free; /* indices of dead objects */
    int nfree;
};

static struct pool pools[RT_OBJ_NKINDS];
struct rt_obj **rt_obj_chunks[RT_OBJ_NKINDS][RT_OBJ_NCHUNKS];
int rt_obj_counts[RT_OBJ_NKINDS];

static struct rt_obj **entry(enum rt_kind kind, int i)
{
    return &rt_obj_chunks[kind - RT_KIND_COMM][i >> RT_OBJ_CHUNK_BITS]
                         [i & ((1 << RT_OBJ_CHUNK_BITS) - 1)];
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Room for entry n: the bookkeeping arrays and the entry's chunk. */
static int grow(enum rt_kind kind, struct pool *p, int n)
{
    struct rt_obj ***chunk = &rt_obj_chunks[kind - RT_KIND_COMM][n >> RT_OBJ_CHUNK_BITS];

    if (n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 64;
        size_t *sizes = realloc(p->sizes, (size_t)cap * sizeof(*sizes));
        int *fr = realloc(p->free, (size_t)cap * sizeof(*fr));
        if (sizes)
            p->sizes = sizes;
        if (fr)
            p->free = fr;
        if (!sizes || !fr)
            return -1;
        p->cap = cap;
    }
    if (n >> RT_OBJ_CHUNK_BITS >= RT_OBJ_NCHUNKS)
        return -1;
    if (!*chunk)
        *chunk = calloc(1 << RT_OBJ_CHUNK_BITS, sizeof(struct rt_obj *));
    return *chunk ? 0 : -1;
}

void *rt_obj_new(enum rt_kind kind, size_t size)
{
    struct pool *p = &pools[kind - RT_KIND_COMM];
    int *n = &rt_obj_counts[kind - RT_KIND_COMM];
    struct rt_obj *o = NULL;

    pthread_mutex_lock(&lock);
    if (p->nfree && p->sizes[p->free[p->nfree - 1]] >= size) {
        int i = p->free[--p->nfree];

        o = *entry(kind, i);
        memset(o, 0, p->sizes[i]);
        o->findex = i + rt_obj_first_index(kind);
        o->kind = kind;
    } else if (grow(kind, p, *n) == 0 && (o = calloc(1, size))) {
        o->findex = *n + rt_obj_first_index(kind);
        o->kind = kind;
        p->sizes[*n] = size;
        *entry(kind, *n) = o;
        __atomic_store_n(n, *n + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return o;
}

void rt_obj_delete(void *obj)
{
    struct rt_obj *o = obj;
    struct pool *p = &pools[o->kind - RT_KIND_COMM];

    pthread_mutex_lock(&lock);
    p->free[p->nfree++] = o->findex - rt_obj_first_index(o->kind);
    __atomic_store_n(&o->kind, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
}
