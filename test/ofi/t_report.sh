#!/bin/sh
# The transport report (mpirun --report-transport, RDMPI_REPORT=1) over sm,
# over ofi (tcp;ofi_rxm and shm), and mixed: one table for the job with the
# right BTL/provider rows and counts that match the traffic t_report sends
# (eager vs rendezvous across the eager limit, RDMA reads, RDMA writes when
# RDMPI_PML_RNDV=write, fallbacks when forced); the verbosity-1 choice lines; a peer dying mid-transfer over ofi.
. "$top_srcdir/test/tap.sh"
t="$top_builddir/test/ofi/t_report"
plan 38

# val BTL COLUMN: a number from the report table in $err (first row of BTL).
val() {
    echo "$err" | awk -v b="$1" -v c="$2" '
        $1 == "btl" && $2 == "ranks" { for (i = 1; i <= NF; i++) col[$i] = i; next }
        (c in col) && $1 == b { print $col[c]; exit }'
}
# transport BTL: the row's transport text.
transport() {
    echo "$err" | awk -v b="$1" '
        $1 == "btl" && $2 == "ranks" { for (i = 1; i <= NF; i++) if ($i == "transport") k = i; next }
        k && $1 == b && $2 ~ /^[0-9]+$/ { for (i = 1; i < k; i++) sub(/^[^ ]+ +/, ""); print; exit }'
}
# expect DESC BTL COLUMN=VALUE...: every column equals its value (>=N: at least).
expect() {
    desc=$1 b=$2 good=0
    shift 2
    for kv in "$@"; do
        c=${kv%%=*} want=${kv#*=} got=$(val "$b" "$c")
        case $want in
            ">="*) [ -n "$got" ] && [ "$got" -ge "${want#>=}" ] ;;
            *) [ "$got" = "$want" ] ;;
        esac || { good=1; diag "$b $c: got '${got}', want $want"; }
    done
    ok $good "$desc"
}
tables() { echo "$err" | grep -c "^rdmpi transport report: "; }
# split DESC BTL N BYTES: N messages above the eager limit went by rendezvous
# (besides any eager-sized ones out of credits, fb_credit), with at least
# BYTES; one RDMA read each, and reads plus the senders' writes (split
# rendezvous over sm) moved every rendezvous byte; no other fallback.
split() {
    desc=$1 b=$2 n=$3 bytes=$4
    rm=$(val "$b" rndv_msgs) rb=$(val "$b" rndv_bytes) fc=$(val "$b" fb_credit)
    rd=$(val "$b" reads) r=$(val "$b" read_bytes) w=$(val "$b" write_bytes)
    [ -n "$rm" ] && [ $((rm - fc)) -eq "$n" ] && [ "$rb" -ge "$bytes" ] && [ "$rd" -eq "$rm" ] &&
        [ $((r + w)) -eq "$rb" ] && [ "$(val "$b" fb_read)" = 0 ] && [ "$(val "$b" fb_nordma)" = 0 ]
    ok $? "$desc"
    [ $? -eq 0 ] || diag "$b: rndv_msgs $rm, rndv_bytes $rb, fb_credit $fc, reads $rd of $r bytes, $w bytes written"
}

# sm: 4096 + 16 bytes of header is the eager limit, 4097 goes by rendezvous.
run "$MPIRUN" --timeout 60 --report-transport -n 2 "$t" 4096:10 4097:5 1m:2
[ $rc -eq 0 ] && [ "$(tables)" -eq 1 ] && echo "$err" | grep -q "^rdmpi transport report: 2 ranks on 1 host"
ok $? "sm: one table for the job, printed once"
[ $rc -eq 0 ] || diag "exit $rc" "$err"
expect "sm: counts from both ranks" sm ranks=2 eager_msgs='>=20'
split "sm: eager/rendezvous split at the eager limit, a CMA read per rendezvous" sm 14 \
    $((2 * (5 * 4097 + 2 * 1048576)))
