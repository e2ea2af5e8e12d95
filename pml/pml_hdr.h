/* The pml's wire headers. Little-endian, homogeneous peers; every header is
 * a fixed-size struct with its size checked at compile time. Requests are
 * named on the wire by 64-bit handles (slot index | generation << 32),
 * checked before use, never by pointers. */
#ifndef PML_HDR_H
#define PML_HDR_H

#include <assert.h>
#include <stdint.h>

#define PML_PROTO_VERSION 6

/* Header types: the first byte of every message, the BTL's dispatch key. */
enum pml_hdr_type {
    PML_HDR_MATCH = 1,     /* eager: envelope + payload */
    PML_HDR_RNDV = 2,      /* envelope + length + sender handle (+ inline data or RDMA address) */
    PML_HDR_CTS = 3,       /* receiver is ready: send FRAGs */
    PML_HDR_FRAG = 4,      /* copy-pipeline data */
    PML_HDR_FIN = 5,       /* rendezvous done (or the Ssend match ack) */
    PML_HDR_CREDIT = 6,    /* eager credits returned */
    PML_HDR_PUT = 7,       /* receiver asks the sender to write part of an RGET itself */
    PML_HDR_PUTFIN = 8,    /* sender: that part is written */
    PML_HDR_CANCEL = 9,    /* sender: drop my unmatched rendezvous, if you still can */
    PML_HDR_CANCELED = 10, /* receiver: whether it could (a FIN-shaped answer) */
    PML_HDR_WCTS = 11,     /* receiver: write the message into my registered buffer */
};

/* Flags on MATCH and RNDV. */
enum {
    PML_F_SYNC = 1u << 0,   /* Ssend: the sender waits for a FIN at match time */
    PML_F_INLINE = 1u << 1, /* RNDV: the whole payload follows the header */
    PML_F_GET = 1u << 2,    /* RNDV: read the data at raddr with the keys that follow */
    /* Never on the wire: a parked or early RNDV whose sender cancelled it;
     * its turn only takes its sequence number. */
    PML_F_DROPPED = 1u << 7,
};

/* The envelope every matchable message starts with. */
struct pml_hdr_match {
    uint8_t type;  /* PML_HDR_MATCH or PML_HDR_RNDV */
    uint8_t flags; /* PML_F_* */
    uint16_t seq;  /* per (communicator, sender) order, wraps */
    uint32_t cid;  /* context id of the communicator */
    int32_t src;   /* sender's rank in the communicator */
    int32_t tag;   /* MPI tag (negative: internal traffic) */
};
static_assert(sizeof(struct pml_hdr_match) == 16, "MATCH header is 16 bytes");

struct pml_hdr_rndv {
    struct pml_hdr_match m;
    uint64_t len;   /* total message bytes */
    uint64_t sreq;  /* sender's request handle, for CTS and FIN */
    uint64_t raddr; /* PML_F_GET: where the packed data lives at the sender */
    /* PML_F_GET: a pml_hdr_keys block follows (a key per rail);
     * PML_F_INLINE: len bytes of payload follow. */
};
static_assert(sizeof(struct pml_hdr_rndv) == 40, "RNDV header is 40 bytes");

/* The remote keys of a region registered on several rails (RNDV with
 * PML_F_GET, WCTS): n entries, each a pml_hdr_key and `size` bytes of the
 * BTL's key, padded to 8. A rail is named by its module's `rail` number,
 * which is the same in both processes. */
#define PML_MAX_RAILS 4
#define PML_RKEY_MAX  24
struct pml_hdr_keys {
    uint8_t n;    /* entries, 1..PML_MAX_RAILS */
    uint8_t size; /* bytes of each key, <= PML_RKEY_MAX */
    uint8_t pad[6];
};
struct pml_hdr_key {
    uint32_t rail;
    uint32_t pad;
    /* size bytes of key follow */
};
static_assert(sizeof(struct pml_hdr_keys) == 8 && sizeof(struct pml_hdr_key) == 8,
              "key headers are 8 bytes");
