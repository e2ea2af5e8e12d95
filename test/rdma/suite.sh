#!/bin/bash
# Runs rdmpi's MPI tests over verbs inside a soft-RDMA guest (rdma-vm.sh)
# and prints TAP, the plan last.
#
#   suite.sh BUILDDIR ci|full|LIST_FILE [DEVICE...]   one guest: every line
#       on each DEVICE (default rxe0 siw0) with RDMPI_BTL=ofi,self and the
#       verbs provider on that device
#   suite.sh BUILDDIR faults                          one guest: a device
#       deleted mid-job, ulimit -l too low, verbs with no device
#   suite.sh BUILDDIR two-a|two-b [IFACE]              two guests: a runs
#       the p2p and collective tests across both (2 ranks each, default
#       selection: sm inside a guest, verbs between; IFACE picks rxe0 or
#       siw0), b waits until a is done
#
# ci is the part .ci/run runs; full is every line of 2-4 ranks of the p2p,
# coll, comm, dt, osc, io and topo matrices that does not pick its own BTL.
set -u
B=$(cd "$1" && pwd)
MODE=$2
shift 2
S=$(cd "$(dirname "$0")/../.." && pwd)
MPIRUN=$B/launcher/mpirun
TMO=${SUITE_TIMEOUT:-900} # seconds per mpirun: emulated guests are slow
n=0
failed=0
# Crashes leave their core beside the build for t_rdma.sh to read (the
# kernel ignores RLIMIT_CORE for a pipe); only inside a guest (root, and
# rdma-vm.sh's init wrote /etc/hosts naming the guests).
if [ "$(id -u)" = 0 ] && grep -q rdmavm-a /etc/hosts 2>/dev/null; then
    mkdir -p "$B/.rdma-cores"
    echo "|$S/test/rdma/core.sh $B/.rdma-cores %h %p %E" >/proc/sys/kernel/core_pattern
fi

tap() { # STATUS DESCRIPTION
    n=$((n + 1))
    if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi
}

# Every line of each matrix that runs 2-4 ranks and leaves the BTLs alone.
full_list() {
    for d in p2p coll comm dt osc io topo; do
        grep -v '^\s*\(#\|$\)' "$S/test/$d/matrix.txt" | while read -r prog np env; do
            case $prog in mixed:*) continue ;; ring | connectivity) prog=../../examples/$prog ;; esac
            case " $env" in *" RDMPI_BTL="* | *" FI_PROVIDER="* | *" MT_BIG="*) continue ;; esac
            [ "$np" -ge 2 ] && [ "$np" -le 4 ] && echo "$d/$prog $np $env"
        done
    done
}

# The representative part: each layer once or twice, the registration
# cache, and the transport report's proof that rendezvous went by fi_read.
ci_list() {
    cat <<'EOF'
p2p/t_sizes 2
p2p/t_order 3
p2p/t_semantics 2
p2p/t_reuse 2
p2p/t_reuse 2 FI_MR_CACHE_MONITOR=memhooks
p2p/t_stress 4
coll/t_coll 3
comm/t_comm 2
dt/t_dtype 2
osc/t_rma 2
io/t_io 2
EOF
}

# job ENV... -- MPIRUN-ARGS...: one job under a safety timeout; sets rc,
# output in /tmp/suite.out and /tmp/suite.err.
job() {
    local env=()
    while [ "$1" != -- ]; do env+=("$1"); shift; done
    shift
    env "${env[@]}" timeout -k 10 $((TMO + 60)) "$MPIRUN" --timeout "$TMO" "$@" \
        >/tmp/suite.out 2>/tmp/suite.err </dev/null
    rc=$?
}

# run DESC ENV... -- MPIRUN-ARGS...: a job that must succeed.
run() {
    local desc=$1 t0=$SECONDS
    shift
    job "$@"
    tap $rc "$desc [$((SECONDS - t0)) s]"
    if [ $rc != 0 ]; then
        echo "# exit $rc"
        tail -n 30 /tmp/suite.out /tmp/suite.err | sed 's/^/# /'
    fi
}

