/* MPI_Info: create, set, get, delete, dup, free (MPI-4.1 ch. 10).  The
 * standard lets info functions run before MPI_Init, so none checks it.
 * Keys and values must fit, with their NUL, in MPI_MAX_INFO_KEY and
 * MPI_MAX_INFO_VAL chars, so buffers of those sizes always suffice. */
#include "info.h"

#include "errors.h"
#include "obj.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rdmpi_info info_env = {.obj = {RT_KIND_INFO, 1}, .readonly = 1};
static int info_env_filled; /* 1: before MPI_Init, 2: after */

struct rdmpi_info *rt_info_get(MPI_Info h)
{
    struct rdmpi_info *i = (struct rdmpi_info *)h;

    if ((uintptr_t)h < RDMPI_PREDEF_LIMIT) {
        if (h != MPI_INFO_ENV)
            return NULL;
        /* Filled once the runtime knows the job (a use before MPI_Init
         * fills it with what is known then). */
        if (info_env_filled < 1 + rt.up) {
            for (int k = 0; k < info_env.n; k++) {
                free(info_env.e[k].key);
                free(info_env.e[k].value);
            }
            info_env.n = 0;
            rt_info_env_fill(&info_env, 0, NULL);
            info_env_filled = 1 + rt.up;
        }
        return &info_env;
    }
    return i->obj.kind == RT_KIND_INFO ? i : NULL;
}

static int find(const struct rdmpi_info *info, const char *key)
{
    for (int k = 0; k < info->n; k++)
        if (!strcmp(info->e[k].key, key))
            return k;
    return -1;
}

int rt_info_put(struct rdmpi_info *info, const char *key, const char *value)
{
    int k = find(info, key);
    char *v = strdup(value), *kc = NULL;

    if (!v)
        return MPI_ERR_NO_MEM;
    if (k >= 0) {
        free(info->e[k].value);
        info->e[k].value = v;
        return MPI_SUCCESS;
    }
    if (info->n == info->cap) {
        int cap = info->cap ? 2 * info->cap : 8;
        struct rt_info_entry *e = realloc(info->e, (size_t)cap * sizeof(*e));

        if (!e)
            goto fail;
        info->e = e;
        info->cap = cap;
    }
    if (!(kc = strdup(key)))
        goto fail;
    info->e[info->n].key = kc;
    info->e[info->n++].value = v;
    return MPI_SUCCESS;
fail:
    free(v);
    return MPI_ERR_NO_MEM;
}

/* ---- argument checks: each raises on MPI_COMM_SELF and returns the code ---- */

static struct rdmpi_info *check_info(MPI_Info h, const char *fn, int *err)
{
    struct rdmpi_info *i = rt_info_get(h);

    if (!i)
        *err = rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO, fn, "%s",
                              h == MPI_INFO_NULL ? "info is MPI_INFO_NULL; create one with "
                                                   "MPI_Info_create"
                                                 : "info is not a valid info object (freed?)");
    return i;
}

static int check_key(const char *key, const char *fn)
{
    size_t n;

    if (!key)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO_KEY, fn, "key is NULL");
    if (!(n = strlen(key)))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO_KEY, fn, "key is empty");
    if (n >= MPI_MAX_INFO_KEY)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO_KEY, fn,
                              "key is %zu chars long; keys are at most MPI_MAX_INFO_KEY - 1 "
                              "(%d)",
                              n, MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

static int check_writable(struct rdmpi_info *i, const char *fn)
{
    if (i->readonly)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO, fn,
                              "MPI_INFO_ENV is predefined and read-only; MPI_Info_dup it "
                              "and change the copy");
    return MPI_SUCCESS;
}

/* ---- API ---- */

#pragma weak MPI_Info_create = PMPI_Info_create
int PMPI_Info_create(MPI_Info *info)
{
    RT_API_ENTER();
    struct rdmpi_info *i;

    if (!info)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Info_create",
                              "info is NULL; pass the address of an MPI_Info");
    if (!(i = rt_obj_new(RT_KIND_INFO, sizeof(*i))))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, "MPI_Info_create", "out of memory");
    *info = (MPI_Info)i;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_set = PMPI_Info_set
