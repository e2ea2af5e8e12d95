/* Error classes, codes and strings added by the application (MPI-4.1 9.5),
 * and their removal.  Values are handed out above MPI_ERR_LASTCODE in
 * increasing order and never reused, so MPI_LASTUSEDCODE only grows and a
 * stale code cannot come to mean something else. */
#include "errors.h"

#include <stdlib.h>
#include <string.h>

enum { UNUSED, USER_CLASS, USER_CODE };

struct ucode {
    int what;     /* UNUSED (never added, or removed), USER_CLASS, USER_CODE */
    int cls;      /* its class: itself for a class */
    int ncodes;   /* of a class: codes added to it and not removed */
    char *string; /* from MPI_Add_error_string, or NULL */
};

int rt_err_lastusedcode = MPI_ERR_LASTCODE;
static struct ucode *ucodes; /* by value - MPI_ERR_LASTCODE - 1 */
static int nucodes, capucodes;

static struct ucode *ucode_of(int code)
{
    int i = code - MPI_ERR_LASTCODE - 1;

    return i >= 0 && i < nucodes && ucodes[i].what != UNUSED ? &ucodes[i] : NULL;
}

int rt_err_user_class(int code)
{
    struct ucode *u = ucode_of(code);

    return u ? u->cls : -1;
}

const char *rt_err_user_string(int code)
{
    struct ucode *u = ucode_of(code);

    return !u ? NULL : u->string ? u->string : "";
}

/* A new value of kind `what`, or -1 if out of memory. */
static int add(int what, int cls)
{
    struct ucode *u;

    if (rt_err_lastusedcode == 0x7fffffff)
        return -1;
    if (nucodes == capucodes) {
        int cap = capucodes ? 2 * capucodes : 16;

        if (!(u = realloc(ucodes, (size_t)cap * sizeof(*u))))
            return -1;
        ucodes = u;
        capucodes = cap;
    }
    u = &ucodes[nucodes++];
    ++rt_err_lastusedcode;
    *u = (struct ucode){.what = what, .cls = what == USER_CLASS ? rt_err_lastusedcode : cls};
    return rt_err_lastusedcode;
}

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int *errorclass)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Add_error_class";
    int v;

    if (!errorclass)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "errorclass is NULL; pass the address of an int");
    if ((v = add(USER_CLASS, 0)) < 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn,
                              "no memory (or no value) left for another error class");
    *errorclass = v;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Add_error_code";
    struct ucode *u = ucode_of(errorclass);
    int v;

    if (errorclass == MPI_SUCCESS ||
        (u ? u->what != USER_CLASS : rt_err_class_of(errorclass) != errorclass))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "errorclass %d is not an error class; pass a predefined "
                              "class or one from MPI_Add_error_class",
                              errorclass);
    if (!errorcode)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "errorcode is NULL; pass the address of an int");
    if ((v = add(USER_CODE, errorclass)) < 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn,
                              "no memory (or no value) left for another error code");
    if ((u = ucode_of(errorclass))) /* re-read: add() moved the table */
        u->ncodes++;
    *errorcode = v;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char *string)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Add_error_string";
    struct ucode *u = ucode_of(errorcode);
    char *copy;

    if (!u)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "errorcode %d was not added by MPI_Add_error_class or "
                              "MPI_Add_error_code (predefined strings cannot be changed)",
                              errorcode);
    if (!string)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "string is NULL");
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "string is %zu characters; at most MPI_MAX_ERROR_STRING - 1 "
                              "(%d) fit",
                              strlen(string), MPI_MAX_ERROR_STRING - 1);
    if (!(copy = strdup(string)))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "out of memory");
    free(u->string);
    u->string = copy;
    return MPI_SUCCESS;
}

#pragma weak MPI_Remove_error_string = PMPI_Remove_error_string
int PMPI_Remove_error_string(int errorcode)
{
    RT_API_ENTER();
    struct ucode *u = ucode_of(errorcode);

    if (!u || !u->string)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, "MPI_Remove_error_string",
                              "errorcode %d has no string added by MPI_Add_error_string",
                              errorcode);
    free(u->string);
    u->string = NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Remove_error_code = PMPI_Remove_error_code
int PMPI_Remove_error_code(int errorcode)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Remove_error_code";
    struct ucode *u = ucode_of(errorcode), *c;

    if (!u || u->what != USER_CODE)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "errorcode %d was not added by MPI_Add_error_code", errorcode);
    if (u->string)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "errorcode %d still has a string; call "
                              "MPI_Remove_error_string first",
                              errorcode);
    if ((c = ucode_of(u->cls)))
        c->ncodes--;
    u->what = UNUSED;
    return MPI_SUCCESS;
}

#pragma weak MPI_Remove_error_class = PMPI_Remove_error_class
int PMPI_Remove_error_class(int errorclass)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Remove_error_class";
    struct ucode *u = ucode_of(errorclass);

    if (!u || u->what != USER_CLASS)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "errorclass %d was not added by MPI_Add_error_class", errorclass);
    if (u->ncodes)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "errorclass %d still has %d error code%s; remove them with "
                              "MPI_Remove_error_code first",
                              errorclass, u->ncodes, u->ncodes == 1 ? "" : "s");
    if (u->string)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "errorclass %d still has a string; call "
                              "MPI_Remove_error_string first",
                              errorclass);
    u->what = UNUSED;
    return MPI_SUCCESS;
}
