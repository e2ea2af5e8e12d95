# lib.sh: helpers for the launcher's TAP tests (sourced, POSIX sh + bash).
#
# Every mpirun runs under `timeout 30` as a safety net, by path (the plain
# name `mpirun` would find Open MPI's).  lrun records the exit status, the
# output, the wall time and mpirun's pid (its PMIx namespace is rdmpi.<pid>,
# so leftovers can be looked for by pid).

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
MPIRUN="${MPIRUN:-$top_builddir/launcher/mpirun}"
CLIENT="$top_builddir/test/launcher/ln_client"
UID_=$(id -u)
TMPBASE="${TMPDIR:-/tmp}"

T=$(mktemp -d "${TMPBASE}/ln_test.XXXXXX")
trap 'rm -rf "$T"' EXIT

tap_n=0
tap_failed=0
plan() { echo "1..$1"; }
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }
# ok STATUS DESCRIPTION: status 0 passes.
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}
# is GOT WANT DESCRIPTION
is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"; diag "got:  '$1'"; diag "want: '$2'"; fi
}
# like TEXT EXTENDED-REGEX DESCRIPTION
like() {
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else
		ok 1 "$3"; diag "text: '$1'"; diag "does not match: $2"; fi
}
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $1"; }
finish() { exit $((tap_failed != 0)); }

# lrun [mpirun arguments...]: runs mpirun with stdin from $LRUN_IN
# (default /dev/null); sets $rc, $out, $err, $ms (wall milliseconds), $mpid.
lrun() {
	_s=$(date +%s%N)
	timeout 30 sh -c 'echo $$ >"$0.pid"; exec "$@"' "$T/run" "$MPIRUN" "$@" \
		>"$T/out" 2>"$T/err" <"${LRUN_IN:-/dev/null}"
	rc=$?
	_e=$(date +%s%N)
	ms=$(((_e - _s) / 1000000))
	out=$(cat "$T/out")
	err=$(cat "$T/err")
	mpid=$(cat "$T/run.pid" 2>/dev/null)
}

# A copy of the test client under a name no other process has, so that
# pgrep can tell whether any of its ranks survived.
uniq_client() {
	cp "$CLIENT" "$T/$1" && echo "$T/$1"
}

# Number of live processes whose command line contains $1.
alive() {
	pgrep -f -- "$1" | wc -l
}

# Files this mpirun left: its PMIx directory and its /dev/shm segments.
leftovers() {
	ls -d "$TMPBASE/rdmpi.$UID_.$1" 2>/dev/null
	ls /dev/shm 2>/dev/null | grep "^rdmpi-$UID_-rdmpi\.$1-"
}

# wait_for COUNT PATTERN: until COUNT processes match (at most ~5 s).
wait_for() {
	_i=0
	while [ "$(alive "$2")" -lt "$1" ] && [ $_i -lt 100 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
}
