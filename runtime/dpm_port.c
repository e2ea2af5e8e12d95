/*
 * Ports (MPI-4.1 11.4.2): MPI_Open_port and MPI_Close_port.
 *
 * A port name says who listens and how to reach it, so that
 * MPI_Comm_connect can find the accepting side from another job, handed
 * over by file or command line:
 *
 *     rdmpi-port:2:NAMESPACE:RANK:TAG:HOST:ADDRS:TCP:SERVER
 *
 * 2 is the format's version; NAMESPACE and RANK the opening process's
 * PMIx identity; TAG a number this process never hands out twice, so that
 * each open port is told apart; HOST its host name; ADDRS its IPv4
 * addresses, comma-separated (loopback last), and TCP the port of the
 * socket it listens on for connecting roots (dpm_conn.c); SERVER the rest
 * of the string, the PMIx server URI its launcher gave it
 * (PMIX_SERVER_URI*), "" without one, for people reading it.  No field but
 * SERVER holds a ':' (a namespace or host name that does is refused).  The
 * name is shorter than MPI_MAX_PORT_NAME (docs/dynamic.md).
 */
#include "dpm.h"
#include "errors.h"
#include "info.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PORT_PREFIX "rdmpi-port:2:"

/* The ports open in this process. */
static struct rt_port *open_ports;
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

/* This host's IPv4 addresses, loopback last: where connecting roots may
 * reach the socket (a connector on another host, or in another network
 * namespace, takes the first that answers). */
static void addresses(char *buf, size_t len)
{
    struct ifaddrs *ifs, *i;
    size_t n = 0;

    buf[0] = 0;
    if (getifaddrs(&ifs) == 0) {
        for (int lo = 0; lo < 2; lo++)
            for (i = ifs; i; i = i->ifa_next) {
                char a[INET_ADDRSTRLEN];
                const struct sockaddr_in *sin = (const struct sockaddr_in *)i->ifa_addr;

                if (!sin || sin->sin_family != AF_INET ||
                    (ntohl(sin->sin_addr.s_addr) >> 24 == 127) != lo ||
                    !inet_ntop(AF_INET, &sin->sin_addr, a, sizeof(a)) || n + strlen(a) + 2 > len)
                    continue;
                n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", a);
            }
        freeifaddrs(ifs);
    }
    if (!n)
        snprintf(buf, len, "127.0.0.1");
}

/* A socket listening on every address, on a port the kernel picks. */
static int listen_any(int *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t sl = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 16) ||
        getsockname(fd, (struct sockaddr *)&sa, &sl)) {
        close(fd);
        return -1;
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

int rt_port_open(char *port_name, const char **why)
{
    char addrs[512];
    int n, fd, tcp;

    if (strchr(rt.nspace, ':') || strchr(rt.hostname, ':')) {
        *why = "the namespace or host name holds a ':', which a port name cannot carry";
        return MPI_ERR_OTHER;
    }
    if (nopen == cap) {
        size_t c = cap ? 2 * cap : 8;
        struct rt_port *t = realloc(open_ports, c * sizeof(*t));

        if (!t) {
            *why = "out of memory";
            return MPI_ERR_NO_MEM;
        }
        open_ports = t;
        cap = c;
    }
    addresses(addrs, sizeof(addrs));
    if ((fd = listen_any(&tcp)) < 0) {
        *why = "no TCP socket to listen on for connecting processes";
        return MPI_ERR_OTHER;
    }
    n = snprintf(port_name, MPI_MAX_PORT_NAME, PORT_PREFIX "%s:%d:%lu:%s:%s:%d:%s", rt.nspace,
                 rt.rank, next_tag, rt.hostname, addrs, tcp, server_uri());
    if (n < 0 || n >= MPI_MAX_PORT_NAME) {
        port_name[0] = 0;
        close(fd);
        *why = "the port name would be longer than MPI_MAX_PORT_NAME allows (a very long PMIx "
               "server URI, or many addresses?)";
        return MPI_ERR_OTHER;
    }
    open_ports[nopen++] = (struct rt_port){next_tag++, fd};
    return MPI_SUCCESS;
}

#pragma weak MPI_Open_port = PMPI_Open_port
int PMPI_Open_port(MPI_Info info, char *port_name)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Open_port";
    const char *why;
    int err;

    RT_CHECK_INIT(fn);
    if (info != MPI_INFO_NULL && !rt_info_get(info))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_INFO, fn,
                              "info is not a valid info object (MPI_INFO_NULL or one from "
                              "MPI_Info_create)");
    if (!port_name)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "port_name is NULL; pass a buffer of MPI_MAX_PORT_NAME characters");
    if ((err = rt_port_open(port_name, &why)))
        return rdmpi_err_comm(MPI_COMM_SELF, err, fn, "%s (namespace '%s', host '%s')", why,
                              rt.nspace, rt.hostname);
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

struct rt_port *rt_port_find(const char *port_name)
{
    unsigned long tag = port_name ? own_tag(port_name) : 0;

    for (size_t i = 0; tag && i < nopen; i++)
        if (open_ports[i].tag == tag)
            return &open_ports[i];
    return NULL;
}

int rt_port_close(const char *port_name)
{
    struct rt_port *p = rt_port_find(port_name);

    if (!p)
        return MPI_ERR_PORT;
    close(p->fd);
    *p = open_ports[--nopen];
    return MPI_SUCCESS;
}

void rt_port_close_all(void)
{
    while (nopen)
        close(open_ports[--nopen].fd);
    free(open_ports);
    open_ports = NULL;
    cap = 0;
}

/* Field k (0: the version) of a port name, into buf; 0, or -1. */
static int field(const char *name, int k, char *buf, size_t len)
{
    const char *p = name + strlen("rdmpi-port:");
    size_t n;

    for (; k > 0; k--)
        if (!(p = strchr(p, ':')))
            return -1;
        else
            p++;
    n = strcspn(p, ":");
    if (n >= len || !p[n])
        return -1;
    memcpy(buf, p, n);
    buf[n] = 0;
    return 0;
}

int rt_port_dial(const char *name, char *why, size_t why_len)
{
    char addrs[512], tcp[16], *save = NULL;
    int port;

    if (strncmp(name, PORT_PREFIX, strlen(PORT_PREFIX)) || field(name, 5, addrs, sizeof(addrs)) ||
        field(name, 6, tcp, sizeof(tcp)) || (port = atoi(tcp)) <= 0 || port > 65535) {
        snprintf(why, why_len,
                 "'%.200s' is not a port name of this rdmpi (MPI_Open_port's, format %s...)", name,
                 PORT_PREFIX);
        return -1;
    }
    for (char *a = strtok_r(addrs, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        int fd;

        if (inet_pton(AF_INET, a, &sa.sin_addr) != 1)
            continue;
        if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
            break;
        if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
            return fd;
        close(fd);
    }
    snprintf(why, why_len,
             "nothing listens on port '%.200s' at any of its addresses (closed already, or "
             "its process is gone)",
             name);
    return -1;
}

#pragma weak MPI_Close_port = PMPI_Close_port
int PMPI_Close_port(const char *port_name)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Close_port";

    RT_CHECK_INIT(fn);
    if (!port_name)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_PORT, fn,
                              "port_name is NULL; pass the name MPI_Open_port gave");
    if (rt_port_close(port_name))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_PORT, fn,
                              "'%.200s' is not a port this process has open (closed already, or "
                              "opened by another process)",
                              port_name);
    return MPI_SUCCESS;
}
