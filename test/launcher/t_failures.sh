#!/bin/bash
# A failing rank ends the job: exit statuses, the one line that says what
# happened, and nothing left behind (processes, PMIx directory, /dev/shm).
. "$(dirname "$0")/lib.sh"

plan 35

host=$(hostname)

# check_clean NAME DESCRIPTION: no process of the unique client NAME is
# alive and mpirun $mpid left no files.
check_clean() {
	is "$(alive "^$T/$1")" 0 "$2: no rank left running"
	is "$(leftovers "$mpid")" "" "$2: no PMIx directory or /dev/shm file left"
}

# Exit statuses of ranks that do not speak PMIx at all.
lrun -n 2 /bin/true
is "$rc/$out/$err" "0//" "plain programs exiting 0: exit 0, silent"
lrun -n 2 /bin/false
is "$rc" 1 "plain /bin/false: exit 1"
like "$err" "^mpirun: rank [01] \(pid [0-9]+\) on host $host exited with status 1$" \
	"plain /bin/false: one line names the rank and status"
is "$(printf '%s\n' "$err" | wc -l)" 1 "only the first failure is reported"
lrun -n 3 "$CLIENT" noinit 7 1
is "$rc" 7 "a non-PMIx rank's exit status 7 is mpirun's"

# A rank exits non-zero after finalizing; the others are waiting in sleep.
c=$(uniq_client lnt_exit_$$)
lrun -n 4 "$c" exit 3 2
is "$rc" 3 "rank 2 exits 3: mpirun exits 3"
like "$err" "^mpirun: rank 2 \(pid [0-9]+\) on host $host exited with status 3$" \
	"rank 2 exits 3: reported"
[ "$ms" -lt 5000 ]
ok $? "rank 2 exits 3: the sleeping ranks are ended at once ($ms ms)"
check_clean lnt_exit_$$ "exit 3"

# MPI_Abort (PMIx_Abort): its status is mpirun's; the rank's own message
# comes first.
c=$(uniq_client lnt_abort_$$)
lrun -n 4 "$c" abort 42 1
is "$rc" 42 "abort(42) on rank 1: mpirun exits 42"
is "$err" "ln_client: rank 1 aborts with 42
mpirun: rank 1 (pid $(printf '%s' "$err" | sed -n 's/.*(pid \([0-9]*\)).*/\1/p')) on host $host aborted the job with status 42: rank 1 aborts with 42" \
	"abort: the rank's message, then mpirun's one line with the reason it gave"
[ "$ms" -lt 5000 ]
ok $? "abort: the job ends at once ($ms ms)"
check_clean lnt_abort_$$ "abort"

# A rank killed by SIGSEGV.
c=$(uniq_client lnt_segv_$$)
lrun -n 4 "$c" segv 0 3
is "$rc" 139 "SIGSEGV on rank 3: mpirun exits 128+11"
like "$err" "^mpirun: rank 3 \(pid [0-9]+\) on host $host was killed by signal 11 \(SIGSEGV\)$" \
	"SIGSEGV: reported in the documented format"
[ "$ms" -lt 5000 ]
ok $? "SIGSEGV: the job ends at once ($ms ms)"
check_clean lnt_segv_$$ "SIGSEGV"

# Everybody crashes at once: still one line, still the 128+11.
lrun -n 4 "$CLIENT" segv
is "$rc/$(printf '%s\n' "$err" | wc -l)" "139/1" "all ranks crash: exit 139, one line"

# A rank that connected to PMIx and exits 0 without finalizing while the
# others run on: a warning at once, the failure 10 s later.
c=$(uniq_client lnt_nofin_$$)
lrun -n 3 "$c" nofinalize 0 1
is "$rc" 1 "exit 0 without finalize, others still running 10 s later: mpirun exits 1"
like "$err" "^mpirun: warning: rank 1 \(pid [0-9]+\) on host $host exited with status 0 without calling MPI_Finalize
mpirun: rank 1 on host $host exited without calling MPI_Finalize 10 s ago; ranks still running: 0,2 \(pids [0-9]+,[0-9]+\)$" \
	"exit 0 without finalize: warned, then reported with the ranks still running"
check_clean lnt_nofin_$$ "no finalize"
# Every rank skips finalize (as OSU's latency_mt does): warned, exit 0.
lrun -n 4 "$CLIENT" nofinalize
is "$rc" 0 "all ranks skip finalize: exit 0"
like "$err" "warning: rank [0-9] .*without calling MPI_Finalize
mpirun: warning: 4 ranks on host $host exited without calling MPI_Finalize$" \
	"all ranks skip finalize: one warning, then the count"

# What a rank writes just before it crashes is not lost, nor what the
# rank it takes down with it wrote.
rm -f "$T/r0"
lrun -n 2 sh -c 'if [ $PMIX_RANK = 0 ]; then
		echo "last words 0"; echo "to stderr" >&2; touch "$0/r0"; exec sleep 25
	fi
	while [ ! -e "$0/r0" ]; do sleep 0.02; done
	echo "last words 1"; echo "to stderr" >&2; kill -SEGV $$' "$T"
is "$(printf '%s\n' "$out" | sort | tr '\n' ';')" "last words 0;last words 1;" \
	"stdout written right before a crash arrives"
is "$(printf '%s\n' "$err" | grep -c 'to stderr')" 2 "stderr written right before a crash arrives"

# A program that cannot be executed after all (exec fails in the child).
printf 'not a program' >"$T/garbage"
chmod +x "$T/garbage"
lrun -n 2 "$T/garbage"
[ $rc -ne 0 ]
ok $? "an executable file that exec refuses: non-zero exit ($rc)"
like "$err" "mpirun: cannot start rank [01]: execve\(.*garbage\): Exec format error" \
	"exec failure: the rank says why"

# A rank that leaves a process of its own behind: gone with the job.
lrun -n 1 sh -c "sleep 27.$$ & echo started"
is "$rc/$out" "0/started" "a rank that leaves a child behind: job completes"
sleep 0.1
is "$(alive "sleep 27.$$")" 0 "the child the rank left behind is killed"

# The PMIx server cannot start (no loopback in a new network namespace):
# one line from us, no rank, no directory left.
if unshare -n true 2>/dev/null; then
	rm -f "$T/started"
	timeout 30 unshare -n sh -c 'echo $$ >"$0.pid"; exec "$@"' "$T/run" "$MPIRUN" -n 2 \
		sh -c 'touch "$0/started"' "$T" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	mp=$(cat "$T/run.pid")
	like "$(grep '^mpirun:' "$T/err")" "^mpirun: cannot start the PMIx server: .*ip link set lo up\)$" \
		"no loopback: the PMIx server failure is explained"
	is "$rc/$([ -e "$T/started" ] && echo started)/$(leftovers "$mp")" "1//" \
		"no loopback: exit 1, no rank started, no directory left"
else
	skip "unshare -n is not permitted here"
	skip "unshare -n is not permitted here"
fi

finish
