#!/bin/bash
# Ending a job from outside: --timeout, signals to mpirun, ranks that
# ignore SIGTERM, mpirun killed by SIGKILL; and the start-up sweep of what
# dead jobs left.
. "$(dirname "$0")/lib.sh"

plan 30

host=$(hostname)

# --timeout: exit 124, the line names the ranks still running.
c=$(uniq_client lnt_tmo_$$)
lrun -n 3 --timeout 2 "$c" exit 0 2
is "$rc" 124 "--timeout 2: exit 124"
like "$err" "^mpirun: timeout after 2 s; ranks still running: 0,1 \(pids [0-9]+,[0-9]+\)$" \
	"--timeout: the line names the ranks still running"
# The upper bound only proves the job ends: hang reports (SIGUSR1) and
# teardown under a sanitizer on a loaded machine take seconds.
[ "$ms" -ge 2000 ] && [ "$ms" -lt 15000 ]
ok $? "--timeout 2: ends after 2 s, within seconds ($ms ms)"
is "$(alive "^$T/lnt_tmo_$$")$(leftovers "$mpid")" 0 "--timeout: nothing left behind"
MPIEXEC_TIMEOUT=1 lrun -n 2 "$c" sleep 20
is "$rc" 124 "MPIEXEC_TIMEOUT=1: exit 124 ($ms ms)"
RDMPI_TIMEOUT=0.5 lrun -n 2 "$c" sleep 20
is "$rc" 124 "RDMPI_TIMEOUT=0.5: exit 124 ($ms ms)"
# 0 is no limit, on the command line as in the environment.
RDMPI_TIMEOUT=0.5 lrun --timeout 0 -n 2 "$c" sleep 1
is "$rc" 0 "--timeout 0 lifts RDMPI_TIMEOUT=0.5: the 1 s job ends by itself ($ms ms)"
MPIEXEC_TIMEOUT=1 lrun --timeout 20 -n 1 "$c" sleep 2
is "$rc" 0 "--timeout beats MPIEXEC_TIMEOUT"
lrun --timeout 5 -n 2 "$CLIENT" hello
is "$rc/$err" "0/" "a job that ends in time is not affected"

# kill_wait SIGNAL PID JOB: send SIGNAL to PID, wait for the background
# JOB; sets rc and ms (the time from the signal to JOB's end).
kill_wait() {
	_s=$(date +%s%N)
	kill -"$1" "$2"
	wait "$3"
	rc=$?
	ms=$((($(date +%s%N) - _s) / 1000000))
}

# sig_test SIGNAL: start 3 sleeping ranks, send SIGNAL to mpirun.
sig_test() {
	_sig=$1
	_name=lnt_sig${_sig}_$$
	c=$(uniq_client $_name)
	timeout 30 "$MPIRUN" -n 3 "$c" sleep 25 >"$T/out" 2>"$T/err" </dev/null &
	_t=$!
	wait_for 3 "^$T/$_name"
	_mp=$(pgrep -P $_t)
	kill_wait "$_sig" "$_mp" $_t
	err=$(cat "$T/err")
	mpid=$_mp
}
sig_test TERM
is "$rc" 143 "SIGTERM to mpirun: exit 128+15 ($ms ms)"
is "$err" "mpirun: caught SIGTERM; ending the job" "SIGTERM: one line"
is "$(alive "^$T/lnt_sigTERM_$$")$(leftovers "$mpid")" 0 "SIGTERM: no rank, no file left"
sig_test INT
is "$rc" 130 "SIGINT to mpirun: exit 128+2 ($ms ms)"
is "$(alive "^$T/lnt_sigINT_$$")$(leftovers "$mpid")" 0 "SIGINT: no rank, no file left"
sig_test HUP
is "$rc" 129 "SIGHUP to mpirun: exit 128+1 ($ms ms)"
is "$(alive "^$T/lnt_sigHUP_$$")$(leftovers "$mpid")" 0 "SIGHUP: no rank, no file left"

# A shell starts background jobs with SIGINT ignored, and exec keeps that:
# the ranks must still start with SIGINT at its default, so that SIGINT
# ends them at once rather than by SIGKILL after the grace (20 s here).
c=$(uniq_client lnt_sigign_$$)
# Not under timeout(1), which would reset SIGINT by catching it: mpirun's
# own --timeout is the safety net.
(trap '' INT; exec "$MPIRUN" -n 2 --timeout 40 --kill-grace 20 "$c" sleep 35) \
	>"$T/out" 2>"$T/err" </dev/null &
