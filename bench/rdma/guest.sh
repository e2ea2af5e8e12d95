#!/bin/bash
# Runs inside a soft-RDMA guest (test/rdma/rdma-vm.sh), started by
# bench/rdma/compare: for ROUNDS rounds, on each device, one run each of
# the device's own tools and of rdmpi and the peers, interleaved, and one
# result line per run on stdout:
#   RESULT DEVICE ROUND WHAT SIZE VALUE UNIT
# Arguments: RDMPI_BUILD BIN_DIR ROUNDS DEVICE...
# (BIN_DIR holds rdmpi-bench.openmpi and rdmpi-bench.mpich.)
set -u
B=$1 BIN=$2 ROUNDS=$3
shift 3
T=180 PT=60
lat_args="-m 8:8 -i 2000 -x 200"
bw_args="-m 1048576:4194304 -i 50 -x 10 -W 8"

result() { echo "RESULT $dev $round $1 $2 $3 $4"; }

# pair SERVER-CMD -- CLIENT-CMD: a device tool's server and client; the
# client's output in /tmp/cli.
pair() {
    local srv=()
    while [ "$1" != -- ]; do srv+=("$1"); shift; done
    shift
    timeout $T "${srv[@]}" >/tmp/srv 2>&1 &
    local sp=$!
    sleep 3
    timeout $T "$@" >/tmp/cli 2>&1
    wait $sp
}

ip_of() { [ "$1" = rxe0 ] && echo "$RXE_IP" || echo "$SIW_IP"; }

rdmpi() { # ARGS...: rdmpi-bench over verbs on $dev
    env RDMPI_BTL=ofi,self "RDMPI_OFI_PROVIDER=verbs;ofi_rxm" RDMPI_OFI_IFACE="$dev" \
        timeout $T "$B/launcher/mpirun" --timeout $T -n 2 "$B/bench/rdmpi-bench" "$@" 2>/dev/null
}

# peer NAME CMD...: a peer's run; its output on stdout, and when it fails
# the first lines of its errors as comments (it may not run on this device).
# A peer that failed once on a device is not tried again there.
peer() {
    local name=$1
    shift
    [ -f "/tmp/failed.$name.$dev" ] && return
    timeout $PT "$@" 2>/tmp/peer.err
    local rc=$?
    if [ $rc != 0 ]; then
        touch "/tmp/failed.$name.$dev"
        # The first lines that are not backtrace frames say why.
        { echo "# $name on $dev: exit $rc"; grep -v -E '^ *[0-9]+ |\] \[ *[0-9]+\]' /tmp/peer.err |
            head -n 6 | sed 's/^/#   /'; } >&2
    fi
}
# Peers over UCX (rc_verbs); UCX has no iWARP transport, so rxe only.
ompi_ucx() {
    peer ompi_ucx mpirun.openmpi --allow-run-as-root -n 2 --mca pml ucx --mca btl self \
        -x UCX_NET_DEVICES="$dev:1" -x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_UD_TIMEOUT=600s "$BIN/rdmpi-bench.openmpi" "$@"
}
# Open MPI refuses mtl_ofi_provider_include beside _exclude (mutually
# exclusive variables), so FI_PROVIDER names the provider.
ompi_ofi() {
    peer ompi_ofi mpirun.openmpi --allow-run-as-root -n 2 --mca pml cm --mca mtl ofi \
        --mca mtl_ofi_provider_exclude "" -x FI_PROVIDER="verbs;ofi_rxm" \
        -x FI_VERBS_DEVICE_NAME="$dev" -x FI_UNIVERSE_SIZE=2 "$BIN/rdmpi-bench.openmpi" "$@"
}
mpich_ucx() {
    peer mpich_ucx mpirun.mpich -n 2 -genv UCX_NET_DEVICES "$dev:1" -genv UCX_TLS rc_verbs,ud_verbs,self -genv UCX_UD_TIMEOUT 600s \
        "$BIN/rdmpi-bench.mpich" "$@"
}

# bench_rows WHAT: rdmpi-bench's "SIZE VALUE" lines on stdin as results.
bench_rows() {
    local what=$1 unit=$2
    awk '!/^#/ && NF >= 2 && $1 ~ /^[0-9]+$/ {print $1, $2}' | while read -r s v; do
        result "$what" "$s" "$v" "$unit"
    done
}

