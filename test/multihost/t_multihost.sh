#!/bin/bash
# timeout: 1800 (the harness's limit: several jobs over simulated hosts)
# mpirun over several hosts: fake hosts (network namespaces, see
# test/fakehost) with `ip netns exec` as the launch agent and mpirun
# itself on the first host.  Ranks on one host use sm, ranks on different
# hosts ofi over the hosts' eth0; placement follows --host, --hostfile,
# -ppn and --map-by; a host that cannot be reached, a daemon killed
# mid-job, a remote rank's crash and a remote MPI_Abort each end the job
# within seconds with the right status and a line naming the host, and
# leave no process and no file.  Skips, saying why, without root or
# network namespaces.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/test/tap.sh"
FAKEHOST_LIB=1 . "$top_srcdir/test/fakehost/fakehost.sh"

B=$top_builddir
MPIRUN="${MPIRUN:-$B/launcher/mpirun}"
NTESTS=56
plan $NTESTS
skip_all() {
	for _i in $(seq $NTESTS); do skip "$1"; done
	exit 0
}
why=$(fakehost_check) || skip_all "no fake hosts here: $why"
[ -x "$B/examples/hello" ] && [ -x "$B/test/coll/t_coll" ] && [ -x "$B/launcher/rdmpi-launchd" ] ||
	skip_all "test programs not built"

P="mh$$h"
T=$(mktemp -d "${TMPDIR:-/tmp}/rdmpi-mh.XXXXXX")
trap 'fakehost_down "$P"; rm -rf "$T"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
FH_NOTRAP=1 fakehost_up 4 "$P" || skip_all "cannot create fake hosts"
H0=${P}0 H1=${P}1 H2=${P}2 H3=${P}3
# The fake hosts share the machine's cores: each host's ranks fit its
# CPU count, so no rank knows the machine is oversubscribed and they would
# busy-poll against each other (8x slower); RDMPI_YIELD=1 says so.
# Every daemon's PMIx directory lands here, so leftovers are easy to see.
mkdir -p "$T/tmp"
# These tests are of the secret's handshake (76-byte HELLOs), whether or
# not munged runs here; t_munge.sh tests --auth=munge.
export RDMPI_AUTH=secret

# mrun [mpirun args...]: mpirun on host 0 under a safety timeout; sets
# $rc, $out, $err, $ms and $mpid (its PMIx namespace is rdmpi.<mpid>).
mrun() {
	_s=$(date +%s%N)
	TMPDIR="$T/tmp" timeout -k 2 150 sh -c 'echo $$ >"$0.pid"; exec ip netns exec "$@"' "$T/run" \
		"$H0" "$MPIRUN" --launch-agent "ip netns exec" -x RDMPI_YIELD=1 "$@" >"$T/out" 2>"$T/err" \
		<"${LRUN_IN:-/dev/null}"
	rc=$?
	ms=$((($(date +%s%N) - _s) / 1000000))
	out=$(cat "$T/out")
	err=$(cat "$T/err")
	mpid=$(cat "$T/run.pid" 2>/dev/null)
}
show() { diag "rc=$rc ($ms ms)"; diag "$(tail -n 20 "$T/err")"; diag "$(tail -n 10 "$T/out")"; }

# hosts_of N: the host of each rank, from hello's lines, in rank order.
hosts_of() {
	printf '%s\n' "$out" | sed -n 's/^Hello from rank \([0-9]*\) of [0-9]* on \(.*\)$/\1 \2/p' |
		sort -n | awk '{print $2}' | tr '\n' ' '
}

