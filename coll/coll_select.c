/* Forcing an algorithm: RDMPI_COLL_<NAME>_ALGORITHM names one of the
 * collective's algorithms (or auto); read once, checked against the list. */
#include "coll.h"
#include "param.h"

#include <stdio.h>
#include <string.h>

static int parse(const struct coll_choice *c)
{
    const char *v = rt_param_string(c->param);
    char names[256] = "auto";

    if (!v || !strcmp(v, "auto") || !*v)
        return -1;
    for (int i = 0; c->algos[i].name; i++) {
        if (!strcmp(v, c->algos[i].name))
            return i;
        snprintf(names + strlen(names), sizeof(names) - strlen(names), ", %s", c->algos[i].name);
    }
    rt_fatal("RDMPI_%s=%s is not an algorithm of this collective; choose one of: %s",
             c->param->name, v, names);
}

coll_build_fn coll_choose(struct coll_choice *c, const struct coll_sched *s,
                          const struct coll_args *a, int auto_idx)
{
    if (RT_UNLIKELY(c->forced == -2))
        c->forced = parse(c);
    if (c->forced >= 0) {
        const struct coll_algo *al = &c->algos[c->forced];
        if (!al->usable || al->usable(s, a))
            return al->build;
    }
    return c->algos[auto_idx].build;
}
