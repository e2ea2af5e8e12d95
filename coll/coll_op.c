/* MPI_Op objects: the predefined ops (a static table behind their constant
 * handles), user ops from MPI_Op_create, and applying either to a buffer. */
#include "coll.h"
#include "obj.h"

#include <limits.h>
#include <string.h>

#define PREDEF_OP(op, value, shortname)                                                            \
    {.obj = {.kind = RT_KIND_OP},                                                                  \
     .index = (value)-RDMPI_OP_BASE - 1,                                                           \
     .commute = true,                                                                              \
     .refs = 1,                                                                                    \
     .name = #op},
static struct rdmpi_op predef[RDMPI_OP_COUNT] = {RDMPI_FOREACH_PREDEF_OP(PREDEF_OP)};

struct rdmpi_op *coll_op_get(MPI_Op h)
{
    uintptr_t v = (uintptr_t)h;
    struct rdmpi_op *op;

    if (v < RDMPI_PREDEF_LIMIT) {
        v -= RDMPI_OP_BASE + 1;
        return v < RDMPI_OP_COUNT ? &predef[v] : NULL;
    }
    op = (struct rdmpi_op *)h;
    return op->obj.kind == RT_KIND_OP ? op : NULL;
}

void coll_op_retain(struct rdmpi_op *op)
{
    if (op->index < 0)
        op->refs++;
}

/* The last reference gone (handle freed, schedules done): back to the pool. */
void coll_op_release(struct rdmpi_op *op)
{
    if (op->index < 0 && --op->refs == 0)
        rt_obj_delete(op);
}

static int type_index(const struct rdmpi_datatype *dt)
{
    if (dt >= rt_dt_predef && dt < rt_dt_predef + RDMPI_DATATYPE_COUNT)
        return (int)(dt - rt_dt_predef);
    return -1;
}

static MPI_Datatype type_handle(struct rdmpi_datatype *dt)
{
    int i = type_index(dt);

    return i >= 0 ? (MPI_Datatype)(uintptr_t)(RDMPI_DATATYPE_BASE + 1 + i) : (MPI_Datatype)dt;
}

const char *coll_op_unsupported(const struct rdmpi_op *op, const struct rdmpi_datatype *dt)
{
    int t;

    if (op->index < 0 || op->index >= COLL_OP_REPLACE)
        return NULL;
    t = dt->basic ? type_index(dt->basic) : -1;
    if (t < 0)
        return "predefined operations on derived datatypes need every basic element to be of "
               "one predefined type; use such a type or a user operation (MPI_Op_create)";
    if (!coll_kernel_allowed(op->index, t) || !coll_kernel(op->index, t))
        return "the standard does not define this operation on this datatype (MPI 4.1 "
               "sec. 6.9.2 lists the types each predefined operation accepts)";
    return NULL;
}

/* A derived type made of one predefined type: the kernel runs over each
 * block of its flattened form. */
static void apply_derived(coll_kernel_fn k, const void *in, void *inout, size_t count,
                          const struct rdmpi_datatype *dt)
{
    size_t bs = dt->basic->size;

    if (rt_dt_contig(dt, count)) {
        k((const char *)in + dt->lb, (char *)inout + dt->lb, count * dt->nbasic);
        return;
    }
    for (size_t e = 0; e < count; e++)
        for (size_t i = 0; i < dt->nsegs; i++) {
            const struct rt_dt_seg *s = &dt->segs[i];
            MPI_Aint off = (MPI_Aint)e * dt->extent + s->off;
            for (size_t b = 0; b < s->count; b++, off += s->stride)
                k((const char *)in + off, (char *)inout + off, s->len / bs);
        }
}

void coll_op_apply(const struct rdmpi_op *op, const void *in, void *inout, size_t count,
                   struct rdmpi_datatype *dt)
{
    if (RT_LIKELY(op->index >= 0)) {
        if (op->index == COLL_OP_NO_OP)
            return;
        if (op->index == COLL_OP_REPLACE) {
            /* Same layout on both sides: copy the extent span as is. */
            if (count)
                memcpy((char *)inout + dt->true_lb, (const char *)in + dt->true_lb,
                       (size_t)dt->true_extent + (count - 1) * (size_t)dt->extent);
            return;
        }
        if (RT_UNLIKELY(!(dt->flags & RT_DT_PREDEF))) {
            apply_derived(coll_kernel(op->index, type_index(dt->basic)), in, inout, count, dt);
            return;
        }
        coll_kernel(op->index, type_index(dt))(in, inout, count);
        return;
    }
    MPI_Datatype h = type_handle(dt);
    if (op->big) {
        MPI_Count n = (MPI_Count)count;
        ((MPI_User_function_c *)op->fn)((void *)in, inout, &n, &h);
        return;
    }
    /* The int form takes at most INT_MAX elements per call. */
    while (count) {
        int n = count > INT_MAX ? INT_MAX : (int)count;
        ((MPI_User_function *)op->fn)((void *)in, inout, &n, &h);
        in = coll_at(in, (size_t)n, dt);
        inout = coll_at(inout, (size_t)n, dt);
        count -= (size_t)n;
    }
}

static int op_create(void (*fn)(void), bool big, int commute, MPI_Op *op, const char *name)
{
    struct rdmpi_op *o;

    RT_CHECK_INIT(name);
    if (!fn)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, name,
                              "user_fn is NULL; pass the reduction function");
    if (!op)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, name,
                              "op is NULL; pass the address of an MPI_Op");
    if (!(o = rt_obj_new(RT_KIND_OP, sizeof(*o))))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_NO_MEM, name, "out of memory");
    o->index = -1;
    o->commute = commute != 0;
    o->big = big;
    o->fn = fn;
    o->refs = 1;
    o->name = "user op";
    *op = (MPI_Op)o;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    RT_API_ENTER();
    return op_create((void (*)(void))user_fn, false, commute, op, "MPI_Op_create");
}

#pragma weak MPI_Op_create_c = PMPI_Op_create_c
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    RT_API_ENTER();
    return op_create((void (*)(void))user_fn, true, commute, op, "MPI_Op_create_c");
}

/* Non-blocking operations using the op keep it alive until they finish. */
#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op *op)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Op_free";
    struct rdmpi_op *o;

    RT_CHECK_INIT(fn);
    if (!op)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "op is NULL; pass the address of an MPI_Op");
    if (!(o = coll_op_get(*op)))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_OP, fn, "the op is %s",
                              *op == MPI_OP_NULL ? "MPI_OP_NULL" : "not valid (already freed?)");
    if (o->index >= 0)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_OP, fn, "%s is predefined and cannot be freed",
                              o->name);
    coll_op_release(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    RT_API_ENTER();
    static const char fn[] = "MPI_Op_commutative";
    struct rdmpi_op *o;

    RT_CHECK_INIT(fn);
    if (!(o = coll_op_get(op)))
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_OP, fn, "the op is %s",
                              op == MPI_OP_NULL ? "MPI_OP_NULL" : "not valid (freed?)");
    if (!commute)
        return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_ARG, fn,
                              "commute is NULL; pass the address of an int");
    *commute = o->commute;
    return MPI_SUCCESS;
}
