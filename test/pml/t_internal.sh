#!/bin/sh
# test/pml/t_internal alone (a singleton: messages to itself over the self
# BTL) and at 2 ranks (over sm).
. "$top_srcdir/test/tap.sh"
t="$top_builddir/test/pml/t_internal"
plan 2
run env -u PMIX_NAMESPACE "$t"
ok $rc "internal traffic, 1 rank"
[ $rc -ne 0 ] && diag "$out" && diag "$err"
run "$MPIRUN" --timeout 55 -n 2 "$t"
ok $rc "internal traffic, 2 ranks"
[ $rc -ne 0 ] && diag "$out" && diag "$err"
finish
