#!/bin/sh
# timeout: 3600 (the harness's limit: a whole matrix; each run judges its own progress)
# Runs every line of matrix.txt (program, rank count, environment) through
# our mpirun; each run is one TAP test, its output shown on failure.
. "$top_srcdir/test/tap.sh"
matrix="$top_srcdir/test/p2p/matrix.txt"
plan "$(grep -cv '^\s*\(#\|$\)' "$matrix")"
grep -v '^\s*\(#\|$\)' "$matrix" | while read -r prog np env; do
    wrap=
    case $prog in
        mixed:*) prog=${prog#mixed:}; wrap="$top_srcdir/test/p2p/mixed.sh" ;;
    esac
    case $prog in
        ring|connectivity) bin="$top_builddir/examples/$prog" ;;
        *) bin="$top_builddir/test/p2p/$prog" ;;
    esac
    start=$(date +%s)
    # shellcheck disable=SC2086
    run_watched env $env "$MPIRUN" --timeout 840 -n "$np" $wrap "$bin"
    ok $rc "${wrap:+mixed }$prog -n $np ${env:-(defaults)} [$(($(date +%s) - start)) s]"
    if [ $rc -ne 0 ]; then
        diag "$out"
        diag "$err"
    fi
done
