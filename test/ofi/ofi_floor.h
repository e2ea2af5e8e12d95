/* The floors under btl/ofi, written against libfabric alone: one RDM
 * endpoint on the first entry libfabric offers for RDMPI_OFI_PROVIDER (the
 * one btl/ofi picks by default; RDMPI_OFI_IFACE names the domain, a verbs
 * device), a busy CQ poll, and the peer's address from the runtime's
 * modex (2 ranks under mpirun). ofi_read_floor.c and ofi_pingpong_floor.c
 * use it. */
#ifndef OFI_FLOOR_H
#define OFI_FLOOR_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FLOOR_CHECK(call)                                                                          \
    do {                                                                                           \
        int rc_ = (int)(call);                                                                     \
        if (rc_) {                                                                                 \
            fprintf(stderr, "%s: %s\n", #call, fi_strerror(-rc_));                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct floor {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    fi_addr_t peer; /* the other rank */
};

/* Opens an endpoint with caps and mode on top of FI_MSG | FI_CONTEXT |
 * FI_CONTEXT2, and a CQ of format; exits on any failure. */
void floor_open(struct floor *f, uint64_t caps, uint64_t mode, enum fi_cq_format format);
/* Swaps addresses with the peer and inserts its own; with card, also
 * card_len bytes of it, the peer's returned in *peer_card (malloc'd). */
void floor_exchange(struct floor *f, const void *card, size_t card_len, void **peer_card);
/* Polls until one completion arrives (into e, of the CQ's format). */
void floor_wait(struct floor *f, void *e);
void floor_close(struct floor *f);

#endif
