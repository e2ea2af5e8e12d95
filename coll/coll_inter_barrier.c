/* MPI_Barrier on an intercommunicator: no rank leaves before every rank
 * of the other group has entered. Each group fans in to its leader, the
 * leaders swap a zero-byte message, and each leader fans out. */
#include "coll_inter.h"

static void build(struct coll_sched *s, const struct coll_args *a)
{
    (void)a;
    coll_inter_fanin(s);
    if (s->rank == 0) {
        coll_recv(s, NULL, 0, coll_byte, 0);
        coll_send(s, NULL, 0, coll_byte, 0);
        coll_fence(s);
    }
    coll_inter_fanout(s);
}

int coll_inter_barrier(struct coll_call *call)
{
    struct coll_args a;

    coll_args_init(&a);
    return coll_execute(call, build, &a);
}
