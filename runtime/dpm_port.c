/*
 * Ports (MPI-4.1 11.4.2): MPI_Open_port and MPI_Close_port.
 *
 * A port name says who listens and how to reach its launcher, so that
 * MPI_Comm_connect can find the accepting side from another job, handed
 * over by file or command line:
 *
 *     rdmpi-port:1:NAMESPACE:RANK:TAG:HOST:SERVER
 *
 * 1 is the format's version; NAMESPACE and RANK the opening process's
 * PMIx identity; TAG a number this process never hands out twice, so that
 * each open port is told apart; HOST its host name; SERVER the rest of the
 * string, the PMIx server URI its launcher gave it (PMIX_SERVER_URI*), ""
 * without one.  No field but SERVER holds a ':' (a namespace or host name
 * that does is refused).  The name is shorter than MPI_MAX_PORT_NAME
 * (docs/dynamic.md).  Opening a port reserves nothing yet: accept and
 * connect, which wait for the peer tables that grow, will.
 */
#include "errors.h"
#include "info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PORT_PREFIX "rdmpi-port:1:"

/* The tags of the ports open in this process. */
static unsigned long *open_tags;
static size_t nopen, cap;
static unsigned long next_tag = 1;

/* The launcher's address, newest PMIx form first. */
static const char *server_uri(void)
{
    static const char *const vars[] = {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3",
                                       "PMIX_SERVER_URI21", "PMIX_SERVER_URI2"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (getenv(vars[i]))
            return getenv(vars[i]);
    return "";
}

#pragma weak MPI_Open_port = PMPI_Open_port
int PMPI_Open_port(MPI_Info info, char *port_name)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Open_port";
    int n;

    RT_CHECK_INIT(fn);
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO, fn,
                              "info is not a valid info object (MPI_INFO_NULL or one from "
                              "MPI_Info_create)");
    if (!port_name)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "port_name is NULL; pass a buffer of MPI_MAX_PORT_NAME characters");
    if (strchr(rt.nspace, ':') || strchr(rt.hostname, ':'))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_OTHER, fn,
                              "the namespace '%s' or host name '%s' holds a ':', which a port "
                              "name cannot carry",
                              rt.nspace, rt.hostname);
    if (nopen == cap) {
        size_t c = cap ? 2 * cap : 8;
        unsigned long *t = realloc(open_tags, c * sizeof(*t));

        if (!t)
            return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, fn, "out of memory");
        open_tags = t;
        cap = c;
    }
    n = snprintf(port_name, MPI_MAX_PORT_NAME, PORT_PREFIX "%s:%d:%lu:%s:%s", rt.nspace, rt.rank,
                 next_tag, rt.hostname, server_uri());
    if (n < 0 || n >= MPI_MAX_PORT_NAME) {
        port_name[0] = 0;
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_OTHER, fn,
                              "the port name would be %d characters, more than MPI_MAX_PORT_NAME "
                              "(%d) allows (a very long PMIx server URI?)",
                              n, MPI_MAX_PORT_NAME - 1);
    }
    open_tags[nopen++] = next_tag++;
    return MPI_SUCCESS;
}

/* The tag of port_name if this process opened it, else 0. */
static unsigned long own_tag(const char *port_name)
{
    char mine[sizeof(PORT_PREFIX) + 300];
    unsigned long tag;
    size_t len;
    char *end;

    len = (size_t)snprintf(mine, sizeof(mine), PORT_PREFIX "%s:%d:", rt.nspace, rt.rank);
    if (strncmp(port_name, mine, len))
        return 0;
    tag = strtoul(port_name + len, &end, 10);
    return *end == ':' ? tag : 0;
}

#pragma weak MPI_Close_port = PMPI_Close_port
int PMPI_Close_port(const char *port_name)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Close_port";
    unsigned long tag;

    RT_CHECK_INIT(fn);
    if (!port_name)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_PORT, fn,
                              "port_name is NULL; pass the name MPI_Open_port gave");
    tag = own_tag(port_name);
    for (size_t i = 0; tag && i < nopen; i++)
        if (open_tags[i] == tag) {
            open_tags[i] = open_tags[--nopen];
            return MPI_SUCCESS;
        }
    return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_PORT, fn,
                          "'%.200s' is not a port this process has open (closed already, or "
                          "opened by another process)",
                          port_name);
}
