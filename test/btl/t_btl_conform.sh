#!/bin/sh
# timeout: 2400 (the harness's limit: the whole matrix; each run judges its own progress)
# The BTL conformance suite (t_btl_conform.c) over every BTL: self and sm
# (with and without single copy, sleeping ranks), ofi over tcp;ofi_rxm and
# over shm (alone, so it reaches the rank itself too, and with an RMA
# limit that makes the test cut chunks), and the fake BTL of test/pml
# stand-alone. Each job passes if every rank passed and nothing of it is
# left in /dev/shm.
. "$top_srcdir/test/tap.sh"
t="$top_builddir/test/btl/t_btl_conform"
plan 9

# job DESCRIPTION RANKS ENV...
job() {
    desc=$1 n=$2
    shift 2
    run_limit=900
    run env "$@" "$MPIRUN" --timeout 840 -n "$n" "$t"
    run_limit=60
    ns=$(echo "$out" | sed -n 's/^# .*nspace \([^,]*\),.*$/\1/p')
    left=$(ls /dev/shm 2>/dev/null | grep -c "^rdmpi-$(id -u)-$ns-")
    nfail=$(echo "$out" | grep -c '^# rank [0-9]* FAIL')
    [ $rc -eq 0 ] && [ -n "$ns" ] && [ "$left" -eq 0 ] && [ "$nfail" -eq 0 ]
    ok $? "$desc ($n ranks: $(echo "$out" | grep -c '^# rank 0 ok') checks on rank 0, $nfail failed)"
    [ $rc -eq 0 ] && [ "$nfail" -eq 0 ] || diag "exit $rc" "$out" "$err"
}

job "self and sm" 2 RDMPI_BTL=self,sm
job "self and sm, ranks sleep (wait woken by a send)" 2 RDMPI_BTL=self,sm RDMPI_SLEEP=1
job "sm without single copy" 2 RDMPI_BTL=self,sm RDMPI_SM_CMA=0
job "ofi over tcp;ofi_rxm, itself included" 2 RDMPI_BTL=ofi RDMPI_OFI_PROVIDER=tcp
job "ofi over tcp;ofi_rxm, RMA limit 64 KiB" 2 RDMPI_BTL=ofi,self RDMPI_OFI_PROVIDER=tcp \
    RDMPI_OFI_RMA_LIMIT=64k
job "ofi over shm, itself included" 2 RDMPI_BTL=ofi RDMPI_OFI_PROVIDER=shm
job "ofi over shm, RMA limit 4097 bytes" 2 RDMPI_BTL=ofi,self RDMPI_OFI_PROVIDER=shm \
    RDMPI_OFI_RMA_LIMIT=4097
job "every BTL at once: self, sm, ofi over shm (each module its peers)" 2 RDMPI_BTL=self,sm,ofi \
    RDMPI_OFI_PROVIDER=shm

run_limit=300
run "$MPIRUN" --timeout 240 -n 1 "$t" --fake
nfail=$(echo "$out" | grep -c '^# rank [0-9]* FAIL')
[ $rc -eq 0 ] && [ "$nfail" -eq 0 ] && echo "$out" | grep -q "modules: fake$"
ok $? "the fake BTL of test/pml, stand-alone ($(echo "$out" | grep -c '^# rank 0 ok') checks, $nfail failed)"
[ $rc -eq 0 ] && [ "$nfail" -eq 0 ] || diag "exit $rc" "$out" "$err"
finish
