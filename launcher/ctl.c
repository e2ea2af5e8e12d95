/*
 * ctl.c: framing of the control channel (see ctl.h).
 */
#include "launcher.h"
#include "ctl.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint32_t ln_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8),
    p[3] = (uint8_t)v;
}

int ln_ctl_send_u32(int fd, uint32_t type, uint32_t v, const void *rest, size_t len)
{
    uint8_t hdr[12];

    put_u32(hdr, (uint32_t)(len + 4));
    put_u32(hdr + 4, type);
    put_u32(hdr + 8, v);
    if (ln_write_all(fd, hdr, sizeof(hdr)) || (len && ln_write_all(fd, rest, len)))
        return -EIO;
    return 0;
}

int ln_ctl_send(int fd, uint32_t type, const void *payload, size_t len)
{
    uint8_t hdr[8];

    put_u32(hdr, (uint32_t)len);
    put_u32(hdr + 4, type);
    if (ln_write_all(fd, hdr, sizeof(hdr)) || (len && ln_write_all(fd, payload, len)))
        return -EIO;
    return 0;
}

int ln_conn_fill(struct ln_conn *c)
{
    for (;;) {
        ssize_t n;

        if (c->cap - c->len < 4096) {
            size_t cap = c->cap ? c->cap * 2 : 65536;
            uint8_t *b = realloc(c->buf, cap);

            if (!b)
                return -1;
            c->buf = b;
            c->cap = cap;
        }
        n = read(c->fd, c->buf + c->len, c->cap - c->len);
        if (n > 0) {
            c->len += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0 && errno == EINTR)
            continue;
        return -1;
    }
}

int ln_conn_next(struct ln_conn *c, uint32_t *type, uint8_t **payload, size_t *len)
{
    uint32_t plen;

    if (c->len < 8)
        return 0;
    plen = ln_get_u32(c->buf);
    if (plen > LN_MSG_MAX || c->len - 8 < plen)
        return 0;
    *type = ln_get_u32(c->buf + 4);
    *len = plen;
    *payload = malloc(plen + 1);
    if (!*payload)
        return 0;
    memcpy(*payload, c->buf + 8, plen);
    (*payload)[plen] = 0;
    memmove(c->buf, c->buf + 8 + plen, c->len - 8 - plen);
    c->len -= 8 + plen;
    return 1;
}

int ln_conn_wait(struct ln_conn *c, double timeout, uint32_t *type, uint8_t **payload, size_t *len)
{
    double end = ln_now() + timeout;

    for (;;) {
        struct pollfd p = {.fd = c->fd, .events = POLLIN};
        double left = end - ln_now();

        if (ln_conn_next(c, type, payload, len))
            return 1;
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) == 0)
            return 0;
        if (ln_conn_fill(c) < 0 || (c->len >= 8 && ln_get_u32(c->buf) > LN_MSG_MAX))
            return ln_conn_next(c, type, payload, len);
    }
}

void ln_conn_close(struct ln_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->buf);
    c->fd = -1;
    c->buf = NULL;
    c->len = c->cap = 0;
}
