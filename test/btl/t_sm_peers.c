/* Many local peers over btl/sm through the pml: every ordered pair moves
 * messages of every protocol size (empty, eager, rendezvous, one of 9 MiB
 * whose split put is over get_limit), with every byte checked, in rounds
 * separated by quiet spells long enough for the receivers' doorbell bits
 * to go down, so each round's first message takes the path that sets them
 * again. Odd rounds use only some pairs; the last takes ANY_SOURCE
 * receives. Then an allreduce (coll's shared segment, with
 * RDMPI_COLL_SHM_AFTER=0) and a shared window, so t_sm_scale.sh can check
 * that all three users of /dev/shm leave nothing behind.
 * Output: "# rank R FAIL: ..." per failed check, "# nspace N" from rank 0;
 * exit status 0 only if every check on this rank passed. */
#include <mpi.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 6
#define PER    5    /* messages per pair per round */
#define QUIET  4096 /* polls between rounds: several times BTL_SM_LINGER */
#define BIG    ((9u << 20) + 5)

static const size_t sizes[] = {0, 1, 100, 4000, 4113, 70000, 300000};
static int rank, size, failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;

    printf("# rank %d FAIL: ", rank);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    failures++;
}

static uint8_t byte(int src, int dst, int round, int i, size_t k)
{
    uint64_t x = ((uint64_t)src * 131 + (uint64_t)dst) * 8191 + (uint64_t)round * 31 + (uint64_t)i;
    return (uint8_t)((x * 0x9e3779b97f4a7c15ull + k * 2654435761u) >> 29);
}

static size_t len_of(int src, int dst, int round, int i)
{
    if (round == 0 && i == 0 && dst == (src + 1) % size)
        return BIG;
    return sizes[((unsigned)(src * 7 + dst * 3 + round + i)) % (sizeof(sizes) / sizeof(sizes[0]))];
}

static int talks(int src, int dst, int round)
{
    return src != dst && (round % 2 == 0 || (src + dst + round) % 3 == 0);
}

static void fill(uint8_t *b, size_t len, int src, int dst, int round, int i)
{
    for (size_t k = 0; k < len; k++)
        b[k] = byte(src, dst, round, i, k);
}

/* First wrong byte, or -1. */
static long check(const uint8_t *b, size_t len, int src, int dst, int round, int i)
{
    for (size_t k = 0; k < len; k++)
        if (b[k] != byte(src, dst, round, i, k))
            return (long)k;
    return -1;
}

static void quiet(void)
{
    int flag;

    for (int i = 0; i < QUIET; i++)
        MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

static void round_trip(int round, int any)
{
    int n = 0;
    MPI_Request *req = malloc(sizeof(*req) * (size_t)size * PER * 2);
    uint8_t **sb = calloc((size_t)size * PER, sizeof(*sb)),
            **rb = calloc((size_t)size * PER, sizeof(*rb));

    if (!req || !sb || !rb) {
        fail("out of memory in round %d", round);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int p = 0; p < size; p++)
        for (int i = 0; i < PER; i++) {
            size_t len = len_of(p, rank, round, i);
            if (!talks(p, rank, round))
                continue;
            rb[p * PER + i] = malloc(len + 1);
            if (!any)
                MPI_Irecv(rb[p * PER + i], (int)len, MPI_BYTE, p, i, MPI_COMM_WORLD, &req[n++]);
        }
    for (int p = 0; p < size; p++)
        for (int i = 0; i < PER; i++) {
            size_t len = len_of(rank, p, round, i);
            if (!talks(rank, p, round))
                continue;
            sb[p * PER + i] = malloc(len + 1);
            fill(sb[p * PER + i], len, rank, p, round, i);
            MPI_Isend(sb[p * PER + i], (int)len, MPI_BYTE, p, i, MPI_COMM_WORLD, &req[n++]);
        }
    if (any) {
        /* Whatever comes first, from whoever: the status says which. */
        int left = 0;
        for (int p = 0; p < size; p++)
            left += talks(p, rank, round) ? PER : 0;
        uint8_t *buf = malloc(BIG);
        while (left--) {
            MPI_Status st;
            int count;
            MPI_Recv(buf, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &count);
            long bad = check(buf, (size_t)count, st.MPI_SOURCE, rank, round, st.MPI_TAG);
            if ((size_t)count != len_of(st.MPI_SOURCE, rank, round, st.MPI_TAG) || bad >= 0)
                fail("ANY_SOURCE round %d: %d bytes from rank %d tag %d, want %zu (first bad byte "
                     "%ld)",
                     round, count, st.MPI_SOURCE, st.MPI_TAG,
                     len_of(st.MPI_SOURCE, rank, round, st.MPI_TAG), bad);
        }
        free(buf);
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    for (int p = 0; p < size && !any; p++)
        for (int i = 0; i < PER; i++) {
            long bad;
            if (!talks(p, rank, round))
                continue;
            bad = check(rb[p * PER + i], len_of(p, rank, round, i), p, rank, round, i);
            if (bad >= 0)
                fail("round %d: message %d from rank %d wrong at byte %ld", round, i, p, bad);
        }
    for (int k = 0; k < size * PER; k++) {
        free(sb[k]);
        free(rb[k]);
    }
    free(sb);
    free(rb);
    free(req);
}

int main(int argc, char **argv)
{
    long sum = 0, want;
    MPI_Win win;
    int *mem, *r0;
    MPI_Aint sz;
    int du;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        const char *ns = getenv("PMIX_NAMESPACE");
        printf("# %d ranks, nspace %s\n", size, ns ? ns : "?");
        fflush(stdout);
    }
    for (int r = 0; r < ROUNDS; r++) {
        round_trip(r, r == ROUNDS - 1);
        quiet();
    }

    want = (long)size * (size - 1) / 2;
    for (int k = 0; k < 3; k++) {
        long mine = rank;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (sum != want)
            fail("allreduce %d: got %ld, want %ld", k, sum, want);
    }
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_lock_all(0, win);
    *mem = 1000 + rank;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    MPI_Win_shared_query(win, 0, &sz, &du, &r0);
    if (r0[size - 1] != 1000 + size - 1)
        fail("shared window: rank %d's int reads %d, want %d", size - 1, r0[size - 1],
             1000 + size - 1);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    if (!failures)
        printf("# rank %d ok\n", rank);
    MPI_Finalize();
    return failures != 0;
}