int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Info_set";
    struct rdmpi_info *i;
    int rc;

    if (!(i = check_info(info, fn, &rc)) || (rc = check_writable(i, fn)) ||
        (rc = check_key(key, fn)))
        return rc;
    if (!value)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO_VALUE, fn, "value is NULL");
    if (strlen(value) >= MPI_MAX_INFO_VAL)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO_VALUE, fn,
                              "value is %zu chars long; values are at most "
                              "MPI_MAX_INFO_VAL - 1 (%d)",
                              strlen(value), MPI_MAX_INFO_VAL - 1);
    if (rt_info_put(i, key, value))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "out of memory");
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_delete = PMPI_Info_delete
int PMPI_Info_delete(MPI_Info info, const char *key)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Info_delete";
    struct rdmpi_info *i;
    int rc, k;

    if (!(i = check_info(info, fn, &rc)) || (rc = check_writable(i, fn)) ||
        (rc = check_key(key, fn)))
        return rc;
    if ((k = find(i, key)) < 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO_NOKEY, fn,
                              "key \"%s\" is not set in info", key);
    free(i->e[k].key);
    free(i->e[k].value);
    /* Keep the order of the remaining keys. */
    memmove(&i->e[k], &i->e[k + 1], (size_t)(i->n - k - 1) * sizeof(i->e[0]));
    i->n--;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get = PMPI_Info_get
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Info_get";
    struct rdmpi_info *i;
    int rc, k;

    if (!(i = check_info(info, fn, &rc)) || (rc = check_key(key, fn)))
        return rc;
    if (valuelen < 0 || !value || !flag)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "%s",
                              valuelen < 0 ? "valuelen is negative"
                              : value      ? "flag is NULL; pass the address of an int"
                                           : "value is NULL; pass a buffer of valuelen + 1 "
                                             "chars");
    if (!(*flag = (k = find(i, key)) >= 0))
        return MPI_SUCCESS;
    /* valuelen chars and a NUL, as the standard has it. */
    snprintf(value, (size_t)valuelen + 1, "%s", i->e[k].value);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_string = PMPI_Info_get_string
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Info_get_string";
    struct rdmpi_info *i;
    int rc, k;

    if (!(i = check_info(info, fn, &rc)) || (rc = check_key(key, fn)))
        return rc;
    if (!buflen || *buflen < 0 || !flag || (*buflen > 0 && !value))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "%s",
                              !buflen       ? "buflen is NULL; pass the address of an int"
                              : *buflen < 0 ? "*buflen is negative"
                              : !flag       ? "flag is NULL; pass the address of an int"
                                            : "value is NULL but *buflen is not 0");
    if (!(*flag = (k = find(i, key)) >= 0))
        return MPI_SUCCESS;
    /* Truncated to the buffer; *buflen then says what the whole needs. */
    if (*buflen > 0)
        snprintf(value, (size_t)*buflen, "%s", i->e[k].value);
    *buflen = (int)strlen(i->e[k].value) + 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Info_get_valuelen";
    struct rdmpi_info *i;
    int rc, k;

    if (!(i = check_info(info, fn, &rc)) || (rc = check_key(key, fn)))
        return rc;
    if (!valuelen || !flag)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "%s is NULL; pass the address of an int",
                              valuelen ? "flag" : "valuelen");
    if ((*flag = (k = find(i, key)) >= 0))
        *valuelen = (int)strlen(i->e[k].value);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    RT_API_ENTER();
    struct rdmpi_info *i;
    int rc;

    if (!(i = check_info(info, "MPI_Info_get_nkeys", &rc)))
        return rc;
    if (!nkeys)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Info_get_nkeys",
                              "nkeys is NULL; pass the address of an int");
    *nkeys = i->n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Info_get_nthkey";
    struct rdmpi_info *i;
    int rc;

    if (!(i = check_info(info, fn, &rc)))
        return rc;
    if (n < 0 || n >= i->n)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "n is %d; info has %d key%s, numbered from 0", n, i->n,
                              i->n == 1 ? "" : "s");
    if (!key)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "key is NULL; pass a buffer of MPI_MAX_INFO_KEY chars");
    strcpy(key, i->e[n].key);
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_dup = PMPI_Info_dup
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Info_dup";
    struct rdmpi_info *i, *d;
    MPI_Info h;
    int rc;

    if (!(i = check_info(info, fn, &rc)))
        return rc;
    if ((rc = PMPI_Info_create(newinfo)))
        return rc;
    h = *newinfo;
    d = (struct rdmpi_info *)h;
    for (int k = 0; k < i->n; k++)
        if (rt_info_put(d, i->e[k].key, i->e[k].value)) {
            PMPI_Info_free(newinfo);
            return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "out of memory");
        }
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_free = PMPI_Info_free
int PMPI_Info_free(MPI_Info *info)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Info_free";
    struct rdmpi_info *i;
    int rc;

    if (!info)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "info is NULL; pass the address of an MPI_Info");
    if (!(i = check_info(*info, fn, &rc)) || (rc = check_writable(i, fn)))
        return rc;
    for (int k = 0; k < i->n; k++) {
        free(i->e[k].key);
        free(i->e[k].value);
    }
    free(i->e);
    rt_obj_delete(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Info_create_env = PMPI_Info_create_env
int PMPI_Info_create_env(int argc, char **argv, MPI_Info *info)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Info_create_env";
    int rc;

    if (argc < 0 || (argc > 0 && !argv))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "argc is %d and argv %s; pass main's argc and argv, or 0 and "
                              "NULL",
                              argc, argv ? "is set" : "is NULL");
    if ((rc = PMPI_Info_create(info)))
        return rc;
    if (rt_info_env_fill((struct rdmpi_info *)*info, argc, argv)) {
        PMPI_Info_free(info);
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "out of memory");
    }
    return MPI_SUCCESS;
}
