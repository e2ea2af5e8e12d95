#!/bin/sh
# Ports and name publishing over mpirun at 1, 2 and 3 ranks (t_dpm.c),
# MPI_UNIVERSE_SIZE from --universe-size, and a singleton, which has no
# name server and must say so rather than wait.
. "$top_srcdir/test/tap.sh"
P="$top_builddir/test/api/t_dpm"
plan 4
for np in 1 2 3; do
    run_limit=300 run env T_DPM_UNIVERSE=6 "$MPIRUN" --universe-size 6 -n $np "$P"
    ok $rc "ports, publish, lookup, unpublish at -n $np, universe 6"
    [ $rc -eq 0 ] || diag "$out" "$err"
done
run_limit=120 run env -u PMIX_NAMESPACE T_DPM_NO_NAMES=1 "$P"
ok $rc "a singleton: ports work, the name calls fail with MPI_ERR_UNSUPPORTED_OPERATION"
[ $rc -eq 0 ] || diag "$out" "$err"
