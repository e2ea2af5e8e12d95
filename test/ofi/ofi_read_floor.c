/* The floor for btl/ofi's read bandwidth: the same 1-16 MiB reads written
 * against libfabric alone (ofi_floor.h), one fi_read in flight.
 * Run: RDMPI_OFI_PROVIDER=tcp mpirun -n 2 ofi_read_floor */
#include "config.h"

#include "ofi_floor.h"

#include "rt.h"

#include <rdma/fi_rma.h>
#include <string.h>

#define MAXREAD (16u << 20)

int main(void)
{
    struct floor f;
    struct fid_mr *mr;
    struct fi_context2 ctx;
    struct fi_cq_entry e;
    uint8_t *buf = malloc(MAXREAD);
    uint64_t card[2], *pc = NULL;
    char flag;

    if (!buf)
        return fprintf(stderr, "out of memory\n"), 1;
    memset(buf, 7, MAXREAD);
    floor_open(&f, FI_RMA | FI_READ | FI_REMOTE_READ, 0, FI_CQ_FORMAT_CONTEXT);
    FLOOR_CHECK(
        fi_mr_reg(f.domain, buf, MAXREAD, FI_REMOTE_READ | FI_READ, 0, 1 + rt.rank, 0, &mr, NULL));
    card[0] = (f.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
    card[1] = fi_mr_key(mr);
    floor_exchange(&f, card, sizeof(card), (void **)&pc);

    if (rt.rank == 0) {
        for (size_t l = 1u << 20; l <= MAXREAD; l <<= 1) {
            int n = (int)((256u << 20) / l);
            double t = 0;

            for (int i = -2; i < n; i++) {
                if (i == 0)
                    t = rt_wtime();
                while (fi_read(f.ep, buf, l, fi_mr_desc(mr), f.peer, pc[0], pc[1], &ctx) ==
                       -FI_EAGAIN)
                    fi_cq_read(f.cq, NULL, 0);
                floor_wait(&f, &e);
            }
            printf("read %zu MiB: %.0f MB/s\n", l >> 20, (double)l * n / (rt_wtime() - t) / 1e6);
        }
        while (fi_send(f.ep, &flag, 1, NULL, f.peer, &ctx) == -FI_EAGAIN)
            fi_cq_read(f.cq, NULL, 0);
        floor_wait(&f, &e);
    } else {
        /* The reads need our progress until the peer says it is done. */
        FLOOR_CHECK(fi_recv(f.ep, &flag, 1, NULL, FI_ADDR_UNSPEC, &ctx));
        floor_wait(&f, &e);
    }
    fi_close(&mr->fid);
    floor_close(&f);
    free(pc);
    free(buf);
    return 0;
}
