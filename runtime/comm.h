/* Communicators as the runtime sees them. Each layer keeps its own state
 * behind its slot, made and dropped by its struct rt_layer hooks. */
#ifndef RT_COMM_H
#define RT_COMM_H

#include "attr.h"
#include "errors.h"
#include "group.h"
#include "rt.h"
#include "topo.h"

struct rdmpi_comm {
    struct rt_obj obj;
    uint32_t cid;     /* context id: the matching key on the wire */
    int rank;         /* in the local group */
    int size;         /* of the local group */
    const int *world; /* comm rank -> world rank; NULL: identity */
    /* Peers: the remote group of an intercommunicator, else the local one. */
    int remote_size;
    const int *remote_world;
    int inter;
    struct rdmpi_group *group, *remote_group; /* NULL for predefined until asked */
    struct rdmpi_comm *local;                 /* intercomm: hidden intracomm of the local group */
    struct rdmpi_errhandler *errh;
    MPI_Comm handle; /* what the user holds (a constant for predefined) */
    /* The layers' slots: one pointer load from the communicator. */
    void *pml;             /* matching state (struct pml_comm) */
    void *coll;            /* collectives' state (struct coll_comm) */
    void *topo;            /* virtual topology (struct rt_topo), or NULL */
    struct rt_attr *attrs; /* cached attributes */
    MPI_Info info;         /* hints set by the user, or MPI_INFO_NULL */
    MPI_Session session;   /* the session it derives from, or MPI_SESSION_NULL */
    char name[MPI_MAX_OBJECT_NAME];
    /* For messages about an unnamed one: its nearest named ancestor when it
     * was made, and whether it is a plain duplicate of that ancestor. */
    char from[MPI_MAX_OBJECT_NAME];
    int dup;
};

#define RT_COMM_NPREDEF 2
extern struct rdmpi_comm *rt_comm_predef[RT_COMM_NPREDEF];

/* Handle to object, or NULL for null, freed or foreign handles. */
static inline struct rdmpi_comm *rt_comm_get(MPI_Comm h)
{
    uintptr_t v = (uintptr_t)h;
    struct rdmpi_comm *c;

    if (v < RDMPI_PREDEF_LIMIT) {
        v -= RDMPI_COMM_BASE + 1;
        return v < RT_COMM_NPREDEF ? rt_comm_predef[v] : NULL;
    }
    c = (struct rdmpi_comm *)h;
    return c->obj.kind == RT_KIND_COMM ? c : NULL;
}

static inline int rt_comm_world_rank(const struct rdmpi_comm *c, int r)
{
    return c->world ? c->world[r] : r;
}

/* For messages: the name, else "a communicator of N ranks, dup of X" (or
 * "derived from X"); buf should hold RT_COMM_DESCRIBE_MAX bytes. */
#define RT_COMM_DESCRIBE_MAX (MPI_MAX_OBJECT_NAME + 64)
const char *rt_comm_describe(const struct rdmpi_comm *c, char *buf, size_t len);

int rt_comm_init(void);
void rt_comm_finalize(void);

/* The local group (created on first use for predefined communicators). */
struct rdmpi_group *rt_comm_group(struct rdmpi_comm *c);

/* An intracommunicator over group g with context id cid, inheriting
 * parent's error handler; it takes a reference to g and owns cid (released
 * on failure too). NULL with *err set (an MPI class) on failure. */
struct rdmpi_comm *rt_comm_new(struct rdmpi_group *g, uint32_t cid, struct rdmpi_comm *parent,
                               int *err);
/* An intercommunicator between local group g and remote group rg with id
 * cid, and its hidden local intracommunicator with id lcid; as above. */
struct rdmpi_comm *rt_intercomm_new(struct rdmpi_group *g, struct rdmpi_group *rg, uint32_t cid,
                                    uint32_t lcid, struct rdmpi_comm *parent, int *err);
/* Releases everything a communicator holds (after attribute deletion). */
void rt_comm_destroy(struct rdmpi_comm *c);
/* Replaces c's error handler with e (taking a reference). */
void rt_comm_set_errh(struct rdmpi_comm *c, struct rdmpi_errhandler *e);

/* MPI_Comm_split and MPI_Comm_create on an intercommunicator (the caller
 * has checked the arguments); MPI error class on failure. */
int rt_inter_split(struct rdmpi_comm *c, int color, int key, MPI_Comm *out);
int rt_inter_create(struct rdmpi_comm *c, struct rdmpi_group *g, MPI_Comm *out);

/* ---- context ids (comm_cid.c) ---- */

/* Internal tags of the communicator layer: clear of the pml's (-2) and of
 * collectives (-1024 and below, 2^20 of them); MPI_Comm_create_group's
 * user tag t maps to RT_TAG_COMM_GROUP - (t mod 2^20), the string tag of
 * MPI_Comm_create_from_group to RT_TAG_FROM_GROUP - (its hash mod 2^20). */
#define RT_TAG_COMM       (-3)
#define RT_TAG_COMM_GROUP (-(1 << 21))
#define RT_TAG_FROM_GROUP (-(1 << 22))
/* The n-th MPI_Comm_idup of a communicator agrees on RT_TAG_IDUP - (n mod
 * 2^20), apart from blocking agreements and from other duplications. */
#define RT_TAG_IDUP (-(1 << 23))

/* The sessions model (comm_api.c): the agreement tag for a string tag,
 * and a communicator over g's members (we are one), agreed over the
 * hidden world communicator with that tag; an MPI error class. */
