/* What the library exports for tools/rdmpi_info (librdmpi.map keeps
 * rdmpi_info_* visible): the transports this host offers, without starting
 * MPI. The tool includes this header alone, none of the BTL's internals. */
#ifndef BTL_OFI_INFO_H
#define BTL_OFI_INFO_H

/* Receives one fact: key (transport.*) and its value. */
typedef void rdmpi_info_emit(const char *key, const char *value, void *arg);

/* Calls emit for every fact about libfabric's providers, the BTL choice
 * for local and remote peers and the RDMA devices (btl_ofi_info.c). */
void rdmpi_info_transports(rdmpi_info_emit *emit, void *arg);

#endif
