/* The floor for btl/ofi's read bandwidth: the same 1-16 MiB reads written
 * against libfabric alone, one fi_read in flight and a busy CQ poll, on
 * the first entry libfabric offers for RDMPI_OFI_PROVIDER (the entry
 * btl/ofi picks by default). Only the address exchange uses the runtime.
 * RDMPI_OFI_IFACE names the domain (a verbs device) when set.
 * Run: RDMPI_OFI_PROVIDER=tcp mpirun -n 2 ofi_read_floor */
#include "config.h"

#include "log.h"
#include "modex.h"
#include "rt.h"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXREAD (16u << 20)

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (int)(call);                                                                     \
        if (rc_) {                                                                                 \
            fprintf(stderr, "%s: %s\n", #call, fi_strerror(-rc_));                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static struct fid_ep *ep;
static struct fid_cq *cq;

/* Polls until one completion arrives. */
static void wait_one(void)
{
    struct fi_cq_entry e;
    ssize_t n;

    while ((n = fi_cq_read(cq, &e, 1)) == -FI_EAGAIN)
        ;
    if (n != 1) {
        fprintf(stderr, "fi_cq_read: %s\n", fi_strerror((int)-n));
        exit(1);
    }
}

int main(void)
{
    const char *prov = getenv("RDMPI_OFI_PROVIDER"), *dom = getenv("RDMPI_OFI_IFACE");
    struct fi_info *hints = fi_allocinfo(), *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_mr *mr;
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    struct fi_context2 ctx;
    uint8_t *buf = malloc(MAXREAD), name[256], *peer;
    uint64_t card[2], *pc;
    size_t nlen = sizeof(name), len;
    fi_addr_t addr;
    char flag;

    rt_log_init();
    if (!buf || !hints || rt_modex_init() || rt.size != 2)
        return fprintf(stderr, "run with 2 ranks under mpirun\n"), 1;
    memset(buf, 7, MAXREAD);
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup(prov && *prov ? prov : "tcp;ofi_rxm");
    if (dom && *dom)
        hints->domain_attr->name = strdup(dom);
    CHECK(fi_getinfo(FI_VERSION(1, 12), NULL, NULL, 0, hints, &info));
    CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
    CHECK(fi_domain(fabric, info, &domain, NULL));
    CHECK(fi_cq_open(domain, &cq_attr, &cq, NULL));
    CHECK(fi_av_open(domain, &av_attr, &av, NULL));
    CHECK(fi_endpoint(domain, info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &av->fid, 0));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
    CHECK(fi_enable(ep));
    CHECK(fi_getname(&ep->fid, name, &nlen));
    CHECK(fi_mr_reg(domain, buf, MAXREAD, FI_REMOTE_READ | FI_READ, 0, 1 + rt.rank, 0, &mr, NULL));
    card[0] = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
    card[1] = fi_mr_key(mr);
    rt_modex_put("floor.name", name, nlen);
    rt_modex_put("floor.card", card, sizeof(card));
    CHECK(rt_modex_exchange());
    if (rt_modex_get(1 - rt.rank, "floor.name", (void **)&peer, &len) ||
        rt_modex_get(1 - rt.rank, "floor.card", (void **)&pc, &len))
        return fprintf(stderr, "no card from the peer\n"), 1;
    if (fi_av_insert(av, peer, 1, &addr, 0, NULL) != 1)
        return fprintf(stderr, "fi_av_insert failed\n"), 1;

    if (rt.rank == 0) {
        printf("# %s, fabric %s, domain %s\n", info->fabric_attr->prov_name,
               info->fabric_attr->name, info->domain_attr->name);
        for (size_t l = 1u << 20; l <= MAXREAD; l <<= 1) {
            int n = (int)((256u << 20) / l);
            double t = 0;

            for (int i = -2; i < n; i++) {
                if (i == 0)
                    t = rt_wtime();
                while (fi_read(ep, buf, l, fi_mr_desc(mr), addr, pc[0], pc[1], &ctx) == -FI_EAGAIN)
                    fi_cq_read(cq, NULL, 0);
                wait_one();
            }
            printf("read %zu MiB: %.0f MB/s\n", l >> 20, (double)l * n / (rt_wtime() - t) / 1e6);
        }
        while (fi_send(ep, &flag, 1, NULL, addr, &ctx) == -FI_EAGAIN)
            fi_cq_read(cq, NULL, 0);
        wait_one();
    } else {
        /* The reads need our progress until the peer says it is done. */
        CHECK(fi_recv(ep, &flag, 1, NULL, FI_ADDR_UNSPEC, &ctx));
        wait_one();
    }
    fflush(stdout);
    fi_close(&ep->fid);
    fi_close(&mr->fid);
    fi_close(&av->fid);
    fi_close(&cq->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    rt_modex_fence();
    rt_modex_finalize();
    free(peer);
    free(pc);
    free(buf);
    return 0;
}
