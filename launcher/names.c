/*
 * names.c: the name service of one mpirun (PMIx_Publish, PMIx_Lookup,
 * PMIx_Unpublish), for every namespace it started.
 *
 * A name is a key with a value and its publisher.  Keys that begin with
 * "pmix." are directives, never data: PMIX_RANGE (who may see the name:
 * the publisher only, its namespace, or, by default and for every wider
 * range, every process of this mpirun), PMIX_PERSISTENCE (how long it
 * lasts: until the publisher ends, until its namespace ends, until the
 * first lookup, or, by default, until mpirun ends) on a publish; PMIX_RANGE,
 * PMIX_WAIT and PMIX_TIMEOUT on a lookup.
 *
 * A key that a process the name would be visible to has already published
 * is refused (PMIX_ERR_DUPLICATE_KEY), the whole publish with it.  A lookup
 * answers what it found (PMIX_ERR_NOT_FOUND if nothing); with PMIX_WAIT it
 * waits for the number of keys asked (0: all) until PMIX_TIMEOUT seconds
 * (0: no limit), answered after each publish, and fails when the looker
 * ends or the job does.  Only the publisher unpublishes its names
 * (PMIX_ERR_NOT_FOUND otherwise).  Everything runs on the main loop.  In
 * a daemon of a job over several hosts every request is refused
 * (PMIX_ERR_NOT_SUPPORTED) until the service moves to mpirun.
 */
#include "pmix_ev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct name {
    struct name *next;
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_value_t value;
    pmix_proc_t owner;
    int owner_i; /* index in job->ranks, -1 if not ours */
    pmix_data_range_t range;
    pmix_persistence_t persist;
};

/* A lookup with PMIX_WAIT that has not found enough yet. */
struct waiting {
    struct waiting *next;
    struct ln_event *ev;
    pmix_data_range_t range;
    size_t want;     /* keys to find before answering */
    double deadline; /* 0: none */
};

static struct name *names;
static struct waiting *waits;

static int is_directive(const char *key)
{
    return !strncmp(key, "pmix.", 5);
}

static int same_proc(const pmix_proc_t *a, const pmix_proc_t *b)
{
    return a->rank == b->rank && !strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);
}

static int same_ns(const pmix_proc_t *a, const pmix_proc_t *b)
{
    return !strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN);
}

/* Whether name n (within its range, from its owner) is seen by `who`
 * when it looks within range `asked`. */
static int visible(const struct name *n, const pmix_proc_t *who, pmix_data_range_t asked)
{
    pmix_data_range_t r[2] = {n->range, asked};

    for (int i = 0; i < 2; i++) {
        if (r[i] == PMIX_RANGE_PROC_LOCAL && !same_proc(&n->owner, who))
            return 0;
        if (r[i] == PMIX_RANGE_NAMESPACE && !same_ns(&n->owner, who))
            return 0;
    }
    return 1;
}

static struct name *find(const char *key, const pmix_proc_t *who, pmix_data_range_t asked)
{
    for (struct name *n = names; n; n = n->next)
        if (!strncmp(n->key, key, PMIX_MAX_KEYLEN) && visible(n, who, asked))
            return n;
    return NULL;
}

static void drop(struct name **link)
{
    struct name *n = *link;

    *link = n->next;
    PMIX_VALUE_DESTRUCT(&n->value);
    free(n);
}

static pmix_data_range_t range_of(const pmix_info_t *info, size_t n, pmix_data_range_t def)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_RANGE) && info[i].value.type == PMIX_DATA_RANGE)
            return info[i].value.data.range;
    return def;
}

/* Two names clash when one process could see both. */
static int clashes(const pmix_info_t *in, const struct ln_event *ev, pmix_data_range_t range)
{
    struct name probe;

    memset(&probe, 0, sizeof(probe));
    probe.owner = ev->proc;
    probe.range = range;
    for (struct name *n = names; n; n = n->next)
        if (!strncmp(n->key, in->key, PMIX_MAX_KEYLEN) &&
            (visible(n, &ev->proc, range) || visible(&probe, &n->owner, n->range)))
            return 1;
    return 0;
}

static void retry_waits(void);

