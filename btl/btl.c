/* The BTL registry: the compiled-in components, RDMPI_BTL filtering, the
 * interface checks on what they open, and the receive-callback table the
 * pml fills. */
#include "config.h"

#include "btl.h"
#include "btl_test.h"
#include "log.h"
#include "ofi/btl_ofi.h"
#include "param.h"
#include "rt.h"
#include "self/btl_self.h"
#include "sm/btl_sm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

RT_PARAM(p_btl, "BTL", RT_PARAM_STRING, "",
         "Transports to use, as a comma list (self,sm,ofi) or ^list to exclude "
         "some; empty: all. Each peer is reached by the highest-exclusivity one")

btl_recv_fn btl_recv_table[BTL_MAX_TAGS];

static struct btl_component *const compiled[] = {&btl_self_component, &btl_sm_component,
                                                 &btl_ofi_component};
#define NCOMPILED (int)(sizeof(compiled) / sizeof(compiled[0]))

static struct btl_module *chosen[BTL_MAX_MODULES];
static struct btl_component *opened[NCOMPILED];
static int nopened;

/* A test's own BTL (btl_test.h), opened instead of the compiled-in ones. */
static struct btl_component *test_btl;

void btl_test_install(struct btl_component *c)
{
    test_btl = c;
}

int btl_error(struct btl_module *btl, int peer, int err, const char *fmt, ...)
{
    char what[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (!btl->error)
        rt_fatal("%s", what); /* opened without btl_open_all: nobody to decide */
    btl->error(btl, peer, err, what);
    return err;
}

/* A header type nobody registered means the peers disagree on the
 * protocol; carrying on would misread the stream. */
static void unknown_type(int peer, const void *data, size_t len)
{
    rt_fatal("a message of unknown header type %u (%zu bytes) arrived from rank %d; "
             "every rank must run the same rdmpi build",
             *(const uint8_t *)data, len, peer);
}

static int known(const char *name)
{
    for (int i = 0; i < NCOMPILED; i++)
        if (!strcmp(compiled[i]->name, name))
            return 1;
    return 0;
}

static _Noreturn void bad_list(const char *list, const char *why, const char *name)
{
    char names[128] = "";

    for (int i = 0; i < NCOMPILED; i++) {
        strcat(names, i ? "," : "");
        strcat(names, compiled[i]->name);
    }
    rt_fatal("RDMPI_BTL=%s: %s%s; give a comma list of the BTLs to use, or ^ and a list of "
             "those to leave out; this build has %s",
             list, why, name, names);
}

/* Open MPI's names for what our BTLs do, so its job scripts' --mca btl
 * lists work: vader is its shared-memory BTL (sm since Open MPI 5), and
 * tcp, openib, uct and usnic its network ones, all of which ofi covers. */
static const char *canonical(const char *name)
{
    static const char *const net[] = {"tcp", "openib", "uct", "usnic"};

    if (!strcmp(name, "vader"))
        return "sm";
    for (size_t i = 0; i < sizeof(net) / sizeof(net[0]); i++)
        if (!strcmp(name, net[i]))
            return "ofi";
    return name;
}

/* Is `name` in the comma list (RDMPI_BTL is `full`, `^` included)? The
 * list's names are checked first, so a typo is an error rather than a
 * silently unused transport. Leaving out a network BTL by Open MPI's name
 * (the common "^openib") leaves out nothing: ofi stands for all of them. */
static int listed(const char *full, const char *list, int exclude, const char *name)
{
    char *copy = strdup(list), *save = NULL, *tok;
    int found = 0;

    if (!copy)
        rt_fatal("out of memory reading RDMPI_BTL");
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const char *c = canonical(tok);

        if (*tok == '^')
            bad_list(full, "^ may only prefix the whole list: ", tok);
        if (exclude && c != tok && strcmp(c, "sm")) {
            if (!strcmp(name, compiled[0]->name))
                rt_info(1, "btl: RDMPI_BTL=%s: %s is Open MPI's; ofi stays open", full, tok);
            continue;
        }
        if (!known(c))
            bad_list(full, "unknown BTL ", tok);
        found |= !strcmp(c, name);
    }
    free(copy);
    return found;
}

