#!/bin/bash
# The launcher with real MPI programs (examples/hello, test/launcher/ln_mpi):
# the same promises as with the plain PMIx client.
. "$(dirname "$0")/lib.sh"

HELLO="$top_builddir/examples/hello"
MPIPROG="$top_builddir/test/launcher/ln_mpi"
host=$(hostname)

plan 26
if [ ! -x "$HELLO" ] || [ ! -x "$MPIPROG" ]; then
	for i in $(seq 26); do skip "examples/hello or test/launcher/ln_mpi not built"; done
	exit 0
fi

# The libtool wrapper of a program is a script; the real binary's name is
# what a leftover would be called.
real() {
	_d=$(dirname "$1") _b=$(basename "$1")
	if [ -x "$_d/.libs/$_b" ]; then echo "$_d/.libs/$_b"; else echo "$1"; fi
}

for n in 1 2 4 8; do
	lrun -n $n "$HELLO"
	want=$(for r in $(seq 0 $((n - 1))); do echo "Hello from rank $r of $n on $host"; done)
	got=$(printf '%s\n' "$out" | sort -t' ' -k4n)
	if [ $rc -eq 0 ] && [ "$got" = "$want" ] && [ -z "$err" ]; then
		ok 0 "MPI hello -n $n: every rank once, exit 0, nothing else ($ms ms)"
	else
		ok 1 "MPI hello -n $n: every rank once"
		diag "rc=$rc out=$out err=$err"
	fi
	is "$(leftovers "$mpid")" "" "MPI hello -n $n: no file left"
done

lrun -n 4 "$MPIPROG" hello
is "$rc/$(printf '%s\n' "$out" | wc -l)" "0/4" "ln_mpi hello -n 4"

# run_fail DESC EXPECTED-RC LINE-REGEX -- ln_mpi arguments
run_fail() {
	_d=$1 _want=$2 _re=$3
	shift 4
	lrun -n 4 "$MPIPROG" "$@"
	is "$rc" "$_want" "$_d: exit $_want"
	like "$(printf '%s\n' "$err" | tail -1)" "^mpirun: $_re$" "$_d: mpirun's line comes last"
	[ "$ms" -lt 5000 ] && [ "$(alive "^$(real "$MPIPROG")")" -eq 0 ] &&
		[ -z "$(leftovers "$mpid")" ]
	ok $? "$_d: ended at once, nothing left behind ($ms ms)"
}
run_fail "MPI_Abort(7) on rank 1" 7 \
	"rank 1 \(pid [0-9]+\) on host $host called MPI_Abort with error code 7" -- abort 7 1
like "$err" "MPI_Abort" "MPI_Abort: the rank's own message is shown"
run_fail "SIGSEGV on rank 2" 139 \
	"rank 2 \(pid [0-9]+\) on host $host was killed by signal 11 \(SIGSEGV\)" -- segv 0 2
# Without MPI_Finalize the others may be finishing too: they get 10 s.
lrun -n 4 "$MPIPROG" nofinalize 0 3
is "$rc" 1 "exit 0 without MPI_Finalize on rank 3: exit 1"
like "$(printf '%s\n' "$err" | tail -1)" \
	"^mpirun: rank 3 on host $host exited without calling MPI_Finalize 10 s ago; ranks still running: 0,1,2 \(pids [0-9,]+\)$" \
	"exit 0 without MPI_Finalize on rank 3: mpirun's line comes last"
[ "$ms" -ge 9000 ] && [ "$ms" -lt 15000 ] && [ "$(alive "^$(real "$MPIPROG")")" -eq 0 ] &&
	[ -z "$(leftovers "$mpid")" ]
ok $? "exit 0 without MPI_Finalize on rank 3: ended 10 s later, nothing left behind ($ms ms)"
run_fail "exit 3 after MPI_Finalize on rank 0" 3 \
	"rank 0 \(pid [0-9]+\) on host $host exited with status 3" -- exit 3 0

# MPMD: programs after ':' are one MPI_COMM_WORLD, told apart by MPI_APPNUM.
lrun -n 2 "$MPIPROG" appnum : -n 1 "$MPIPROG" appnum : -n 1 "$MPIPROG" appnum
is "$(printf '%s\n' "$out" | sort | tr '\n' ';')/$rc" \
	"rank 0 of 4 appnum 0 sum 3;rank 1 of 4 appnum 0 sum 3;rank 2 of 4 appnum 1 sum 3;rank 3 of 4 appnum 2 sum 3;/0" \
	"MPMD -n 2 : -n 1 : -n 1: MPI_APPNUM 0, 0, 1, 2 and an allreduce over all"
lrun -n 1 "$MPIPROG" hello : -n 2 "$HELLO"
is "$(printf '%s\n' "$out" | sort | tr '\n' ';')/$rc" \
	"Hello from rank 1 of 3 on $host;Hello from rank 2 of 3 on $host;hello from rank 0 of 3;/0" \
	"MPMD with two different programs"

# --timeout's hang report: how far the rank got, and the receive it waits
# for on a communicator made after a freed one.
lrun -n 2 --timeout 3 "$MPIPROG" hang
like "$err" "rdmpi\[0\]: progress: [0-9]+ events so far" "hang report: the rank's progress count"
like "$err" "rdmpi\[0\]:     posted receive tag 7, 4 bytes" \
	"hang report: a receive on a communicator after a freed one is listed"
finish
