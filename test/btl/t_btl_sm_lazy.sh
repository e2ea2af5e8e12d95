#!/bin/sh
# timeout: 1800 (the harness's limit; each run judges its own progress)
# btl/sm rings made on first use and sleeping readers (t_btl_sm_lazy.c):
# ring memory with 8 silent local peers against every pair's, then all
# pairs talking, at 9 ranks and with 8 KiB rings; a token ring and bursty
# writers to sleeping readers (RDMPI_SLEEP=1), where a lost wake-up shows
# as a sleep that ran out its 30 s, at 8 ranks and at 3. RDMPI_NOISE
# pauses ranks between their last poll and falling asleep (and elsewhere),
# so entries land in the window a missing last look would lose: with
# that look taken out of btl_sm_wait, the token ring stalls.
. "$top_srcdir/test/tap.sh"
t="$top_builddir/test/btl/t_btl_sm_lazy"
plan 4

# job DESCRIPTION N VAR=VALUE ARGS...: one job of N ranks with those
# variables set (one word); passes if every rank passed.
job() {
    desc=$1
    n=$2
    vars=$3
    shift 3
    run_limit=900
    # shellcheck disable=SC2086 # $vars is a list of assignments
    run env RDMPI_VERBOSE=0 $vars "$MPIRUN" --timeout 840 -n "$n" "$t" "$@"
    run_limit=60
    [ $rc -eq 0 ] && ! echo "$out" | grep -q FAIL
    ok $? "$desc ($n ranks)"
    [ $rc -eq 0 ] || diag "exit $rc" "$out" "$err"
}

job "rings on first use: none mapped with silent peers, one per talking pair" 9 RDMPI_VERBOSE=0 rings
echo "$out" | grep '^# ring memory'
job "rings on first use, 8 KiB rings" 3 RDMPI_SM_RING_BUDGET=24k rings
job "no lost wake-up: token ring and bursty writers to sleeping readers" 8 "RDMPI_SLEEP=1 RDMPI_NOISE=200" wake
job "no lost wake-up, 3 ranks" 3 "RDMPI_SLEEP=1 RDMPI_NOISE=200" wake 20000 50000
finish
