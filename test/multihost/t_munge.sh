#!/bin/bash
# mpirun --auth=munge over two fake hosts (network namespaces, see
# test/fakehost) with a private munged of the test's own (its key made
# here, its socket in the test's directory, RDMPI_MUNGE_SOCKET): a job
# runs with munge credentials; --auth, RDMPI_AUTH and auto choose as
# documented; munged missing or stopped is one clear line and no hang;
# HELLOs with forged credentials (another job's, expired, garbage, a
# long TTL, another user's) and a daemon's real HELLO replayed into the
# next job are each refused with one line, without delaying the job's
# reaction to a killed rank, even while munged is stopped.  The munged is
# killed at the end.  Skips, saying why, without root, network
# namespaces, munge or an mpirun built with libmunge.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/test/tap.sh"
FAKEHOST_LIB=1 . "$top_srcdir/test/fakehost/fakehost.sh"

B=$top_builddir
MPIRUN="${MPIRUN:-$B/launcher/mpirun}"
NTESTS=31
plan $NTESTS
skip_all() {
	for _i in $(seq $NTESTS); do skip "$1"; done
	exit 0
}
why=$(fakehost_check) || skip_all "no fake hosts here: $why"
for _p in munged munge python3 runuser; do
	command -v "$_p" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$_p" >/dev/null 2>&1 ||
		skip_all "no $_p here (Debian packages munge, python3, util-linux)"
done
PATH=$PATH:/usr/sbin
[ -x "$B/examples/hello" ] && [ -x "$B/test/launcher/ln_mpi" ] && [ -x "$B/launcher/rdmpi-launchd" ] &&
	[ -x "$B/test/launcher/ln_ctlrec" ] || skip_all "test programs not built"
"$B/tools/rdmpi_info" --parsable | grep -q '^build\.munge:[0-9]' ||
	skip_all "mpirun built without libmunge (install libmunge-dev, configure --with-munge)"

P="mu$$h"
T=$(mktemp -d "${TMPDIR:-/tmp}/rdmpi-munge.XXXXXX")
# munged's socket must be reachable by user nobody (the other-user test).
chmod 755 "$T"
M=$T/munge
munge_down() {
	[ -s "$M/pid" ] || return 0
	_mp=$(cat "$M/pid")
	kill -CONT "$_mp" 2>/dev/null
	kill -TERM "$_mp" 2>/dev/null
	for _i in $(seq 50); do kill -0 "$_mp" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$_mp" 2>/dev/null
	rm -f "$M/pid"
}
trap 'munge_down; fakehost_down "$P"; rm -rf "$T"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
FH_NOTRAP=1 fakehost_up 2 "$P" || skip_all "cannot create fake hosts"
H0=${P}0 H1=${P}1
mkdir -p "$T/tmp" "$M" && chmod 755 "$M"
# A key of our own: mungekey where there is one, else 1 KiB of random.
if command -v mungekey >/dev/null 2>&1; then
	mungekey -c -k "$M/key" -b 1024
else
	head -c 1024 /dev/urandom >"$M/key" && chmod 600 "$M/key"
fi
# --force: munged runs as root here; it daemonizes and writes its pid.
munged --socket="$M/sock" --key-file="$M/key" --pid-file="$M/pid" --log-file="$M/log" \
	--seed-file="$M/seed" --force || skip_all "munged does not start: $(tail -n 1 "$M/log" 2>/dev/null)"
for _i in $(seq 50); do [ -S "$M/sock" ] && [ -s "$M/pid" ] && break; sleep 0.1; done
export RDMPI_MUNGE_SOCKET="$M/sock"
MUNGED=$(cat "$M/pid")

