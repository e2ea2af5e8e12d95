/* The report op's contract, without a job: every compiled component opens
 * one full-size module of this interface version that offers it (btl/ofi
 * one per rail: where libfabric offers no usable provider it opens none,
 * and its checks are skipped); BTL_HAS
 * refuses a module without it; btl/ofi reports nothing while it is not
 * running; self and sm always fill theirs (the counts are checked under
 * mpirun by t_report.sh). */
#include "config.h"

#include "btl.h"
#include "ofi/btl_ofi.h"
#include "self/btl_self.h"
#include "sm/btl_sm.h"
#include "tap.h"

#include <string.h>

int main(void)
{
    struct btl_component *comps[] = {&btl_self_component, &btl_sm_component, &btl_ofi_component};
    struct btl_module *mods[3], old;
    struct btl_report r;
    int n[3];

    plan(7);
    for (size_t i = 0; i < sizeof(comps) / sizeof(comps[0]); i++)
        n[i] = comps[i]->open(comps[i], &mods[i], 1);
    for (size_t i = 0; i < sizeof(comps) / sizeof(comps[0]); i++)
        if (i == 2 && !n[i])
            skip("btl/ofi: libfabric offers no usable provider here");
        else
            CHECK_ALL ("%s opens one module with the report op", comps[i]->name) {
                CHECK_EQ_INT(n[i], 1);
                CHECK_EQ_LONG(mods[i]->size, sizeof(struct btl_module));
                CHECK_EQ_INT(mods[i]->version, BTL_IFACE_VERSION);
                CHECK_TRUE(BTL_HAS(mods[i], report));
            }
    old = *mods[0];
    old.report = NULL;
    CHECK_TRUE(!BTL_HAS(&old, report), "a module without the op is not asked for it");

    memset(&r, 0, sizeof(r));
    if (!n[2])
        skip("btl/ofi: no module");
    else
        CHECK_ALL ("btl/ofi not running: no report") {
            CHECK_EQ_INT(mods[2]->report(mods[2], &r), -ENOENT);
            CHECK_TRUE(!r.transport[0]);
        }
    memset(&r, 0, sizeof(r));
    CHECK_ALL ("btl/self: %s, %llu reads", r.transport, (unsigned long long)r.reads) {
        CHECK_EQ_INT(mods[0]->report(mods[0], &r), 0);
        CHECK_EQ_STR(r.transport, "loopback within the process, by memcpy");
        CHECK_EQ_LONG(r.reads, 0);
        CHECK_EQ_LONG(r.writes, 0);
        CHECK_TRUE(!r.extra_name[0]);
    }
    memset(&r, 0, sizeof(r));
    CHECK_ALL ("btl/sm without a segment: %s", r.transport) {
        CHECK_EQ_INT(mods[1]->report(mods[1], &r), 0);
        CHECK_EQ_STR(r.transport, "shared memory, no local peer");
        CHECK_TRUE(!r.reads);
    }
    for (size_t i = 0; i < sizeof(comps) / sizeof(comps[0]); i++)
        comps[i]->close(comps[i]);
    return tap_failed != 0;
}
