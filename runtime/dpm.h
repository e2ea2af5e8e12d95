/* Dynamic processes inside the runtime: ports (dpm_port.c), joining two
 * groups into an intercommunicator (dpm_conn.c), spawn and the parent
 * (dpm_spawn.c). docs/dynamic.md. */
#ifndef RT_DPM_H
#define RT_DPM_H

#include "comm.h"

/* An open port: its listening socket (dpm_port.c). */
struct rt_port {
    unsigned long tag;
    int fd;
};
/* Opens a port as MPI_Open_port does, into name (MPI_MAX_PORT_NAME bytes);
 * 0 or an MPI error class, with *why set. */
int rt_port_open(char *name, const char **why);
/* The open port of that name, or NULL. */
struct rt_port *rt_port_find(const char *name);
/* Closes an open port (0), or MPI_ERR_PORT when not one of ours. */
int rt_port_close(const char *name);
/* Connects to the port's accepting root: a socket (>= 0), or -1 with a
 * message in why (why_len bytes). */
int rt_port_dial(const char *name, char *why, size_t why_len);
/* At finalize: closes every port left open. */
void rt_port_close_all(void);

/* The two groups' meeting: c's members (an intracommunicator), whose
 * `root` holds fd, a socket to the other group's root (-1 elsewhere, and
 * at the root when its side failed: then err is that side's MPI class).
 * `first` says which root writes first (the two must differ). Builds the
 * intercommunicator into *out; an MPI error class, the same at every
 * member of both groups, with a message into why. */
int rt_dpm_meet(struct rdmpi_comm *c, int root, int fd, int first, int err, struct rdmpi_comm **out,
                char *why, size_t why_len);

/* The same meeting with the roots talking over pc (the other root is its
 * rank peer; at the root only), on tag: MPI_Intercomm_create, whose groups
 * may hold processes the other group's members never met. */
int rt_dpm_meet_over(struct rdmpi_comm *c, int root, struct rdmpi_comm *pc, int peer, int tag,
                     struct rdmpi_comm **out, char *why, size_t why_len);

/* The two ends of a port (dpm_accept.c): the root of c waits for a
 * connection on its open port, or connects to one, then rt_dpm_meet. */
int rt_dpm_accept(const char *port_name, struct rdmpi_comm *c, int root, struct rdmpi_comm **out,
                  char *why, size_t why_len);
int rt_dpm_connect(const char *port_name, struct rdmpi_comm *c, int root, struct rdmpi_comm **out,
                   char *why, size_t why_len);

/* Waits until fd is ready for ev (poll's events), keeping progress going;
 * 0, or a negative errno. */
int rt_dpm_wait_fd(int fd, short ev);
/* Whole messages on a socket, progress going meanwhile; 0 or -EIO. */
int rt_dpm_put(int fd, const void *buf, size_t len);
int rt_dpm_get(int fd, void *buf, size_t len);

/* The parent intercommunicator of a spawned process, made at MPI_Init
 * (dpm_spawn.c); NULL if none or disconnected. */
extern struct rdmpi_comm *rt_dpm_parent;
/* At MPI_Init: a spawned process connects to its parents. */
void rt_dpm_init(void);
/* The parent communicator goes (freed or disconnected). */
void rt_dpm_forget(struct rdmpi_comm *c);

#endif
