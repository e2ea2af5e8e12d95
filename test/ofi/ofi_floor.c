/* ofi_floor.h: the endpoint and address exchange the floors share. */
#include "config.h"

#include "ofi_floor.h"

#include "log.h"
#include "modex.h"
#include "rt.h"

#include <string.h>

void floor_open(struct floor *f, uint64_t caps, uint64_t mode, enum fi_cq_format format)
{
    const char *prov = getenv("RDMPI_OFI_PROVIDER"), *dom = getenv("RDMPI_OFI_IFACE");
    struct fi_info *hints = fi_allocinfo();
    struct fi_cq_attr cq_attr = {.format = format};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};

    rt_log_init();
    if (!hints || rt_modex_init() || rt.size != 2) {
        fprintf(stderr, "run with 2 ranks under mpirun\n");
        exit(1);
    }
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG | caps;
    hints->mode = FI_CONTEXT | FI_CONTEXT2 | mode;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup(prov && *prov ? prov : "tcp;ofi_rxm");
    if (dom && *dom)
        hints->domain_attr->name = strdup(dom);
    FLOOR_CHECK(fi_getinfo(FI_VERSION(1, 12), NULL, NULL, 0, hints, &f->info));
    fi_freeinfo(hints);
    FLOOR_CHECK(fi_fabric(f->info->fabric_attr, &f->fabric, NULL));
    FLOOR_CHECK(fi_domain(f->fabric, f->info, &f->domain, NULL));
    FLOOR_CHECK(fi_cq_open(f->domain, &cq_attr, &f->cq, NULL));
    FLOOR_CHECK(fi_av_open(f->domain, &av_attr, &f->av, NULL));
    FLOOR_CHECK(fi_endpoint(f->domain, f->info, &f->ep, NULL));
    FLOOR_CHECK(fi_ep_bind(f->ep, &f->av->fid, 0));
    FLOOR_CHECK(fi_ep_bind(f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV));
    FLOOR_CHECK(fi_enable(f->ep));
    if (rt.rank == 0)
        printf("# %s, fabric %s, domain %s\n", f->info->fabric_attr->prov_name,
               f->info->fabric_attr->name, f->info->domain_attr->name);
}

void floor_exchange(struct floor *f, const void *card, size_t card_len, void **peer_card)
{
    uint8_t name[256];
    void *peer;
    size_t nlen = sizeof(name), len;

    FLOOR_CHECK(fi_getname(&f->ep->fid, name, &nlen));
    rt_modex_put("floor.name", name, nlen);
    if (card)
        rt_modex_put("floor.card", card, card_len);
    FLOOR_CHECK(rt_modex_exchange());
    if (rt_modex_get(1 - rt.rank, "floor.name", &peer, &len) ||
        (card && rt_modex_get(1 - rt.rank, "floor.card", peer_card, &len))) {
        fprintf(stderr, "no card from the peer\n");
        exit(1);
    }
    if (fi_av_insert(f->av, peer, 1, &f->peer, 0, NULL) != 1) {
        fprintf(stderr, "fi_av_insert failed\n");
        exit(1);
    }
    free(peer);
}

void floor_wait(struct floor *f, void *e)
{
    ssize_t n;

    while ((n = fi_cq_read(f->cq, e, 1)) == -FI_EAGAIN)
        ;
    if (n != 1) {
        fprintf(stderr, "fi_cq_read: %s\n", fi_strerror((int)-n));
        exit(1);
    }
}

void floor_close(struct floor *f)
{
    fflush(stdout);
    fi_close(&f->ep->fid);
    fi_close(&f->av->fid);
    fi_close(&f->cq->fid);
    fi_close(&f->domain->fid);
    fi_close(&f->fabric->fid);
    fi_freeinfo(f->info);
    rt_modex_fence();
    rt_modex_finalize();
}