transport sm | grep -q "^shared memory rings of .* KiB, single copy by process_vm_readv$"
ok $? "sm: the transport says single copy by process_vm_readv"
expect "self: each rank's message to itself" self ranks=2 eager_msgs=2 eager_bytes=200
[ -z "$(val ofi ranks)" ]
ok $? "sm: no ofi row on a one-host job"

# The split rendezvous: from RDMPI_PML_SPLIT_MIN (32 KiB) when the receiver
# sends its peer no rendezvous of its own, else from ..._BUSY_MIN (1 MiB).
run "$MPIRUN" --timeout 60 --report-transport -n 2 "$t" --crossed 64k
expect "sm: crossed 64 KiB messages: split only by the receiver that sends none" sm \
    rndv_msgs=2 reads=2 writes=1 write_bytes=32768
run env RDMPI_PML_SPLIT_BUSY_MIN=64k "$MPIRUN" --timeout 60 --report-transport -n 2 "$t" \
    --crossed 64k
expect "sm: RDMPI_PML_SPLIT_BUSY_MIN=64k splits both" sm rndv_msgs=2 writes=2 write_bytes=65536
run "$MPIRUN" --timeout 60 --report-transport -n 2 "$t" --crossed 16k
expect "sm: crossed 16 KiB messages: neither split" sm rndv_msgs=2 reads=2 writes=0

run "$MPIRUN" --timeout 60 -n 2 "$t" 100:2
[ $rc -eq 0 ] && [ "$(tables)" -eq 0 ]
ok $? "no table unless asked for"

# ofi over tcp;ofi_rxm: eager limit 64 KiB.
run env RDMPI_BTL=ofi,self FI_PROVIDER=tcp RDMPI_REPORT=1 "$MPIRUN" --timeout 60 -n 2 "$t" \
    65520:4 65521:3 1m:2
[ $rc -eq 0 ] && [ "$(tables)" -eq 1 ]
ok $? "tcp: one table"
[ $rc -eq 0 ] || diag "exit $rc" "$err"
transport ofi | grep -q "^tcp;ofi_rxm on .* (fabric .*, domain .*, Ethernet (TCP))$"
ok $? "tcp: the row names provider, interface, fabric, domain and link"
expect "tcp: counts from both ranks, nothing written" ofi ranks=2 writes=0
split "tcp: split at 64 KiB, one fi_read per rendezvous" ofi 10 $((2 * (3 * 65521 + 2 * 1048576)))
echo "$err" | grep -q "^ *also: fi_inject [0-9]*, provider EAGAIN [0-9]*, rdma errors 0, reg errors 0, read fence 0$"
ok $? "tcp: btl/ofi's own counters follow its row"
# wrote DESC BTL N BYTES: the receivers asked for writes (RDMPI_PML_RNDV=
# write): N rendezvous of BYTES, one fi_write each, no read, no fallback.
wrote() {
    desc=$1 b=$2 n=$3 bytes=$4
    rm=$(val "$b" rndv_msgs) rb=$(val "$b" rndv_bytes) wr=$(val "$b" writes) w=$(val "$b" write_bytes)
    [ $rc -eq 0 ] && [ "$rm" -eq "$n" ] && [ "$rb" -eq "$bytes" ] && [ "$wr" -eq "$rm" ] &&
        [ "$w" -eq "$rb" ] && [ "$(val "$b" reads)" = 0 ] && [ "$(val "$b" fb_read)" = 0 ] &&
        [ "$(val "$b" fb_nordma)" = 0 ]
    ok $? "$desc"
    [ $? -eq 0 ] || diag "exit $rc; $b: rndv_msgs $rm, rndv_bytes $rb, writes $wr of $w bytes" "$err"
}
run env RDMPI_BTL=ofi,self FI_PROVIDER=tcp RDMPI_PML_RNDV=write RDMPI_REPORT=1 "$MPIRUN" \
    --timeout 60 -n 2 "$t" 65520:4 65521:3 1m:2
