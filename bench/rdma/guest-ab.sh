#!/bin/bash
# Runs inside a soft-RDMA guest: an A/B of two rdmpi builds on 8 B latency.
# Per round and device: the warm floor (test/ofi/ofi_pingpong_floor rdmpi,
# from OLD), rdmpi-bench latency of OLD and of NEW (swapping places every
# other round), the floor again. Prints RESULT DEVICE ROUND WHAT MICROSECONDS.
# Start it by rdma-vm.sh run with both trees in RDMA_VM_SHARE, e.g.
#   echo "$PWD/bench/rdma/guest-ab.sh OLD NEW 8 rxe0 siw0" >ab.sh
#   RDMA_VM_SHARE=$PWD test/rdma/rdma-vm.sh run ab.sh
set -u
OLD=$1 NEW=$2 ROUNDS=$3; shift 3
T=300
res() { echo "RESULT $dev $round $1 $2"; }
verbs() { env "RDMPI_OFI_PROVIDER=verbs;ofi_rxm" RDMPI_OFI_IFACE="$dev" FI_UNIVERSE_SIZE=2 "$@"; }
lat() { # name build
    verbs RDMPI_BTL=ofi,self timeout $T "$2/launcher/mpirun" --timeout $T -n 2 \
        "$2/bench/rdmpi-bench" latency -m 8:8 -i 500 -x 50 2>/dev/null |
        awk '$1 == "8" {print $2}' | while read -r v; do res "$1" "$v"; done
}
floor() { # name
    verbs timeout $T "$OLD/launcher/mpirun" --timeout $T -n 2 "$OLD/test/ofi/ofi_pingpong_floor" rdmpi 500 \
        2>/dev/null | awk '/^pingpong/ {print $(NF-1)}' | while read -r v; do res "$1" "$v"; done
}
echo "# $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) clock; meltdown: $(cat /sys/devices/system/cpu/vulnerabilities/meltdown)"
for round in $(seq "$ROUNDS"); do
    for dev in "$@"; do
        floor floor1
        if [ $((round % 2)) = 1 ]; then lat old "$OLD"; lat new "$NEW"; else lat new "$NEW"; lat old "$OLD"; fi
        floor floor2
    done
done
