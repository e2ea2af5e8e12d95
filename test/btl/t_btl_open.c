/* btl_open_all's contract, with a test component and no job: modules come
 * back by exclusivity then latency, each with the opener's error callback;
 * a module of another interface version or size, and a component of
 * another version, are refused and the rest still open; btl_error reaches
 * the callback with the peer, the error and the formatted message, and
 * hands the error back; btl_close_all closes what was opened. */
#include "config.h"

#include "btl.h"
#include "btl_test.h"
#include "tap.h"

#include <errno.h>
#include <string.h>

static struct btl_module mods[5];
static int closes, seen_peer, seen_err;
static struct btl_module *seen_btl;
static char seen_what[128];

static struct btl_module module(const char *name, int excl, uint32_t lat)
{
    return (struct btl_module){.size = sizeof(struct btl_module),
                               .version = BTL_IFACE_VERSION,
                               .name = name,
                               .exclusivity = excl,
                               .latency_ns = lat};
}

static int open_five(struct btl_component *c, struct btl_module **out, int max)
{
    struct btl_module *list[] = {&mods[0], &mods[1], &mods[2], &mods[3], &mods[4]};
    int n = max < 5 ? max : 5;

    (void)c;
    mods[0] = module("slow-rail", 100, 3000);
    mods[1] = module("loopback", 1000, 20);
    mods[2] = module("fast-rail", 100, 1500);
    mods[3] = module("old", 100, 10);
    mods[3].version = BTL_IFACE_VERSION - 1;
    mods[4] = module("short", 100, 10);
    mods[4].size = offsetof(struct btl_module, report);
    memcpy(out, list, sizeof(*out) * (size_t)n);
    return n;
}

static void close_five(struct btl_component *c)
{
    (void)c;
    closes++;
}

static void on_error(struct btl_module *btl, int peer, int err, const char *what)
{
    seen_btl = btl;
    seen_peer = peer;
    seen_err = err;
    snprintf(seen_what, sizeof(seen_what), "%s", what);
}

static struct btl_component comp = {.size = sizeof(struct btl_component),
                                    .version = BTL_IFACE_VERSION,
                                    .name = "test",
                                    .open = open_five,
                                    .close = close_five};

int main(void)
{
    struct btl_module **m;
    int n = -1;

    plan(5);
    btl_test_install(&comp);
    CHECK_ALL ("modules by exclusivity, then latency; other interfaces refused") {
        CHECK_EQ_INT(btl_open_all(&m, &n, on_error), 0);
        CHECK_EQ_INT(n, 3);
        if (n == 3) {
            CHECK_EQ_STR(m[0]->name, "loopback");
            CHECK_EQ_STR(m[1]->name, "fast-rail");
            CHECK_EQ_STR(m[2]->name, "slow-rail");
        }
    }
    CHECK_ALL ("each module has the opener's error callback") {
        for (int i = 0; i < n; i++)
            CHECK_TRUE(m[i]->error == on_error);
    }
    CHECK_ALL ("btl_error: peer, error and message reach the callback: %s", seen_what) {
        CHECK_EQ_INT(
            btl_error(&mods[2], 3, -EIO, "btl/test: a %d-byte send to rank %d failed", 8, 3), -EIO);
        CHECK_TRUE(seen_btl == &mods[2]);
        CHECK_EQ_INT(seen_peer, 3);
        CHECK_EQ_INT(seen_err, -EIO);
        CHECK_EQ_STR(seen_what, "btl/test: a 8-byte send to rank 3 failed");
    }
    btl_close_all();
    CHECK_EQ_INT(closes, 1, "btl_close_all closes the component once");

    comp.version = BTL_IFACE_VERSION + 1;
    CHECK_ALL ("a component of another version opens nothing") {
        CHECK_EQ_INT(btl_open_all(&m, &n, on_error), 0);
        CHECK_EQ_INT(n, 0);
    }
    btl_close_all();
    return tap_failed != 0;
}
