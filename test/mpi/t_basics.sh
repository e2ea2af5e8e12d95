#!/bin/sh
# The runtime-basics and error-handler programs, as a singleton and under
# mpirun with 1, 2 and 4 ranks; each run is one TAP stream from rank 0.
. "$top_srcdir/test/tap.sh"
plan 10
for prog in t_basics t_errors; do
    p="$top_builddir/test/mpi/$prog"
    run "$p"
    ok $rc "$prog as a singleton"
    [ $rc -eq 0 ] || diag "$out" "$err"
    for n in 1 2 4; do
        run "$MPIRUN" --timeout 30 -n $n "$p"
        ok $rc "$prog with $n ranks"
        [ $rc -eq 0 ] || diag "$out" "$err"
    done
done
echo "$out" | grep -q '^not ok'; [ $? -ne 0 ]; ok $? "no failing assertion in the last run"
run "$MPIRUN" -n 2 "$top_builddir/test/mpi/t_basics"
[ "$(echo "$out" | grep -c '^1\.\.')" -eq 1 ]; ok $? "one TAP plan per job"
finish
