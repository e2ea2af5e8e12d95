/* Loads libfabric on first use and forwards its exported functions; see
 * btl_ofi_dl.h for why it is not linked. */
#include "config.h"

#include "btl_ofi_dl.h"
#include "log.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#define LIBFABRIC "libfabric.so.1"

static struct {
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
    uint32_t (*version)(void);
    char *(*tostr)(const void *, enum fi_type);
} fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -ENOSYS;

static void load(void)
{
    void *h = dlopen(LIBFABRIC, RTLD_NOW | RTLD_LOCAL);

    if (!h) {
        rt_warn("btl/ofi: cannot load %s (%s); install the Debian package libfabric1, or "
                "leave ofi out with RDMPI_BTL=^ofi",
                LIBFABRIC, dlerror());
        return;
    }
#define SYM(name) (*(void **)&fn.name = dlsym(h, "fi_" #name))
    if (!SYM(getinfo) || !SYM(freeinfo) || !SYM(dupinfo) || !SYM(fabric) || !SYM(strerror) ||
        !SYM(version) || !SYM(tostr)) {
        rt_warn("btl/ofi: %s lacks a function rdmpi needs (%s)", LIBFABRIC, dlerror());
        return;
    }
#undef SYM
    loaded = 0;
}

int btl_ofi_dl_open(void)
{
    pthread_once(&once, load);
    return loaded;
}

/* Without libfabric, every entry point fails as libfabric would when it
 * finds no provider. */
int btl_ofi_dl_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
                       const struct fi_info *hints, struct fi_info **info)
{
    if (btl_ofi_dl_open())
        return -FI_ENODATA;
    return fn.getinfo(version, node, service, flags, hints, info);
}

void btl_ofi_dl_freeinfo(struct fi_info *info)
{
    if (!btl_ofi_dl_open())
        fn.freeinfo(info);
}

struct fi_info *btl_ofi_dl_dupinfo(const struct fi_info *info)
{
    return btl_ofi_dl_open() ? NULL : fn.dupinfo(info);
}

int btl_ofi_dl_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    if (btl_ofi_dl_open())
        return -FI_ENODATA;
    return fn.fabric(attr, fabric, context);
}

const char *btl_ofi_dl_strerror(int errnum)
{
    return btl_ofi_dl_open() ? "libfabric not loaded" : fn.strerror(errnum);
}

uint32_t btl_ofi_dl_version(void)
{
    return btl_ofi_dl_open() ? 0 : fn.version();
}

char *btl_ofi_dl_tostr(const void *data, enum fi_type datatype)
{
    return btl_ofi_dl_open() ? NULL : fn.tostr(data, datatype);
}
