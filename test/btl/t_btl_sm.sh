#!/bin/sh
# timeout: 3600 (the harness's limit: a whole matrix; each run judges its own progress)
# btl/self and btl/sm without the pml (t_btl_sm.c): order and content,
# back-pressure, CMA, /dev/shm hygiene at 2, 4 and 8 ranks (8 oversubscribes
# a 2-core host), with CMA switched off and with CMA refused by the kernel,
# and with 8 KiB rings (frequent wraps, capped eager limit); then RDMPI_BTL
# filtering and parameter checks.
. "$top_srcdir/test/tap.sh"
t="$top_builddir/test/btl/t_btl_sm"
plan 17

# mpirun_ok DESCRIPTION ENV...: one job of $n ranks; passes if every rank
# passed and the job left nothing of its own in /dev/shm. The program's
# watchdog judges progress (8 ranks of the sanitizer build on a loaded
# host take minutes); the time limits here are only a backstop.
mpirun_ok() {
    desc=$1
    shift
    run_limit=900
    run env "$@" "$MPIRUN" --timeout 840 -n "$n" "$t"
    run_limit=60
    ns=$(echo "$out" | sed -n 's/^# .*nspace \(.*\)$/\1/p')
    left=$(ls /dev/shm 2>/dev/null | grep -c "^rdmpi-$(id -u)-$ns-")
    [ $rc -eq 0 ] && [ -n "$ns" ] && [ "$left" -eq 0 ]
    ok $? "$desc ($n ranks)"
    [ $rc -eq 0 ] || diag "exit $rc" "$out" "$err"
}

for n in 2 4 8; do
    mpirun_ok "order, back-pressure, CMA, /dev/shm" RDMPI_VERBOSE=0
done
n=2
mpirun_ok "RDMPI_SM_CMA=0: no GET/PUT" RDMPI_SM_CMA=0
echo "$err" | grep -q process_vm_readv
[ $? -ne 0 ]
ok $? "RDMPI_SM_CMA=0 prints no CMA warning"
n=4
mpirun_ok "CMA refused by the kernel: no GET/PUT" T_BTL_SM_DENY_CMA=1
nwarn=$(echo "$err" | grep -c 'process_vm_readv.*RDMPI_SM_CMA=0')
[ "$nwarn" -eq 1 ]
ok $? "CMA refused: one warning line for the host ($nwarn), naming RDMPI_SM_CMA=0"
mpirun_ok "8 KiB rings, eager limit capped at half a ring" RDMPI_SM_RING_BUDGET=32k \
    RDMPI_SM_EAGER_LIMIT=64k

run env RDMPI_BTL= "$t" --list
all=$out
case "$all" in "self sm") true ;; *) false ;; esac
ok $? "RDMPI_BTL empty opens all but network BTLs on one host, by exclusivity (got '$all')"
run env RDMPI_BTL=sm,self "$t" --list
[ $rc -eq 0 ] && [ "$out" = "self sm" ]
ok $? "RDMPI_BTL=sm,self opens self then sm (got '$out')"
run env RDMPI_BTL=^sm "$t" --list
[ $rc -eq 0 ] && [ "$out" = "self ofi" ]
ok $? "RDMPI_BTL=^sm opens all but sm, network BTLs too (got '$out')"
run env RDMPI_BTL=sm,bogus "$t" --list
[ $rc -ne 0 ] && echo "$err" | grep -q "unknown BTL bogus" && echo "$err" | grep -q "self,sm"
ok $? "an unknown BTL name is fatal and lists the known ones"
[ $rc -ne 0 ] || diag "$out" "$err"
run env RDMPI_BTL=self,vader,tcp "$t" --list
[ $rc -eq 0 ] && [ "$out" = "self sm ofi" ]
ok $? "Open MPI's names: vader is sm, tcp is ofi (got '$out')"
run env RDMPI_BTL=^openib "$t" --list
[ $rc -eq 0 ] && [ "$out" = "self sm ofi" ]
ok $? "RDMPI_BTL=^openib leaves out nothing (got '$out')"
run env RDMPI_BTL=^vader "$t" --list
[ $rc -eq 0 ] && [ "$out" = "self ofi" ]
ok $? "RDMPI_BTL=^vader leaves out sm (got '$out')"
run env RDMPI_BTL=sm,^self "$t" --list
[ $rc -ne 0 ] && echo "$err" | grep -q "may only prefix"
ok $? "^ inside the list is fatal"
run env RDMPI_SM_EAGER_LIMIT=16 "$MPIRUN" --timeout 60 -n 2 "$t" 10
[ $rc -ne 0 ] && echo "$err" | grep -q "RDMPI_SM_EAGER_LIMIT=16"
ok $? "an eager limit below 64 is fatal and names the variable"
finish
