/* Fortran integer handles and address arithmetic. Predefined handles keep
 * their constant value; user objects are numbered past RDMPI_PREDEF_LIMIT by
 * their pool's Fortran index, so the two ranges never meet. */
#include "obj.h"
#include "request.h"

struct rdmpi_request *(*rt_req_by_findex)(int findex);

static MPI_Fint to_f(const void *h)
{
    uintptr_t v = (uintptr_t)h;

    if (v < RDMPI_PREDEF_LIMIT)
        return (MPI_Fint)v;
    return ((const struct rt_obj *)h)->findex + RDMPI_PREDEF_LIMIT;
}

/* Inlined in each MPI_X_f2c, where kind is a constant. */
static inline __attribute__((always_inline)) void *from_f(MPI_Fint f, enum rt_kind kind)
{
    if (f >= 0 && f < RDMPI_PREDEF_LIMIT)
        return (void *)(uintptr_t)f;
    if (kind == RT_KIND_REQUEST && f - RDMPI_PREDEF_LIMIT < RT_OBJ_REQ_FINDEX_BASE)
        return rt_req_by_findex ? (void *)rt_req_by_findex(f - RDMPI_PREDEF_LIMIT) : NULL;
    return rt_obj_from_findex(kind, f - RDMPI_PREDEF_LIMIT);
}

/* An object's Fortran index is read without the library lock: the pools'
 * lookup takes none (obj.c), which keeps MPI_X_f2c, on each Fortran call
 * with a user handle, a few instructions. Requests ask the pml, under it. */
#define CONVERT(Name, Type, kind)                                                                  \
    MPI_Fint PMPI_##Name##_c2f(Type h)                                                             \
    {                                                                                              \
        RT_API_ENTER();                                                                            \
        return to_f(h);                                                                            \
    }                                                                                              \
    Type PMPI_##Name##_f2c(MPI_Fint f)                                                             \
    {                                                                                              \
        if (kind == RT_KIND_REQUEST) {                                                             \
            RT_API_ENTER();                                                                        \
            return (Type)from_f(f, kind);                                                          \
        }                                                                                          \
        return (Type)from_f(f, kind);                                                              \
    }

#pragma weak MPI_Comm_c2f = PMPI_Comm_c2f
#pragma weak MPI_Comm_f2c = PMPI_Comm_f2c
CONVERT(Comm, MPI_Comm, RT_KIND_COMM)
#pragma weak MPI_Errhandler_c2f = PMPI_Errhandler_c2f
#pragma weak MPI_Errhandler_f2c = PMPI_Errhandler_f2c
CONVERT(Errhandler, MPI_Errhandler, RT_KIND_ERRHANDLER)
#pragma weak MPI_File_c2f = PMPI_File_c2f
#pragma weak MPI_File_f2c = PMPI_File_f2c
CONVERT(File, MPI_File, RT_KIND_FILE)
#pragma weak MPI_Group_c2f = PMPI_Group_c2f
#pragma weak MPI_Group_f2c = PMPI_Group_f2c
CONVERT(Group, MPI_Group, RT_KIND_GROUP)
#pragma weak MPI_Info_c2f = PMPI_Info_c2f
#pragma weak MPI_Info_f2c = PMPI_Info_f2c
CONVERT(Info, MPI_Info, RT_KIND_INFO)
#pragma weak MPI_Message_c2f = PMPI_Message_c2f
#pragma weak MPI_Message_f2c = PMPI_Message_f2c
CONVERT(Message, MPI_Message, RT_KIND_MESSAGE)
#pragma weak MPI_Op_c2f = PMPI_Op_c2f
#pragma weak MPI_Op_f2c = PMPI_Op_f2c
CONVERT(Op, MPI_Op, RT_KIND_OP)
#pragma weak MPI_Request_c2f = PMPI_Request_c2f
#pragma weak MPI_Request_f2c = PMPI_Request_f2c
CONVERT(Request, MPI_Request, RT_KIND_REQUEST)
#pragma weak MPI_Session_c2f = PMPI_Session_c2f
#pragma weak MPI_Session_f2c = PMPI_Session_f2c
CONVERT(Session, MPI_Session, RT_KIND_SESSION)
#pragma weak MPI_Type_c2f = PMPI_Type_c2f
#pragma weak MPI_Type_f2c = PMPI_Type_f2c
CONVERT(Type, MPI_Datatype, RT_KIND_DATATYPE)
#pragma weak MPI_Win_c2f = PMPI_Win_c2f
#pragma weak MPI_Win_f2c = PMPI_Win_f2c
CONVERT(Win, MPI_Win, RT_KIND_WIN)

/* Addresses are plain integers on the platforms we support. */
#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    RT_API_ENTER();
    return (MPI_Aint)((char *)base + disp);
}

#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    RT_API_ENTER();
    return (MPI_Aint)((char *)addr1 - (char *)addr2);
}