wrote "tcp: RDMPI_PML_RNDV=write: one fi_write per rendezvous, no read, no fallback" ofi 10 \
    $((2 * (3 * 65521 + 2 * 1048576)))
run env RDMPI_BTL=ofi,self FI_PROVIDER=shm RDMPI_PML_RNDV=write RDMPI_REPORT=1 "$MPIRUN" \
    --timeout 60 -n 3 "$t" 4080:10 4081:5 1m:2
wrote "shm: RDMPI_PML_RNDV=write: the same" ofi 21 $((3 * (5 * 4081 + 2 * 1048576)))
# Non-contiguous types (t_torture) under auto: sends of a derived type
# are written through staging chunks, receives into one read through them;
# nothing falls back to the copy pipeline.
run env RDMPI_BTL=ofi,self FI_PROVIDER=shm RDMPI_REPORT=1 "$MPIRUN" --timeout 120 -n 2 \
    "$top_builddir/test/dt/t_torture"
[ $rc -eq 0 ] && [ "$(val ofi reads)" -gt 0 ] && [ "$(val ofi writes)" -gt 0 ] &&
    [ "$(val ofi fb_read)" = 0 ] && [ "$(val ofi fb_nordma)" = 0 ]
ok $? "shm: derived types by staged reads ($(val ofi reads)) and writes ($(val ofi writes)), no fallback"
[ $rc -eq 0 ] || diag "exit $rc" "$err"
# The read fence (on by itself on iWARP): traffic both ways, every byte
# checked by t_stress, with sends held while reads from their peer run.
run env RDMPI_BTL=ofi,self FI_PROVIDER=tcp RDMPI_OFI_READ_FENCE=1 RDMPI_REPORT=1 "$MPIRUN" \
    --timeout 60 -n 2 "$top_builddir/test/p2p/t_stress"
