/*
 * hosts.c: which hosts a job runs on and which ranks go where.
 *
 * Hosts come from --host lists ("a,b", "a:4" for 4 slots) and from a
 * --hostfile in Open MPI's form ("a slots=4") or Hydra's ("a:4"), with
 * '#' comments.  A host named twice adds up its slots.  Placement:
 *   by slot (default)  fill each host's slots in order, then go round again;
 *   --map-by node      one rank per host in turn (skipping full hosts
 *                      while any has a free slot);
 *   -ppn N             N consecutive ranks per host (Hydra).
 * Without -n the job has as many ranks as slots (-ppn: N per host).  Ranks
 * beyond the slots are placed round again (a host takes more ranks than
 * slots, as one host always does).
 */
#include "launcher.h"
#include "mh.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int add_host(struct ln_hosts *h, const char *name, size_t len, int slots)
{
    struct ln_host *v;

    if (len == 0 || len > 255) {
        ln_err("bad host name '%.*s' (example: --host node1,node2:4)", (int)len, name);
        return -EINVAL;
    }
    for (int i = 0; i < h->n; i++)
        if (strlen(h->v[i].name) == len && !strncmp(h->v[i].name, name, len)) {
            h->v[i].slots += slots;
            return 0;
        }
    v = realloc(h->v, (size_t)(h->n + 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    h->v = v;
    v[h->n].name = strndup(name, len);
    if (!v[h->n].name)
        return -ENOMEM;
    v[h->n].slots = slots;
    h->n++;
    return 0;
}

static int parse_slots(const char *what, const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (end == s || (*end && !isspace((unsigned char)*end)) || v <= 0 || v > 65535) {
        ln_err("%s: slot count must be a positive integer, got '%s'", what, s);
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

/* "a,b:4,c" */
static int parse_list(struct ln_hosts *h, const char *list)
{
    const char *p = list;

    while (*p) {
        size_t len = strcspn(p, ",");
        const char *colon = memchr(p, ':', len);
        int slots = 1, rc;

        if (colon) {
            char num[16];

            snprintf(num, sizeof(num), "%.*s", (int)(len - (size_t)(colon - p) - 1), colon + 1);
            if ((rc = parse_slots("--host", num, &slots)))
                return rc;
        }
        if ((rc = add_host(h, p, colon ? (size_t)(colon - p) : len, slots)))
            return rc;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

static int parse_file(struct ln_hosts *h, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int lineno = 0, rc = 0;

    if (!f) {
        ln_err("cannot read hostfile %s: %s", path, strerror(errno));
        return -EINVAL;
    }
    while (!rc && fgets(line, sizeof(line), f)) {
        char *s = line, *name, *colon, *kv;
        int slots = 1;

        lineno++;
        s[strcspn(s, "#\n")] = 0;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            continue;
        name = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
        if (*s)
            *s++ = 0;
        if ((colon = strchr(name, ':'))) { /* Hydra: host:N */
            *colon = 0;
            rc = parse_slots(path, colon + 1, &slots);
        }
        /* Open MPI: host slots=N [max_slots=M] */
        if (!rc && (kv = strstr(s, "slots=")) && (kv == s || isspace((unsigned char)kv[-1])))
            rc = parse_slots(path, kv + 6, &slots);
        if (!rc)
            rc = add_host(h, name, strlen(name), slots);
        if (rc)
            ln_err("in hostfile %s, line %d", path, lineno);
    }
    fclose(f);
    if (!rc && h->n == 0) {
        ln_err("hostfile %s names no host", path);
        rc = -EINVAL;
    }
    return rc;
}

void ln_hosts_free(struct ln_hosts *h)
{
    for (int i = 0; i < h->n; i++)
        free(h->v[i].name);
    free(h->v);
    free(h->node_of);
    memset(h, 0, sizeof(*h));
}

int ln_hosts_parse(struct ln_opts *o, struct ln_hosts *h)
{
    int rc = 0;

    memset(h, 0, sizeof(*h));
    if (o->hostfile)
        rc = parse_file(h, o->hostfile);
    if (!rc && o->hosts)
        rc = parse_list(h, o->hosts);
    if (rc)
        return rc;
    return 0;
}

/* Fill h->node_of for o->np ranks (setting np when it was not given);
 * hosts that get no rank are dropped. */
int ln_hosts_map(struct ln_opts *o, struct ln_hosts *h)
{
    int total = 0, *used, k = 0;

    for (int i = 0; i < h->n; i++)
        total += h->v[i].slots;
    if (!o->np_given)
        o->np = o->ppn ? o->ppn * h->n : total;
    if (o->napps == 1)
        o->apps[0].np = o->np;
    h->node_of = calloc((size_t)o->np, sizeof(int));
    used = calloc((size_t)h->n, sizeof(int));
    if (!h->node_of || !used) {
        free(used);
        return -ENOMEM;
    }
    for (int r = 0; r < o->np; r++) {
        if (o->ppn) {
            k = (r / o->ppn) % h->n;
        } else if (o->map_by_node) {
            /* Next host with a free slot, or simply the next one once
             * every slot is taken. */
            int start = r ? (h->node_of[r - 1] + 1) % h->n : 0, tries = 0;

            k = start;
            while (r < total && used[k] >= h->v[k].slots && tries++ < h->n)
                k = (k + 1) % h->n;
        } else {
            /* Slots in order; past the last slot, round again. */
            int s = r % total;

            for (k = 0; s >= h->v[k].slots; k++)
                s -= h->v[k].slots;
        }
        h->node_of[r] = k;
        used[k]++;
    }
    /* Renumber the hosts that got ranks, in order. */
    int *newid = used, n = 0;

    for (int i = 0; i < h->n; i++)
        newid[i] = used[i] ? n++ : -1;
    for (int r = 0; r < o->np; r++)
        h->node_of[r] = newid[h->node_of[r]];
    for (int i = 0, j = 0; i < h->n; i++) {
        if (newid[i] < 0) {
            free(h->v[i].name);
            continue;
        }
        h->v[j++] = h->v[i];
    }
    h->n = n;
    free(used);
    return 0;
}

static int is_local(const char *name)
{
    char me[256] = "";

    gethostname(me, sizeof(me) - 1);
    return !strcmp(name, "localhost") || !strcmp(name, "127.0.0.1") || !strcmp(name, me);
}

int ln_hosts_all_local(const struct ln_hosts *h)
{
    for (int i = 0; i < h->n; i++)
        if (!is_local(h->v[i].name))
            return 0;
    return 1;
}
