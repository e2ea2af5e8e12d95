/* MPI_Finalize deletes the attributes of MPI_COMM_SELF first, in the
 * reverse order of setting, while MPI still works (MPI_Finalized is false),
 * including one whose keyval the user already freed; then those of
 * MPI_COMM_WORLD.  The delete callbacks print the checks. */
#include "../tap.h"

#include <mpi.h>
#include <stdint.h>
#include <string.h>

static int order[8], norder;

static int del(MPI_Comm comm, int keyval, void *value, void *extra)
{
    int fin = 1, size = 0;

    (void)keyval;
    MPI_Finalized(&fin);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    order[norder++] = (int)(intptr_t)value;
    CHECK_ALL ("callback for value %d runs with MPI still up", (int)(intptr_t)value) {
        CHECK_TRUE(!fin);
        CHECK_GT_LONG(size, 0);
    }
    CHECK_ALL ("with its communicator and extra_state") {
        CHECK_EQ_PTR(comm, (value == (void *)9 ? MPI_COMM_WORLD : MPI_COMM_SELF));
        CHECK_EQ_PTR(extra, (void *)order);
    }
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int k1, k2, k3, kw, rank, fin;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank)
        fclose(stdout);
    plan(10);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k1, order);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k2, order);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &k3, order);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del, &kw, order);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kw, (void *)9);
    MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void *)2);
    MPI_Comm_set_attr(MPI_COMM_SELF, k1, (void *)1);
    MPI_Comm_set_attr(MPI_COMM_SELF, k3, (void *)3);
    MPI_Comm_free_keyval(&k1); /* deferred: the attribute still uses it */
    MPI_Finalize();
    CHECK_ALL ("MPI_COMM_SELF's callbacks ran first, newest first, then MPI_COMM_WORLD's") {
        CHECK_EQ_INT(norder, 4);
        CHECK_EQ_INT(order[0], 3);
        CHECK_EQ_INT(order[1], 1);
        CHECK_EQ_INT(order[2], 2);
        CHECK_EQ_INT(order[3], 9);
    }
    MPI_Finalized(&fin);
    CHECK_TRUE(fin, "MPI_Finalize completed");
    return tap_failed != 0;
}
