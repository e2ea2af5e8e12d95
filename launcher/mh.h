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

#endif /* LN_MH_H */
