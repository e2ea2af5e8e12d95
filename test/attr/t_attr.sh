#!/bin/sh
# The attribute, info and error-code programs as singletons and under our
# mpirun with 2 and 3 ranks; each run is one TAP stream from rank 0.
. "$top_srcdir/test/tap.sh"
plan 20
for prog in t_attr t_info t_errcodes t_finalize; do
    p="$top_builddir/test/attr/$prog"
    run "$p" alpha beta
    [ $rc -eq 0 ] && ! echo "$out" | grep -q '^not ok'
    ok $? "$prog as a singleton"
    [ $rc -eq 0 ] || diag "$out" "$err"
    for n in 2 3; do
        run_watched "$MPIRUN" --timeout 840 -n $n "$p" alpha beta
        [ $rc -eq 0 ] && ! echo "$out" | grep -q '^not ok'
        ok $? "$prog with $n ranks"
        [ $rc -eq 0 ] || diag "$out" "$err"
    done
    echo "$out" | grep -q '^1\.\.'; ok $? "$prog printed its plan"
    n=$(echo "$out" | grep -c '^ok')
    [ "$n" -gt 5 ]; ok $? "$prog passed $n checks"
done
finish
