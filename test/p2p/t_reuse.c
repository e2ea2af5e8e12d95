/* Buffers freed and allocated again at the same address between large
 * (rendezvous) messages, on both sides: malloc/free above the mmap
 * threshold, mmap/munmap, and MPI_Alloc_mem/MPI_Free_mem. A registration
 * cache that missed the unmap would read or write the old pages through
 * the old registration, and the receiver would see the previous round's
 * bytes. Every byte of every round is checked; ranks pair up 0-1, 2-3. */
#include "mpitest.h"

#include <stdint.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define ROUNDS 12

enum kind { MALLOC, MMAP, ALLOC_MEM };
static const char *const kind_name[] = {"malloc/free", "mmap/munmap", "MPI_Alloc_mem"};

static void *get(enum kind k, size_t n)
{
    void *p = NULL;

    switch (k) {
    case MALLOC: p = malloc(n); break;
    case MMAP:
        p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            p = NULL;
        break;
    case ALLOC_MEM: MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &p); break;
    }
    if (!p) {
        fprintf(stderr, "rank %d: cannot allocate %zu bytes (%s)\n", mt_rank, n, kind_name[k]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void put(enum kind k, void *p, size_t n)
{
    switch (k) {
    case MALLOC: free(p); break;
    case MMAP: munmap(p, n); break;
    case ALLOC_MEM: MPI_Free_mem(p); break;
    }
}

/* One kind and size: ROUNDS messages each way, new buffers each round. */
static void rounds(enum kind k, size_t n, int peer)
{
    uintptr_t first[2] = {0, 0};
    int same[2] = {0, 0};

    for (unsigned r = 0; r < ROUNDS; r++) {
        unsigned char *s = get(k, n), *d = get(k, n);
        unsigned seed = r * 2 + (unsigned)(mt_rank & 1) + 1000u * (unsigned)k, want;
        size_t bad;

        if (!r) {
            first[0] = (uintptr_t)s;
            first[1] = (uintptr_t)d;
        }
        same[0] += (uintptr_t)s == first[0];
        same[1] += (uintptr_t)d == first[1];
        mt_fill(s, n, seed);
        memset(d, 0xee, n);
        MPI_Sendrecv(s, (int)n, MPI_BYTE, peer, (int)r, d, (int)n, MPI_BYTE, peer, (int)r,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        want = r * 2 + (unsigned)(peer & 1) + 1000u * (unsigned)k;
        bad = mt_verify(d, n, want);
        CHECK_TRUE(!bad, "%s %zu bytes round %u: byte %zu is %#x, the pattern wants %#x",
                   kind_name[k], n, r, bad - 1, bad ? d[bad - 1] : 0u,
                   (unsigned char)(want * 131u + (bad - 1) * 7u + ((bad - 1) >> 8)));
        /* Change the memory behind the old registration's pages too: a
         * stale registration would then carry these bytes. */
        memset(s, 0x5a, n);
        put(k, s, n);
        put(k, d, n);
    }
    if (mt_rank == 0)
        printf("# %s %zu bytes: the send buffer came back at its first address in %d of %d "
               "rounds, the receive buffer in %d\n",
               kind_name[k], n, same[0], ROUNDS, same[1]);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {256u << 10, 4u << 20, (4u << 20) + 4096 * 3 + 5};

#ifdef __GLIBC__
    /* A fixed threshold: glibc otherwise raises it after the first free,
     * and later buffers come from the heap at new addresses. */
    mallopt(M_MMAP_THRESHOLD, 128 << 10);
#endif
    mt_init(&argc, &argv);
    if (mt_size % 2) {
        if (mt_rank == 0)
            fprintf(stderr, "t_reuse needs an even number of ranks\n");
        MPI_Finalize();
        return 77;
    }
    for (int k = MALLOC; k <= ALLOC_MEM; k++)
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
            rounds((enum kind)k, sizes[i], mt_rank ^ 1);
    return mt_finish("t_reuse");
}
