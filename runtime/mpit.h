/* The MPI tool information interface (MPI-4.1 chapter 15, docs/mpit.md).
 * Control variables are the RT_PARAM tunables (mpit_cvar.c); performance
 * variables are counters the layers declare with RT_PVAR (mpit_pvar.c);
 * categories group both by layer (mpit.c). There are no event types, and
 * one time source (mpit_event.c). */
#ifndef RT_MPIT_H
#define RT_MPIT_H

#include "param.h"
#include "rt.h"

#include <stddef.h>
#include <stdint.h>

struct rt_pvar {
    const char *name;     /* "rdmpi_pml_eager_msgs" */
    const char *category; /* a category of mpit.c, "rdmpi_pml" */
    const char *desc;
    int var_class; /* MPI_T_PVAR_CLASS_* */
    uint64_t (*read)(const struct rt_pvar *v);
    size_t arg; /* for read: which counter */
    struct rt_pvar *next;
};

/* Declares a performance variable at file scope, like RT_PARAM. */
#define RT_PVAR(var, nm, cat, cls, fn, a, dsc)                                                     \
    static struct rt_pvar var = {                                                                  \
        .name = nm, .category = cat, .desc = dsc, .var_class = cls, .read = fn, .arg = a};         \
    __attribute__((constructor)) static void var##_register(void)                                  \
    {                                                                                              \
        rt_pvar_register(&var);                                                                    \
    }

void rt_pvar_register(struct rt_pvar *v);

/* ---- shared by mpit*.c ---- */

/* MPI_T may be used before MPI_Init and from any thread: its own lock
 * guards its state (and RT_API_ENTER the library's, once MPI is up). */
int mpit_lock(void);
void mpit_unlock(const int *held);
extern int mpit_refs; /* MPI_T_init_thread calls not yet finalized */
#define MPIT_ENTER()                                                                               \
    RT_API_ENTER();                                                                                \
    int mpit_held_ __attribute__((cleanup(mpit_unlock), unused)) = mpit_lock();                    \
    if (!mpit_refs)                                                                                \
    return MPI_T_ERR_NOT_INITIALIZED

/* MPI-4.1 15.3.3's string convention: copy at most *len - 1 characters and
 * say how many were stored; with no buffer, say how many are needed. */
void mpit_string(char *dst, int *len, const char *src);

/* The variables in index order (sorted by name at the first init). */
int mpit_ncvars(void);
const struct rt_param *mpit_cvar(int index);
int mpit_npvars(void);
const struct rt_pvar *mpit_pvar(int index);
/* The category index of a parameter or performance variable. */
int mpit_param_category(const struct rt_param *p);
int mpit_pvar_category(const struct rt_pvar *v);

/* Last MPI_T_finalize: drop the handles the tool left open. */
void mpit_cvar_release(void);
void mpit_pvar_release(void);

#endif
