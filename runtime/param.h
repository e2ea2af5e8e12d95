/* Tunables: each declared once next to its code, read from RDMPI_<NAME>. */
#ifndef RT_PARAM_H
#define RT_PARAM_H

#include <stddef.h>
#include <stdio.h>

enum rt_param_type { RT_PARAM_INT, RT_PARAM_BOOL, RT_PARAM_SIZE, RT_PARAM_STRING };

struct rt_param {
    const char *name; /* upper case, without the RDMPI_ prefix */
    enum rt_param_type type;
    const char *def; /* default, as text */
    const char *help;
    struct rt_param *next;
};

/* Declares a parameter at file scope and registers it before main() runs,
 * so `rdmpi_info` lists every tunable without a central table. */
#define RT_PARAM(var, nm, ty, dflt, hlp)                                                           \
    static struct rt_param var = {.name = nm, .type = ty, .def = dflt, .help = hlp};               \
    __attribute__((constructor)) static void var##_register(void)                                  \
    {                                                                                              \
        rt_param_register(&var);                                                                   \
    }

void rt_param_register(struct rt_param *p);
const struct rt_param *rt_param_list(void);

/* Values: the environment wins, else the default. A malformed value is a
 * fatal error naming the variable (silently using a default hides typos). */
long rt_param_int(const struct rt_param *p);
int rt_param_bool(const struct rt_param *p);
size_t rt_param_size(const struct rt_param *p); /* accepts 4k, 64K, 1m, 2G */
const char *rt_param_string(const struct rt_param *p);

/* For MPI_T (mpit_cvar.c): the value as text (environment or default), and
 * a check that text is a valid value for p: 0 with the number in *out
 * (bool: 1, 0, or -1 for auto; string: 0), -1 if malformed. */
const char *rt_param_text(const struct rt_param *p);
int rt_param_parse(const struct rt_param *p, const char *text, long long *out);

#endif