# mrun [mpirun args...]: mpirun on host 0 under a safety timeout; sets
# $rc, $out, $err, $ms.
mrun() {
	_s=$(date +%s%N)
	TMPDIR="$T/tmp" timeout -k 2 150 sh -c 'echo $$ >"$0.pid"; exec ip netns exec "$@"' "$T/run" \
		"$H0" "$MPIRUN" --launch-agent "ip netns exec" -x RDMPI_YIELD=1 "$@" >"$T/out" 2>"$T/err" \
		</dev/null
	rc=$?
	ms=$((($(date +%s%N) - _s) / 1000000))
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}
show() { diag "rc=$rc ($ms ms)"; diag "$(tail -n 20 "$T/err")"; diag "$(tail -n 10 "$T/out")"; }
hosts_of() {
	printf '%s\n' "$out" | sed -n 's/^Hello from rank \([0-9]*\) of [0-9]* on \(.*\)$/\1 \2/p' |
		sort -n | awk '{print $2}' | tr '\n' ' '
}
# No process left in either host, no daemon directory.
clean() {
	for _i in $(seq 50); do
		_left="$(ip netns pids "$H0")$(ip netns pids "$H1")"
		[ -z "$_left" ] && [ -z "$(ls -A "$T/tmp")" ] && return 0
		sleep 0.1
	done
	diag "left: processes '$_left' files '$(ls -A "$T/tmp")'"
	return 1
}
MUNGE_LINE="^mpirun: the daemons authenticate with munge \(job id [0-9a-f]{32}\)$"

# --- a job, and the choice of --auth ----------------------------------------
mrun -v -v --auth=munge --host "$H0:2,$H1:2" "$B/examples/hello"
[ $rc -eq 0 ] && [ "$(hosts_of)" = "$H0 $H0 $H1 $H1 " ] && printf '%s\n' "$err" | grep -Eq "$MUNGE_LINE" &&
	! printf '%s\n' "$err" | grep -q "refused"
ok $? "--auth=munge 2x2: hello on both hosts, munge credentials, no refusal ($ms ms)"
[ $rc -eq 0 ] || show
printf '%s\n' "$err" | grep -q "started the daemon" && ! printf '%s\n' "$err" | grep -qi "secret"
ok $? "... no secret is mentioned or handed out"
clean
ok $? "... and nothing left behind"
RDMPI_AUTH=munge mrun -v -v --host "$H0,$H1" "$B/examples/hello"
[ $rc -eq 0 ] && printf '%s\n' "$err" | grep -Eq "$MUNGE_LINE"
ok $? "RDMPI_AUTH=munge: the same (rc=$rc)"
mrun -v -v --host "$H0,$H1" "$B/examples/hello"
[ $rc -eq 0 ] && printf '%s\n' "$err" | grep -Eq "$MUNGE_LINE"
ok $? "the default (auto) with munged answering: munge (rc=$rc)"
RDMPI_AUTH=munge mrun -v -v --auth=secret --host "$H0,$H1" "$B/examples/hello"
[ $rc -eq 0 ] && ! printf '%s\n' "$err" | grep -q "munge"
ok $? "--auth=secret over RDMPI_AUTH=munge: the command line wins, no munge (rc=$rc)"

# --- munged missing or stopped ----------------------------------------------
RDMPI_MUNGE_SOCKET=$M/nosuch mrun --auth=munge --host "$H0,$H1" "$B/examples/hello"
is "$rc/$(printf '%s\n' "$err" | wc -l)" "1/1" "--auth=munge, no munged at the socket: exit 1, one line ($ms ms)"
like "$err" "^mpirun: --auth=munge: munged does not answer at $M/nosuch: .*No such file or directory.*; start munged there, set RDMPI_MUNGE_SOCKET to its socket, or use --auth=secret$" \
	"... the line names the socket, why and the fixes"
[ $ms -lt 3000 ] && [ -z "$out" ] && clean
ok $? "... at once ($ms ms), no daemon started, nothing left"
RDMPI_MUNGE_SOCKET=$M/nosuch mrun -v -v --host "$H0,$H1" "$B/examples/hello"
[ $rc -eq 0 ] && printf '%s\n' "$err" | grep -q "^mpirun: --auth=auto: munged does not answer (.*); the daemons prove a per-job secret$"
ok $? "auto without munged: the secret, and the job runs (rc=$rc)"
[ $rc -eq 0 ] || show
kill -STOP "$MUNGED"
mrun --auth=munge --host "$H0,$H1" "$B/examples/hello"
kill -CONT "$MUNGED"
[ $rc -eq 1 ] && [ $ms -lt 6000 ] &&
	[ "$err" = "mpirun: --auth=munge: munged does not answer at $M/sock: munged did not answer within 2 s; start munged there, set RDMPI_MUNGE_SOCKET to its socket, or use --auth=secret" ]
