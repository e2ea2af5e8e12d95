/* Pairwise-exchange reduce-scatter for large vectors and commutative ops:
 * in step k a rank sends the block of rank + k and receives its own block
 * from rank - k, folding it in while the next one arrives. Each rank moves
 * (n-1)/n of the vector, no tree. The first block lands in the result
 * buffer, saving a copy. */
#include "coll.h"

void coll_reduce_scatter_pairwise(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, k2 = 0;
    const void *in = a->inplace ? a->rbuf : a->sbuf;
    struct rdmpi_datatype *dt = a->rdt;
    size_t rc = (size_t)a->rcounts[r], mydisp = 0;
    const void *due = NULL;
    void *acc, *t[2] = {NULL, NULL};

    for (int i = 0; i < r; i++)
        mydisp += (size_t)a->rcounts[i];
    if (!rc && n > 1) {
        /* Nothing comes to us, but others still need our blocks. */
        for (int k = 1; k < n; k++) {
            int to = (r + k) % n;
            size_t disp = 0;
            for (int i = 0; i < to; i++)
                disp += (size_t)a->rcounts[i];
            if (a->rcounts[to])
                coll_send(s, coll_at(in, disp, dt), (size_t)a->rcounts[to], dt, to);
        }
        coll_fence(s);
        return;
    }
    acc = a->inplace ? coll_tmp(s, rc, dt) : a->rbuf;
    for (int k = 1; k < n; k++) {
        int to = (r + k) % n, from = (r - k + n) % n;
        size_t disp = 0;
        void *b = acc;

        for (int i = 0; i < to; i++)
            disp += (size_t)a->rcounts[i];
        if (k > 1) {
            if (!t[k2 % 2])
                t[k2 % 2] = coll_tmp(s, rc, dt);
            b = t[k2++ % 2];
        }
        coll_recv(s, b, rc, dt, from);
        if (a->rcounts[to])
            coll_send(s, coll_at(in, disp, dt), (size_t)a->rcounts[to], dt, to);
        if (due)
            coll_reduce(s, due, acc, rc, dt, COLL_SRC_LOWER);
        due = b == acc ? coll_at(in, mydisp, dt) : b;
        coll_fence(s);
    }
    if (due)
        coll_reduce(s, due, acc, rc, dt, COLL_SRC_LOWER);
    else
        coll_copy(s, coll_at(in, mydisp, dt), rc, dt, acc, rc, dt);
    if (acc != a->rbuf)
        coll_copy(s, acc, rc, dt, a->rbuf, rc, dt);
}