# One device: every line, then the report and the failure cases.
one_device() {
    local dev=$1 list=$2 verbs=(RDMPI_BTL=ofi,self "RDMPI_OFI_PROVIDER=verbs;ofi_rxm"
        RDMPI_OFI_IFACE="$dev" RDMPI_COLL_SHM=0)
    while read -r prog np env; do
        # shellcheck disable=SC2086
        run "$dev: $prog -n $np ${env:-(defaults)}" "${verbs[@]}" $env -- -n "$np" "$B/test/$prog"
    done <"$list"
    # The BTL conformance suite on the verbs module, beside btl/self and
    # alone (reaching the rank itself). librdmacm, under libfabric's verbs
    # provider, keeps a descriptor per device open for the process's life,
    # so the check of descriptors left open is off (RDMPI_CONFORM_FDS=0).
    run "$dev: BTL conformance suite (t_btl_conform), ofi and self" "${verbs[@]}" \
        RDMPI_CONFORM_FDS=0 -- -n 2 "$B/test/btl/t_btl_conform"
    run "$dev: BTL conformance suite, ofi alone (itself included)" "${verbs[@]}" RDMPI_BTL=ofi \
        RDMPI_CONFORM_FDS=0 -- -n 2 "$B/test/btl/t_btl_conform"
    run "$dev: transport report, 8 rendezvous" "${verbs[@]}" RDMPI_REPORT=1 -- \
        -n 2 "$B/test/ofi/t_report" 100:4 1m:2 4m:2
    local row
    row=$(grep '^ofi ' /tmp/suite.err)
    # columns: btl ranks eager_msgs eager_bytes rndv_msgs rndv_bytes reads read_bytes ... fb_read fb_nordma
    echo "$row" | awk '{ exit !($5 == 8 && $7 >= 8 && $11 == 0 && $12 == 0) }'
    tap $? "$dev: every rendezvous went by fi_read, none fell back ($(echo "$row" | awk '{print $5 " rndv, " $7 " reads, fb " $11 "/" $12}'))"
    grep -q "verbs;ofi_rxm on .*domain $dev, \(RoCE v2, GID index [0-9]*\|iWARP\))" /tmp/suite.err
    tap $? "$dev: the report names the link ($(grep -o "domain $dev, [^)]*" /tmp/suite.err | head -n 1))"
    # A peer killed while its 64 MiB message is being read.
    local t0=$SECONDS
    job "${verbs[@]}" -- -n 2 "$B/test/ofi/t_report" --die
    [ $rc != 0 ] && [ $rc != 124 ] && grep -q "rank 1" /tmp/suite.err
    tap $? "$dev: a peer killed mid-rendezvous ends the job naming it, exit $rc [$((SECONDS - t0)) s]"
    grep "rank 1" /tmp/suite.err | head -n 2 | sed 's/^/# /'
}

