#!/bin/sh
# Runs every line of matrix.txt (program, rank count, environment) through
# our mpirun; each run is one TAP test, its output shown on failure.
. "$top_srcdir/test/tap.sh"
matrix="$top_srcdir/test/topo/matrix.txt"
plan "$(grep -cv '^\s*\(#\|$\)' "$matrix")"
grep -v '^\s*\(#\|$\)' "$matrix" | while read -r prog np env; do
    start=$(date +%s)
    # shellcheck disable=SC2086
    run_watched env $env "$MPIRUN" --timeout 840 -n "$np" "$top_builddir/test/topo/$prog"
    ok $rc "$prog -n $np ${env:-(defaults)} [$(($(date +%s) - start)) s]"
    if [ $rc -ne 0 ]; then
        diag "$out"
        diag "$err"
    fi
done
