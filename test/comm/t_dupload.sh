#!/bin/sh
# MPI_Comm_dup/MPI_Comm_free in a loop beside CPU hogs (two per core), the
# load under which every agreement hop used to wait a whole time slice for
# its receiver (blocked ranks yielded to the hogs): 3000 duplicates at 4
# ranks took minutes. Blocked ranks now sleep until a message wakes them;
# the same loop takes seconds. A run is judged by progress (run_watched),
# not by wall time.
. "$top_srcdir/test/tap.sh"
t="$top_builddir/test/comm/t_dupload"
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
hogs=""
stop_hogs() {
    # shellcheck disable=SC2086
    [ -n "$hogs" ] && kill $hogs 2>/dev/null
    hogs=""
}
trap stop_hogs EXIT INT TERM
start_hogs() {
    i=0
    while [ $i -lt $((2 * ncpu)) ]; do
        timeout 120 sh -c 'while :; do :; done' &
        hogs="$hogs $!"
        i=$((i + 1))
    done
}
plan 2
start_hogs
start=$(date +%s)
run_watched env T_DUP_ITERS=3000 "$MPIRUN" --timeout 840 -n 4 "$t"
ok $rc "3000 duplicates at 4 ranks beside $((2 * ncpu)) CPU hogs [$(($(date +%s) - start)) s]"
[ $rc -ne 0 ] && diag "$out" && diag "$err"
# Two ranks on two cores spin rather than yield; RDMPI_YIELD=1 makes them
# sleep as an oversubscribed job would.
start=$(date +%s)
run_watched env T_DUP_ITERS=3000 RDMPI_YIELD=1 "$MPIRUN" --timeout 840 -n 2 "$t"
ok $rc "3000 duplicates at 2 ranks, RDMPI_YIELD=1, beside the hogs [$(($(date +%s) - start)) s]"
[ $rc -ne 0 ] && diag "$out" && diag "$err"
stop_hogs
finish
