/* A sender far ahead of its receiver: 100000 small messages before the
 * receiver posts anything. Eager credits must bound the receiver's memory
 * (RSS growth stays far below 100000 * eager data), and every message must
 * arrive in order. MT_FLOOD_BLOCKING=1 sends with MPI_Send: once credits
 * run out the sender waits for some, gives up (the receiver is waiting
 * for the later message) and goes on from private copies. */
#include "mpitest.h"

#include <unistd.h>

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;

    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    const int n = getenv("MT_FLOOD") ? atoi(getenv("MT_FLOOD")) : 100000;
    char buf[1024];

    mt_init(&argc, &argv);
    if (mt_size < 2) {
        printf("t_flood: needs 2 ranks, skipped\n");
        MPI_Finalize();
        return 0;
    }
    if (mt_rank == 1) {
        MPI_Request *rq = malloc(sizeof(*rq) * (size_t)n);
        /* A buffer per message: a pending send's buffer must not change. */
        char *all = calloc((size_t)n, sizeof(buf));
        for (int i = 0; i < n; i++) {
            memcpy(all + (size_t)i * sizeof(buf), &i, sizeof(i));
            if (getenv("MT_FLOOD_BLOCKING")) {
                MPI_Send(all + (size_t)i * sizeof(buf), sizeof(buf), MPI_BYTE, 0, 1,
                         MPI_COMM_WORLD);
                rq[i] = MPI_REQUEST_NULL;
                continue;
            }
            MPI_Isend(all + (size_t)i * sizeof(buf), sizeof(buf), MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                      &rq[i]);
        }
        /* Tell rank 0 we are this far ahead, then let it drain. */
        int go = 1;
        MPI_Send(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
        free(rq);
        free(all);
    } else if (mt_rank == 0) {
        int go;
        long before = rss_kib(), peak = before;
        MPI_Recv(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) {
            int v;
            MPI_Recv(buf, sizeof(buf), MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            memcpy(&v, buf, sizeof(v));
            if (v != i) {
                CHECK_EQ_INT(v, i, "message %d arrived as %d", i, v);
                break;
            }
            if (i % 1000 == 0) {
                long r = rss_kib();
                if (r > peak)
                    peak = r;
            }
        }
        /* Unbounded buffering would hold ~100 MB of payload copies;
         * envelopes alone are a few MB. */
        printf("t_flood: %d messages, receiver RSS %ld KiB -> peak %ld KiB\n", n, before, peak);
        CHECK_LT_LONG(peak - before, 48 * 1024, "receiver memory grew by %ld KiB", peak - before);
    }
    return mt_finish("t_flood");
}