t=$!
wait_for 2 "^$T/lnt_sigign_$$"
kill_wait INT "$t" $t
is "$rc" 130 "mpirun started with SIGINT ignored, then SIGINT: exit 130"
[ "$ms" -lt 10000 ]
ok $? "its ranks end by SIGINT, well before the 20 s SIGKILL grace ($ms ms)"

# Ranks that ignore SIGTERM get SIGKILL after the grace period.
timeout 30 "$MPIRUN" -n 2 --kill-grace 0.5 sh -c \
	"trap '' TERM; echo ready; exec sleep 26.$$" >"$T/out" 2>&1 </dev/null &
t=$!
wait_for 2 "^sleep 26.$$"
kill_wait TERM "$(pgrep -P $t)" $t
is "$rc" 143 "ranks ignoring SIGTERM: mpirun still exits 143"
[ "$ms" -ge 400 ] && [ "$ms" -lt 3000 ]
ok $? "ranks ignoring SIGTERM are killed after --kill-grace 0.5 ($ms ms)"
is "$(alive "sleep 26.$$")" 0 "no TERM-proof rank left"
# The default grace is 2 s.
c=$(uniq_client lnt_grace_$$)
rm -f "$T/ready"
lrun -n 2 sh -c "if [ \$PMIX_RANK = 1 ]; then
		while [ ! -e '$T/ready' ]; do sleep 0.02; done; exit 5; fi
	trap '' TERM; touch '$T/ready'; exec sleep 26.$$"
is "$rc" 5 "a failing rank with a TERM-proof peer: its status"
[ "$ms" -ge 1800 ] && [ "$ms" -lt 5000 ]
ok $? "the TERM-proof peer is killed after the default 2 s grace ($ms ms)"

# SIGUSR1 is passed on to the ranks and does not end the job.
timeout 30 "$MPIRUN" -n 2 sh -c \
	"trap 'echo usr1 \$PMIX_RANK; exit 0' USR1; sleep 24.$$ & wait" >"$T/out" 2>"$T/err" </dev/null &
t=$!
wait_for 2 "^sleep 24.$$"
kill -USR1 "$(pgrep -P $t)"
wait $t
rc=$?
is "$rc/$(sort "$T/out" | tr '\n' ';')" "0/usr1 0;usr1 1;" "SIGUSR1 reaches every rank"

# kill -9 of mpirun: the ranks die with it (PR_SET_PDEATHSIG); the next
# mpirun sweeps the directory it left.
c=$(uniq_client lnt_k9_$$)
timeout 30 "$MPIRUN" -n 3 "$c" sleep 25 >/dev/null 2>&1 </dev/null &
t=$!
wait_for 3 "^$T/lnt_k9_$$"
mp=$(pgrep -P $t)
{ kill -KILL "$mp"; wait $t; sleep 0.2; } 2>/dev/null
is "$(alive "^$T/lnt_k9_$$")" 0 "kill -9 of mpirun: its ranks die with it"
# Another mpirun (a parallel test) may already have swept the directory it
# left; put it back so the sweep below has something to find either way.
mkdir -p "$TMPBASE/rdmpi.$UID_.$mp"
# Stale /dev/shm segments: one of the dead mpirun, one of a live one (us).
touch "/dev/shm/rdmpi-$UID_-rdmpi.$mp-0" "/dev/shm/rdmpi-$UID_-rdmpi.$$-0"
lrun -n 1 /bin/true
is "$(leftovers "$mp")" "" "the next mpirun sweeps the dead job's directory and segments"
[ -e "/dev/shm/rdmpi-$UID_-rdmpi.$$-0" ]
ok $? "the sweep spares segments of a live mpirun"
rm -f "/dev/shm/rdmpi-$UID_-rdmpi.$$-0"

# A job's own segments are removed when it ends, even if a rank crashed
# before unlinking them.
lrun -n 2 sh -c 'ns=$PMIX_NAMESPACE; touch /dev/shm/rdmpi-$(id -u)-$ns-$PMIX_RANK; kill -SEGV $$'
is "$rc/$(leftovers "$mpid")" "139/" "segments of a crashed job are removed at job end"

# libpmix's server finalize hanging (it once did, after a SIGINT): the
# watchdog ends mpirun after 10 s with the job's status and its files gone.
hang="$top_builddir/test/launcher/.libs/ln_hangfin.so"
LD_PRELOAD="$hang" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	lrun -n 2 sh -c 'exit 3'
[ "$rc" = 3 ] && [ "$ms" -ge 9000 ] && [ "$ms" -lt 25000 ] &&
	echo "$err" | grep -q "did not finish within 10 s"
ok $? "a hung PMIx finalize: mpirun leaves after 10 s with the job's status 3 (rc $rc, $ms ms)"
is "$(leftovers "$mpid")" "" "a hung PMIx finalize: no file left"

finish
