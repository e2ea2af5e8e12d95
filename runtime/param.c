#include "param.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static struct rt_param *params;

void rt_param_register(struct rt_param *p)
{
    p->next = params;
    params = p;
}

const struct rt_param *rt_param_list(void)
{
    return params;
}

const char *rt_param_text(const struct rt_param *p)
{
    char var[128];
    const char *v;

    snprintf(var, sizeof(var), "RDMPI_%s", p->name);
    v = getenv(var);
    return (v && *v) ? v : p->def;
}

static int parse_bool(const char *v, long long *out)
{
    static const char *const words[][4] = {{"0", "no", "false", "off"}, {"1", "yes", "true", "on"}};

    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 4; i++)
            if (!strcasecmp(v, words[b][i])) {
                *out = b;
                return 0;
            }
    if (strcasecmp(v, "auto"))
        return -1;
    *out = -1;
    return 0;
}

static int parse_size(const char *v, long long *out)
{
    char *end;
    unsigned long long n;

    errno = 0;
    n = strtoull(v, &end, 0);
    if (errno || end == v || *v == '-')
        return -1;
    switch (tolower((unsigned char)*end)) {
    case 'k':
        n <<= 10;
        end++;
        break;
    case 'm':
        n <<= 20;
        end++;
        break;
    case 'g':
        n <<= 30;
        end++;
        break;
    default: break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end || n > LLONG_MAX)
        return -1;
    *out = (long long)n;
    return 0;
}

int rt_param_parse(const struct rt_param *p, const char *v, long long *out)
{
    char *end;

    switch (p->type) {
    case RT_PARAM_INT:
        errno = 0;
        *out = strtol(v, &end, 0);
        return errno || end == v || *end ? -1 : 0;
    case RT_PARAM_BOOL: return parse_bool(v, out);
    case RT_PARAM_SIZE: return parse_size(v, out);
    case RT_PARAM_STRING: *out = 0; return 0;
    }
    return -1;
}

/* The current value of a numeric parameter; a malformed one is fatal. */
static long long value(const struct rt_param *p)
{
    static const char *const want[] = {"an integer", "a boolean (0/1, yes/no, on/off, auto)",
                                       "a size (like 4096, 64k, 1m)", "a string"};
    const char *v = rt_param_text(p);
    long long n;

    if (rt_param_parse(p, v, &n))
        rt_fatal("RDMPI_%s=%s is not %s; unset it or see `rdmpi_info` for its meaning", p->name, v,
                 want[p->type]);
    return n;
}

long rt_param_int(const struct rt_param *p)
{
    return (long)value(p);
}

int rt_param_bool(const struct rt_param *p)
{
    return (int)value(p);
}

size_t rt_param_size(const struct rt_param *p)
{
    return (size_t)value(p);
}

const char *rt_param_string(const struct rt_param *p)
{
    return rt_param_text(p);
}
