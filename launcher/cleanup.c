/*
 * cleanup.c: files a job leaves behind, and the sweep of earlier jobs'.
 *
 * Two kinds of files belong to a job:
 *   - the PMIx server's directory $TMPDIR/rdmpi.<uid>.<mpirun pid>, made
 *     here with mode 0700 and removed on every way out of mpirun;
 *   - the shared-memory BTL's segments /dev/shm/rdmpi-<uid>-<nspace>-<nodeid>.<noderank>
 *     where nspace is "rdmpi.<mpirun pid>" (or "rdmpi.<mpirun pid>.<n>"
 *     for the n-th namespace spawned).  The ranks unlink them once
 *     attached; whatever a crash leaves is removed at job end, and, should
 *     mpirun itself be killed, by the next mpirun's sweep, which takes every
 *     such file whose mpirun pid no longer exists.
 */
#include "launcher.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHM_DIR "/dev/shm"

static const char *tmp_base(void)
{
    const char *t = getenv("TMPDIR");

    return t && *t ? t : "/tmp";
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void rm_tree(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int pid_is_gone(long pid)
{
    return pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

int ln_tmpdir_create(struct ln_job *job)
{
    int n = snprintf(job->tmpdir, sizeof(job->tmpdir), "%s/rdmpi.%u.%d", tmp_base(),
                     (unsigned)getuid(), (int)getpid());

    if (n >= (int)sizeof(job->tmpdir)) {
        job->tmpdir[0] = 0;
        ln_err("TMPDIR is too long (%s); set TMPDIR to a shorter path", tmp_base());
        return -ENAMETOOLONG;
    }
    for (int tries = 0;; tries++) {
        if (mkdir(job->tmpdir, 0700) == 0)
            return 0;
        /* Our pid is ours now, so a directory of that name was left by
         * a dead mpirun of the same pid: remove it and try again. */
        if (errno == EEXIST && tries == 0) {
            rm_tree(job->tmpdir);
            continue;
        }
        ln_err("cannot create the job directory %s: %s (set TMPDIR to a writable directory)",
               job->tmpdir, strerror(errno));
        job->tmpdir[0] = 0;
        return -errno;
    }
}

void ln_tmpdir_remove(struct ln_job *job)
{
    if (job->tmpdir[0]) {
        rm_tree(job->tmpdir);
        job->tmpdir[0] = 0;
    }
}

/* Remove /dev/shm/rdmpi-<uid>-rdmpi.<pid>-* of dead mpiruns and
 * $TMPDIR/rdmpi.<uid>.<pid> directories of dead mpiruns. */
void ln_sweep_stale(void)
{
    char prefix[64], path[4096];
    size_t plen;
    DIR *d;
    struct dirent *e;

    plen = snprintf(prefix, sizeof(prefix), "rdmpi-%u-rdmpi.", (unsigned)getuid());
    if ((d = opendir(SHM_DIR))) {
        while ((e = readdir(d))) {
            char *end;
            long pid;

            if (strncmp(e->d_name, prefix, plen))
                continue;
            /* rdmpi.<pid>-..., or rdmpi.<pid>.<n>-... of a spawned namespace */
            pid = strtol(e->d_name + plen, &end, 10);
            if ((*end != '-' && *end != '.') || !pid_is_gone(pid))
                continue;
            snprintf(path, sizeof(path), SHM_DIR "/%s", e->d_name);
            unlink(path);
        }
        closedir(d);
    }

    plen = snprintf(prefix, sizeof(prefix), "rdmpi.%u.", (unsigned)getuid());
    if ((d = opendir(tmp_base()))) {
        while ((e = readdir(d))) {
            char *end;
            long pid;

            if (strncmp(e->d_name, prefix, plen))
                continue;
            pid = strtol(e->d_name + plen, &end, 10);
            if (*end || !pid_is_gone(pid))
                continue;
            snprintf(path, sizeof(path), "%s/%s", tmp_base(), e->d_name);
            rm_tree(path);
        }
        closedir(d);
    }
}

void ln_shm_remove_job(const struct ln_job *job)
{
    char prefix[128], path[4096];
    size_t plen;
    DIR *d;
    struct dirent *e;

    plen = snprintf(prefix, sizeof(prefix), "rdmpi-%u-%s-", (unsigned)getuid(), job->nspace);
    if (!(d = opendir(SHM_DIR)))
        return;
    while ((e = readdir(d))) {
        const char *rest = e->d_name + plen;

        /* The namespaces it spawned, <nspace>.<n>-..., are all this host's. */
        if (!strncmp(e->d_name, prefix, plen - 1) && e->d_name[plen - 1] == '.' &&
            isdigit((unsigned char)e->d_name[plen]) &&
            e->d_name[plen + strspn(e->d_name + plen, "0123456789")] == '-') {
            snprintf(path, sizeof(path), SHM_DIR "/%s", e->d_name);
            unlink(path);
            continue;
        }
        if (strncmp(e->d_name, prefix, plen))
            continue;
        /* Several hosts may share /dev/shm (namespace test hosts): take
         * only this host's, <nodeid>.<node rank> and ofi<local rank>. */
        if (job->nnodes > 1 && ((!strncmp(rest, "ofi", 3) && (atoi(rest + 3) >= job->size ||
                                                              !ln_is_local(job, atoi(rest + 3)))) ||
                                (isdigit((unsigned char)*rest) && atoi(rest) != job->nodeid)))
            continue;
        snprintf(path, sizeof(path), SHM_DIR "/%s", e->d_name);
        unlink(path);
    }
    closedir(d);
}
