/* libfabric is opened when the ofi BTL first needs it, never linked into
 * librdmpi: loading it pulls in libpsm_infinipath, whose constructor alone
 * costs about 200 ms, and a job on one host never uses the network.
 *
 * The few functions libfabric exports (everything else goes through its
 * ops tables) are renamed here to wrappers that load it on first call.
 * This header must come before any <rdma/...> header, so the renaming
 * also covers the inline functions those headers define. */
#ifndef BTL_OFI_DL_H
#define BTL_OFI_DL_H

#define fi_getinfo  btl_ofi_dl_getinfo
#define fi_freeinfo btl_ofi_dl_freeinfo
#define fi_dupinfo  btl_ofi_dl_dupinfo
#define fi_fabric   btl_ofi_dl_fabric
#define fi_strerror btl_ofi_dl_strerror
#define fi_version  btl_ofi_dl_version
#define fi_tostr    btl_ofi_dl_tostr

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

/* 0, or -ENOSYS with a message logged when libfabric cannot be loaded. */
int btl_ofi_dl_open(void);

#endif