n=$(echo "$err" | sed -n 's/^ *also: .*, read fence \([0-9]*\)$/\1/p')
[ $rc -eq 0 ] && [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$(val ofi fb_read)" = 0 ] && [ "$(val ofi reads)" -gt 0 ]
ok $? "tcp: RDMPI_OFI_READ_FENCE=1 holds sends behind reads ($n times) and loses nothing"
[ $rc -eq 0 ] || diag "exit $rc" "$err"
[ -z "$(val sm ranks)" ]
ok $? "tcp: no sm row when RDMPI_BTL leaves it out"

# ofi over shm: eager limit 4 KiB.
run env RDMPI_BTL=ofi,self FI_PROVIDER=shm RDMPI_REPORT=1 "$MPIRUN" --timeout 60 -n 3 "$t" \
    4080:10 4081:5 1m:2
[ $rc -eq 0 ] || diag "exit $rc" "$err"
transport ofi | grep -q "^shm on shm (fabric shm, domain shm, shared memory)$"
ok $? "shm: the row names the shm provider"
expect "shm: counts from the 3 ranks" ofi ranks=3 eager_msgs='>=10'
split "shm: split at 4 KiB, one fi_read per rendezvous" ofi 21 $((3 * (5 * 4081 + 2 * 1048576)))

# Mixed: ranks 0-1 reach each other over sm, every other pair over ofi; in
# the ring 0->1 is sm, 1->2, 2->3 and 3->0 are ofi.
run env FI_PROVIDER=tcp RDMPI_REPORT=1 RDMPI_VERBOSE=1 "$MPIRUN" --timeout 60 -n 4 \
    "$top_srcdir/test/p2p/mixed.sh" "$t" 100:10 1m:2
[ $rc -eq 0 ] && [ "$(tables)" -eq 1 ]
ok $? "mixed: one table"
[ $rc -eq 0 ] || diag "exit $rc" "$err"
[ "$(val sm ranks)" = 2 ] && [ "$(val ofi ranks)" = 4 ]
ok $? "mixed: the sm row counts 2 ranks, the ofi row 4"
split "mixed: sm row for the pair on sm" sm 2 $((2 * 1048576))
split "mixed: ofi row for the pairs on ofi" ofi 6 $((6 * 1048576))
expect "mixed: self row" self ranks=4 eager_msgs=4
echo "$err" | grep -q "^rdmpi\[0\]: pml: rank 0 and the ranks like it on .* (opened self,sm,ofi from RDMPI_BTL=self,sm,ofi) reach itself by self (.*); 1 rank by sm (shared memory .*); 2 ranks by ofi (tcp;ofi_rxm on .*): each peer takes" &&
    echo "$err" | grep -q "^rdmpi\[2\]: pml: rank 2 and the ranks like it on .* (opened self,ofi from RDMPI_BTL=self,ofi) reach itself by self (.*); 3 ranks by ofi (tcp;ofi_rxm on .*)" &&
    [ "$(echo "$err" | grep -c "pml: rank [0-9]* and the ranks like it")" -eq 2 ]
ok $? "verbosity 1: the first rank of each class says which BTL and provider, and why"

# Fallbacks, forced.
run env RDMPI_SM_CMA=0 "$MPIRUN" --timeout 60 --report-transport -n 2 "$t" 100:4 1m:2
expect "RDMPI_SM_CMA=0: every rendezvous counted as copy pipeline, no reads" sm rndv_msgs=4 \
    fb_nordma=4 reads=0 fb_read=0
transport sm | grep -q "single copy off (RDMPI_SM_CMA=0)$"
ok $? "RDMPI_SM_CMA=0: the transport says single copy is off"
# Out of credits, non-blocking sends wait for the receiver to return some
# (here for up to 10 s, so a loaded machine cannot run the wait out)...
run env RDMPI_PML_CREDITS=2 RDMPI_PML_CREDIT_WAIT=10000000 "$MPIRUN" --timeout 60 \
    --report-transport -n 2 "$t" 4000:20
expect "out of credits: the sends wait for credits and all go eager" sm rndv_msgs=0 fb_credit=0 \
    eager_msgs='>=40'
# ... and with no wait they go by rendezvous, counted as fb_credit.
run env RDMPI_PML_CREDITS=2 RDMPI_PML_CREDIT_WAIT=0 "$MPIRUN" --timeout 60 --report-transport \
    -n 2 "$t" 4000:20
n=$(val sm fb_credit)
[ $rc -eq 0 ] && [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" = "$(val sm rndv_msgs)" ]
ok $? "out of credits, no wait: small messages by rendezvous counted as fb_credit ($n)"

# Bad input and faults.
run env RDMPI_REPORT=maybe "$t" 100:1
[ $rc -ne 0 ] && echo "$err" | grep -q "RDMPI_REPORT"
ok $? "RDMPI_REPORT=maybe fails MPI_Init naming the variable"
run env RDMPI_REPORT=1 "$t" 100:3 1m:1
[ $rc -eq 0 ] && echo "$err" | grep -q "^rdmpi transport report: 1 rank on 1 host" &&
    [ "$(val self rndv_msgs)" = 1 ] && [ "$(val self reads)" = 1 ]
ok $? "a singleton reports its self row"
run env RDMPI_BTL=ofi,self "$MPIRUN" --timeout 60 --provider bogus -n 4 "$t" 100:1
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(echo "$err" | grep -c "^rdmpi.*no such provider")" -eq 1 ] &&
    echo "$err" | grep -q "^rdmpi\[[0-9]*\]: btl/ofi: RDMPI_OFI_PROVIDER=bogus: no such provider here; available: .*tcp;ofi_rxm.*shm"
ok $? "4 ranks asking for a provider that is not there: one rank line listing those that are"
[ $rc -ne 0 ] || diag "exit $rc" "$err"
for prov in tcp shm; do
    run env RDMPI_BTL=ofi,self RDMPI_OFI_PROVIDER=$prov "$MPIRUN" --timeout 60 -n 2 "$t" --die
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "$err" | grep -q "rank 1"
    ok $? "$prov: a peer killed mid-transfer ends the job with a message naming it"
    [ $rc -ne 124 ] || diag "timed out: $err"
done
finish
