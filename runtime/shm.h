/* The job's /dev/shm segments: every user (btl/sm, coll's shared segment,
 * osc's shared windows) names, creates, maps and unlinks them here, so they
 * all follow the launcher's naming (it sweeps what a dead rank leaves) and
 * report failures one way: what, which segment, how big, and the fix. */
#ifndef RT_SHM_H
#define RT_SHM_H

#include <stddef.h>

/* "/rdmpi-<uid>-<nspace>-<nodeid>" and then fmt: the shape of every
 * /dev/shm name the launcher sweeps after the job; -ENAMETOOLONG if it does
 * not fit. */
int rt_shm_name(char *name, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Flags of rt_shm_create and rt_shm_attach. */
#define RT_SHM_POPULATE 1 /* fault every page in now, not at first touch */
#define RT_SHM_QUIET    2 /* the caller has a fallback: failures at verbosity 1 only */

/* A mapped segment and the name it was made or opened by. */
struct rt_shm {
    void *base;
    size_t size;
    char name[256];
};

/* Creates /dev/shm<name> (rt_shm_name's shape; a stale one of that name,
 * left by a dead job whose launcher had our launcher's pid, is replaced),
 * reserves its pages (a full /dev/shm fails here, not as a SIGBUS later)
 * and maps it. who prefixes messages ("btl/sm"); fix names what lowers the
 * need ("RDMPI_SM_RING_BUDGET lowers it"), or NULL. 0 or -errno, logged. */
int rt_shm_create(struct rt_shm *s, const char *who, const char *name, size_t size, int flags,
                  const char *fix);
/* Maps another process's segment of exactly size bytes. 0 or -errno, logged. */
int rt_shm_attach(struct rt_shm *s, const char *who, const char *name, size_t size, int flags);
/* Removes the name (mappings stay valid): 1 if it was there, 0 if gone
 * already (or name is ""); other failures are logged. */
int rt_shm_unlink(const char *who, const char *name);
/* Unmaps; the name, if any, stays until rt_shm_unlink or the sweep. */
void rt_shm_unmap(struct rt_shm *s);

#endif
