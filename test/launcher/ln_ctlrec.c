/*
 * ln_ctlrec.c: records what a daemon sends mpirun, for the replay test of
 * test/multihost/t_multihost.sh.
 *
 *   ln_ctlrec ADDR PORT PORTFILE OUT [DELAY_MS]
 *
 * Listens on 127.0.0.1, writes its port to PORTFILE, takes one connection
 * (the daemon's, told --ctl 127.0.0.1:THAT_PORT) and relays it both ways
 * to mpirun at ADDR:PORT until either side closes; the daemon's first
 * message after mpirun's challenge, its HELLO (76 bytes, or a munge HELLO
 * of the length its header says), is also written to OUT as it crossed
 * the wire (header and payload).  With DELAY_MS, what the daemon sends
 * after its HELLO reaches mpirun that much later, so its last messages
 * arrive after its exit status, as over a slow network path.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

/* The HELLO: 8-byte header, u32 node, 32-byte proof, 32-byte challenge;
 * a munge HELLO is longer, and at most this. */
#define HELLO_MAX 1024

static int fail(const char *what)
{
    fprintf(stderr, "ln_ctlrec: %s: %s\n", what, strerror(errno));
    return 1;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w, n -= (size_t)w;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct sockaddr_in sa = {.sin_family = AF_INET}, up = {.sin_family = AF_INET};
    socklen_t len = sizeof(sa);
    uint8_t hello[HELLO_MAX], buf[65536];
    size_t nhello = 0, want = 8; /* the header, then the whole HELLO */
    int lfd, dfd, mfd, delay_ms = argc == 6 ? atoi(argv[5]) : 0;
    FILE *f;

    if ((argc != 5 && argc != 6) || delay_ms < 0 ||
        inet_pton(AF_INET, argv[1], &up.sin_addr) != 1 || atoi(argv[2]) <= 0) {
        fprintf(stderr, "usage: ln_ctlrec ADDR PORT PORTFILE OUT [DELAY_MS] (ADDR an IPv4 "
                        "address, PORT mpirun's control port)\n");
        return 2;
    }
    up.sin_port = htons((uint16_t)atoi(argv[2]));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 1) < 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &len) < 0)
        return fail("listen");
    f = fopen(argv[3], "w");
    if (!f || fprintf(f, "%d\n", ntohs(sa.sin_port)) < 0 || fclose(f))
        return fail(argv[3]);
    dfd = accept(lfd, NULL, NULL);
    if (dfd < 0)
        return fail("accept");
    close(lfd);
    mfd = socket(AF_INET, SOCK_STREAM, 0);
    if (mfd < 0 || connect(mfd, (struct sockaddr *)&up, sizeof(up)) < 0)
        return fail("connect to mpirun");
    for (;;) {
        struct pollfd p[2] = {{.fd = dfd, .events = POLLIN}, {.fd = mfd, .events = POLLIN}};
        ssize_t n;

        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return fail("poll");
        }
        if (p[0].revents) {
            n = read(dfd, buf, sizeof(buf));
            if (n <= 0)
                break;
            for (size_t off = 0; nhello < want && off < (size_t)n;) {
                size_t take = (size_t)n - off < want - nhello ? (size_t)n - off : want - nhello;

                memcpy(hello + nhello, buf + off, take);
                nhello += take, off += take;
                if (nhello == 8) {
                    uint32_t body = (uint32_t)hello[0] << 24 | (uint32_t)hello[1] << 16 |
                                    (uint32_t)hello[2] << 8 | hello[3];

                    want = body <= HELLO_MAX - 8 ? 8 + body : HELLO_MAX;
                }
                if (nhello == want && want > 8) {
                    f = fopen(argv[4], "w");
                    if (!f || fwrite(hello, 1, want, f) != want || fclose(f))
                        return fail(argv[4]);
                }
            }
            if (delay_ms && nhello == want && want > 8) {
                struct timespec ts = {delay_ms / 1000, (long)(delay_ms % 1000) * 1000000};

                while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                    ;
            }
            if (write_all(mfd, buf, (size_t)n))
                break;
        }
        if (p[1].revents) {
            n = read(mfd, buf, sizeof(buf));
            if (n <= 0 || write_all(dfd, buf, (size_t)n))
                break;
        }
    }
    return 0;
}