# No process of the job and no file: nothing of the job in any host's
# namespace, no daemon directory, no /dev/shm segment of the job.
clean() {
	_i=0
	while [ $_i -lt 50 ]; do
		_left=""
		for _h in $H0 $H1 $H2 $H3; do _left="$_left$(ip netns pids "$_h")"; done
		[ -z "$_left" ] && [ -z "$(ls -A "$T/tmp")" ] &&
			[ -z "$(ls /dev/shm | grep "^rdmpi-$(id -u)-rdmpi\.$mpid-")" ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	diag "left: processes '$_left' files '$(ls -A "$T/tmp")' shm '$(ls /dev/shm | grep "rdmpi\.$mpid-")'"
	return 1
}

# --- placement and a first job --------------------------------------------
mrun --host "$H0:2,$H1:2" "$B/examples/hello"
[ $rc -eq 0 ] && [ "$(hosts_of)" = "$H0 $H0 $H1 $H1 " ] && [ -z "$err" ]
ok $? "--host a:2,b:2: ranks 0,1 on a and 2,3 on b, exit 0, nothing on stderr ($ms ms)"
[ $rc -eq 0 ] || show
clean
ok $? "... and nothing left behind"

mrun --host "$H0,$H1" -n 4 --map-by node "$B/examples/hello"
is_="$(hosts_of)"
[ $rc -eq 0 ] && [ "$is_" = "$H0 $H1 $H0 $H1 " ]
ok $? "--map-by node -n 4 over 2 hosts: round robin ($is_)"

printf '# Open MPI format\n%s slots=1\n%s slots=3 max_slots=4\n' "$H1" "$H2" >"$T/ompi"
mrun --hostfile "$T/ompi" "$B/examples/hello"
is_="$(hosts_of)"
[ $rc -eq 0 ] && [ "$is_" = "$H1 $H2 $H2 $H2 " ]
ok $? "--hostfile 'host slots=N': 4 ranks from the slots, in order ($is_)"

printf '%s:2\n\n%s:2 # Hydra\n' "$H3" "$H0" >"$T/hydra"
mrun -f "$T/hydra" -n 3 "$B/examples/hello"
is_="$(hosts_of)"
[ $rc -eq 0 ] && [ "$is_" = "$H3 $H3 $H0 " ]
ok $? "-f with 'host:N' lines, -n 3 ($is_)"

mrun --host "$H0,$H1,$H2" -ppn 2 -n 5 "$B/examples/hello"
is_="$(hosts_of)"
[ $rc -eq 0 ] && [ "$is_" = "$H0 $H0 $H1 $H1 $H2 " ]
ok $? "-ppn 2 -n 5 over 3 hosts ($is_)"

# MPMD over hosts: every daemon learns every program (the second with its
# own directory) and numbers the ranks through them.
mrun --timeout 60 --host "$H0:2,$H1:2" -n 1 "$B/test/launcher/ln_mpi" appnum : \
	-n 3 -wdir / "$B/test/launcher/ln_mpi" appnum
is_=$(printf '%s\n' "$out" | sort | tr '\n' ';')
[ $rc -eq 0 ] && [ "$is_" = "rank 0 of 4 appnum 0 sum 3;rank 1 of 4 appnum 1 sum 3;rank 2 of 4 appnum 1 sum 3;rank 3 of 4 appnum 1 sum 3;" ]
ok $? "MPMD -n 1 : -n 3 over 2 hosts: MPI_APPNUM 0,1,1,1 and an allreduce ($is_)"
[ $rc -eq 0 ] || show

# Transports: sm inside a host, ofi on eth0 between hosts (the first rank
# of each host prints its choices at RDMPI_VERBOSE=1).
mrun --host "$H0:2,$H1:2" -x RDMPI_VERBOSE=1 "$B/examples/hello"
sm=$(printf '%s\n' "$err$out" | grep -c "btl/sm: 1 of 1 local peers")
ofi=$(printf '%s\n' "$err$out" | grep -c "btl/ofi: tcp;ofi_rxm on eth0")
[ $rc -eq 0 ] && [ "$sm" -eq 2 ] && [ "$ofi" -eq 2 ]
ok $? "2x2: sm to the one other rank of the host, ofi (tcp;ofi_rxm on eth0) between hosts (sm=$sm ofi=$ofi)"
[ $rc -eq 0 ] || show
# The transport report at MPI_Finalize shows both: a ring sends to the
# host's other rank and to the next host.
mrun --timeout 60 --host "$H0:2,$H1:2" --report-transport "$B/examples/ring"
printf '%s\n' "$err" | grep -Eq '^sm +[0-9]+ +[1-9]' &&
	printf '%s\n' "$err" | grep -Eq '^ofi +[0-9]+ +[1-9].*tcp;ofi_rxm'
ok $? "2x2: --report-transport shows eager traffic on sm and on ofi (tcp;ofi_rxm)"
[ $rc -eq 0 ] || show

# --- the suites at 2 hosts x 2 ranks and 4 hosts x 2 ranks ------------------
for prog in coll/t_coll coll/t_ops coll/t_nbc p2p/t_order p2p/t_semantics p2p/t_stress \
	comm/t_comm comm/t_inter; do
	mrun --timeout 120 --host "$H0:2,$H1:2" "$B/test/$prog"
	ok $rc "2x2: $(basename $prog) ($ms ms)"
	[ $rc -eq 0 ] || show
done
mrun --timeout 120 --host "$H0,$H1" "$B/test/p2p/t_sizes"
ok $rc "2x1: t_sizes, every size across hosts ($ms ms)"
[ $rc -eq 0 ] || show
mrun --timeout 120 --host "$H0:2,$H1:2" "$B/examples/ring"
ok $rc "2x2: ring ($ms ms)"
H4="$H0:2,$H1:2,$H2:2,$H3:2"
mrun --host "$H4" "$B/examples/hello"
[ $rc -eq 0 ] && [ "$(hosts_of)" = "$H0 $H0 $H1 $H1 $H2 $H2 $H3 $H3 " ]
ok $? "4x2: hello, two ranks on each host ($ms ms)"
for prog in coll/t_coll p2p/t_order p2p/t_stress comm/t_comm; do
	mrun --timeout 120 --host "$H4" "$B/test/$prog"
	ok $rc "4x2: $(basename $prog) ($ms ms)"
	[ $rc -eq 0 ] || show
done
mrun --timeout 120 --host "$H4" "$B/examples/connectivity"
ok $rc "4x2: connectivity ($ms ms)"
clean
ok $? "after the suites: no process, no file"

# Standard input reaches rank 0 on another host; the others get EOF.
printf 'line one\nline two\n' >"$T/in"
LRUN_IN="$T/in" mrun --host "$H1,$H0" "$B/test/launcher/ln_client" stdin
want=$(printf '0 stdin: line one\n0 stdin: line two\n0 stdin: EOF\n1 stdin: EOF' | sort)
is "$rc/$(printf '%s\n' "$out" | sort)" "0/$want" "stdin goes to rank 0 (on the remote host), the other rank gets EOF"

# --- failures -----------------------------------------------------------------
LNMPI="$T/ln_mpi_mh$$"
cp "$B/test/launcher/ln_mpi" "$LNMPI"
[ -d "$B/test/launcher/.libs" ] && mkdir -p "$T/.libs" && cp "$B/test/launcher/.libs/"* "$T/.libs/" 2>/dev/null

mrun --host "$H0:2,nosuchhost:2" "$B/examples/hello"
is "$rc" 1 "unreachable host: exit 1"
like "$(tail -n 1 "$T/err")" "^mpirun: cannot reach host nosuchhost: .*ending the job$" \
	"unreachable host: the line names the host"
[ $ms -lt 5000 ] && clean
ok $? "unreachable host: ended at once ($ms ms), nothing left"

mrun --host "$H0:2,$H1:2" "$LNMPI" abort 7 3
is "$rc" 7 "remote MPI_Abort(7) on rank 3: exit 7"
like "$(tail -n 1 "$T/err")" "^mpirun: rank 3 \(pid [0-9]+\) on host $H1 called MPI_Abort with error code 7$" \
	"remote MPI_Abort: mpirun's line names rank and host, after the rank's own message"
[ $ms -lt 8000 ] && clean
ok $? "remote MPI_Abort: ended within seconds ($ms ms), nothing left"

mrun --host "$H0:2,$H1:2" "$LNMPI" segv 0 2
is "$rc" 139 "remote SIGSEGV on rank 2: exit 139"
like "$(tail -n 1 "$T/err")" "^mpirun: rank 2 \(pid [0-9]+\) on host $H1 was killed by signal 11 \(SIGSEGV\)$" \
	"remote SIGSEGV: the line names rank, host and signal"
[ $ms -lt 8000 ] && clean
ok $? "remote SIGSEGV: ended within seconds ($ms ms), nothing left"

# A daemon killed mid-job (its ranks sleep in the test program).
( sleep 4
  for p in $(ip netns pids "$H1"); do
	  # The daemon, not its janitor child (same command line, younger).
	  if tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | grep -q "^$B/launcher/.*rdmpi-launchd .*--node 1 " &&
		  [ "$(ps -o comm= -p "$(ps -o ppid= -p "$p" | tr -d ' ')")" != rdmpi-launchd ]; then
		  kill -9 "$p"
	  fi
  done ) &
killer=$!
mrun --host "$H0:2,$H1:2" "$LNMPI" segv 0 99
wait $killer
is "$rc" 1 "daemon killed: exit 1"
like "$(tail -n 1 "$T/err")" "^mpirun: the daemon on host $H1 was killed by signal 9 \(SIGKILL\); ending the job$" \
	"daemon killed: the line names the host"
[ $ms -lt 10000 ] && clean
ok $? "daemon killed: ended within seconds ($ms ms), no process, no file on any host"

mrun --timeout 2 --host "$H0:2,$H1:2" "$LNMPI" segv 0 99
is "$rc" 124 "--timeout 2 over two hosts: exit 124"
like "$(tail -n 1 "$T/err")" "^mpirun: timeout after 2 s; ending the job$" "--timeout: mpirun's line"
[ $ms -lt 7000 ] && clean
ok $? "--timeout: every host's ranks ended within seconds ($ms ms), nothing left"

# A daemon that does not know the job's secret is refused: a stand-in
# daemon passes the real one a wrong secret.
cat >"$T/badlaunchd" <<EOF2
#!/bin/sh
read -r secret
{ echo 0000000000000000000000000000000000000000000000000000000000000000; cat; } |
	exec "$B/launcher/rdmpi-launchd" "\$@"
EOF2
chmod +x "$T/badlaunchd"
RDMPI_LAUNCHD="$T/badlaunchd" mrun -v -v --host "$H0,$H1" "$B/examples/hello"
[ $rc -eq 1 ] && printf '%s\n' "$err" | grep -Eq "^mpirun: refused a control connection from [0-9.]+:[0-9]+: it did not prove the job's secret$" &&
	printf '%s\n' "$err" | grep -q "rdmpi-launchd (host $H1): mpirun at .* refused this daemon" &&
	! printf '%s\n' "$out" | grep -q Hello
ok $? "a daemon with the wrong secret is refused, no rank starts, the job fails (rc=$rc)"
[ $rc -eq 1 ] || show

# Strangers on mpirun's control port do not slow the job down: with ten
# silent connections, a slow-loris HELLO, an oversized length and garbage
# connected from another host, mpirun reacts to a killed rank as fast as
# without them.  The handshake is read without blocking, up to the
# HELLO's 76 bytes, and each refusal is one line naming the peer.
cat >"$T/strangers" <<'EOF2'
#!/bin/bash
# strangers ADDR PORT: connections that never prove the secret.
a=$1 p=$2
for i in 1 2 3 4 5 6 7 8 9 10; do exec {fd}<>"/dev/tcp/$a/$p"; done
( exec 3<>"/dev/tcp/$a/$p"; printf '\000\000\000\104\000\000\000\002' >&3
  for i in $(seq 40); do printf '\000' >&3; sleep 0.5; done ) 2>/dev/null &
( exec 3<>"/dev/tcp/$a/$p"; printf '\020\000\000\000\000\000\000\002' >&3
  head -c 4000000 /dev/zero >&3; sleep 20 ) 2>/dev/null &
( exec 3<>"/dev/tcp/$a/$p"; printf 'GET / HTTP/1.0\r\n\r\n' >&3; sleep 20 ) 2>/dev/null &
sleep 20
EOF2
chmod +x "$T/strangers"
# react [HOOK]: a rank on host 1 is killed by SIGKILL once the job runs,
# after HOOK (a function that sees mpirun's $addr and $port) has run;
# sets $react, the ms from the kill to mpirun's end.  Also leaves in
# $T/listen where mpirun listened, and in $T/lo whether its port answered
# on host 0's loopback.
react() {
	rm -f "$T/killed_at" "$T/strangers.pid" "$T/listen" "$T/lo"
	( for _i in $(seq 200); do
		  listen=$(ip netns exec "$H0" ss -Hltnp 2>/dev/null | grep -E '"(lt-)?mpirun"' |
			  awk '{print $4}' | head -n 1)
		  port=${listen##*:}
		  rk=$(for _p in $(ip netns pids "$H1"); do
			  grep -Eqx '(lt-)?ln_mpi' /proc/$_p/comm 2>/dev/null && echo "$_p"
		  done | head -n 1)
		  [ -n "$port" ] && [ -n "$rk" ] && break
		  sleep 0.05
	  done
	  echo "$listen" >"$T/listen"
	  # No port or no rank: no time to judge; end the job.
	  [ -n "$port" ] && [ -n "$rk" ] || { kill -TERM "$(cat "$T/run.pid")"; exit 0; }
	  ip netns exec "$H0" bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0"' "$port" 2>/dev/null &&
		  echo answered >"$T/lo"
	  addr=$(ip -n "$H0" -4 -o addr show dev eth0 | awk '{print $4}' | sed 's|/.*||')
	  [ -z "$1" ] || "$1"
	  date +%s%N >"$T/killed_at"
	  kill -KILL "$rk" ) &
	_k=$!
	mrun --host "$H0:2,$H1:2" "$LNMPI" segv 0 99
	_end=$(date +%s%N)
	wait $_k
	# timeout(1) passes SIGTERM on to the strangers' process group.
	[ -s "$T/strangers.pid" ] && kill -TERM "$(cat "$T/strangers.pid")" 2>/dev/null
	react=$(((_end - $(cat "$T/killed_at" 2>/dev/null || echo "$_end")) / 1000000))
}
strangers() {
	ip netns exec "$H1" timeout 25 "$T/strangers" "$addr" "$port" >/dev/null 2>&1 &
	echo $! >"$T/strangers.pid"
	sleep 1
}
react
base=$react
is "$rc" 137 "a rank killed by SIGKILL on host 1: exit 137 (baseline, $base ms)"
h0=$(ip -n "$H0" -4 -o addr show dev eth0 | awk '{print $4}' | sed 's|/.*||')
grep -Eqx "$h0:[0-9]+" "$T/listen" && [ ! -e "$T/lo" ]
ok $? "the control port listens on the address the daemons are told only ($(cat "$T/listen"), host 0's eth0; not on its loopback)"
react strangers
is "$rc" 137 "the same with strangers on mpirun's port: exit 137 ($react ms)"
[ -s "$T/killed_at" ] && [ "$react" -le $((base + 500)) ]
ok $? "strangers do not delay the reaction to a killed rank ($react ms, baseline $base ms, at most 500 ms more)"
printf '%s\n' "$err" | grep -Eq "^mpirun: refused a control connection from [0-9.]+:[0-9]+: a HELLO of 268435456 bytes announced, it has 68$" &&
	printf '%s\n' "$err" | grep -Eq "^mpirun: refused a control connection from [0-9.]+:[0-9]+: message type [0-9]+ where the HELLO \(2\) was due$"
ok $? "the oversized length and the garbage are each refused with one line naming the peer"
clean || diag "strangers test left something"

# A recorded HELLO is worth nothing: each connection gets its own
# challenge from mpirun, and the proof answers it.  A stand-in daemon
# relays its control connection through ln_ctlrec, which records the
# HELLO as it crossed the wire; replayed into the same job (same secret,
# another challenge) and into a later job, it is refused with one line,
# and the later job reacts to a killed rank as fast as its baseline.
fakehost_reclaunchd "$T" "$B" 300
# replay: sends host 1's recorded HELLO to mpirun from host 1, reads until
# mpirun closes, and waits for the refusal in mpirun's stderr.
replay() {
	for _i in $(seq 100); do [ "$(stat -c %s "$T/hello.1" 2>/dev/null)" = 76 ] && break; sleep 0.05; done
	ip netns exec "$H1" timeout 5 bash -c 'exec 3<>"/dev/tcp/$0/$1" && cat "$2" >&3 && cat <&3 >/dev/null' \
		"$addr" "$port" "$T/hello.1" 2>/dev/null
	for _i in $(seq 100); do grep -q "refused a control connection" "$T/err" && break; sleep 0.05; done
}
refused_replay() {
	_n=$(printf '%s\n' "$err" | grep -c "^mpirun: refused a control connection")
	printf '%s\n' "$err" | grep -Eq "^mpirun: refused a control connection from [0-9.]+:[0-9]+: it did not prove the job's secret$" &&
		[ "$_n" -eq 1 ]
}
RDMPI_LAUNCHD="$T/reclaunchd" react replay
[ "$(od -An -tx1 -N8 "$T/hello.1" 2>/dev/null | tr -d ' \n')" = 0000004400000002 ] &&
	[ "$(stat -c %s "$T/hello.1")" = 76 ]
ok $? "a daemon's HELLO recorded on the wire (76 bytes, type 2)"
# replay_checks WHAT WHY: the job still ends by the killed rank (137), and
# the replay was refused once.
replay_checks() {
	is "$rc" 137 "$1"
	[ $rc -eq 137 ] || show
	refused_replay
	_r=$?
	ok $_r "... the replay is refused once, naming the peer and why$2"
	[ $_r -eq 0 ] || show
}
replay_checks "that HELLO replayed into its own job: the job runs on, a killed rank ends it (exit 137)" \
	" (another challenge, the proof fails)"
react replay
replay_checks "the HELLO of the earlier job replayed into a new job: exit 137 after the killed rank ($react ms)"
[ -s "$T/killed_at" ] && [ "$react" -le $((base + 500)) ]
ok $? "the replay does not delay the reaction to a killed rank ($react ms, baseline $base ms, at most 500 ms more)"
clean || diag "replay test left something"

# RDMPI_LAUNCH_ADDR: exactly that address, loopback included; one that is
# not this host's is refused with a line that says what to set.
( for _i in $(seq 100); do
	  _l=$(ip netns exec "$H0" ss -Hltnp 2>/dev/null | grep -E '"(lt-)?mpirun"' | awk '{print $4}' | head -n 1)
	  [ -n "$_l" ] && echo "$_l" >"$T/listen.lo" && break
	  sleep 0.05
  done ) &
_w=$!
rm -f "$T/listen.lo"
RDMPI_LAUNCH_ADDR=127.0.0.1 mrun -v -v --host "$H0:2" "$B/test/launcher/ln_client" sleep 1
wait $_w
[ $rc -eq 0 ] && grep -Eqx "127\.0\.0\.1:[0-9]+" "$T/listen.lo" 2>/dev/null &&
	printf '%s\n' "$err" | grep -Eq "^mpirun: listening for the daemons on 127\.0\.0\.1:[0-9]+$"
ok $? "RDMPI_LAUNCH_ADDR=127.0.0.1: mpirun listens on loopback only ($(cat "$T/listen.lo" 2>/dev/null)), the job runs (rc=$rc)"
[ $rc -eq 0 ] || show
RDMPI_LAUNCH_ADDR=192.0.2.1 mrun --host "$H0,$H1" "$B/examples/hello"
is "$rc/$err" "1/mpirun: cannot open the daemons' control port on 192.0.2.1: Cannot assign requested address; set RDMPI_LAUNCH_ADDR to an IPv4 address of this host" \
	"RDMPI_LAUNCH_ADDR not of this host: exit 1, one line naming it and the fix, no daemon"

finish
