/*
 * ctl.h: the control channel between mpirun and its per-host daemons
 * (rdmpi-launchd), and what both sides share.
 *
 * One TCP connection per daemon, daemon to mpirun, opened when the daemon
 * starts.  Every message is a header of two 32-bit big-endian words (the
 * payload length, the type) and the payload.  The first exchange
 * authenticates both ends (auth.c): mpirun sends LN_MSG_CHALLENGE, the
 * daemon answers LN_MSG_HELLO with its node id, its proof and a challenge
 * of its own; mpirun drops a connection that fails, else answers
 * LN_MSG_PROVEN with its proof, which the daemon checks before it takes
 * any job or command.  Under --auth=munge (auth_munge.c) the HELLO and the
 * PROVEN carry munge credentials instead of proofs (LN_MSG_HELLO_MUNGE,
 * LN_MSG_PROVEN_MUNGE), each binding the job id and the other side's
 * challenge.
 */
#ifndef LN_CTL_H
#define LN_CTL_H

#include <stddef.h>
#include <stdint.h>

#define LN_SECRET_HEX 64 /* the secret: 32 random bytes as hex */
#define LN_CHAL_LEN   32
#define LN_PROOF_LEN  32 /* HMAC-SHA256 */
#define LN_MSG_MAX    (256u << 20)
#define LN_JOBID_LEN  16  /* --auth=munge: random bytes naming the job */
#define LN_CRED_MAX   512 /* the longest munge credential accepted (ours are ~270) */

enum ln_msg {
    LN_MSG_CHALLENGE = 1, /* m->d: LN_CHAL_LEN random bytes */
    LN_MSG_HELLO,         /* d->m: u32 node, 32-byte proof, LN_CHAL_LEN challenge */
    LN_MSG_JOB,           /* m->d: the job, NUL-separated words (launchd.c) */
    LN_MSG_FENCE,         /* d->m: this host's fence data */
    LN_MSG_FENCE_DONE,    /* m->d: every host's fence data, in node order */
    LN_MSG_FAIL,          /* d->m: u32 exit code, then the one-line message */
    LN_MSG_DONE,          /* d->m: u32 exit code; every local rank has ended */
    LN_MSG_END,           /* m->d: u32 signal: end the job (ranks get it first) */
    LN_MSG_SIGNAL,        /* m->d: u32 signal to pass to every rank */
    LN_MSG_PROVEN,        /* m->d: mpirun's 32-byte proof */
    LN_MSG_HELLO_MUNGE,   /* d->m: u32 node, LN_CHAL_LEN challenge, credential text */
    LN_MSG_PROVEN_MUNGE,  /* m->d: mpirun's credential text */
};

/* The node id mpirun proves itself under (no daemon has it). */
#define LN_NODE_MPIRUN 0xffffffffu

/* A connection with what has been read of its next messages. */
struct ln_conn {
    int fd;
    uint8_t *buf;
    size_t len, cap;
};

int ln_ctl_send(int fd, uint32_t type, const void *payload, size_t len);
int ln_ctl_send_u32(int fd, uint32_t type, uint32_t v, const void *rest, size_t len);
/* Read what is there: 0, or -1 at end of stream or on an error. */
int ln_conn_fill(struct ln_conn *c);
/* Take the next whole message: 1 and *payload malloc'd (free it), or 0. */
int ln_conn_next(struct ln_conn *c, uint32_t *type, uint8_t **payload, size_t *len);
/* Blocking read of one message within timeout seconds: 1, 0 on timeout or EOF. */
int ln_conn_wait(struct ln_conn *c, double timeout, uint32_t *type, uint8_t **payload, size_t *len);
void ln_conn_close(struct ln_conn *c);
uint32_t ln_get_u32(const uint8_t *p);

/* auth.c (libsodium) */
int ln_random(void *buf, size_t n);
int ln_secret_new(char out[LN_SECRET_HEX + 1]);
/* 0, or -EIO/-EINVAL (logged) when libsodium cannot start or the secret is
 * not hex. */
int ln_auth_proof(const char secret[LN_SECRET_HEX + 1], const uint8_t chal[LN_CHAL_LEN],
                  uint32_t node, uint8_t out[LN_PROOF_LEN]);
int ln_auth_equal(const uint8_t a[LN_PROOF_LEN], const uint8_t b[LN_PROOF_LEN]);

/* auth_munge.c (libmunge; only with HAVE_MUNGE).  A credential's payload
 * binds who it is for: the job, the node that speaks (LN_NODE_MPIRUN for
 * mpirun) and the challenge it answers. */
struct ln_munge_bind {
    uint8_t job[LN_JOBID_LEN];
    uint32_t node;
    uint8_t nonce[LN_CHAL_LEN];
};

/* A credential for *b into out (NUL-terminated), decodable by our uid
 * only.  socket is munged's, or NULL for libmunge's default.  0, or
 * -EIO with *why set when munged does not answer or refuses. */
int ln_munge_encode(const char *socket, const struct ln_munge_bind *b, char out[LN_CRED_MAX + 1],
                    char *why, size_t nwhy);
/* Decodes cred and checks it is from our uid, lives at most
 * LN_MUNGE_TTL_MAX seconds and binds exactly *want.  0; -EIO when munged
 * does not answer; -EACCES when the credential is refused; *why says why. */
int ln_munge_verify(const char *socket, const char *cred, const struct ln_munge_bind *want,
                    char *why, size_t nwhy);

#endif /* LN_CTL_H */
