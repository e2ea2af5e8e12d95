/* Traffic of known shape for the transport report (t_report.sh): for each
 * SIZE:COUNT argument every rank sends COUNT messages of SIZE bytes to the
 * next rank, all at once (Isend), and receives as many from ANY_SOURCE;
 * then one 100-byte message to itself. With --die, rank 1 is killed while
 * a 64 MiB message from rank 0 is being read. With --crossed SIZE, ranks 0
 * and 1 send each other SIZE bytes so that rank 0 matches rank 1's message
 * while its own is still unread, and rank 1 matches rank 0's only after
 * its own was read (the split rendezvous decides by that). */
#include "../p2p/mpitest.h"

#include <signal.h>
#include <unistd.h>

static size_t parse_size(const char *s, char **end)
{
    size_t v = strtoull(s, end, 10);

    switch (**end) {
    case 'k':
        v <<= 10;
        (*end)++;
        break;
    case 'm':
        v <<= 20;
        (*end)++;
        break;
    }
    return v;
}

static void exchange(size_t size, int count, unsigned seed)
{
    int next = (mt_rank + 1) % mt_size;
    char *sbuf = malloc(size ? size : 1), *rbuf = malloc((size ? size : 1) * (size_t)count);
    MPI_Request *req = malloc(2 * (size_t)count * sizeof(*req));

    mt_fill(sbuf, size, seed);
    for (int i = 0; i < count; i++)
        MPI_Irecv(rbuf + (size_t)i * size, (int)size, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD,
                  &req[i]);
    for (int i = 0; i < count; i++)
        MPI_Isend(sbuf, (int)size, MPI_BYTE, next, 7, MPI_COMM_WORLD, &req[count + i]);
    MPI_Waitall(2 * count, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < count; i++)
        CHECK_TRUE(!mt_verify(rbuf + (size_t)i * size, size, seed), "%zu-byte message %d corrupt",
                   size, i);
    free(sbuf);
    free(rbuf);
    free(req);
}

static void die(void)
{
    size_t size = 64u << 20;
    char *buf = calloc(1, size);

    if (mt_rank == 0) {
        memset(buf, 1, size);
        MPI_Send(buf, (int)size, MPI_BYTE, 1, 9, MPI_COMM_WORLD);
    } else if (mt_rank == 1) {
        MPI_Request r;
        int done = 0;

        MPI_Irecv(buf, (int)size, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &r);
        while (!done) {
            MPI_Test(&r, &done, MPI_STATUS_IGNORE);
            if (buf[0] == 0 && buf[size / 2] == 0)
                continue;
            raise(SIGKILL); /* part of the data arrived: mid-transfer */
        }
        raise(SIGKILL);
    }
}

static void crossed(size_t size)
{
    char *a = malloc(size), *b = malloc(size);
    MPI_Request qa, qb;

    if (mt_rank == 0) {
        mt_fill(a, size, 1);
        MPI_Isend(a, (int)size, MPI_BYTE, 1, 10, MPI_COMM_WORLD, &qa);
        MPI_Irecv(b, (int)size, MPI_BYTE, 1, 11, MPI_COMM_WORLD, &qb);
        /* Rank 1 posts its receive of a only after this. */
        MPI_Send(NULL, 0, MPI_BYTE, 1, 12, MPI_COMM_WORLD);
        MPI_Wait(&qb, MPI_STATUS_IGNORE);
        MPI_Wait(&qa, MPI_STATUS_IGNORE);
        CHECK_TRUE(!mt_verify(b, size, 2), "crossed: the %zu bytes from rank 1 are corrupt", size);
    } else if (mt_rank == 1) {
        mt_fill(b, size, 2);
        MPI_Isend(b, (int)size, MPI_BYTE, 0, 11, MPI_COMM_WORLD, &qb);
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&qb, MPI_STATUS_IGNORE);
        MPI_Recv(a, (int)size, MPI_BYTE, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_TRUE(!mt_verify(a, size, 1), "crossed: the %zu bytes from rank 0 are corrupt", size);
    }
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    for (int a = 1; a < argc; a++) {
        char *end;
        size_t size;
        long count;

        if (!strcmp(argv[a], "--die")) {
            die();
            continue;
        }
        if (!strcmp(argv[a], "--crossed") && a + 1 < argc) {
            crossed(parse_size(argv[++a], &end));
            continue;
        }
        size = parse_size(argv[a], &end);
        count = *end == ':' ? strtol(end + 1, &end, 10) : 0;
        if (*end || count < 1) {
            fprintf(stderr, "usage: t_report [SIZE:COUNT]... [--crossed SIZE] [--die] "
                            "(SIZE may end in k or m)\n");
            return 2;
        }
        exchange(size, (int)count, (unsigned)a);
    }
    {
        char s[100], r[100];
        MPI_Request q;

        mt_fill(s, sizeof(s), 99);
        MPI_Isend(s, sizeof(s), MPI_BYTE, mt_rank, 8, MPI_COMM_WORLD, &q);
        MPI_Recv(r, sizeof(r), MPI_BYTE, mt_rank, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        CHECK_TRUE(!mt_verify(r, sizeof(r), 99), "message to self corrupt");
    }
    return mt_finish("t_report");
}
