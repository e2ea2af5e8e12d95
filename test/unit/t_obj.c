/* Object pools: a freed object is handed out again only for an object it
 * can hold. Requests of one kind come in several sizes (generalized,
 * MPI_Comm_idup, non-blocking collectives); a small freed one once came
 * back for a bigger one. */
#include "obj.h"
#include "../tap.h"

#include <string.h>

int main(void)
{
    char *small, *big, *again, *back;

    plan(4);
    small = rt_obj_new(RT_KIND_REQUEST, 32);
    big = rt_obj_new(RT_KIND_REQUEST, 256);
    CHECK_TRUE(small && big, "two requests of different sizes");
    rt_obj_delete(small);
    again = rt_obj_new(RT_KIND_REQUEST, 256);
    CHECK_ALL ("a freed 32-byte object is not reused for 256 bytes") {
        CHECK_TRUE(again);
        CHECK_NE_PTR(again, small);
    }
    memset(again + sizeof(struct rt_obj), 0x5a, 256 - sizeof(struct rt_obj));
    rt_obj_delete(big);
    back = rt_obj_new(RT_KIND_REQUEST, 64);
    CHECK_EQ_PTR(back, big, "a freed 256-byte object serves a 64-byte one");
    CHECK_EQ_INT(back[255], 0);
    return tap_failed ? 1 : 0;
}
