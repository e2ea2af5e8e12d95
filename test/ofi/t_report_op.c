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
        CHECK_TRUE(mods[i]->size == sizeof(struct btl_module) && BTL_HAS(mods[i], report),
                   "%s has the report op", mods[i]->name);
    old.size = offsetof(struct btl_module, report);
    CHECK_TRUE(!BTL_HAS(&old, report), "a module built before the op is not asked for it");
    old.size = sizeof(struct btl_module);
    old.report = NULL;
    CHECK_TRUE(!BTL_HAS(&old, report), "a full-size module without the op is not asked for it");

    memset(&r, 0, sizeof(r));
    CHECK_TRUE(btl_ofi_module.report(&btl_ofi_module, &r) == -ENOENT && !r.transport[0],
               "btl/ofi not running: no report");
    memset(&r, 0, sizeof(r));
    CHECK_TRUE(btl_self_module.report(&btl_self_module, &r) == 0 &&
                   !strcmp(r.transport, "loopback within the process, by memcpy") && r.reads == 0 &&
                   r.writes == 0 && !r.extra_name[0],
               "btl/self: %s, %llu reads", r.transport, (unsigned long long)r.reads);
    memset(&r, 0, sizeof(r));
    CHECK_TRUE(btl_sm_module.report(&btl_sm_module, &r) == 0 &&
                   !strcmp(r.transport, "shared memory, no local peer") && !r.reads,
               "btl/sm without a segment: %s", r.transport);
    return tap_failed != 0;
}