for round in $(seq "$ROUNDS"); do
    for dev in "$@"; do
        ip=$(ip_of "$dev")
        # libfabric's own ping-pong over the same provider and device. Over
        # RDM it has no warm-up: its first message also sets up the rxm
        # connection (about a second here). So it runs 1000 and 21000
        # round trips, and the latency is the difference of their times
        # over the difference of their messages.
        for it in 1000 21000; do
            pair env FI_UNIVERSE_SIZE=2 fi_pingpong -p "verbs;ofi_rxm" -e rdm -d "$dev" -S 8 -I $it -- \
                env FI_UNIVERSE_SIZE=2 fi_pingpong -p "verbs;ofi_rxm" -e rdm -d "$dev" -S 8 -I $it "$ip"
            awk -v it=$it '$1 == "8" {print it, $(NF-1)}' /tmp/cli | head -n 1
        done | awk '{t[NR] = 2 * $1 * $2; x[NR] = 2 * $1} END {
            if (NR == 2 && x[2] > x[1]) printf "%.3f\n", (t[2] - t[1]) / (x[2] - x[1]) }' |
            while read -r v; do result fi_pingpong 8 "$v" us; done
        # The same over a connected verbs endpoint (no rxm): the floor
        # under rxm, timed after the connection is up.
        pair fi_pingpong -p verbs -e msg -d "$dev" -S 8 -I 5000 -- \
            fi_pingpong -p verbs -e msg -d "$dev" -S 8 -I 5000 "$ip"
        awk '$1 == "8" {print $(NF-1)}' /tmp/cli | head -n 1 |
            while read -r v; do result fi_pingpong_msg 8 "$v" us; done
        # The floor after a warm-up, as fi_pingpong sends and with btl/ofi's
        # provider features (FI_SOURCE, RMA caps, CQ data or the prefix).
        for m in plain rdmpi; do
            env "RDMPI_OFI_PROVIDER=verbs;ofi_rxm" RDMPI_OFI_IFACE="$dev" FI_UNIVERSE_SIZE=2 \
                timeout $T "$B/launcher/mpirun" --timeout $T -n 2 "$B/test/ofi/ofi_pingpong_floor" \
                $m 5000 2>/dev/null | awk '/^pingpong/ {print $(NF-1)}' |
                while read -r v; do result floor_$m 8 "$v" us; done
        done
        rdmpi latency $lat_args | bench_rows rdmpi_lat us
        # Reads at the verbs level (perftest) and through libfabric alone.
        for s in 1048576 4194304; do
            if [ "$dev" = rxe0 ]; then
                pair ib_read_bw -d "$dev" -x "$RXE_GID" -s $s -n 100 -- ib_read_bw -d "$dev" -x "$RXE_GID" -s $s -n 100 "$ip"
            else
                pair ib_read_bw -d "$dev" -R -s $s -n 100 -- ib_read_bw -d "$dev" -R -s $s -n 100 "$ip"
            fi
            awk -v s=$s '$1 == s && NF >= 4 {print $4}' /tmp/cli | head -n 1 |
                while read -r v; do result ib_read_bw $s "$v" MB/s; done
        done
        env "RDMPI_OFI_PROVIDER=verbs;ofi_rxm" RDMPI_OFI_IFACE="$dev" FI_UNIVERSE_SIZE=2 \
            timeout $T "$B/launcher/mpirun" --timeout $T -n 2 "$B/test/ofi/ofi_read_floor" 2>/dev/null |
            awk '/^read/ {print $2 * 1048576, $4}' | while read -r s v; do result fi_read $s "$v" MB/s; done
        rdmpi bw $bw_args | bench_rows rdmpi_bw MB/s
        # The same without libfabric's registration cache: what it saves;
        # and with each message read in 1 MiB pieces, several in flight.
        FI_MR_CACHE_MAX_COUNT=0 rdmpi bw $bw_args | bench_rows rdmpi_bw_nocache MB/s
        RDMPI_PML_GET_CHUNK=1m rdmpi bw $bw_args | bench_rows rdmpi_bw_chunk1m MB/s
        if [ "$dev" = rxe0 ]; then
            ompi_ucx latency $lat_args | bench_rows ompi_ucx_lat us
            ompi_ucx bw $bw_args | bench_rows ompi_ucx_bw MB/s
            mpich_ucx latency $lat_args | bench_rows mpich_ucx_lat us
            mpich_ucx bw $bw_args | bench_rows mpich_ucx_bw MB/s
        fi
        ompi_ofi latency $lat_args | bench_rows ompi_ofi_lat us
        ompi_ofi bw $bw_args | bench_rows ompi_ofi_bw MB/s
    done
done
