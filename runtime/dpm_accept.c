/* MPI_Comm_accept, MPI_Comm_connect and MPI_Comm_join (MPI-4.1 11.4): the
 * roots find each other (the port's listening socket, or the user's), then
 * rt_dpm_meet builds the intercommunicator. The connecting root opens with
 * a hello naming the port's tag; the accepting one answers whether that
 * port is the one it accepts on. Accept waits for a connect as long as it
 * takes (the standard's); a connect to a port nobody listens on fails at
 * once with MPI_ERR_PORT. docs/dynamic.md. */
#include "dpm.h"
#include "errors.h"
#include "info.h"
#include "proc.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define HELLO_MAGIC 0x324e43494d504452ull /* "RDMPICN2" */

struct hello {
    uint64_t magic;
    uint64_t tag; /* connect: the port's tag; answer: 0 accepted, else refused */
};

static int check_args(MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm, const char *fn,
                      struct rdmpi_comm **c)
{
    int err;

    if (!(*c = rt_comm_check(comm, fn, &err)))
        return err;
    if ((*c)->inter)
        return rdmpi_err_comm(comm, MPI_ERR_COMM, fn,
                              "comm is an intercommunicator; pass an intracommunicator");
    if (!newcomm)
        return rdmpi_err_comm(comm, MPI_ERR_ARG, fn,
                              "newcomm is NULL; pass the address of an MPI_Comm");
    if (root < 0 || root >= (*c)->size)
        return rdmpi_err_comm(comm, MPI_ERR_ROOT, fn, "root is %d; pass a rank of comm (0..%d)",
                              root, (*c)->size - 1);
    if ((*c)->rank == root && info != MPI_INFO_NULL && !rt_info_get(info))
        return rdmpi_err_comm(comm, MPI_ERR_INFO, fn,
                              "info is not a valid info object (MPI_INFO_NULL or one from "
                              "MPI_Info_create)");
    return MPI_SUCCESS;
}

/* The tag field of a port name (0 if none). */
static uint64_t port_tag(const char *name)
{
    const char *p = name;

    for (int k = 0; k < 4 && p; k++)
        if ((p = strchr(p, ':')))
            p++;
    return p ? strtoull(p, NULL, 10) : 0;
}

/* The accepting root: the first connection that names this port. */
static int accept_one(struct rt_port *port)
{
    for (;;) {
        struct hello h, ans = {HELLO_MAGIC, 0};
        int fd;

        if (rt_dpm_wait_fd(port->fd, POLLIN))
            return -1;
        if ((fd = accept4(port->fd, NULL, NULL, SOCK_CLOEXEC)) < 0)
            continue;
        if (rt_dpm_get(fd, &h, sizeof(h)) == 0 && h.magic == HELLO_MAGIC) {
            ans.tag = h.tag != port->tag;
            if (rt_dpm_put(fd, &ans, sizeof(ans)) == 0 && !ans.tag)
                return fd;
        }
        close(fd); /* a stray or stale connection: keep waiting */
    }
}

static int finish(struct rdmpi_comm *c, int root, int fd, int first, int err, MPI_Comm comm,
                  MPI_Comm *newcomm, const char *fn, char *why, size_t why_len)
{
    struct rdmpi_comm *ic;

    err = rt_dpm_meet(c, root, fd, first, err, &ic, why, why_len);
    if (err)
        return rdmpi_err_comm(comm, err, fn, "%s", why);
    *newcomm = ic->handle;
    return MPI_SUCCESS;
}

int rt_dpm_accept(const char *port_name, struct rdmpi_comm *c, int root, struct rdmpi_comm **out,
                  char *why, size_t why_len)
{
    int fd = -1, err = MPI_SUCCESS;

    if (c->rank == root) {
        struct rt_port *p = rt_port_find(port_name);

        if (!p) {
            err = MPI_ERR_PORT;
            snprintf(why, why_len, "'%.200s' is not a port this process has open",
                     port_name ? port_name : "(NULL)");
        } else if ((fd = accept_one(p)) < 0) {
            err = MPI_ERR_PORT;
            snprintf(why, why_len, "waiting for a connection on the port failed");
        }
    }
    err = rt_dpm_meet(c, root, fd, 1, err, out, why, why_len);
    if (fd >= 0)
        close(fd);
    return err;
}

