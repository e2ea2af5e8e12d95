#!/bin/sh
# MPI_ERRORS_ARE_FATAL ends the job with a message naming the function and the
# class; MPI_Abort's code becomes the exit status.
. "$top_srcdir/test/tap.sh"
prog="$top_builddir/test/mpi/t_fatal"
plan 10

run "$prog" null-comm
[ $rc -ne 0 ]; ok $? "fatal error exits non-zero ($rc)"
echo "$err" | grep -q 'MPI_Comm_size.*MPI_COMM_NULL.*MPI_ERR_COMM'; ok $? "message: $err"
echo "$out" | grep -q 'not reached'; [ $? -ne 0 ]; ok $? "nothing runs after the error"

run "$prog" unsupported
echo "$err" | grep -q 'MPI_Comm_spawn is not implemented.*MPI_ERR_UNSUPPORTED_OPERATION'
ok $? "unimplemented function is fatal by default: $err"

run "$prog" abort
[ $rc -eq 7 ]; ok $? "MPI_Abort(7) exits 7 as a singleton ($rc)"
echo "$err" | grep -q 'MPI_Abort(MPI_COMM_WORLD, 7)'; ok $? "and says so: $err"

run "$prog" after-finalize
[ $rc -ne 0 ]; ok $? "a call after MPI_Finalize is an error ($rc)"
echo "$err" | grep -q 'MPI_Comm_size was called after MPI_Finalize'; ok $? "message: $err"

run "$MPIRUN" -n 2 "$prog" abort
[ $rc -eq 7 ]; ok $? "under mpirun, MPI_Abort(7) makes mpirun exit 7 ($rc)"
run "$MPIRUN" -n 2 "$prog" null-comm
echo "$err" | grep -q 'rdmpi\[[01]\]: MPI_Comm_size'; ok $? "under mpirun the message has the rank: $err"
finish
