/* Alltoall (and v, w) with MPI_IN_PLACE: the block for a peer is replaced
 * by the peer's block for us, so both must move in the same step. Ranks
 * r and p pair up in step (r + p) mod n; a rank copies its outgoing block
 * aside, then sends the copy and receives over the original. */
#include "coll.h"

void coll_alltoall_inplace(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank;
    size_t max = 0;
    char *t;

    for (int p = 0; p < n; p++) {
        struct rdmpi_datatype *dt;
        size_t c;
        void *b;
        coll_rblock(a, p, &b, &c, &dt);
        if (p != r && c * dt->size > max)
            max = c * dt->size;
    }
    if (!max)
        return;
    t = coll_tmp_bytes(s, max);
    for (int k = 0; k < n; k++) {
        int p = (k - r + n) % n;
        struct rdmpi_datatype *dt;
        size_t c;
        void *b;

        coll_rblock(a, p, &b, &c, &dt);
        if (p == r || !coll_bytes(c, dt))
            continue;
        coll_copy(s, b, c, dt, t, c * dt->size, coll_byte);
        coll_recv(s, b, c, dt, p);
        coll_send(s, t, c * dt->size, coll_byte, p);
        coll_fence(s);
    }
}