int btl_enabled(const char *name)
{
    const char *list = rt_param_string(&p_btl);
    int exclude = list[0] == '^';

    return !list[0] || listed(list, list + exclude, exclude, name) != exclude;
}

/* A component or module built against another btl.h would be misread
 * field by field: refused, naming both builds' figures. */
static int iface_ok(const char *what, const char *name, size_t size, size_t want, uint32_t version)
{
    if (size == want && version == BTL_IFACE_VERSION)
        return 1;
    rt_warn("btl_open_all: %s %s has BTL interface version %u and %zu bytes, this build "
            "version %u and %zu bytes; it is left out: rebuild it against this btl/btl.h",
            what, name ? name : "(unnamed)", version, size, BTL_IFACE_VERSION, want);
    return 0;
}

/* Modules go in by exclusivity, highest first, then by latency, lowest
 * first: the pml lists them per peer in this order and takes the first. */
static int before(const struct btl_module *a, const struct btl_module *b)
{
    return a->exclusivity != b->exclusivity ? a->exclusivity > b->exclusivity
                                            : a->latency_ns < b->latency_ns;
}

static void insert(struct btl_module *m, int *count, btl_error_fn error)
{
    int pos;

    if (!iface_ok("module", m->name, m->size, sizeof(struct btl_module), m->version))
        return;
    if (*count == BTL_MAX_MODULES) {
        rt_warn("btl_open_all: more than %d BTL modules; %s is left out", BTL_MAX_MODULES, m->name);
        return;
    }
    m->error = error;
    for (pos = *count; pos > 0 && before(m, chosen[pos - 1]); pos--)
        chosen[pos] = chosen[pos - 1];
    chosen[pos] = m;
    ++*count;
}

static int open_one(struct btl_component *c, int *count, btl_error_fn error)
{
    struct btl_module *mods[BTL_MAX_MODULES];
    int n;

    if (!iface_ok("component", c->name, c->size, sizeof(struct btl_component), c->version))
        return 0;
    if ((n = c->open(c, mods, BTL_MAX_MODULES - *count)) < 0)
        return n;
    opened[nopened++] = c;
    for (int i = 0; i < n; i++)
        insert(mods[i], count, error);
    return 0;
}

int btl_open_all(struct btl_module ***mods, int *n, btl_error_fn error)
{
    const char *list = rt_param_string(&p_btl);
    int count = 0, rc;

    for (int t = 0; t < BTL_MAX_TAGS; t++)
        if (!btl_recv_table[t])
            btl_recv_table[t] = unknown_type;
    nopened = 0;
    if (test_btl) {
        rt_info(2, "btl: %s installed by the test, the only BTL opened", test_btl->name);
        if ((rc = open_one(test_btl, &count, error)))
            return rc;
    }
    for (int i = 0; !test_btl && i < NCOMPILED; i++) {
        struct btl_component *c = compiled[i];

        if (!btl_enabled(c->name))
            continue;
        /* A network transport costs start-up time and a poll per progress
         * call; with every rank on this host and no list given it would
         * win no peer, so it is not opened. */
        if (!list[0] && (c->flags & BTL_CAP_OFFHOST) && rt.local_size == rt.size)
            continue;
        if ((rc = open_one(c, &count, error)))
            return rc;
    }
    for (int i = 0; i < count; i++)
        rt_info(2, "btl: %s opened (exclusivity %d)", chosen[i]->name, chosen[i]->exclusivity);
    *mods = chosen;
    *n = count;
    return 0;
}

void btl_close_all(void)
{
    while (nopened > 0) {
        struct btl_component *c = opened[--nopened];

        if (c->close)
            c->close(c);
    }
}
