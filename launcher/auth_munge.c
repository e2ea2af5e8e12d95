/*
 * auth_munge.c: the daemons' control connections authenticated by MUNGE
 * (mpirun --auth=munge), as Slurm authenticates its daemons.
 *
 * Where munged runs with one key on every host, a credential it encodes
 * says which uid asked for it, and only a munged with the same key can
 * decode it.  So instead of proving a per-job secret, each side sends a
 * credential whose payload binds the job id (random, from mpirun), the
 * node that speaks and the challenge of the other side: a credential
 * recorded from another connection or another job binds another
 * challenge or job and is refused, and munged's replay cache refuses a
 * credential decoded twice.  Credentials live LN_MUNGE_TTL seconds and
 * are restricted to our uid, so no other user's process can decode (and
 * so spend) one seen on the wire.
 *
 * Only our own uid is accepted; root's credentials too are refused unless
 * we are root.  Slurm accepts root because slurmd, root, switches to the
 * job's user; rdmpi-launchd never changes user, so a daemon running as
 * root (or anyone else) would run our ranks as that user.
 */
#include "launcher.h"
#include "ctl.h"

#include <errno.h>
#include <munge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Long enough for a handshake on a loaded host; a credential that claims
 * longer was not made by us. */
#define LN_MUNGE_TTL     10
#define LN_MUNGE_TTL_MAX 60

#define PAYLOAD_MAGIC "rdmpi-c1"
#define PAYLOAD_LEN   (8 + LN_JOBID_LEN + 4 + LN_CHAL_LEN)

static void payload(const struct ln_munge_bind *b, uint8_t out[PAYLOAD_LEN])
{
    uint8_t *p = out;

    memcpy(p, PAYLOAD_MAGIC, 8), p += 8;
    memcpy(p, b->job, LN_JOBID_LEN), p += LN_JOBID_LEN;
    p[0] = (uint8_t)(b->node >> 24), p[1] = (uint8_t)(b->node >> 16);
    p[2] = (uint8_t)(b->node >> 8), p[3] = (uint8_t)b->node, p += 4;
    memcpy(p, b->nonce, LN_CHAL_LEN);
}

static munge_ctx_t ctx_new(const char *socket, char *why, size_t nwhy)
{
    munge_ctx_t ctx = munge_ctx_create();

    if (!ctx) {
        snprintf(why, nwhy, "out of memory for a munge context");
        return NULL;
    }
    if (socket && *socket && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS) {
        snprintf(why, nwhy, "cannot use munged's socket %s: %s", socket, munge_ctx_strerror(ctx));
        munge_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

int ln_munge_encode(const char *socket, const struct ln_munge_bind *b, char out[LN_CRED_MAX + 1],
                    char *why, size_t nwhy)
{
    uint8_t pl[PAYLOAD_LEN];
    char *cred = NULL;
    munge_ctx_t ctx = ctx_new(socket, why, nwhy);
    munge_err_t e;
    int rc = -EIO;

    if (!ctx)
        return -EIO;
    payload(b, pl);
    if (munge_ctx_set(ctx, MUNGE_OPT_TTL, LN_MUNGE_TTL) != EMUNGE_SUCCESS ||
        munge_ctx_set(ctx, MUNGE_OPT_UID_RESTRICTION, geteuid()) != EMUNGE_SUCCESS) {
        snprintf(why, nwhy, "cannot set the credential's options: %s", munge_ctx_strerror(ctx));
        goto out;
    }
    e = munge_encode(&cred, ctx, pl, sizeof(pl));
    if (e != EMUNGE_SUCCESS) {
        snprintf(why, nwhy, "%s",
                 munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(e));
        goto out;
    }
    if (strlen(cred) > LN_CRED_MAX) {
        snprintf(why, nwhy, "munged made a credential of %zu bytes, more than the %d accepted",
                 strlen(cred), LN_CRED_MAX);
        goto out;
    }
    snprintf(out, LN_CRED_MAX + 1, "%s", cred);
    rc = 0;
out:
    free(cred);
    munge_ctx_destroy(ctx);
    return rc;
}

int ln_munge_verify(const char *socket, const char *cred, const struct ln_munge_bind *want,
                    char *why, size_t nwhy)
{
    uint8_t pl[PAYLOAD_LEN];
    void *got = NULL;
    int len = 0, ttl = 0, rc = -EACCES;
    uid_t uid = (uid_t)-1;
    gid_t gid;
    munge_ctx_t ctx = ctx_new(socket, why, nwhy);
    munge_err_t e;

    if (!ctx)
        return -EIO;
    e = munge_decode(cred, ctx, &got, &len, &uid, &gid);
    if (e != EMUNGE_SUCCESS) {
        const char *s = munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(e);

        /* munged unreachable or failing is not the peer's fault. */
        if (e == EMUNGE_SOCKET || e == EMUNGE_TIMEOUT || e == EMUNGE_SNAFU ||
            e == EMUNGE_NO_MEMORY) {
            snprintf(why, nwhy, "munged did not check its credential: %s", s);
            rc = -EIO;
        } else {
            snprintf(why, nwhy, "munge refused its credential: %s", s);
        }
        goto out;
    }
    payload(want, pl);
    if (uid != geteuid())
        snprintf(why, nwhy, "its munge credential is uid %u's, we run as uid %u", (unsigned)uid,
                 (unsigned)geteuid());
    else if (munge_ctx_get(ctx, MUNGE_OPT_TTL, &ttl) != EMUNGE_SUCCESS || ttl > LN_MUNGE_TTL_MAX)
        snprintf(why, nwhy, "its munge credential lives %d s, at most %d s are accepted", ttl,
                 LN_MUNGE_TTL_MAX);
    else if (len != PAYLOAD_LEN || memcmp(got, PAYLOAD_MAGIC, 8))
        snprintf(why, nwhy, "its munge credential carries no rdmpi handshake (%d bytes)", len);
    else if (memcmp((uint8_t *)got + 8, pl + 8, LN_JOBID_LEN))
        snprintf(why, nwhy, "its munge credential is for another job");
    else if (memcmp((uint8_t *)got + 8 + LN_JOBID_LEN, pl + 8 + LN_JOBID_LEN, 4))
        snprintf(why, nwhy, "its munge credential is for node %u, not %u",
                 ln_get_u32((uint8_t *)got + 8 + LN_JOBID_LEN), want->node);
    else if (memcmp((uint8_t *)got + 12 + LN_JOBID_LEN, pl + 12 + LN_JOBID_LEN, LN_CHAL_LEN))
        snprintf(why, nwhy,
                 "its munge credential answers another challenge (recorded from "
                 "another connection)");
    else
        rc = 0;
out:
    free(got);
    munge_ctx_destroy(ctx);
    return rc;
}