ok $? "--auth=munge with munged stopped: exit 1 after the 2 s probe, one line, no hang ($ms ms)"
[ $rc -eq 1 ] || show
clean
ok $? "... nothing left"

# --- forged and replayed HELLOs -----------------------------------------------
# forge MODE ADDR PORT JOBID: one connection to mpirun from host 1 that
# answers its challenge with a munge HELLO for node 1 carrying a
# credential of MODE: otherjob (a random job id), expired (TTL 1 s, sent
# after 2.5 s), garbage, ttl (the right job, TTL 300 s), uid (the right
# job, made by user nobody).  Touches $T/sent.MODE once the HELLO is
# sent, then waits until mpirun closes the connection.
cat >"$T/forge.py" <<'EOF2'
import os, socket, struct, subprocess, sys, time
mode, addr, port, job, sock = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
def cred(payload, ttl, user=None):
    cmd = ["munge", "-S", sock, "-t", str(ttl)]
    if user:
        cmd = ["runuser", "-u", user, "--"] + cmd
    return subprocess.run(cmd, input=payload, capture_output=True, check=True).stdout.strip()
s = socket.create_connection((addr, port), timeout=15)
buf = b""
while len(buf) < 40:
    d = s.recv(40 - len(buf))
    if not d:
        sys.exit("mpirun closed before its challenge")
    buf += d
jobid = os.urandom(16) if mode == "otherjob" else bytes.fromhex(job)
payload = b"rdmpi-c1" + jobid + struct.pack(">I", 1) + buf[8:40]
if mode == "expired":
    c = cred(payload, 1)
    time.sleep(2.5)
elif mode == "garbage":
    c = b"MUNGE:" + b"A" * 120 + b":"
elif mode == "ttl":
    c = cred(payload, 300)
elif mode == "uid":
    c = cred(payload, 10, "nobody")
else:
    c = cred(payload, 10)
body = struct.pack(">I", 1) + os.urandom(32) + c
s.sendall(struct.pack(">II", len(body), 11) + body)
open(sys.argv[6] + "/sent." + mode, "w").close()
try:
    s.recv(100)
except OSError:
    pass
EOF2
# react [HOOK]: a rank on host 1 is killed by SIGKILL once the job runs,
# after HOOK (which sees mpirun's $addr, $port and the job id $job) has
# run; sets $react, the ms from the kill to mpirun's end.
react() {
	rm -f "$T/killed_at"
	( for _i in $(seq 200); do
		  port=$(ip netns exec "$H0" ss -Hltnp 2>/dev/null | grep -E '"(lt-)?mpirun"' |
			  awk '{print $4}' | head -n 1 | sed 's/.*://')
		  rk=$(for _p in $(ip netns pids "$H1"); do
			  grep -Eqx '(lt-)?ln_mpi' /proc/$_p/comm 2>/dev/null && echo "$_p"
		  done | head -n 1)
		  [ -n "$port" ] && [ -n "$rk" ] && break
		  sleep 0.05
	  done
	  [ -n "$port" ] && [ -n "$rk" ] || { kill -TERM "$(cat "$T/run.pid")"; exit 0; }
	  addr=$(ip -n "$H0" -4 -o addr show dev eth0 | awk '{print $4}' | sed 's|/.*||')
	  # The job id is on the daemons' command lines (it is no secret).
	  job=$(for _p in $(ip netns pids "$H1"); do tr '\0' '\n' 2>/dev/null </proc/$_p/cmdline |
		  grep -A1 -x -- --job | tail -n 1; done | head -n 1)
	  [ -z "$1" ] || "$1"
	  date +%s%N >"$T/killed_at"
	  kill -KILL "$rk" ) &
	_k=$!
	mrun --auth=munge --host "$H0:2,$H1:2" "$LNMPI" segv 0 99
	_end=$(date +%s%N)
	wait $_k
	react=$(((_end - $(cat "$T/killed_at" 2>/dev/null || echo "$_end")) / 1000000))
}
LNMPI="$B/test/launcher/ln_mpi"
refusal() { printf '%s\n' "$err" | grep -E "^mpirun: refused a control connection from [0-9.]+:[0-9]+: $1$"; }