int rt_dpm_connect(const char *port_name, struct rdmpi_comm *c, int root, struct rdmpi_comm **out,
                   char *why, size_t why_len)
{
    int fd = -1, err = MPI_SUCCESS;

    if (c->rank == root) {
        struct hello h = {HELLO_MAGIC, port_name ? port_tag(port_name) : 0}, ans;

        if (!port_name) {
            snprintf(why, why_len, "port_name is NULL; pass the name MPI_Open_port gave");
        } else if ((fd = rt_port_dial(port_name, why, why_len)) >= 0 &&
                   (rt_dpm_put(fd, &h, sizeof(h)) || rt_dpm_get(fd, &ans, sizeof(ans)) ||
                    ans.magic != HELLO_MAGIC || ans.tag)) {
            snprintf(why, why_len, "the process behind '%.200s' does not accept on that port",
                     port_name);
            close(fd);
            fd = -1;
        }
        if (fd < 0)
            err = MPI_ERR_PORT;
    }
    err = rt_dpm_meet(c, root, fd, 0, err, out, why, why_len);
    if (fd >= 0)
        close(fd);
    return err;
}

/* MPI_Comm_accept and MPI_Comm_connect: the same checks, then op. */
static int accept_or_connect(int (*op)(const char *, struct rdmpi_comm *, int, struct rdmpi_comm **,
                                       char *, size_t),
                             const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                             MPI_Comm *newcomm, const char *fn)
{
    struct rdmpi_comm *c, *ic;
    char why[512] = "";
    int err;

    RT_CHECK_INIT(fn);
    if ((err = check_args(info, root, comm, newcomm, fn, &c)))
        return err;
    if ((err = op(port_name, c, root, &ic, why, sizeof(why))))
        return rdmpi_err_comm(comm, err, fn, "%s", why);
    *newcomm = ic->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_accept = PMPI_Comm_accept
int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    RT_API_ENTER();
    return accept_or_connect(rt_dpm_accept, port_name, info, root, comm, newcomm,
                             "MPI_Comm_accept");
}

#pragma weak MPI_Comm_connect = PMPI_Comm_connect
int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    RT_API_ENTER();
    return accept_or_connect(rt_dpm_connect, port_name, info, root, comm, newcomm,
                             "MPI_Comm_connect");
}

/* Join: the two processes swap their identities first; the lower by
 * (namespace, rank) writes first in every later swap. */
struct ident {
    uint64_t magic;
    uint32_t rank, pad;
    char nspace[256];
};

#pragma weak MPI_Comm_join = PMPI_Comm_join
int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Comm_join";
    struct ident me = {.magic = HELLO_MAGIC, .rank = (uint32_t)rt.rank}, them;
    char why[512] = "";
    int err = MPI_SUCCESS, c;

    RT_CHECK_INIT(fn);
    if (!intercomm)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "intercomm is NULL; pass the address of an MPI_Comm");
    snprintf(me.nspace, sizeof(me.nspace), "%s", rt.nspace);
    if (rt_dpm_put(fd, &me, sizeof(me)) || rt_dpm_get(fd, &them, sizeof(them)) ||
        them.magic != HELLO_MAGIC)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "fd %d is not a connected socket to a process calling "
                              "MPI_Comm_join of this rdmpi",
                              fd);
    them.nspace[sizeof(them.nspace) - 1] = 0;
    c = strcmp(me.nspace, them.nspace);
    if (!c && me.rank == them.rank)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "fd %d leads back to this process; join two processes", fd);
    c = c ? c : me.rank < them.rank ? -1 : 1;
    return finish(rt_comm_predef[1], 0, fd, c < 0, err, MPI_COMM_SELF, intercomm, fn, why,
                  sizeof(why));
}
