/* Random nested derived types between ranks (a ring): blocking and
 * non-blocking, counts that cross the eager/rendezvous limit, a type
 * received as bytes and bytes received as a type; every byte of the
 * receive buffer is checked against the reference walker on that rank.
 * Then collectives with vector and contiguous derived types.
 * DT_BIG=1: the large counts are 4 MiB of data instead of 64 KB, so a
 * rendezvous of a non-contiguous type over RDMA runs through many staging
 * chunks (RDMPI_PML_PACK_CHUNK). */
#include "dtref.h"
#include "mpitest.h"

static void fill(char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)(seed * 131u + i * 7u + (i >> 9));
}

static int big_bytes = 64000;

static void one(unsigned iter)
{
    int to = (mt_rank + 1) % mt_size, from = (mt_rank + mt_size - 1) % mt_size, size, count;
    int mode = (int)(iter % 4);
    unsigned seed = 7000 + iter;
    char *smem, *rmem, *emem, *fmem;
    size_t span, n;
    MPI_Datatype t;

    rnd_state = seed;
    t = rnd_type(3);
    MPI_Type_commit(&t);
    MPI_Type_size(t, &size);
    if (size == 0) {
        rnd_free(&t);
        return;
    }
    switch (iter % 3) {
    case 0: count = 1; break;
    case 1: count = 5; break;
    default: count = big_bytes / size + 1; break; /* well past the eager limit */
    }
    n = (size_t)size * (size_t)count;
    char *src = span_alloc(t, count, &smem, &span);
    char *dst = span_alloc(t, count, &rmem, &span);
    char *exp = span_alloc(t, count, &emem, &span);
    char *fsrc = span_alloc(t, count, &fmem, &span); /* the sender's buffer, rebuilt */
    char *packed = malloc(n + 1), *fpacked = malloc(n + 1), *rbytes = malloc(n + 1);

    fill(smem, span, seed * 3 + (unsigned)mt_rank);
    fill(fmem, span, seed * 3 + (unsigned)from);
    fill(rmem, span, 99);
    memcpy(emem, rmem, span);
    ref_pack(t, count, src, packed);
    ref_pack(t, count, fsrc, fpacked);
    ref_unpack(t, count, exp, fpacked);

    MPI_Request rq[2];
    MPI_Status st;
    switch (mode) {
    case 0: MPI_Sendrecv(src, count, t, to, 1, dst, count, t, from, 1, MPI_COMM_WORLD, &st); break;
    case 1:
        MPI_Irecv(dst, count, t, from, 2, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(src, count, t, to, 2, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        break;
    case 2: /* type out, bytes in */
        MPI_Irecv(rbytes, (int)n, MPI_BYTE, from, 3, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(src, count, t, to, 3, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        CHECK_EQ_MEM(rbytes, fpacked, n, "iter %u: type sent, bytes received differ", iter);
        break;
    default: /* bytes out, type in */
        MPI_Irecv(dst, count, t, from, 4, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(packed, (int)n, MPI_BYTE, to, 4, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        break;
    }
    if (mode != 2) {
        size_t bad = 0;
        for (size_t i = 0; i < span && !bad; i++)
            if (rmem[i] != emem[i])
                bad = i + 1;
        CHECK_TRUE(!bad, "iter %u mode %d count %d size %d: byte %zu of %zu differs", iter, mode,
                   count, size, bad - 1, span);
    }
    if (mode == 0) {
        int c;
        MPI_Get_count(&st, t, &c);
        CHECK_EQ_INT(c, count, "iter %u: Get_count %d, expected %d", iter, c, count);
    }
    free(packed), free(fpacked), free(rbytes);
    free(smem), free(rmem), free(emem), free(fmem);
    rnd_free(&t);
}

static void collectives(void)
{
    /* Bcast of a strided vector (rendezvous-sized). */
    {
        int k = 40000;
        MPI_Datatype v;
        double *a = malloc(sizeof(double) * 3 * (size_t)k);
        MPI_Type_vector(k, 1, 3, MPI_DOUBLE, &v);
        MPI_Type_commit(&v);
        for (int i = 0; i < 3 * k; i++)
            a[i] = mt_rank == 0 ? i : -1;
        MPI_Bcast(a, 1, v, 0, MPI_COMM_WORLD);
        int bad = 0;
        for (int i = 0; i < 3 * k && !bad; i++)
            if (a[i] != (i % 3 == 0 || mt_rank == 0 ? i : -1))
                bad = i + 1;
        CHECK_TRUE(!bad, "Bcast of vector: element %d wrong", bad - 1);
        MPI_Type_free(&v);
        free(a);
    }
    /* Alltoall: each rank's row to rank i is a vector of its even columns. */
    {
        int k = 3000, n = mt_size;
        MPI_Datatype v, vr;
        int *a = malloc(sizeof(int) * (size_t)n * 2 * (size_t)k),
            *b = malloc(sizeof(int) * (size_t)n * (size_t)k);
        MPI_Type_vector(k, 1, 2, MPI_INT, &v);
        MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * k * sizeof(int)), &vr);
        MPI_Type_commit(&vr);
        for (int r = 0; r < n; r++)
            for (int c = 0; c < 2 * k; c++)
                a[r * 2 * k + c] = mt_rank * 1000000 + r * 10000 + c;
        MPI_Alltoall(a, 1, vr, b, k, MPI_INT, MPI_COMM_WORLD);
        int bad = 0;
        for (int s = 0; s < n && !bad; s++)
            for (int j = 0; j < k && !bad; j++)
                if (b[s * k + j] != s * 1000000 + mt_rank * 10000 + 2 * j)
                    bad = s * k + j + 1;
        CHECK_TRUE(!bad, "Alltoall with vector send type: element %d wrong", bad - 1);
        MPI_Type_free(&v);
        MPI_Type_free(&vr);
        free(a), free(b);
    }
    /* Allreduce MPI_SUM on contiguous(3, double), small and large. */
    for (int count = 5; count <= 50000; count *= 100) {
        MPI_Datatype c3;
        double *a = malloc(sizeof(double) * 3 * (size_t)count),
               *b = malloc(sizeof(double) * 3 * (size_t)count);
        MPI_Type_contiguous(3, MPI_DOUBLE, &c3);
        MPI_Type_commit(&c3);
        for (int i = 0; i < 3 * count; i++)
            a[i] = mt_rank + i;
        int err = MPI_Allreduce(a, b, count, c3, MPI_SUM, MPI_COMM_WORLD), bad = 0;
        double base = mt_size * (mt_size - 1) / 2.0;
        for (int i = 0; i < 3 * count && !bad; i++)
            if (b[i] != base + (double)mt_size * i)
                bad = i + 1;
        CHECK_TRUE(!err && !bad, "Allreduce on contiguous(3, double) x %d: err %d element %d",
                   count, err, bad - 1);
        MPI_Type_free(&c3);
        free(a), free(b);
    }
    /* Allreduce MPI_SUM on a vector of doubles: only its elements change. */
    {
        int k = 1000;
        MPI_Datatype v;
        double *a = malloc(sizeof(double) * 2 * (size_t)k),
               *b = malloc(sizeof(double) * 2 * (size_t)k);
        MPI_Type_vector(k, 1, 2, MPI_DOUBLE, &v);
        MPI_Type_commit(&v);
        for (int i = 0; i < 2 * k; i++)
            a[i] = mt_rank + i, b[i] = -5;
        int err = MPI_Allreduce(a, b, 1, v, MPI_SUM, MPI_COMM_WORLD), bad = 0;
        double base = mt_size * (mt_size - 1) / 2.0;
        for (int i = 0; i < 2 * k && !bad; i++)
            if (b[i] != (i % 2 ? -5 : base + (double)mt_size * i))
                bad = i + 1;
        CHECK_TRUE(!err && !bad, "Allreduce on vector of doubles: err %d element %d", err, bad - 1);
        MPI_Type_free(&v);
        free(a), free(b);
    }
}

int main(int argc, char **argv)
{
    int iters = 40;

    mt_init(&argc, &argv);
    if (getenv("DT_BIG") && atoi(getenv("DT_BIG")))
        big_bytes = 4 << 20;
    if (argc > 1)
        iters = atoi(argv[1]);
    for (int i = 0; i < iters; i++)
        one((unsigned)i);
    collectives();
    return mt_finish("t_torture");
}
