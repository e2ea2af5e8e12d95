/*
 * mh.h: mpirun over several hosts (hosts.c places ranks, mh.c runs the
 * job through one rdmpi-launchd per host, launchd.c is the daemon).
 */
#ifndef LN_MH_H
#define LN_MH_H

#include "launcher.h"

struct ln_host {
    char *name;
    int slots;
};

struct ln_hosts {
    struct ln_host *v;
    int n;
    int *node_of; /* after ln_hosts_map: host of each rank */
};

int ln_hosts_parse(struct ln_opts *o, struct ln_hosts *h);
int ln_hosts_map(struct ln_opts *o, struct ln_hosts *h);
void ln_hosts_free(struct ln_hosts *h);
/* 1 if every host is this one ("localhost" or our host name). */
int ln_hosts_all_local(const struct ln_hosts *h);

/* Run the job through the daemons; returns mpirun's exit status. */
int ln_mh_run(struct ln_opts *o, struct ln_hosts *h);

#ifdef HAVE_MUNGE
#include "ctl.h"

#include <sys/types.h>

/* mh_munge.c: the child process that makes mpirun's munge calls. */
struct ln_mungeh {
    pid_t pid; /* 0: none */
    int fd;    /* SOCK_SEQPACKET to it, -1: none */
};

/* Check a daemon's credential for want; if it passes, answer dchal. */
struct ln_mungeh_req {
    uint32_t tag, gen; /* the pending connection it is for */
    struct ln_munge_bind want;
    uint8_t dchal[LN_CHAL_LEN];
    char cred[LN_CRED_MAX + 1];
};

struct ln_mungeh_res {
    uint32_t tag, gen;
    int rc;                      /* 0, or ln_munge_verify's/encode's error */
    char why[256];               /* when rc */
    char reply[LN_CRED_MAX + 1]; /* mpirun's credential, when 0 */
};

/* Starts the helper and waits up to timeout seconds for munged to encode
 * one credential.  0, or -EIO with *why set (nothing left running). */
int ln_mungeh_start(struct ln_mungeh *h, const char *socket, double timeout, char *why,
                    size_t nwhy);
/* Never blocks: 0, or -EIO when the helper is gone or its queue full. */
int ln_mungeh_submit(struct ln_mungeh *h, const struct ln_mungeh_req *q);
/* Never blocks: 1 with *r, 0 when none is ready, -1 when the helper is gone. */
int ln_mungeh_result(struct ln_mungeh *h, struct ln_mungeh_res *r);
void ln_mungeh_stop(struct ln_mungeh *h);
#endif

#endif /* LN_MH_H */
