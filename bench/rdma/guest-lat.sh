#!/bin/bash
# Runs inside a soft-RDMA guest, started by `bench/rdma/compare -m lat`:
# per round and device, rdmpi's 8 B latency between the two warm
# libfabric ping-pongs (test/ofi/ofi_pingpong_floor plain and rdmpi),
# their order swapped every other round, and on iWARP the 4 MiB rendezvous with the
# read fence on and off. Short rounds, many of them: under emulation the
# host's placement changes latency by 2x within a minute, so only medians
# of per-round ratios mean anything. Result lines as guest.sh prints them.
# Arguments: RDMPI_BUILD BIN_DIR ROUNDS DEVICE...
set -u
B=$1 ROUNDS=$3
shift 3
T=240

result() { echo "RESULT $dev $round $1 $2 $3 $4"; }
verbs() { env "RDMPI_OFI_PROVIDER=verbs;ofi_rxm" RDMPI_OFI_IFACE="$dev" FI_UNIVERSE_SIZE=2 "$@"; }
lat() {
    verbs RDMPI_BTL=ofi,self timeout $T "$B/launcher/mpirun" --timeout $T -n 2 \
        "$B/bench/rdmpi-bench" latency -m 8:8 -i 3000 -x 300 2>/dev/null |
        awk '$1 == "8" {print $2}' | while read -r v; do result rdmpi_lat 8 "$v" us; done
}
floor() {
    verbs timeout $T "$B/launcher/mpirun" --timeout $T -n 2 "$B/test/ofi/ofi_pingpong_floor" "$1" 3000 \
        2>/dev/null | awk '/^pingpong/ {print $(NF-1)}' | while read -r v; do result "floor_$1" 8 "$v" us; done
}
bw_fence() {
    verbs RDMPI_BTL=ofi,self RDMPI_OFI_READ_FENCE="$1" timeout $T "$B/launcher/mpirun" --timeout $T -n 2 \
        "$B/bench/rdmpi-bench" bw -m 4194304:4194304 -i 30 -x 5 -W 8 2>/dev/null |
        awk '$1 == "4194304" {print $2}' | while read -r v; do result "rdmpi_bw_fence$1" 4194304 "$v" MB/s; done
}

for round in $(seq "$ROUNDS"); do
    for dev in "$@"; do
        if [ $((round % 2)) = 1 ]; then
            floor plain; lat; floor rdmpi
        else
            floor rdmpi; lat; floor plain
        fi
        [ "$dev" = siw0 ] && { bw_fence 1; bw_fence 0; }
    done
done
