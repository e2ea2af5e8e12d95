#!/bin/sh
# Runs a test program with transports that differ by rank: ranks 0 and 1
# may use sm, the others only ofi, so some pairs talk over sm and some
# over libfabric in one job (ANY_SOURCE receives then span both).
case "$PMIX_RANK" in
    0|1) RDMPI_BTL=self,sm,ofi ;;
    *) RDMPI_BTL=self,ofi ;;
esac
export RDMPI_BTL
exec "$@"
