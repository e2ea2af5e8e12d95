#include "param.h"
#include "log.h"

#include <ctype.h>
#include <errno.h>
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

static const char *raw_value(const struct rt_param *p)
{
    char var[128];
    const char *v;

    snprintf(var, sizeof(var), "RDMPI_%s", p->name);
    v = getenv(var);
    return (v && *v) ? v : p->def;
}

static void bad_value(const struct rt_param *p, const char *v, const char *want)
{
    rt_fatal("RDMPI_%s=%s is not %s; unset it or see `rdmpi_info` for its meaning",
             p->name, v, want);
}

long rt_param_int(const struct rt_param *p)
{
    const char *v = raw_value(p);
    char *end;
    long n;

    errno = 0;
    n = strtol(v, &end, 0);
    if (errno || end == v || *end)
        bad_value(p, v, "an integer");
    return n;
}

int rt_param_bool(const struct rt_param *p)
{
    const char *v = raw_value(p);

    if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
        !strcasecmp(v, "on"))
        return 1;
    if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") ||
        !strcasecmp(v, "off"))
        return 0;
    if (!strcasecmp(v, "auto"))
        return -1;
    bad_value(p, v, "a boolean (0/1, yes/no, on/off, auto)");
    return 0;
}

size_t rt_param_size(const struct rt_param *p)
{
    const char *v = raw_value(p);
    char *end;
    unsigned long long n;

    errno = 0;
    n = strtoull(v, &end, 0);
    if (errno || end == v)
        bad_value(p, v, "a size");
    switch (tolower((unsigned char)*end)) {
    case 'k': n <<= 10; end++; break;
    case 'm': n <<= 20; end++; break;
    case 'g': n <<= 30; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end)
        bad_value(p, v, "a size (like 4096, 64k, 1m)");
    return (size_t)n;
}

const char *rt_param_string(const struct rt_param *p)
{
    return raw_value(p);
}

/* For the rdmpi_info tool: every tunable with its value and help. */
void rdmpi_info_params(FILE *out)
{
    static const char *types[] = {"int", "bool", "size", "string"};

    for (const struct rt_param *p = params; p; p = p->next) {
        char var[128];
        const char *v;

        snprintf(var, sizeof(var), "RDMPI_%s", p->name);
        v = getenv(var);
        fprintf(out, "%-28s %-6s default %-8s%s%s%s\n    %s\n", var, types[p->type], p->def,
                v ? " (set: " : "", v ? v : "", v ? ")" : "", p->help);
    }
}
