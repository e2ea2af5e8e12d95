/* The report op's contract, without a job: every compiled BTL offers it in
 * a full-size table; BTL_HAS refuses a module built against the table
 * before the op existed (size-prefixed compatibility); btl/ofi reports
 * nothing while it is not running; self and sm always fill theirs (the
 * counts are checked under mpirun by t_report.sh). */
#include "config.h"

#include "btl.h"
#include "ofi/btl_ofi.h"
#include "self/btl_self.h"
#include "sm/btl_sm.h"
#include "tap.h"

#include <string.h>

int main(void)
{
    struct btl_module *mods[] = {&btl_self_module, &btl_sm_module, &btl_ofi_module};
    struct btl_module old = btl_self_module;
    struct btl_report r;

    plan(8);
    for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
        CHECK_ALL ("%s has the report op", mods[i]->name) {
            CHECK_EQ_LONG(mods[i]->size, sizeof(struct btl_module));
            CHECK_TRUE(BTL_HAS(mods[i], report));
        }
    old.size = offsetof(struct btl_module, report);
    CHECK_TRUE(!BTL_HAS(&old, report), "a module built before the op is not asked for it");
    old.size = sizeof(struct btl_module);
    old.report = NULL;
    CHECK_TRUE(!BTL_HAS(&old, report), "a full-size module without the op is not asked for it");

    memset(&r, 0, sizeof(r));
    CHECK_ALL ("btl/ofi not running: no report") {
        CHECK_EQ_INT(btl_ofi_module.report(&btl_ofi_module, &r), -ENOENT);
        CHECK_TRUE(!r.transport[0]);
    }
    memset(&r, 0, sizeof(r));
    CHECK_ALL ("btl/self: %s, %llu reads", r.transport, (unsigned long long)r.reads) {
        CHECK_EQ_INT(btl_self_module.report(&btl_self_module, &r), 0);
        CHECK_EQ_STR(r.transport, "loopback within the process, by memcpy");
        CHECK_EQ_LONG(r.reads, 0);
        CHECK_EQ_LONG(r.writes, 0);
        CHECK_TRUE(!r.extra_name[0]);
    }
    memset(&r, 0, sizeof(r));
    CHECK_ALL ("btl/sm without a segment: %s", r.transport) {
        CHECK_EQ_INT(btl_sm_module.report(&btl_sm_module, &r), 0);
        CHECK_EQ_STR(r.transport, "shared memory, no local peer");
        CHECK_TRUE(!r.reads);
    }
    return tap_failed != 0;
}
