/* The BTL registry: the compiled-in transports, RDMPI_BTL filtering, and the
 * receive-callback table the pml fills. */
#include "config.h"

#include "btl.h"
#include "btl_test.h"
#include "log.h"
#include "ofi/btl_ofi.h"
#include "param.h"
#include "rt.h"
#include "self/btl_self.h"
#include "sm/btl_sm.h"

#include <stdlib.h>
#include <string.h>

RT_PARAM(p_btl, "BTL", RT_PARAM_STRING, "",
         "Transports to use, as a comma list (self,sm,ofi) or ^list to exclude "
         "some; empty: all. Each peer is reached by the highest-exclusivity one")

btl_recv_fn btl_recv_table[BTL_MAX_TAGS];

static struct btl_module *const compiled[] = {&btl_self_module, &btl_sm_module, &btl_ofi_module};
#define NCOMPILED (int)(sizeof(compiled) / sizeof(compiled[0]))

static struct btl_module *chosen[NCOMPILED];

/* A test's own BTL (btl_test.h), opened instead of the compiled-in ones. */
static struct btl_module *test_btl;

void btl_test_install(struct btl_module *m)
{
    test_btl = m;
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

int btl_open_all(struct btl_module ***mods, int *n)
{
    const char *list = rt_param_string(&p_btl);
    int count = 0;

    for (int t = 0; t < BTL_MAX_TAGS; t++)
        if (!btl_recv_table[t])
            btl_recv_table[t] = unknown_type;
    if (test_btl) {
        rt_info(2, "btl: %s installed by the test, the only BTL opened", test_btl->name);
        chosen[0] = test_btl;
        *mods = chosen;
        *n = 1;
        return 0;
    }

    for (int i = 0; i < NCOMPILED; i++) {
        struct btl_module *m = compiled[i];
        int pos;

        if (!btl_enabled(m->name))
            continue;
        /* A network transport costs start-up time and a poll per progress
         * call; with every rank on this host and no list given it would
         * win no peer, so it is not opened. */
        if (!list[0] && (m->flags & BTL_CAP_OFFHOST) && rt.local_size == rt.size)
            continue;
        /* Insertion by exclusivity, highest first: the pml takes the first
         * BTL that reaches each peer. */
        for (pos = count; pos > 0 && chosen[pos - 1]->exclusivity < m->exclusivity; pos--)
            chosen[pos] = chosen[pos - 1];
        chosen[pos] = m;
        count++;
    }
    for (int i = 0; i < count; i++)
        rt_info(2, "btl: %s opened (exclusivity %d)", chosen[i]->name, chosen[i]->exclusivity);
    *mods = chosen;
    *n = count;
    return 0;
}
