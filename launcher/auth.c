/*
 * auth.c: the per-job secret and its proofs for the daemons' control
 * connections.
 *
 * mpirun makes a random secret per job and hands it to each daemon on the
 * launch agent's standard input (never on a command line, where ps would
 * show it).  A daemon proves it knows the secret by answering mpirun's
 * random challenge, fresh for each connection, with HMAC-SHA256(secret,
 * challenge || node id), and mpirun answers the daemon's challenge the
 * same way; the secret itself never crosses the network, and a recorded
 * answer is worth nothing under the next challenge.  The HMAC, the random
 * bytes and the constant-time comparison are libsodium's: security code is
 * not ours to write.
 */
#include "launcher.h"
#include "ctl.h"

#include <errno.h>
#include <sodium.h>
#include <stdint.h>
#include <string.h>

_Static_assert(LN_SECRET_HEX / 2 == crypto_auth_hmacsha256_KEYBYTES,
               "the job's secret is one HMAC-SHA256 key");
_Static_assert(LN_PROOF_LEN == crypto_auth_hmacsha256_BYTES, "a proof is one HMAC-SHA256");

/* sodium_init is idempotent and thread-safe; it fails only when the
 * kernel's random source cannot be used. */
static int crypto_ready(void)
{
    if (sodium_init() < 0) {
        ln_err("sodium_init failed: libsodium found no usable random source");
        return -EIO;
    }
    return 0;
}

int ln_random(void *buf, size_t n)
{
    int rc = crypto_ready();

    if (rc)
        return rc;
    randombytes_buf(buf, n);
    return 0;
}

int ln_secret_new(char out[LN_SECRET_HEX + 1])
{
    uint8_t key[crypto_auth_hmacsha256_KEYBYTES];
    int rc = crypto_ready();

    if (rc)
        return rc;
    crypto_auth_hmacsha256_keygen(key);
    sodium_bin2hex(out, LN_SECRET_HEX + 1, key, sizeof(key));
    sodium_memzero(key, sizeof(key));
    return 0;
}

/* The proof for (challenge, node): HMAC-SHA256 keyed with the secret's 32
 * bytes over challenge || node (big-endian). */
int ln_auth_proof(const char secret[LN_SECRET_HEX + 1], const uint8_t chal[LN_CHAL_LEN],
                  uint32_t node, uint8_t out[LN_PROOF_LEN])
{
    uint8_t key[crypto_auth_hmacsha256_KEYBYTES], msg[LN_CHAL_LEN + 4];
    size_t klen = 0;
    int rc = crypto_ready();

    if (rc)
        return rc;
    if (sodium_hex2bin(key, sizeof(key), secret, LN_SECRET_HEX, NULL, &klen, NULL) ||
        klen != sizeof(key)) {
        sodium_memzero(key, sizeof(key));
        ln_err("ln_auth_proof: the job's secret is not %d hex digits; it comes from mpirun "
               "on the daemon's standard input",
               LN_SECRET_HEX);
        return -EINVAL;
    }
    memcpy(msg, chal, LN_CHAL_LEN);
    msg[LN_CHAL_LEN] = (uint8_t)(node >> 24), msg[LN_CHAL_LEN + 1] = (uint8_t)(node >> 16);
    msg[LN_CHAL_LEN + 2] = (uint8_t)(node >> 8), msg[LN_CHAL_LEN + 3] = (uint8_t)node;
    crypto_auth_hmacsha256(out, msg, sizeof(msg), key);
    sodium_memzero(key, sizeof(key));
    return 0;
}

/* Constant time, so the comparison cannot be timed byte by byte. */
int ln_auth_equal(const uint8_t a[LN_PROOF_LEN], const uint8_t b[LN_PROOF_LEN])
{
    return sodium_memcmp(a, b, LN_PROOF_LEN) == 0;
}
