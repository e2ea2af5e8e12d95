/* The /dev/shm segments a job creates (shm.h). The launcher sweeps
 * /dev/shm/rdmpi-<uid>-<nspace>-* when a job ends, so every name has that
 * shape; the node id keeps apart hosts that share /dev/shm (network-
 * namespace fake hosts, where every host has a node rank 0). */
#include "shm.h"

#include "log.h"
#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int rt_shm_name(char *name, size_t size, const char *fmt, ...)
{
    char ns[sizeof(rt.nspace)];
    va_list ap;
    int n, m;

    snprintf(ns, sizeof(ns), "%s", rt.nspace);
    for (char *c = ns; *c; c++)
        if (*c == '/')
            *c = '_';
    n = snprintf(name, size, "/rdmpi-%u-%s-%d", (unsigned)getuid(), ns, rt.nodeid);
    if (n < 0 || (size_t)n >= size)
        return -ENAMETOOLONG;
    va_start(ap, fmt);
    m = vsnprintf(name + n, size - (size_t)n, fmt, ap);
    va_end(ap);
    return m < 0 || (size_t)m >= size - (size_t)n ? -ENAMETOOLONG : 0;
}

/* One style for every failure: who, what, the segment, its size, why, and
 * what to do about it. */
#define SHM_REPORT(flags, ...)                                                                     \
    do {                                                                                           \
        if ((flags)&RT_SHM_QUIET)                                                                  \
            rt_info(1, __VA_ARGS__);                                                               \
        else                                                                                       \
            rt_warn(__VA_ARGS__);                                                                  \
    } while (0)

static int shm_map(struct rt_shm *s, const char *who, int fd, size_t size, int flags)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | (flags & RT_SHM_POPULATE ? MAP_POPULATE : 0), fd, 0);
    int rc = -errno;

    close(fd);
    if (p == MAP_FAILED) {
        SHM_REPORT(flags,
                   "%s: cannot map /dev/shm%s (%zu bytes): %s (ulimit -v, or a smaller "
                   "segment)",
                   who, s->name, size, strerror(-rc));
        return rc;
    }
    s->base = p;
    s->size = size;
    return 0;
}

int rt_shm_create(struct rt_shm *s, const char *who, const char *name, size_t size, int flags,
                  const char *fix)
{
    int fd, err, rc;

    if (strlen(name) >= sizeof(s->name)) {
        rt_warn("%s: the segment name %s is too long (%zu bytes; at most %zu)", who, name,
                strlen(name), sizeof(s->name) - 1);
        return -ENAMETOOLONG;
    }
    snprintf(s->name, sizeof(s->name), "%s", name);
    fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    /* Our names hold our launcher's pid, which is alive: a file of that
     * name is a dead job's whose launcher had the same pid. */
    if (fd < 0 && errno == EEXIST) {
        rt_info(1, "%s: removing the stale /dev/shm%s", who, name);
        shm_unlink(name);
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    }
    if (fd < 0) {
        rc = -errno;
        SHM_REPORT(flags,
                   "%s: cannot create /dev/shm%s (%zu bytes): %s (is /dev/shm mounted "
                   "and writable? ls -ld /dev/shm)",
                   who, name, size, strerror(-rc));
        return rc;
    }
    /* Reserve the pages now: a full /dev/shm is an error here, not a
     * SIGBUS in the middle of a copy. */
    if ((err = posix_fallocate(fd, 0, (off_t)size))) {
        SHM_REPORT(flags,
                   "%s: cannot reserve %zu bytes in /dev/shm for %s: %s (is /dev/shm "
                   "full? df -h /dev/shm%s%s)",
                   who, size, name, strerror(err), fix ? "; " : "", fix ? fix : "");
        close(fd);
        rt_shm_unlink(who, name);
        return -err;
    }
    if ((rc = shm_map(s, who, fd, size, flags)))
        rt_shm_unlink(who, name);
    return rc;
}

int rt_shm_attach(struct rt_shm *s, const char *who, const char *name, size_t size, int flags)
{
    struct stat st;
    int fd, rc;

    if (strlen(name) >= sizeof(s->name)) {
        rt_warn("%s: the segment name %s is too long (%zu bytes; at most %zu)", who, name,
                strlen(name), sizeof(s->name) - 1);
        return -ENAMETOOLONG;
    }
    snprintf(s->name, sizeof(s->name), "%s", name);
    if ((fd = shm_open(name, O_RDWR, 0)) < 0) {
        rc = -errno;
        SHM_REPORT(flags,
                   "%s: cannot open /dev/shm%s (%zu bytes): %s (its owner died, or runs "
                   "in another container: share /dev/shm between the ranks of one host)",
                   who, name, size, strerror(-rc));
        return rc;
    }
    /* Shorter than its owner said: mapping it would SIGBUS on first touch. */
    if (fstat(fd, &st) || (size_t)st.st_size < size) {
        SHM_REPORT(flags,
                   "%s: /dev/shm%s has %lld bytes, not the %zu its owner announced "
                   "(another job's file of that name? every rank must run the same rdmpi)",
                   who, name, (long long)st.st_size, size);
        close(fd);
        return -EPROTO;
    }
    return shm_map(s, who, fd, size, flags);
}

int rt_shm_unlink(const char *who, const char *name)
{
    if (!name[0])
        return 0;
    if (shm_unlink(name) == 0)
        return 1;
    if (errno != ENOENT)
        rt_warn("%s: cannot unlink /dev/shm%s: %s (mpirun removes it at the end of the job)", who,
                name, strerror(errno));
    return 0;
}

void rt_shm_unmap(struct rt_shm *s)
{
    if (s->base)
        munmap(s->base, s->size);
    s->base = NULL;
    s->size = 0;
}
