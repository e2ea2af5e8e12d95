/*
 * auth.c: the per-job secret and HMAC-SHA256 (RFC 2104, FIPS 180-4) for
 * the daemons' control connections.
 *
 * mpirun makes a random secret per job and hands it to each daemon on the
 * launch agent's standard input (never on a command line, where ps would
 * show it).  A daemon proves it knows the secret by answering mpirun's
 * random challenge with HMAC(secret, challenge || node id); the secret
 * itself never crosses the network.  A small SHA-256 of our own keeps
 * mpirun free of a crypto library.
 */
#include "launcher.h"
#include "ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

struct sha256 {
    uint32_t h[8];
    uint64_t len; /* bytes hashed */
    uint8_t buf[64];
    size_t nbuf;
};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

static void block(struct sha256 *s, const uint8_t *p)
{
    uint32_t w[64], a, b, c, d, e, f, g, h;

    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);

        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
    e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

        h = g, g = f, f = e, e = d + t1;
        d = c, c = b, b = a, a = t1 + t2;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
    s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha_init(struct sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

    memcpy(s->h, iv, sizeof(iv));
    s->len = 0;
    s->nbuf = 0;
}

static void sha_add(struct sha256 *s, const void *data, size_t n)
{
    const uint8_t *p = data;

    s->len += n;
    while (n) {
        size_t take = 64 - s->nbuf < n ? 64 - s->nbuf : n;

        memcpy(s->buf + s->nbuf, p, take);
        s->nbuf += take, p += take, n -= take;
        if (s->nbuf == 64) {
            block(s, s->buf);
            s->nbuf = 0;
        }
    }
}

static void sha_end(struct sha256 *s, uint8_t out[32])
{
    uint64_t bits = s->len * 8;
    uint8_t pad = 0x80, zero = 0, len[8];

    sha_add(s, &pad, 1);
    while (s->nbuf != 56)
        sha_add(s, &zero, 1);
    for (int i = 0; i < 8; i++)
        len[i] = (uint8_t)(bits >> (56 - 8 * i));
    sha_add(s, len, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(s->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)s->h[i];
    }
}

void ln_hmac(const void *key, size_t klen, const void *msg, size_t mlen, uint8_t out[32])
{
    uint8_t k[64] = {0}, pad[64], inner[32];
    struct sha256 s;

    if (klen > 64) {
        sha_init(&s);
        sha_add(&s, key, klen);
        sha_end(&s, k);
    } else {
        memcpy(k, key, klen);
    }
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x36;
    sha_init(&s);
    sha_add(&s, pad, 64);
    sha_add(&s, msg, mlen);
    sha_end(&s, inner);
    for (int i = 0; i < 64; i++)
        pad[i] = k[i] ^ 0x5c;
    sha_init(&s);
    sha_add(&s, pad, 64);
    sha_add(&s, inner, 32);
    sha_end(&s, out);
}

int ln_random(void *buf, size_t n)
{
    uint8_t *p = buf;

    while (n) {
        ssize_t got = getrandom(p, n, 0);

        if (got < 0) {
            if (errno == EINTR)
                continue;
            ln_err("getrandom: %s", strerror(errno));
            return -errno;
        }
        p += got, n -= (size_t)got;
    }
    return 0;
}

/* The proof for (challenge, node): HMAC(secret, challenge || node). */
void ln_auth_proof(const char secret[LN_SECRET_HEX + 1], const uint8_t chal[LN_CHAL_LEN],
                   uint32_t node, uint8_t out[32])
{
    uint8_t msg[LN_CHAL_LEN + 4];

    memcpy(msg, chal, LN_CHAL_LEN);
    for (int i = 0; i < 4; i++)
        msg[LN_CHAL_LEN + i] = (uint8_t)(node >> (24 - 8 * i));
    ln_hmac(secret, LN_SECRET_HEX, msg, sizeof(msg), out);
}

/* Constant time, so the comparison cannot be timed byte by byte. */
int ln_auth_equal(const uint8_t a[32], const uint8_t b[32])
{
    uint8_t d = 0;

    for (int i = 0; i < 32; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

int ln_secret_new(char out[LN_SECRET_HEX + 1])
{
    uint8_t raw[LN_SECRET_HEX / 2];
    static const char hex[] = "0123456789abcdef";

    if (ln_random(raw, sizeof(raw)))
        return -EIO;
    for (size_t i = 0; i < sizeof(raw); i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[LN_SECRET_HEX] = 0;
    return 0;
}
