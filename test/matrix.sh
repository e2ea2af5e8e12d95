# Runs every line of $dir/matrix.txt (program, rank count, environment)
# through our mpirun; each run is one TAP test, its output shown on failure.
# A run is judged by progress, not wall time (run_watched: a loaded host
# makes 13 ranks on 2 cores take minutes; a stuck job shows the same hang
# report twice). Sourced by test/<dir>/t_matrix.sh after setting dir.
. "$top_srcdir/test/tap.sh"
matrix="$top_srcdir/test/$dir/matrix.txt"
plan "$(grep -cv '^\s*\(#\|$\)' "$matrix")"
grep -v '^\s*\(#\|$\)' "$matrix" | while read -r prog np env; do
    start=$(date +%s)
    # shellcheck disable=SC2086
    run_watched env $env "$MPIRUN" --timeout 840 -n "$np" "$top_builddir/test/$dir/$prog"
    ok $rc "$prog -n $np ${env:-(defaults)} [$(($(date +%s) - start)) s]"
    if [ $rc -ne 0 ]; then
        diag "$out"
        diag "$err"
    fi
done
