/* Binomial-tree reduce. Each rank folds its children's partial results
 * into its own, smallest subtree first, and passes the result up. With a
 * commutative op the tree is rooted at the root; otherwise at rank 0, where
 * subtrees are runs of consecutive ranks so the result keeps rank order,
 * and rank 0 forwards it to the root. The next child's receive is posted
 * before the previous child's data is folded in, so the two overlap; the
 * first child lands straight in the accumulator, which saves a copy. */
#include "coll.h"

void coll_reduce_binomial(struct coll_sched *s, const struct coll_args *a)
{
    int n = s->size, r = s->rank, root = a->root;
    int top = s->op->commute ? root : 0, v = (r - top + n) % n, mask = 1, nchild = 0, k = 0;
    const void *own = a->inplace ? a->rbuf : a->sbuf;
    const void *due = NULL; /* the fold owed for the last child received */
    int due_order = COLL_SRC_LOWER;
    size_t count = a->rcount;
    struct rdmpi_datatype *dt = a->rdt;
    void *acc = NULL, *t[2] = {NULL, NULL};

    if (n == 1) {
        if (!a->inplace)
            coll_copy(s, a->sbuf, count, dt, a->rbuf, count, dt);
        return;
    }
    while (mask < n && !(v & mask))
        mask <<= 1;
    for (int m = 1; m < mask && v + m < n; m <<= 1)
        nchild++;
    if (nchild)
        acc = v == 0 && r == root ? a->rbuf : coll_tmp(s, count, dt);
    for (int j = 0; j < nchild; j++) {
        void *b = acc;
        if (j || acc == own) {
            if (!t[k % 2])
                t[k % 2] = coll_tmp(s, count, dt);
            b = t[k++ % 2];
        }
        coll_recv(s, b, count, dt, (v + (1 << j) + top) % n);
        if (due)
            coll_reduce(s, due, acc, count, dt, due_order);
        due = b == acc ? own : b;
        due_order = b == acc ? COLL_SRC_LOWER : COLL_SRC_HIGHER;
        coll_fence(s);
    }
    if (due)
        coll_reduce(s, due, acc, count, dt, due_order);
    if (v)
        coll_send(s, nchild ? acc : own, count, dt, (v - mask + top) % n);
    coll_fence(s);
    if (top == root)
        return;
    if (r == 0)
        coll_send(s, acc, count, dt, root);
    else if (r == root)
        coll_recv(s, a->rbuf, count, dt, 0);
    coll_fence(s);
}
