# slurm.sh: a throw-away Slurm cluster on fake hosts (sourced, POSIX sh).
#
#   slurm_check                  prints why a cluster cannot run here, exit 1
#   slurm_up NODES PREFIX DIR    munged, slurmctld and NODES slurmd, idle
#   slurm_srun SECONDS ARGS...   srun on the first node, under timeout
#   slurm_down                   every daemon, job step and file goes
#
# Every node is a network namespace from test/fakehost (node k is PREFIXk,
# 198.51.100.(k+1)), even with one node: its 127.0.0.1 is its own, so the
# ports cannot clash with anything on the machine, and `ip netns pids`
# finds every slurmstepd and rank when the cluster is torn down.  With one
# node everything talks over that node's 127.0.0.1.
#
# Gotchas (docs/slurm.md): daemons enter a namespace with `nsenter --net=`,
# not `ip netns exec` (which remounts /sys and hides the cgroup tree
# slurmd needs); slurmctld wants the host name of SlurmctldHost, so it
# runs in its own UTS namespace; nodes share /tmp, so each gets its own
# TmpFS, where the pmix plugin makes its per-step directory; an srun
# asking for more CPUs than exist waits forever, hence slurm_srun's
# timeout.  munged runs in the root namespace on a socket of its own.

: "${top_srcdir:?}"
FAKEHOST_LIB=1 . "$top_srcdir/test/fakehost/fakehost.sh"

SLURM_SBIN=${SLURM_SBIN:-/usr/sbin}

slurm_check() {
	for _b in "$SLURM_SBIN/slurmctld" "$SLURM_SBIN/slurmd" "$SLURM_SBIN/munged"; do
		[ -x "$_b" ] || { echo "$_b not installed (contrib/install-deps.sh --slurm)"; return 1; }
	done
	for _b in srun sinfo nsenter unshare; do
		command -v $_b >/dev/null 2>&1 || { echo "$_b not found"; return 1; }
	done
	[ -r /etc/munge/munge.key ] || { echo "no /etc/munge/munge.key"; return 1; }
	id munge >/dev/null 2>&1 || { echo "no munge user"; return 1; }
	fakehost_check
}

# In node K's network namespace (as the cluster's commands need).
slurm_on() {
	_k=$1
	shift
	nsenter --net="/run/netns/$SL_PREFIX$_k" env SLURM_CONF="$SL_DIR/slurm.conf" "$@"
}

slurm_conf() {
	_nodes=$1
	if [ "$_nodes" -eq 1 ]; then
		_ctl="localhost(127.0.0.1)"
	else
		_ctl="${SL_PREFIX}0(198.51.100.1)"
	fi
	cat <<EOF
ClusterName=rdmpitest
SlurmctldHost=$_ctl
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SL_DIR/munge/socket
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$SL_DIR/state
SlurmdSpoolDir=$SL_DIR/spool/%n
TmpFS=$SL_DIR/tmp/%n
SlurmctldPidFile=$SL_DIR/slurmctld.pid
SlurmdPidFile=$SL_DIR/slurmd.%n.pid
SlurmctldLogFile=$SL_DIR/log/slurmctld.log
SlurmdLogFile=$SL_DIR/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
ReturnToService=2
SlurmdParameters=config_overrides
EOF
	if [ "$_nodes" -eq 1 ]; then
		echo "NodeName=localhost NodeAddr=127.0.0.1 CPUs=${SL_CPUS:-8} State=UNKNOWN"
	else
		_k=0
		while [ $_k -lt "$_nodes" ]; do
			echo "NodeName=$SL_PREFIX$_k NodeAddr=198.51.100.$((_k + 1)) CPUs=${SL_CPUS:-4} State=UNKNOWN"
			_k=$((_k + 1))
		done
	fi
	echo "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
}

# slurm_up NODES PREFIX DIR
slurm_up() {
	SL_NODES=$1 SL_PREFIX=$2 SL_DIR=$3
	FH_NOTRAP=1 fakehost_up "$SL_NODES" "$SL_PREFIX" || return 1
	mkdir -p "$SL_DIR/state" "$SL_DIR/log" "$SL_DIR/munge" && chmod 755 "$SL_DIR" || return 1
	chown munge: "$SL_DIR/munge" && chmod 755 "$SL_DIR/munge" || return 1
	slurm_conf "$SL_NODES" >"$SL_DIR/slurm.conf"
	runuser -u munge -- "$SL_SBIN_MUNGED" -S "$SL_DIR/munge/socket" \
		--pid-file="$SL_DIR/munge/pid" --log-file="$SL_DIR/munge/log" \
		--seed-file="$SL_DIR/munge/seed" || { echo "# munged failed to start"; return 1; }
	if [ "$SL_NODES" -eq 1 ]; then
		_names=localhost
	else
		_names=$(fakehost_list "$SL_PREFIX")
	fi
	for _n in $_names; do
		mkdir -p "$SL_DIR/spool/$_n" "$SL_DIR/tmp/$_n"
	done
	_ctlname=$(echo "$_names" | head -n 1)
	slurm_on 0 unshare --uts sh -c "hostname $_ctlname && exec $SLURM_SBIN/slurmctld -f $SL_DIR/slurm.conf" ||
		{ echo "# slurmctld failed to start"; return 1; }
	_k=0
	for _n in $_names; do
		slurm_on $_k "$SLURM_SBIN/slurmd" -f "$SL_DIR/slurm.conf" -N "$_n" ||
			{ echo "# slurmd $_n failed to start"; return 1; }
		_k=$((_k + 1))
	done
	# Up when every node is idle (about a second from cold).
	_i=0
	while [ $_i -lt 150 ]; do
		_idle=$(slurm_on 0 sinfo -h -N -o %T 2>/dev/null | grep -c '^idle')
		[ "$_idle" -eq "$SL_NODES" ] && return 0
		sleep 0.2
		_i=$((_i + 1))
	done
	echo "# the cluster did not become idle in 30 s:"
	slurm_on 0 sinfo -N 2>&1 | sed 's/^/#   /'
	return 1
}
SL_SBIN_MUNGED="$SLURM_SBIN/munged"

# slurm_srun SECONDS ARGS...: srun from node 0 with a hard time limit (a
# request that cannot be met pends forever instead of failing).
slurm_srun() {
	_t=$1
	shift
	slurm_on 0 timeout -k 2 "$_t" srun "$@"
}

slurm_down() {
	[ -n "$SL_PREFIX" ] || return 0
	# Daemons and steps all live in the nodes' namespaces.
	fakehost_down "$SL_PREFIX"
	if [ -f "$SL_DIR/munge/pid" ]; then
		kill "$(cat "$SL_DIR/munge/pid")" 2>/dev/null
		_i=0
		while kill -0 "$(cat "$SL_DIR/munge/pid" 2>/dev/null)" 2>/dev/null && [ $_i -lt 50 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
	fi
	[ -n "$SL_KEEP" ] || rm -rf "$SL_DIR"
	SL_PREFIX=
}