static void publish(struct ln_job *job, struct ln_event *ev)
{
    pmix_data_range_t range = range_of(ev->info, ev->ninfo, PMIX_RANGE_SESSION);
    pmix_persistence_t persist = PMIX_PERSIST_SESSION;
    pmix_status_t st = PMIX_SUCCESS;
    size_t ndata = 0;

    for (size_t i = 0; i < ev->ninfo; i++) {
        const pmix_info_t *in = &ev->info[i];

        if (PMIX_CHECK_KEY(in, PMIX_PERSISTENCE) && in->value.type == PMIX_PERSIST)
            persist = in->value.data.persist;
        else if (!is_directive(in->key) && clashes(in, ev, range)) {
            ln_verbose(job, "cannot publish '%s': it is published already", in->key);
            st = PMIX_ERR_DUPLICATE_KEY;
        } else if (!is_directive(in->key))
            ndata++;
    }
    if (st == PMIX_SUCCESS && !ndata)
        st = PMIX_ERR_BAD_PARAM;
    for (size_t i = 0; st == PMIX_SUCCESS && i < ev->ninfo; i++) {
        const pmix_info_t *in = &ev->info[i];
        struct name *n;

        if (is_directive(in->key))
            continue;
        if (!(n = calloc(1, sizeof(*n)))) {
            st = PMIX_ERR_NOMEM;
            break;
        }
        snprintf(n->key, sizeof(n->key), "%s", in->key);
        PMIx_Value_xfer(&n->value, &in->value);
        n->owner = ev->proc;
        n->owner_i = ev->rank;
        n->range = range;
        n->persist = persist;
        n->next = names;
        names = n;
    }
    if (ev->opcb)
        ev->opcb(st, ev->cbdata);
    ln_pmix_event_free(ev);
    if (st == PMIX_SUCCESS)
        retry_waits();
}

/* Answers a lookup if it found enough (or may not wait): returns 1 once
 * answered. */
static int answer_lookup(struct ln_event *ev, pmix_data_range_t range, size_t want, int may_wait)
{
    size_t nkeys = 0, found = 0, k = 0;
    pmix_pdata_t *pd = NULL;

    while (ev->keys[nkeys])
        nkeys++;
    for (size_t i = 0; i < nkeys; i++)
        found += find(ev->keys[i], &ev->proc, range) != NULL;
    if (may_wait && found < (want ? want : nkeys))
        return 0;
    if (found)
        PMIX_PDATA_CREATE(pd, found);
    for (size_t i = 0; pd && i < nkeys; i++) {
        struct name *n = find(ev->keys[i], &ev->proc, range);

        if (!n)
            continue;
        pd[k].proc = n->owner;
        PMIX_LOAD_KEY(pd[k].key, n->key);
        PMIx_Value_xfer(&pd[k].value, &n->value);
        k++;
        /* PMIX_PERSIST_FIRST_READ: gone once read. */
        if (n->persist == PMIX_PERSIST_FIRST_READ)
            for (struct name **l = &names; *l; l = &(*l)->next)
                if (*l == n) {
                    drop(l);
                    break;
                }
    }
    if (ev->lcb)
        ev->lcb(!found ? PMIX_ERR_NOT_FOUND
                : pd   ? PMIX_SUCCESS
                       : PMIX_ERR_NOMEM,
                pd, k, ev->cbdata);
    if (pd)
        PMIX_PDATA_FREE(pd, found);
    ln_pmix_event_free(ev);
    return 1;
}

static void lookup(struct ln_event *ev)
{
    pmix_data_range_t range = range_of(ev->info, ev->ninfo, PMIX_RANGE_SESSION);
    struct waiting *w;
    int wait = 0, timeout = 0;
    size_t want = 0;

    for (size_t i = 0; i < ev->ninfo; i++) {
        const pmix_info_t *in = &ev->info[i];

        if (PMIX_CHECK_KEY(in, PMIX_WAIT)) {
            wait = in->value.type != PMIX_BOOL || in->value.data.flag;
            if (in->value.type == PMIX_INT && in->value.data.integer > 0)
                want = (size_t)in->value.data.integer;
        } else if (PMIX_CHECK_KEY(in, PMIX_TIMEOUT) && in->value.type == PMIX_INT)
            timeout = in->value.data.integer;
    }
    if (!ev->keys[0]) {
        if (ev->lcb)
            ev->lcb(PMIX_ERR_BAD_PARAM, NULL, 0, ev->cbdata);
        ln_pmix_event_free(ev);
        return;
    }
    if (answer_lookup(ev, range, want, wait))
        return;
    if (!(w = calloc(1, sizeof(*w)))) {
        answer_lookup(ev, range, want, 0);
        return;
    }
    w->ev = ev;
    w->range = range;
    w->want = want;
    w->deadline = timeout > 0 ? ln_now() + timeout : 0;
    w->next = waits;
    waits = w;
}

