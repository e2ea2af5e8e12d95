/* Buffered sends: the message is packed into the buffer the user attached
 * and sent from there by an internal request, which gives the space back
 * when it completes. The buffer is a first-fit list of regions. */
#include "pml_check.h"

#include <stdlib.h>
#include <string.h>

/* Each region in the attached buffer starts with this header. */
struct bregion {
    size_t size;              /* bytes including this header */
    int used;
    struct bregion *next;     /* next region by address */
};

static char *bbuf;
static size_t bsize;
static struct bregion *regions;
static int inflight;

static void *balloc(size_t need)
{
    need = (need + sizeof(struct bregion) + 15) & ~(size_t)15;
    for (struct bregion *b = regions; b; b = b->next) {
        if (b->used || b->size < need)
            continue;
        if (b->size >= need + sizeof(struct bregion) + 64) {
            struct bregion *rest = (struct bregion *)((char *)b + need);
            rest->size = b->size - need;
            rest->used = 0;
            rest->next = b->next;
            b->next = rest;
            b->size = need;
        }
        b->used = 1;
        return b + 1;
    }
    return NULL;
}

static void bfree(void *p)
{
    struct bregion *b = (struct bregion *)p - 1;

    b->used = 0;
    /* Merge free neighbours so space does not fragment away. */
    for (b = regions; b && b->next;) {
        if (!b->used && !b->next->used) {
            b->size += b->next->size;
            b->next = b->next->next;
        } else {
            b = b->next;
        }
    }
}

void pml_bsend_done(struct pml_req *r)
{
    bfree(r->bsend_buf);
    r->bsend_buf = NULL;
    inflight--;
}

int pml_bsend_start(const void *buf, size_t count, struct rdmpi_datatype *dt, int dest, int tag,
                    struct pml_comm *pc, const char *fn)
{
    size_t len = count * dt->size;
    struct pml_req *r;
    void *copy;
    unsigned spins = 0;

    /* Space held by messages still in flight comes back as they finish;
     * only when none are left is the buffer truly too small. */
    while (!(copy = bbuf ? balloc(len) : NULL) && inflight) {
        if (!pml_progress())
            rt_progress_idle(&spins);
    }
    if (!copy)
        return rdmpi_err_comm(pc->handle, MPI_ERR_BUFFER, fn,
                              "no room for %zu bytes in the attached buffer (%zu bytes, %s); "
                              "attach a larger one with MPI_Buffer_attach (each message needs "
                              "its size plus MPI_BSEND_OVERHEAD)",
                              len, bsize, bbuf ? "partly in use" : "none attached");
    rt_dt_pack(dt, buf, count, 0, copy, len);
    if (!(r = pml_req_alloc())) {
        bfree(copy);
        return rdmpi_err_comm(pc->handle, MPI_ERR_NO_MEM, fn, "out of requests");
    }
    r->internal = 1;
    r->bsend_buf = copy;
    inflight++;
    return pml_isend(copy, len, rt_dt_get(MPI_BYTE), dest, tag, pc, PML_STANDARD, r);
}

static int attach(void *buffer, MPI_Count size, const char *fn)
{
    RT_CHECK_INIT(fn);
    if (bbuf)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_BUFFER, fn,
                              "a buffer is already attached; MPI_Buffer_detach it first");
    if (size < 0 || (size > 0 && !buffer))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "invalid buffer or size %lld",
                              (long long)size);
    if ((size_t)size < sizeof(struct bregion) + 16)
        return MPI_SUCCESS; /* too small to hold anything; attach nothing */
    bbuf = buffer;
    bsize = (size_t)size;
    regions = (struct bregion *)(((uintptr_t)buffer + 15) & ~(uintptr_t)15);
    regions->size = bsize - (size_t)((char *)regions - bbuf);
    regions->used = 0;
    regions->next = NULL;
    return MPI_SUCCESS;
}

static int detach(void *buffer_addr, MPI_Count *size, const char *fn)
{
    unsigned spins = 0;

    RT_CHECK_INIT(fn);
    if (!buffer_addr || !size)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn, "%s is NULL",
                              buffer_addr ? "size" : "buffer_addr");
    /* The standard: detach waits until every buffered message is sent. */
    while (inflight) {
        if (!pml_progress())
            rt_progress_idle(&spins);
    }
    *(void **)buffer_addr = bbuf;
    *size = (MPI_Count)bsize;
    bbuf = NULL;
    bsize = 0;
    regions = NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    return attach(buffer, size, "MPI_Buffer_attach");
}

#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return attach(buffer, size, "MPI_Buffer_attach_c");
}

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count s;
    int err = detach(buffer_addr, &s, "MPI_Buffer_detach");

    if (!err)
        *size = (int)s;
    return err;
}

#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return detach(buffer_addr, size, "MPI_Buffer_detach_c");
}
