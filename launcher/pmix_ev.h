/*
 * pmix_ev.h: an upcall of the PMIx server as the main loop receives it,
 * shared by the files that answer one (pmix_server.c, spawn.c, names.c).
 *
 * The upcall copies everything it was given (the library's arrays are
 * only valid during the upcall) and the main loop answers through the
 * callback it kept, exactly once, from ln_pmix_event_done() or the
 * answering file's own completion.
 */
#ifndef LN_PMIX_EV_H
#define LN_PMIX_EV_H

#include "launcher.h"

#include <pmix.h>
#include <pmix_server.h>

struct ln_event {
    struct ln_event *next;
    enum ln_ev_type type;
    int rank;                 /* index in job->ranks of the caller, -1 if not ours */
    pmix_proc_t proc;         /* the caller */
    int status;               /* abort status */
    char *msg;                /* abort: the rank's own account, or NULL */
    pmix_op_cbfunc_t opcb;    /* abort, publish, unpublish */
    pmix_modex_cbfunc_t mcb;  /* fence_nb, direct_modex */
    pmix_spawn_cbfunc_t scb;  /* spawn */
    pmix_lookup_cbfunc_t lcb; /* lookup */
    void *cbdata;
    char *data; /* fence blob, now ours */
    size_t ndata;
    pmix_info_t *info; /* spawn's job info; publish, lookup, unpublish directives and data */
    size_t ninfo;
    pmix_app_t *apps; /* spawn */
    size_t napps;
    char **keys; /* lookup, unpublish: NULL-terminated */
};

/* Frees what the event owns and the event; its callback must have run. */
void ln_pmix_event_free(struct ln_event *ev);

#endif