# Faults on verbs: a device removed mid-job, a locked-memory limit too low
# for registration, verbs asked for with no device left.
faults() {
    local verbs=(RDMPI_BTL=ofi,self "RDMPI_OFI_PROVIDER=verbs;ofi_rxm" RDMPI_OFI_IFACE=rxe0)
    local t0 pid waited
    # A 2-rank stream of 4 MiB messages, its device deleted under it.
    env "${verbs[@]}" timeout -k 10 $((TMO + 60)) "$MPIRUN" --timeout "$TMO" -n 2 \
        "$B/test/ofi/t_report" 4m:400 >/tmp/suite.out 2>/tmp/suite.err </dev/null &
    pid=$!
    sleep 15
    t0=$SECONDS
    rdma link delete rxe0
    wait $pid
    rc=$? waited=$((SECONDS - t0))
    [ $rc != 0 ] && [ $rc != 124 ] && [ $waited -le 60 ] && grep -q "rxe0 went away" /tmp/suite.err
    tap $? "rxe0 deleted mid-job (rdma link delete): the job ends naming the device, exit $rc, ${waited} s after"
    grep -v '^#' /tmp/suite.err | head -n 4 | sed 's/^/# /'
    rdma link add rxe0 type rxe netdev eth0
    sleep 2
    # Registration against a locked-memory limit of 64 KiB; root's
    # CAP_IPC_LOCK would ignore the limit, so it is dropped first.
    t0=$SECONDS
    setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock bash -c "ulimit -l 64; exec env ${verbs[*]@Q} \
        timeout -k 10 $((TMO + 60)) $MPIRUN --timeout $TMO -n 2 $B/test/ofi/t_report 100:2 4m:2" \
        >/tmp/suite.out 2>/tmp/suite.err </dev/null
    rc=$?
    grep -q "locked-memory limit is 64 KiB (ulimit -l); raise it" /tmp/suite.err && [ $rc != 124 ]
    tap $? "ulimit -l 64: the job says to raise the locked-memory limit, exit $rc [$((SECONDS - t0)) s]"
    grep -v '^#' /tmp/suite.err | head -n 4 | sed 's/^/# /'
    # No device at all, verbs asked for by name.
    rdma link delete rxe0
    rdma link delete siw0
    t0=$SECONDS
    job RDMPI_BTL=ofi,self RDMPI_OFI_PROVIDER=verbs -- -n 2 "$B/test/ofi/t_report" 100:1
    [ $rc != 0 ] && [ $rc != 124 ] && grep -q "no RDMA device" /tmp/suite.err
    tap $? "RDMPI_OFI_PROVIDER=verbs with no device: one line naming the cause, exit $rc [$((SECONDS - t0)) s]"
    grep -v '^#' /tmp/suite.err | head -n 2 | sed 's/^/# /'
    rdma link add rxe0 type rxe netdev eth0
    rdma link add siw0 type siw netdev eth1
}

case $MODE in
faults) faults ;;
two-b)
    # Guest a drives the job over ssh; wait for its word, bounded.
    for _ in $(seq 1800); do [ -f "$B/.rdma-two-done" ] && break; sleep 1; done
    rm -f "$B/.rdma-two-done"
    exit 0
    ;;
two-a)
    iface=${1:-rxe0}
    rm -f "$B/.rdma-two-done"
    for _ in $(seq 120); do ssh -o ConnectTimeout=5 rdmavm-b true 2>/dev/null && break; sleep 2; done
    for t in "p2p/t_sizes 4" "p2p/t_order 4" "p2p/t_reuse 4" "coll/t_coll 4" "comm/t_comm 4"; do
        set -- $t
        run "two guests over $iface: $1 -n $2" -- --host rdmavm-a:2,rdmavm-b:2 -n "$2" \
            -x RDMPI_OFI_IFACE="$iface" "$B/test/$1"
    done
    run "two guests over $iface: transport report" -- --host rdmavm-a:2,rdmavm-b:2 -n 4 \
        -x RDMPI_OFI_IFACE="$iface" --report-transport "$B/test/ofi/t_report" 100:4 1m:2
    grep -q '^ofi .*verbs;ofi_rxm' /tmp/suite.err && grep -q '^sm ' /tmp/suite.err
    tap $? "two guests: sm inside a guest, verbs between ($(grep -o 'domain [^)]*' /tmp/suite.err | head -n 1))"
    touch "$B/.rdma-two-done"
    ;;
*)
    list=$(mktemp)
    case $MODE in
    ci) ci_list >"$list" ;;
    full) full_list >"$list" ;;
    *) cp "$MODE" "$list" ;;
    esac
    [ $# -gt 0 ] || set -- rxe0 siw0
    for dev in "$@"; do one_device "$dev" "$list"; done
    rm -f "$list"
    ;;
esac
echo "1..$n"
[ $failed = 0 ]
