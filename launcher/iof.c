/*
 * iof.c: forwarding the ranks' stdout and stderr.
 *
 * Each rank writes into two pipes of its own.  The main loop reads them as
 * they become readable and writes only whole lines to mpirun's stdout and
 * stderr, each group of lines with one write() of the only writer, so a
 * line is never split and never mixed with another rank's.  A partial line
 * waits in its stream's buffer for the rest; it is written as it is at the
 * end of the stream (with a newline added only under --tag-output), or when
 * it grows past 1 MiB.  With a single rank nothing can interleave, so bytes
 * are passed on as they come (prompts without a newline show at once).
 *
 * When a rank exits its pipes are drained before its exit is acted upon,
 * so what a rank wrote just before exiting or crashing is never lost.
 */
#include "launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUF_START (64 * 1024)
#define BUF_MAX   (1024 * 1024)

/* Set once writing to mpirun's stdout (1) or stderr (2) failed with EPIPE
 * or similar: later output to it is dropped instead of retried. */
static int out_dead[3];

/* Scratch space for tagged output. */
static char *scratch;
static size_t scratch_cap;

static int ensure_scratch(size_t need)
{
    if (need <= scratch_cap)
        return 0;
    size_t cap = scratch_cap ? scratch_cap : BUF_START;
    while (cap < need)
        cap *= 2;
    char *p = realloc(scratch, cap);
    if (!p)
        return -ENOMEM;
    scratch = p;
    scratch_cap = cap;
    return 0;
}

static void put(int fd, const char *p, size_t n)
{
    if (out_dead[fd] || n == 0)
        return;
    if (ln_write_all(fd, p, n) < 0)
        out_dead[fd] = 1;
}

/* Write n bytes of s's buffer; add_newline ends an unterminated last line
 * (used for a partial line at end of stream under --tag-output). */
static void emit(struct ln_job *job, struct ln_stream *s, size_t n, int add_newline)
{
    const char *p = s->buf, *end = s->buf + n;
    char tag[300];
    size_t tlen, need, o = 0;

    if (!job->opts->tag_output) {
        put(s->outfd, p, n);
        if (n)
            s->at_line_start = s->buf[n - 1] == '\n';
        return;
    }
    /* A spawned namespace's lines name it: "[rdmpi.42.1:0] ". */
    if (s->ns)
        tlen = snprintf(tag, sizeof(tag), "[%s:%d] ", job->ns[s->ns].name, s->rank);
    else
        tlen = snprintf(tag, sizeof(tag), "[%d] ", s->rank);
    /* One tag per line start (newlines + 1), plus a final newline. */
    need = n + 1;
    for (const char *q = p; q < end; q++)
        need += (*q == '\n') * tlen;
    need += tlen;
    if (ensure_scratch(need)) {
        put(s->outfd, p, n); /* untagged beats lost */
        return;
    }
    while (p < end) {
        const char *nl = memchr(p, '\n', end - p);
        size_t seg = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);

        if (s->at_line_start) {
            memcpy(scratch + o, tag, tlen);
            o += tlen;
        }
        memcpy(scratch + o, p, seg);
        o += seg;
        p += seg;
        s->at_line_start = nl != NULL;
    }
    if (add_newline && !s->at_line_start) {
        scratch[o++] = '\n';
        s->at_line_start = 1;
    }
    put(s->outfd, scratch, o);
}

/* Write what can be written: whole lines, or everything when final. */
static void flush_lines(struct ln_job *job, struct ln_stream *s, int final)
{
    size_t n = s->len;

    if (!final && job->nprocs > 1) {
        const char *nl = memrchr(s->buf, '\n', n);

        n = nl ? (size_t)(nl - s->buf + 1) : 0;
    }
    if (n == 0)
        return;
    emit(job, s, n, final);
    memmove(s->buf, s->buf + n, s->len - n);
    s->len -= n;
}

void ln_iof_close(struct ln_job *job, struct ln_stream *s)
{
    if (s->fd < 0)
        return;
    if (s->len)
        flush_lines(job, s, 1);
    close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
}

/* One read from a readable stream.  Returns 1 if bytes came, 0 if none
 * (EAGAIN) and -1 once the stream has ended and is closed. */
