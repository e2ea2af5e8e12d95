#!/bin/sh
# Every rdmpi-bench benchmark once under our mpirun: 2 ranks, sizes on both
# sides of the eager limits, every received byte validated (-c), full
# statistics (-f).  No timing is checked.  A benchmark whose operation the
# library still lacks says "# SKIP" (it probes for
# MPI_ERR_UNSUPPORTED_OPERATION) and is skipped here with its reason.
. "$top_srcdir/test/tap.sh"
bench=$top_builddir/bench/rdmpi-bench
limits=$top_builddir/bench/rdmpi-bench-limits
benches="latency bw bibw mbw_mr multi_lat barrier bcast reduce allreduce gather scatter
allgather alltoall reduce_scatter iallreduce startup pack bw_vector io_write io_read io_vwrite
io_vread latency_mt"

plan 29
for b in $benches; do
    run_watched "$MPIRUN" --timeout 840 -n 2 "$bench" $b -m 0:16384 -i 3 -x 1 -W 4 -c -f
    if echo "$out" | grep -q '^# SKIP'; then
        skip "$(echo "$out" | sed -n 's/^# SKIP //p' | head -n 1)"
        continue
    fi
    # Exit 0, a header, at least one row, and every row validated.
    [ $rc -eq 0 ] && echo "$out" | grep -q '^# MPI: ' && echo "$out" | grep -q ' Pass$' &&
        ! echo "$out" | grep -v '^#' | grep -qv ' Pass$'
    ok $? "$b, 2 ranks, validated"
    [ $rc -eq 0 ] && echo "$out" | grep -q ' Pass$' || diag "rc=$rc" "$out" "$err"
done

run "$bench" nosuch
[ $rc -eq 2 ] && echo "$err" | grep -q "unknown benchmark 'nosuch'"
ok $? "an unknown benchmark is refused without starting MPI"
run "$MPIRUN" --timeout 30 -n 2 "$bench" latency -q
[ $rc -ne 0 ] && echo "$err" | grep -q 'unknown option -q'
ok $? "an unknown option is refused"
run "$MPIRUN" --timeout 30 -n 1 "$bench" latency
[ $rc -ne 0 ] && echo "$err" | grep -q 'needs at least 2 ranks'
ok $? "latency asks for 2 ranks"
run "$MPIRUN" --timeout 30 -n 2 "$bench" bw -h
[ $rc -eq 0 ] && [ "$(echo "$out" | grep -c '^Usage:')" -eq 1 ]
ok $? "-h prints the options once"
# CMA may be refused in a container: -1 is then printed, not an error.
# The floors time fixed work, which a loaded host stretches: a backstop only.
run_limit=900
run "$limits" -m 1:4096 memcpy cma
[ $rc -eq 0 ] && [ "$(echo "$out" | grep -c '^[0-9]')" -eq 13 ]
ok $? "rdmpi-bench-limits measures memcpy and CMA"
[ $rc -eq 0 ] || diag "$out" "$err"
run "$limits" -m 1024:4096 exchange
[ $rc -eq 0 ] && [ "$(echo "$out" | grep -c '^[0-9]')" -eq 3 ]
ok $? "rdmpi-bench-limits times the 2-process exchange"
run_limit=60
[ $rc -eq 0 ] || diag "$out" "$err"
finish