#define PML_KEY_STRIDE(size) (sizeof(struct pml_hdr_key) + (((size_t)(size) + 7) & ~(size_t)7))
#define PML_KEYS_MAX         (sizeof(struct pml_hdr_keys) + PML_MAX_RAILS * PML_KEY_STRIDE(PML_RKEY_MAX))

struct pml_hdr_cts {
    uint8_t type; /* PML_HDR_CTS */
    uint8_t pad[7];
    uint64_t sreq; /* the sender's request */
    uint64_t rreq; /* the receiver's request, named by every FRAG */
};
static_assert(sizeof(struct pml_hdr_cts) == 24, "CTS header is 24 bytes");

struct pml_hdr_frag {
    uint8_t type; /* PML_HDR_FRAG */
    uint8_t pad[7];
    uint64_t rreq;   /* the receiver's request */
    uint64_t offset; /* where this data starts in the packed message */
    /* data follows, up to the BTL's eager limit */
};
static_assert(sizeof(struct pml_hdr_frag) == 24, "FRAG header is 24 bytes");

struct pml_hdr_fin {
    uint8_t type; /* PML_HDR_FIN or PML_HDR_PUTFIN */
    uint8_t pad[7];
    uint64_t sreq;  /* the request it completes (PUTFIN: the receiver's) */
    int64_t status; /* bytes delivered (>= 0) or a negative errno */
};
static_assert(sizeof(struct pml_hdr_fin) == 24, "FIN header is 24 bytes");

/* Split rendezvous: while the receiver reads the head of the message, the
 * sender writes the tail straight into the receiver's buffer, so both
 * processes copy at once. */
struct pml_hdr_put {
    uint8_t type; /* PML_HDR_PUT */
    uint8_t pad[7];
    uint64_t sreq;   /* the sender's request */
    uint64_t rreq;   /* the receiver's, named by the PUTFIN */
    uint64_t offset; /* first byte of the part the sender writes */
    uint64_t raddr;  /* where that byte goes in the receiver */
};
static_assert(sizeof(struct pml_hdr_put) == 40, "PUT header is 40 bytes");

/* Write rendezvous: the receiver registered where the message goes; the
 * sender writes len bytes there and answers with a PUTFIN (its status
 * negative if a write failed: the receiver then asks for the copy
 * pipeline). */
struct pml_hdr_wcts {
    uint8_t type; /* PML_HDR_WCTS */
    uint8_t pad[7];
    uint64_t sreq;  /* the sender's request */
    uint64_t rreq;  /* the receiver's, named by the PUTFIN */
    uint64_t len;   /* bytes to write: the message, or what fits the receive */
    uint64_t raddr; /* where byte 0 goes */
    /* a pml_hdr_keys block follows: the receiver's buffer on each rail */
};
static_assert(sizeof(struct pml_hdr_wcts) == 40, "WCTS header is 40 bytes");

/* MPI_Cancel of a rendezvous send; the answer is a pml_hdr_fin whose
 * status is 1 if the envelope was still unmatched and is now gone. */
struct pml_hdr_cancel {
    uint8_t type; /* PML_HDR_CANCEL */
    uint8_t pad[3];
    uint32_t cid; /* the envelope's communicator */
    int32_t src;  /* and sender rank in it */
    uint16_t seq; /* the envelope's sequence number: says whether it came yet */
    uint16_t pad2;
    uint64_t sreq; /* the send, as its RNDV header named it */
};
static_assert(sizeof(struct pml_hdr_cancel) == 24, "CANCEL header is 24 bytes");

struct pml_hdr_credit {
    uint8_t type; /* PML_HDR_CREDIT */
    uint8_t pad[3];
    uint32_t credits; /* units of eager messages the receiver has consumed */
    uint32_t msgs;    /* and how many messages those were */
    uint32_t pad2;
};
static_assert(sizeof(struct pml_hdr_credit) == 16, "CREDIT header is 16 bytes");

/* What every rank publishes, so both sides of a pair agree on limits. */
struct pml_card {
    uint32_t version; /* PML_PROTO_VERSION */
    uint32_t credits; /* eager window this rank grants each peer */
};

#endif