int rt_stringtag(const char *stringtag);
int rt_comm_from_group(struct rdmpi_group *g, int tag, MPI_Comm *newcomm);
/* Their errhandler (a communicator's, or predefined) and info checks;
 * errors go to h. */
int rt_from_group_check(MPI_Errhandler h, MPI_Info info, const char *fn);

/* Agrees on a context id free at every member: members[] are ranks in
 * intracomm `over` (NULL: all of it), n of them, ours at index me. When
 * bridge is not NULL, the first member also agrees with bridge_peer on
 * bridge (tag btag), so two groups end with the same id. Each member marks
 * the id used when `keep` is set. */
int rt_cid_agree(struct rdmpi_comm *over, const int *members, int n, int me, int tag,
                 struct rdmpi_comm *bridge, int bridge_peer, int btag, int keep, uint32_t *cid);
/* The same with the leaders' swap done by `swap` (len bytes each way; an
 * MPI error class), e.g. over the socket of MPI_Comm_accept/connect. */
typedef int (*rt_cid_swap_fn)(void *ctx, const void *mine, void *theirs, size_t len);
int rt_cid_agree_swap(struct rdmpi_comm *over, const int *members, int n, int me, int tag,
                      rt_cid_swap_fn swap, void *ctx, int keep, uint32_t *cid);
void rt_cid_release(uint32_t cid);

/* The pieces of that agreement, for the non-blocking one
 * (coll/coll_comm_idup.c):
 * the ids free here and not held by a running agreement (RT_CID_WORDS
 * words, then one spare); the first member's choice among those free
 * everywhere (the lowest, or with `spread` one of the lowest 16 at
 * random; UINT32_MAX if none); holding an id while the members confirm it
 * (0 if it is taken or held here already), letting go, and taking it. */
#define RT_CID_WORDS 512
void rt_cid_free_mask(uint32_t *mask);
uint32_t rt_cid_pick(const uint32_t *mask, int spread, unsigned *seed);
int rt_cid_hold(uint32_t c);
void rt_cid_unhold(uint32_t c);
void rt_cid_reserve(uint32_t c);

/* The checks of MPI_Comm_dup and MPI_Comm_idup (and their _with_info
 * forms): c is the communicator; errors are raised on comm. */
int rt_comm_dup_check(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, int with_info,
                      const char *fn, struct rdmpi_comm **c);
/* The end of every duplication once the ids are agreed: builds the new
 * communicator with c's attributes (copy callbacks run), topology and
 * hints (or info's); releases the ids on failure. An MPI error class. */
int rt_comm_dup_finish(struct rdmpi_comm *c, uint32_t cid, uint32_t lcid, MPI_Info info,
                       MPI_Comm *newcomm);
/* Binomial broadcast of len bytes from members[0] over intracomm `over`. */
int rt_comm_bcast(struct rdmpi_comm *over, const int *members, int n, int me, int tag, void *buf,
                  size_t len);

/* ---- communicator services (comm_svc.c) ---- */

/* What building communicators and topologies needs from the layers above
 * the runtime: the pml's blocking exchange on an internal tag (dst or src
 * may be MPI_PROC_NULL), the collectives' allgather and alltoall(v) (with
 * an MPI error class as result). A layer names the ones it provides in
 * its struct rt_layer; a service offered twice fails start-up. */
struct rt_comm_services {
    int (*sendrecv)(struct rdmpi_comm *c, const void *sbuf, size_t slen, int dst, void *rbuf,
                    size_t rlen, int src, int tag);
    int (*allgather)(struct rdmpi_comm *c, const void *sbuf, int scount, MPI_Datatype sdt,
                     void *rbuf, int rcount, MPI_Datatype rdt);
    int (*alltoall)(struct rdmpi_comm *c, const void *sbuf, int scount, MPI_Datatype sdt,
                    void *rbuf, int rcount, MPI_Datatype rdt);
    int (*alltoallv)(struct rdmpi_comm *c, const void *sbuf, const int *scounts, const int *sdispls,
                     MPI_Datatype sdt, void *rbuf, const int *rcounts, const int *rdispls,
                     MPI_Datatype rdt);
};

/* init.c adds a layer's services when it connects and removes them at its
 * finalize; -EEXIST if one is offered already. */
int rt_comm_services_add(const struct rt_comm_services *s);
void rt_comm_services_remove(const struct rt_comm_services *s);

/* The runtime's calls through that table (MPI_ERR_INTERN if none). */
int rt_comm_sendrecv(struct rdmpi_comm *c, const void *sbuf, size_t slen, int dst, void *rbuf,
                     size_t rlen, int src, int tag);
int rt_comm_allgather(struct rdmpi_comm *c, const void *sbuf, int scount, MPI_Datatype sdt,
                      void *rbuf, int rcount, MPI_Datatype rdt);
int rt_comm_alltoall(struct rdmpi_comm *c, const void *sbuf, int scount, MPI_Datatype sdt,
                     void *rbuf, int rcount, MPI_Datatype rdt);
int rt_comm_alltoallv(struct rdmpi_comm *c, const void *sbuf, const int *scounts,
                      const int *sdispls, MPI_Datatype sdt, void *rbuf, const int *rcounts,
                      const int *rdispls, MPI_Datatype rdt);

/* Validates a communicator argument; on failure raises MPI_ERR_COMM on
 * MPI_COMM_SELF's handler and returns NULL with *err set. */
struct rdmpi_comm *rt_comm_check(MPI_Comm comm, const char *func, int *err);

#endif