react
base=$react
is "$rc" 137 "--auth=munge: a rank killed on host 1 ends the job, exit 137 (baseline, $base ms)"
forgeries() {
	for _m in otherjob expired garbage ttl uid; do
		ip netns exec "$H1" timeout 12 python3 "$T/forge.py" $_m "$addr" "$port" "$job" "$M/sock" "$T" &
	done
	wait
}
react forgeries
is "$rc" 137 "the same with five forged munge HELLOs from host 1: exit 137 ($react ms)"
[ -s "$T/killed_at" ] && [ "$react" -le $((base + 500)) ]
ok $? "... they do not delay the reaction to the killed rank ($react ms, baseline $base ms, at most 500 ms more)"
refusal "its munge credential is for another job" >/dev/null
ok $? "a credential for another job (with this connection's challenge) is refused, naming the peer"
refusal "munge refused its credential: Expired credential" >/dev/null
ok $? "an expired credential is refused"
refusal "munge refused its credential: .*" | grep -qv Expired
ok $? "a garbage credential is refused"
refusal "its munge credential lives 300 s, at most 60 s are accepted" >/dev/null
ok $? "a credential with a 300 s TTL is refused, even for the right job and challenge"
refusal "its munge credential is uid 65534's, we run as uid $(id -u)" >/dev/null
ok $? "another user's credential (nobody) for the right job and challenge is refused"
is "$(printf '%s\n' "$err" | grep -c "^mpirun: refused a control connection")" 5 "... one line each"
[ $rc -eq 137 ] && clean
ok $? "... nothing left"

# munged stopped while the job runs: a HELLO waits for it in mpirun's
# helper, and the job still reacts at once.
stalled() {
	kill -STOP "$MUNGED"
	rm -f "$T/sent.garbage"
	ip netns exec "$H1" timeout 12 python3 "$T/forge.py" garbage "$addr" "$port" "$job" "$M/sock" "$T" &
	for _i in $(seq 100); do [ -e "$T/sent.garbage" ] && break; sleep 0.05; done
	sleep 0.2
}
react stalled
kill -CONT "$MUNGED"
is "$rc" 137 "munged stopped, a HELLO waiting for it: the killed rank still ends the job, exit 137 ($react ms)"
[ -e "$T/sent.garbage" ] && ! printf '%s\n' "$err" | grep -q "refused a control connection"
ok $? "... the HELLO was sent and still waited for munged when the job ended"
[ -s "$T/killed_at" ] && [ "$react" -le $((base + 500)) ]
ok $? "... without delay ($react ms, baseline $base ms, at most 500 ms more): munge_decode runs outside mpirun's loop"
wait
clean
ok $? "... and nothing left, mpirun's munge helper included"

# A daemon's real HELLO, recorded on the wire (ln_ctlrec) in one job and
# replayed into the next, is refused.  The relay hands on the daemon's
# later messages 300 ms late, after its exit status: the job still ends 0.
fakehost_reclaunchd "$T" "$B" 300
rm -f "$T/hello.1"
RDMPI_LAUNCHD="$T/reclaunchd" mrun --auth=munge --host "$H0,$H1" "$B/examples/hello"
[ $rc -eq 0 ] && [ "$(od -An -tu1 -j4 -N4 "$T/hello.1" 2>/dev/null | tr -s ' ')" = " 0 0 0 11" ]
ok $? "a daemon's munge HELLO recorded on the wire ($(stat -c %s "$T/hello.1" 2>/dev/null) bytes, type 11; rc=$rc)"
[ $rc -eq 0 ] || diag "$err"
replay() {
	ip netns exec "$H1" timeout 5 bash -c 'exec 3<>"/dev/tcp/$0/$1" && head -c 40 <&3 >/dev/null && cat "$2" >&3 && cat <&3 >/dev/null' \
		"$addr" "$port" "$T/hello.1" 2>/dev/null
}
react replay
is "$rc" 137 "that HELLO replayed into the next job: the job runs on, a killed rank ends it (exit 137)"
refusal "munge refused its credential: (Replayed|Expired) credential|its munge credential (is for another job|answers another challenge.*)" >/dev/null &&
	[ "$(printf '%s\n' "$err" | grep -c "^mpirun: refused a control connection")" -eq 1 ]
ok $? "... the replay is refused once, naming the peer and why"
[ $rc -eq 137 ] || show
clean
ok $? "... nothing left"

munge_down
kill -0 "$MUNGED" 2>/dev/null
is $? 1 "the test's munged is gone"
finish