static void retry_waits(void)
{
    for (struct waiting **l = &waits; *l;) {
        struct waiting *w = *l;

        if (answer_lookup(w->ev, w->range, w->want, 1)) {
            *l = w->next;
            free(w);
        } else {
            l = &w->next;
        }
    }
}

/* Fails the waiting lookups that `gone` says to, with status st. */
static void end_waits(int (*gone)(const struct waiting *, const void *), const void *arg,
                      pmix_status_t st)
{
    for (struct waiting **l = &waits; *l;) {
        struct waiting *w = *l;

        if (!gone(w, arg)) {
            l = &w->next;
            continue;
        }
        *l = w->next;
        if (w->ev->lcb)
            w->ev->lcb(st, NULL, 0, w->ev->cbdata);
        ln_pmix_event_free(w->ev);
        free(w);
    }
}

static void unpublish(struct ln_event *ev)
{
    int all = !ev->keys[0], removed = 0;

    for (struct name **l = &names; *l;) {
        int match = all;

        for (size_t i = 0; !match && ev->keys[i]; i++)
            match = !strncmp((*l)->key, ev->keys[i], PMIX_MAX_KEYLEN);
        if (match && same_proc(&(*l)->owner, &ev->proc)) {
            drop(l);
            removed++;
        } else {
            l = &(*l)->next;
        }
    }
    if (ev->opcb)
        ev->opcb(removed ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, ev->cbdata);
    ln_pmix_event_free(ev);
}

void ln_names_handle(struct ln_job *job, struct ln_event *ev)
{
    /* A daemon's names would be seen on its host only: over several
     * hosts the service must live in mpirun (not done yet). */
    if (job->daemon) {
        if (ev->opcb)
            ev->opcb(PMIX_ERR_NOT_SUPPORTED, ev->cbdata);
        if (ev->lcb)
            ev->lcb(PMIX_ERR_NOT_SUPPORTED, NULL, 0, ev->cbdata);
        ln_pmix_event_free(ev);
        return;
    }
    switch (ln_pmix_event_type(ev)) {
    case LN_EV_PUBLISH: publish(job, ev); break;
    case LN_EV_LOOKUP: lookup(ev); break;
    case LN_EV_UNPUBLISH: unpublish(ev); break;
    default: ln_pmix_event_done(ev); break;
    }
}

static int waits_on_proc(const struct waiting *w, const void *arg)
{
    return w->ev->rank == *(const int *)arg;
}

void ln_names_proc_gone(struct ln_job *job, int i)
{
    (void)job;
    for (struct name **l = &names; *l;)
        if ((*l)->owner_i == i && (*l)->persist == PMIX_PERSIST_PROC)
            drop(l);
        else
            l = &(*l)->next;
    end_waits(waits_on_proc, &i, PMIX_ERR_NOT_FOUND);
}

void ln_names_ns_gone(struct ln_job *job, int k)
{
    const char *ns = job->ns[k].name;

    for (struct name **l = &names; *l;)
        if ((*l)->persist == PMIX_PERSIST_APP && !strncmp((*l)->owner.nspace, ns, PMIX_MAX_NSLEN))
            drop(l);
        else
            l = &(*l)->next;
}

static int past(const struct waiting *w, const void *arg)
{
    return w->deadline && w->deadline <= *(const double *)arg;
}

double ln_names_timers(double now)
{
    double next = 0;

    end_waits(past, &now, PMIX_ERR_TIMEOUT);
    for (struct waiting *w = waits; w; w = w->next)
        if (w->deadline && (!next || w->deadline < next))
            next = w->deadline;
    return next;
}

static int any(const struct waiting *w, const void *arg)
{
    (void)w;
    (void)arg;
    return 1;
}

void ln_names_finalize(void)
{
    end_waits(any, NULL, PMIX_ERR_NOT_FOUND);
    while (names)
        drop(&names);
}
