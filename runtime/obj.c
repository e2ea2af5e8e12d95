#include "obj.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NKINDS (RT_KIND_SESSION - RT_KIND_COMM + 1)
/* Fortran indices below this are the predefined handles of each kind. */
#define FIRST_USER_INDEX 64

struct pool {
    struct rt_obj **all; /* by Fortran index - FIRST_USER_INDEX */
    size_t *sizes;       /* each object's size: requests of one kind differ */
    int n, cap;
    int *free; /* indices of dead objects */
    int nfree;
};

static struct pool pools[NKINDS];

/* Where the Fortran indices of a kind start (obj.h). */
static int first_index(enum rt_kind kind)
{
    return FIRST_USER_INDEX + (kind == RT_KIND_REQUEST ? RT_OBJ_REQ_FINDEX_BASE : 0);
}
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *rt_obj_new(enum rt_kind kind, size_t size)
{
    struct pool *p = &pools[kind - RT_KIND_COMM];
    struct rt_obj *o = NULL;

    pthread_mutex_lock(&lock);
    if (p->nfree && p->sizes[p->free[p->nfree - 1]] >= size) {
        o = p->all[p->free[--p->nfree]];
        memset(o, 0, p->sizes[p->free[p->nfree]]);
        o->findex = p->free[p->nfree] + first_index(kind);
    } else {
        if (p->n == p->cap) {
            int cap = p->cap ? 2 * p->cap : 64;
            struct rt_obj **all = realloc(p->all, (size_t)cap * sizeof(*all));
            size_t *sizes = realloc(p->sizes, (size_t)cap * sizeof(*sizes));
            int *fr = realloc(p->free, (size_t)cap * sizeof(*fr));
            if (all)
                p->all = all;
            if (sizes)
                p->sizes = sizes;
            if (fr)
                p->free = fr;
            if (!all || !sizes || !fr)
                goto out;
            p->cap = cap;
        }
        o = calloc(1, size);
        if (!o)
            goto out;
        o->findex = p->n + first_index(kind);
        p->sizes[p->n] = size;
        p->all[p->n++] = o;
    }
    o->kind = kind;
out:
    pthread_mutex_unlock(&lock);
    return o;
}

void rt_obj_delete(void *obj)
{
    struct rt_obj *o = obj;
    struct pool *p = &pools[o->kind - RT_KIND_COMM];

    pthread_mutex_lock(&lock);
    p->free[p->nfree++] = o->findex - first_index(o->kind);
    o->kind = 0;
    pthread_mutex_unlock(&lock);
}

void *rt_obj_from_findex(enum rt_kind kind, int findex)
{
    struct pool *p = &pools[kind - RT_KIND_COMM];
    struct rt_obj *o = NULL;
    int i = findex - first_index(kind);

    pthread_mutex_lock(&lock);
    if (i >= 0 && i < p->n && p->all[i]->kind == (uint32_t)kind)
        o = p->all[i];
    pthread_mutex_unlock(&lock);
    return o;
}
