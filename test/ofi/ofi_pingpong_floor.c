/* The floor for btl/ofi's 8-byte latency: a ping-pong written against
 * libfabric alone (ofi_floor.h), timed after a warm-up, so the connection
 * set-up that fi_pingpong's timed loop includes is left out. Two ways:
 * "plain" as fi_pingpong sends (FI_MSG, fi_inject, fi_cq_read), and
 * "rdmpi" with what btl/ofi asks of the provider on top (FI_SOURCE, RMA
 * caps, 4 bytes of remote CQ data by fi_injectdata, or where the provider
 * has none an 8-byte prefix, fi_cq_readfrom): the difference is the price
 * of those, the rest of rdmpi's figure is its own.
 * Run: RDMPI_OFI_PROVIDER=tcp mpirun -n 2 ofi_pingpong_floor plain|rdmpi [iters] */
#include "config.h"

#include "ofi_floor.h"

#include "rt.h"

#include <string.h>

#define WARMUP 200

static struct floor f;
static int rdmpi, cq_data;
static uint8_t rbuf[64], sbuf[16];
static struct fi_context2 rctx;

static void post_recv(void)
{
    FLOOR_CHECK(fi_recv(f.ep, rbuf, sizeof(rbuf), NULL, FI_ADDR_UNSPEC, &rctx));
}

static void send8(uint32_t seq)
{
    ssize_t rc;

    do {
        if (cq_data)
            rc = fi_injectdata(f.ep, sbuf, 8, seq, f.peer);
        else if (rdmpi) /* the word in the prefix, as btl/ofi does then */
            rc = fi_inject(f.ep, memcpy(sbuf, &seq, sizeof(seq)), 16, f.peer);
        else
            rc = fi_inject(f.ep, sbuf, 8, f.peer);
        if (rc == -FI_EAGAIN)
            fi_cq_read(f.cq, NULL, 0);
    } while (rc == -FI_EAGAIN);
    FLOOR_CHECK(rc);
}

/* The next message: polled as btl/ofi polls, then the buffer goes back. */
static void recv8(void)
{
    struct fi_cq_data_entry e;
    fi_addr_t src;
    ssize_t n;

    if (rdmpi) {
        while ((n = fi_cq_readfrom(f.cq, &e, 1, &src)) == -FI_EAGAIN)
            ;
        if (n != 1 || src != f.peer) {
            fprintf(stderr, "fi_cq_readfrom: %s (source %#llx)\n", fi_strerror((int)-n),
                    (unsigned long long)src);
            exit(1);
        }
    } else {
        floor_wait(&f, &e);
    }
    post_recv();
}

int main(int argc, char **argv)
{
    int iters = argc > 2 ? atoi(argv[2]) : 2000;
    double t = 0;

    if (argc < 2 || (strcmp(argv[1], "plain") && strcmp(argv[1], "rdmpi")) || iters < 1)
        return fprintf(stderr, "usage: ofi_pingpong_floor plain|rdmpi [iters]\n"), 2;
    rdmpi = !strcmp(argv[1], "rdmpi");
    if (rdmpi)
        floor_open(&f, FI_SOURCE | FI_RMA | FI_READ | FI_REMOTE_READ, FI_RX_CQ_DATA,
                   FI_CQ_FORMAT_DATA);
    else
        floor_open(&f, 0, 0, FI_CQ_FORMAT_DATA);
    cq_data = rdmpi && f.info->domain_attr->cq_data_size >= 4;
    floor_exchange(&f, NULL, 0, NULL);
    post_recv();
    for (int i = -WARMUP; i < iters; i++) {
        if (i == 0)
            t = rt_wtime();
        if (rt.rank == 0) {
            send8((uint32_t)i);
            recv8();
        } else {
            recv8();
            send8((uint32_t)i);
        }
    }
    t = rt_wtime() - t;
    if (rt.rank == 0)
        printf("pingpong 8 B %s: %.2f us\n", argv[1], t / iters / 2 * 1e6);
    fi_cancel(&f.ep->fid, &rctx); /* the receive left posted */
    floor_close(&f);
    return 0;
}
