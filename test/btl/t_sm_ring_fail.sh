#!/bin/sh
# btl/sm's ring errors through the pml (t_sm_ring_fail.c): a ring that
# cannot be made, one that cannot be mapped, and the first under
# MPI_ERRORS_RETURN. Each job must end, with btl/sm's words, not hang.
. "$top_srcdir/test/tap.sh"
t="$top_builddir/test/btl/t_sm_ring_fail"
plan 3

run "$MPIRUN" --timeout 120 -n 4 "$t" send
[ $rc -ne 0 ] && [ $rc -ne 124 ] &&
    echo "$err" | grep -q "btl/sm: cannot make the ring for messages to rank 3 (Too many open files)"
ok $? "a ring that cannot be made ends the job with btl/sm's message"
[ $rc -ne 124 ] || diag "timed out" "$err"
[ $rc -ne 0 ] || diag "exit 0" "$out" "$err"

run "$MPIRUN" --timeout 120 -n 4 "$t" recv
[ $rc -ne 0 ] && [ $rc -ne 124 ] &&
    echo "$err" | grep -q "btl/sm: rank 0 announced its ring to this rank, which cannot map it (Too many open files)"
ok $? "a ring that cannot be mapped ends the job with btl/sm's message"
[ $rc -ne 124 ] || diag "timed out" "$err"
[ $rc -ne 0 ] || diag "exit 0" "$out" "$err"

run "$MPIRUN" --timeout 120 -n 4 "$t" return
[ $rc -eq 7 ] && echo "$err" | grep -q "btl/sm: cannot make the ring.*fail with MPI_ERR_OTHER from now on"
ok $? "under MPI_ERRORS_RETURN the send fails with MPI_ERR_OTHER (exit $rc)"
[ $rc -eq 7 ] || diag "$out" "$err"
finish
