#!/bin/sh
# MPI_ERRORS_ARE_FATAL ends the job with a message naming the function, the
# communicator and the class; MPI_Abort's code becomes the exit status, and
# an unnamed communicator is described (size, what it derives from).
. "$top_srcdir/test/tap.sh"
prog="$top_builddir/test/mpi/t_fatal"
plan 25

run "$prog" null-comm
[ $rc -ne 0 ]; ok $? "fatal error exits non-zero ($rc)"
echo "$err" | grep -q 'MPI_Comm_size.*MPI_COMM_NULL.*MPI_ERR_COMM'; ok $? "message: $err"
echo "$out" | grep -q 'not reached'; [ $? -ne 0 ]; ok $? "nothing runs after the error"

run "$prog" spawn-null
echo "$err" | grep -q 'MPI_Comm_spawn on MPI_COMM_WORLD: intercomm is NULL.*MPI_ERR_ARG'
ok $? "a bad argument to MPI_Comm_spawn is fatal by default: $err"

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
echo "$err" | grep -q 'MPI_COMM_SELF'; [ $? -ne 0 ]
ok $? "an invalid handle is not blamed on MPI_COMM_SELF, whose handler reports it"

# mpirunline TEXT: mpirun's own last line (a second rank's message may be
# forwarded after it).
mpirunline() { printf '%s\n' "$1" | grep '^mpirun: ' | tail -n 1; }
host=$(hostname)

run "$prog" abort-dup
[ $rc -eq 3 ]; ok $? "MPI_Abort(dup, 3) exits 3 ($rc)"
like "$err" "MPI_Abort\(comm, 3\) called on a communicator of 1 rank, dup of MPI_COMM_WORLD: ending the job" \
	"MPI_Abort on an unnamed dup describes it"
run "$MPIRUN" -n 2 "$prog" abort-dup
[ $rc -eq 3 ]; ok $? "under mpirun too ($rc)"
like "$err" "rdmpi\[[01]\]: MPI_Abort\(comm, 3\) called on a communicator of 2 ranks, dup of MPI_COMM_WORLD" \
	"under mpirun: the size is the job's"
like "$(mpirunline "$err")" "^mpirun: rank [01] \(pid [0-9]+\) on host $host called MPI_Abort with error code 3$" \
	"mpirun's line says MPI_Abort"
run "$prog" abort-split
like "$err" "MPI_Abort\(comm, 3\) called on a communicator of 1 rank, derived from MPI_COMM_WORLD:" \
	"a dup of an unnamed split: derived from its named ancestor"

run "$prog" bad-rank
[ $rc -eq 6 ]; ok $? "MPI_ERR_RANK is the exit status (6) as a singleton ($rc)"
like "$err" "^rdmpi(\[0\])?: MPI_Send on MPI_COMM_WORLD: .*99.*\(MPI_ERR_RANK, error 6\)$" \
	"the error names function, communicator and class"
run "$MPIRUN" -n 2 "$prog" bad-rank
[ $rc -eq 6 ]; ok $? "under mpirun: exit 6 ($rc)"
like "$(mpirunline "$err")" "^mpirun: rank 0 \(pid [0-9]+\) on host $host: MPI error in MPI_Send on MPI_COMM_WORLD: .*\(MPI_ERR_RANK, error 6\)$" \
	"mpirun reports an MPI error in MPI_Send on MPI_COMM_WORLD, not MPI_Abort"
echo "$err" | grep -q "called MPI_Abort"; [ $? -ne 0 ]; ok $? "and never says MPI_Abort"
run "$MPIRUN" -n 2 "$prog" bad-rank-named
like "$(mpirunline "$err")" "^mpirun: rank 0 .*: MPI error in MPI_Send on solver: " \
	"a named communicator by its name"
run "$prog" call-errhandler
like "$err" "MPI_Comm_call_errhandler on MPI_COMM_WORLD: error raised by the application \(MPI_ERR_OTHER" \
	"MPI_Comm_call_errhandler names the communicator too"

# Not MPI errors: mpirun gives the rank's reason, not "MPI_Abort".
run "$MPIRUN" -n 2 "$prog" after-finalize
like "$(mpirunline "$err")" "^mpirun: rank [01] \(pid [0-9]+\) on host $host aborted the job with status 1: MPI_Comm_size was called after MPI_Finalize" \
	"a call after MPI_Finalize: mpirun's line gives the rank's reason"
finish