int ln_iof_read(struct ln_job *job, struct ln_stream *s)
{
    ssize_t n;

    if (s->fd < 0)
        return -1;
    if (!s->buf) {
        s->buf = malloc(BUF_START);
        if (!s->buf) {
            ln_err("out of memory for rank %d's output", s->rank);
            ln_iof_close(job, s);
            return -1;
        }
        s->cap = BUF_START;
    }
    if (s->len == s->cap) {
        char *p = s->cap < BUF_MAX ? realloc(s->buf, s->cap * 2) : NULL;

        if (p) {
            s->buf = p;
            s->cap *= 2;
        } else {
            /* Full of one partial line: it goes out in parts. */
            emit(job, s, s->len, 0);
            s->len = 0;
        }
    }
    do
        n = read(s->fd, s->buf + s->len, s->cap - s->len);
    while (n < 0 && errno == EINTR);
    if (n > 0) {
        s->len += n;
        flush_lines(job, s, 0);
        return 1;
    }
    if (n < 0 && errno == EAGAIN)
        return 0;
    ln_iof_close(job, s);
    return -1;
}

/* After a rank was reaped: everything it wrote is in its pipes now.  The
 * pipes stay open only if a process it left behind still holds them. */
void ln_iof_drain(struct ln_job *job, struct ln_rank *r)
{
    struct ln_stream *ss[2] = {&r->out, &r->err};

    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 64 && ln_iof_read(job, ss[i]) > 0; k++)
            ;
}

/* Pipes for one rank before fork: child_fds[0] and [1] become the child's
 * stdout and stderr. */
int ln_iof_prepare(struct ln_job *job, struct ln_rank *r, int child_fds[2])
{
    int p[2];
    struct ln_stream *ss[2] = {&r->out, &r->err};
    int files[2] = {r->out_file, r->err_file};

    for (int i = 0; i < 2; i++) {
        ss[i]->fd = -1;
        ss[i]->rank = r->rank;
        ss[i]->ns = r->ns;
        ss[i]->outfd = i + 1;
        ss[i]->at_line_start = 1;
        if (job->opts->output_dir) {
            child_fds[i] = files[i];
            continue;
        }
        if (pipe2(p, O_CLOEXEC) < 0) {
            ln_err("cannot create a pipe for rank %d: %s (raise ulimit -n?)", r->rank,
                   strerror(errno));
            return -errno;
        }
        fcntl(p[0], F_SETFL, O_NONBLOCK);
        ss[i]->fd = p[0];
        child_fds[i] = p[1];
    }
    return 0;
}

void ln_iof_parent_close(int child_fds[2])
{
    for (int i = 0; i < 2; i++)
        if (child_fds[i] >= 0)
            close(child_fds[i]);
}

static int mkdir_p(const char *path)
{
    char buf[4096];
    size_t len = strlen(path);

    if (len >= sizeof(buf))
        return -ENAMETOOLONG;
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            struct stat st;

            *p = 0;
            if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return -errno;
            if (stat(buf, &st) < 0)
                return -errno;
            if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;
            *p = c;
            if (c == 0)
                break;
        }
    }
    return 0;
}

/* --output-filename DIR: DIR/rank.R/stdout and DIR/rank.R/stderr, created
 * before anything starts so that a bad directory costs no rank; a spawned
 * namespace's in DIR/NAMESPACE/rank.R. */
int ln_output_dirs(struct ln_job *job, int k)
{
    const struct ln_ns *ns = &job->ns[k];
    char dir[3800], path[4096];
    int rc;

    if (k)
        snprintf(dir, sizeof(dir), "%s/%s", job->opts->output_dir, ns->name);
    else
        snprintf(dir, sizeof(dir), "%s", job->opts->output_dir);
    for (int r = 0; r < ns->size; r++) {
        struct ln_rank *rk = &job->ranks[ns->base + r];
        int *fds[2] = {&rk->out_file, &rk->err_file};
        const char *names[2] = {"stdout", "stderr"};

        snprintf(path, sizeof(path), "%s/rank.%d", dir, r);
        rc = mkdir_p(path);
        if (rc) {
            ln_err("cannot create the output directory '%s': %s "
                   "(give --output-filename a writable directory)",
                   path, strerror(-rc));
            return rc;
        }
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof(path), "%s/rank.%d/%s", dir, r, names[i]);
            *fds[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (*fds[i] < 0) {
                rc = -errno;
                ln_err("cannot write the output file '%s': %s (give --output-filename a writable "
                       "directory)",
                       path, strerror(errno));
                return rc;
            }
        }
    }
    return 0;
}
