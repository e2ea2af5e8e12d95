#!/bin/sh
# fakehost.sh: N fake hosts as network namespaces, for multi-host tests.
#
#   fakehost.sh check              exit 0 if namespaces can be made here (root, iproute2)
#   fakehost.sh up N [PREFIX]      make hosts PREFIX0..PREFIX<N-1> (default PREFIX: fh)
#   fakehost.sh down [PREFIX]      remove them, killing whatever still runs inside
#   fakehost.sh list [PREFIX]      the host names, one a line
#
# Host k gets 198.51.100.(k+1)/24 on interface "eth0" and its loopback up
# (PMIx servers listen on 127.0.0.1, which is down in a new namespace).  The
# hosts meet on a bridge in one more namespace, PREFIXsw, so nothing touches
# the root namespace's interfaces.  Only the network is separate: hostname,
# PIDs, /tmp and /dev/shm are shared, so tests name hosts explicitly and
# keep per-host directories apart.
#
# Sourced (FAKEHOST_LIB=1 . fakehost.sh) it defines fakehost_up/fakehost_down
# and fakehost_reclaunchd; fakehost_up installs an EXIT/INT/TERM trap that runs fakehost_down, so
# the hosts go away however the test ends.  `up` cleans up after itself if
# any step fails.

FH_NET=198.51.100

fh_log() { echo "fakehost: $*" >&2; }

fakehost_check() {
	[ "$(id -u)" -eq 0 ] || { echo "not root"; return 1; }
	command -v ip >/dev/null 2>&1 || { echo "no ip command (iproute2)"; return 1; }
	_probe="fhprobe$$"
	if ! ip netns add "$_probe" 2>/dev/null; then
		echo "cannot create a network namespace"
		return 1
	fi
	# Entering one is what the tests do (ip netns exec also mounts a sysfs).
	if ! ip netns exec "$_probe" true 2>/dev/null; then
		ip netns del "$_probe" 2>/dev/null
		echo "cannot enter a network namespace (ip netns exec)"
		return 1
	fi
	ip netns del "$_probe" 2>/dev/null
	return 0
}

fakehost_list() {
	ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${1:-fh}[0-9]+$" | sort -V
}

# fakehost_down [PREFIX]: every namespace PREFIX<k> and PREFIXsw goes,
# after SIGKILL to the processes still inside it.
fakehost_down() {
	_p=${1:-fh}
	for _ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${_p}([0-9]+|sw)$"); do
		_pids=$(ip netns pids "$_ns" 2>/dev/null)
		# shellcheck disable=SC2086
		[ -n "$_pids" ] && kill -9 $_pids 2>/dev/null
		ip netns del "$_ns" 2>/dev/null || fh_log "cannot remove namespace $_ns"
	done
	return 0
}

# fakehost_up N [PREFIX]
fakehost_up() {
	_n=$1 _p=${2:-fh}
	case $_n in '' | *[!0-9]*) fh_log "up needs a host count, got '$_n'"; return 2 ;; esac
	if [ "$_n" -lt 1 ] || [ "$_n" -gt 200 ]; then
		fh_log "host count must be 1-200, got $_n"
		return 2
	fi
	[ -z "$FH_NOTRAP" ] && trap 'fakehost_down "'"$_p"'"' EXIT && trap 'exit 130' INT && trap 'exit 143' TERM
	fakehost_down "$_p"
	_sw="${_p}sw"
	if ! ip netns add "$_sw" ||
		! ip -n "$_sw" link add br0 type bridge ||
		! ip -n "$_sw" link set br0 up; then
		fh_log "cannot create the switch namespace $_sw"
		fakehost_down "$_p"
		return 1
	fi
	_k=0
	while [ $_k -lt "$_n" ]; do
		_h="$_p$_k"
		# The veth pair is born in its two namespaces: no name in the
		# root namespace can clash with anyone else's.
		if ! ip netns add "$_h" ||
			! ip link add eth0 netns "$_h" type veth peer name "p$_k" netns "$_sw" ||
			! ip -n "$_sw" link set "p$_k" master br0 ||
			! ip -n "$_sw" link set "p$_k" up ||
			! ip -n "$_h" addr add "$FH_NET.$((_k + 1))/24" dev eth0 ||
			! ip -n "$_h" link set lo up ||
			! ip -n "$_h" link set eth0 up; then
			fh_log "cannot create host $_h"
			fakehost_down "$_p"
			return 1
		fi
		_k=$((_k + 1))
	done
	return 0
}

# fakehost_reclaunchd DIR BUILDDIR [DELAY_MS]: writes DIR/reclaunchd, a
# launch command for RDMPI_LAUNCHD that runs the real daemon with its
# control connection relayed through ln_ctlrec, which records the daemon's
# HELLO into DIR/hello.K (K its node) and, with DELAY_MS, hands mpirun
# what the daemon sends after it that much later (its last messages then
# arrive after its exit status).
fakehost_reclaunchd() {
	cat >"$1/reclaunchd" <<'FH_EOF'
#!/bin/bash
args=()
while [ $# -gt 1 ]; do
	case $1 in
	--ctl) ctl=$2 ;;
	--node) node=$2 args+=("$1" "$2") ;;
	*) args+=("$1" "$2") ;;
	esac
	shift 2
done
rm -f "@T@/recport.$node" "@T@/hello.$node"
"@B@/test/launcher/ln_ctlrec" "${ctl%:*}" "${ctl##*:}" "@T@/recport.$node" "@T@/hello.$node" @D@ \
	</dev/null &
rec=$!
# No time limit: the recorder either writes its port or exits (a loaded host
# took more than 5 s to start it).
while [ ! -s "@T@/recport.$node" ] && kill -0 $rec 2>/dev/null; do sleep 0.05; done
exec "@B@/launcher/rdmpi-launchd" --ctl "127.0.0.1:$(cat "@T@/recport.$node")" "${args[@]}"
FH_EOF
	sed -i "s|@T@|$1|g; s|@B@|$2|g; s|@D@|${3:-0}|g" "$1/reclaunchd" && chmod +x "$1/reclaunchd"
}

if [ -z "$FAKEHOST_LIB" ]; then
	cmd=$1
	[ $# -gt 0 ] && shift
	case $cmd in
	check) fakehost_check ;;
	up) FH_NOTRAP=1 fakehost_up "$@" ;;
	down) fakehost_down "$@" ;;
	list) fakehost_list "$@" ;;
	*)
		echo "usage: $0 check | up N [PREFIX] | down [PREFIX] | list [PREFIX]" >&2
		exit 2
		;;
	esac
fi
