#!/bin/bash
# Our ranks under Slurm's own PMIx server (srun --mpi=pmix) on a real,
# throw-away Slurm cluster: one node (127.0.0.1), then two nodes as
# network-namespace hosts with 4 ranks each.  Ranks on one node must use
# sm and ranks on different nodes ofi (locality from PMIX_LOCAL_PEERS:
# the fake hosts share /dev/shm, so "can I open its segment" would lie).
# Skips, saying why, without root, namespaces or the Slurm packages
# (contrib/install-deps.sh --slurm).  The cluster goes away however the
# test ends.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/test/tap.sh"
. "$top_srcdir/test/slurm/slurm.sh"

B=$top_builddir
NTESTS=26
plan $NTESTS
skip_all() {
	for _i in $(seq $NTESTS); do skip "$1"; done
	exit 0
}
why=$(slurm_check) || skip_all "no Slurm cluster possible here: $why"
[ -x "$B/examples/hello" ] && [ -x "$B/test/coll/t_coll" ] || skip_all "test programs not built"

D=$(mktemp -d "${TMPDIR:-/tmp}/rdmpi-slurm.XXXXXX") && chmod 755 "$D"  # munged (user munge) walks it
P="sl$$n"
trap 'slurm_down; rm -rf "$D"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# srun_ok SECONDS DESC ARGS...: one TAP test, output shown on failure.
srun_ok() {
	_t=$1 _d=$2
	shift 2
	_s=$(date +%s%N)
	out=$(slurm_srun "$_t" "$@" 2>&1 </dev/null)
	rc=$?
	_ms=$((($(date +%s%N) - _s) / 1000000))
	ok $rc "$_d [$_ms ms]"
	[ $rc -ne 0 ] && diag "rc=$rc" && diag "$(printf '%s\n' "$out" | tail -n 30)"
}

# The transport lines of RDMPI_VERBOSE=1 MPI_Init (printed by the first
# rank of each node): sm to the other ranks of its node, and ofi on eth0
# only when the job spans nodes.
transports() {
	_n=$1 _per=$2 _multi=$3
	out=$(slurm_srun 30 --mpi=pmix -N $(($_n / $_per)) -n "$_n" --ntasks-per-node="$_per" \
		env RDMPI_VERBOSE=1 "$B/examples/hello" 2>&1 </dev/null)
	rc=$?
	_sm=$(printf '%s\n' "$out" | grep -c "btl/sm: $((_per - 1)) of $((_per - 1)) local peers")
	_ofi=$(printf '%s\n' "$out" | grep -c "btl/ofi: tcp;ofi_rxm on eth0")
	_nodes=$((_n / _per))
	if [ $_multi = 1 ]; then _want_ofi=$_nodes _w="ofi between nodes"; else _want_ofi=0 _w="no ofi"; fi
	[ $rc -eq 0 ] && [ "$_sm" -eq "$_nodes" ] && [ "$_ofi" -eq "$_want_ofi" ]
	ok $? "$_n ranks, $_per a node: sm to the $((_per - 1)) other ranks of the node, $_w"
	[ $rc -ne 0 ] || [ "$_sm" -ne "$_nodes" ] || [ "$_ofi" -ne "$_want_ofi" ] &&
		diag "rc=$rc sm=$_sm ofi=$_ofi" && diag "$(printf '%s\n' "$out" | grep -v '^Hello' | head -n 20)"
}

# --- one node ------------------------------------------------------------
if ! slurm_up 1 "$P" "$D/one"; then
	diag "$(tail -n 20 "$D"/one/log/* 2>/dev/null)"
	for i in $(seq $NTESTS); do ok 1 "one-node cluster did not start"; done
	finish
fi
ok 0 "one-node cluster up (127.0.0.1)"
out=$(slurm_srun 30 --mpi=pmix -n 4 "$B/examples/hello" 2>&1 </dev/null)
rc=$?
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c '^Hello from rank [0-3] of 4 on localhost$')" -eq 4 ]
ok $? "srun --mpi=pmix -n 4 hello: 4 ranks on node localhost"
transports 4 4 0
srun_ok 60 "1 node: t_coll -n 4" --mpi=pmix -n 4 "$B/test/coll/t_coll"
srun_ok 60 "1 node: t_order -n 4" --mpi=pmix -n 4 "$B/test/p2p/t_order"
srun_ok 60 "1 node: t_sizes -n 2" --mpi=pmix -n 2 "$B/test/p2p/t_sizes"
# Slurm's PMIx server does not publish names: the MPI calls say so at
# once (MPI_ERR_UNSUPPORTED_OPERATION), they never wait; ports work.
srun_ok 60 "1 node: t_dpm -n 2: no name service, said at once" --mpi=pmix -n 2 \
	env T_DPM_NO_NAMES=1 "$B/test/api/t_dpm"
slurm_down
[ -z "$(ip netns list | grep "^$P")" ] && [ ! -e "$D/one" ]
ok $? "one-node cluster down: no namespace, no file"

# --- two nodes, 4 ranks each ---------------------------------------------
# The two nodes share this machine's cores, which no rank can tell: ranks
# yield when they poll in vain instead of spinning against each other.
export RDMPI_YIELD=1
if ! slurm_up 2 "$P" "$D/two"; then
	diag "$(tail -n 20 "$D"/two/log/* 2>/dev/null)"
	while [ $tap_n -lt $NTESTS ]; do ok 1 "two-node cluster did not start"; done
	finish
fi
ok 0 "two-node cluster up (${P}0 198.51.100.1, ${P}1 198.51.100.2)"
N2="-N 2 -n 8 --ntasks-per-node=4"
out=$(slurm_srun 30 --mpi=pmix $N2 "$B/examples/hello" 2>&1 </dev/null)
rc=$?
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c "on ${P}0$")" -eq 4 ] &&
	[ "$(printf '%s\n' "$out" | grep -c "on ${P}1$")" -eq 4 ]
ok $? "2x4 hello: 4 ranks on each node"
[ $rc -eq 0 ] || diag "$out"
transports 8 4 1
# shellcheck disable=SC2086
out=$(slurm_srun 30 --mpi=pmix $N2 env RDMPI_REPORT=1 "$B/examples/ring" 2>&1 </dev/null)
rc=$?
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq '^sm +[0-9]+ +[1-9]' &&
	printf '%s\n' "$out" | grep -Eq '^ofi +[0-9]+ +[1-9].*tcp;ofi_rxm'
ok $? "2x4 ring: the transport report shows eager traffic on sm and on ofi (tcp;ofi_rxm)"
[ $rc -eq 0 ] || diag "$out"
for prog in coll/t_coll coll/t_ops coll/t_nbc p2p/t_order p2p/t_semantics p2p/t_stress \
	comm/t_comm comm/t_inter; do
	# shellcheck disable=SC2086
	srun_ok 90 "2x4: $(basename $prog)" --mpi=pmix $N2 "$B/test/$prog"
done
# shellcheck disable=SC2086
srun_ok 90 "2x1: t_sizes (every size across the network)" --mpi=pmix -N 2 -n 2 "$B/test/p2p/t_sizes"
# shellcheck disable=SC2086
srun_ok 60 "2x4: connectivity" --mpi=pmix $N2 "$B/examples/connectivity"

# Our mpirun inside an allocation: the nodes and slots come from Slurm and
# the host daemons start as steps (srun), as with Open MPI's mpirun.
out=$(slurm_on 0 timeout -k 2 90 salloc -N 2 --ntasks-per-node=4 \
	"$B/launcher/mpirun" --timeout 60 "$B/examples/hello" 2>&1 </dev/null)
rc=$?
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c "^Hello from rank [0-7] of 8 on ${P}0$")" -eq 4 ] &&
	[ "$(printf '%s\n' "$out" | grep -c "^Hello from rank [0-7] of 8 on ${P}1$")" -eq 4 ]
ok $? "salloc -N 2 --ntasks-per-node=4 mpirun hello: 8 ranks from the allocation, 4 on each node"
[ $rc -eq 0 ] || diag "rc=$rc" "$(printf '%s\n' "$out" | tail -n 20)"

# A remote rank's MPI_Abort ends the step with a failure, quickly.
s=$(date +%s)
# shellcheck disable=SC2086
out=$(slurm_srun 30 --mpi=pmix $N2 "$B/test/launcher/ln_mpi" abort 7 6 2>&1 </dev/null)
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $(($(date +%s) - s)) -lt 20 ]
ok $? "2x4: MPI_Abort on rank 6 (node ${P}1) fails the step (srun rc=$rc, $(($(date +%s) - s)) s)"

# An impossible request pends forever: the timeout is what ends it.
out=$(slurm_srun 3 --mpi=pmix -n 100 "$B/examples/hello" 2>&1 </dev/null)
rc=$?
[ $rc -eq 124 ] || [ $rc -eq 137 ] || [ $rc -eq 1 ]
ok $? "srun -n 100 on 8 CPUs is ended by its timeout (rc=$rc)"

slurm_down
left=$(ls /dev/shm | grep "^rdmpi-$(id -u)-slurm\.pmix" | head -n 3)
[ -z "$(ip netns list | grep "^$P")" ] && [ ! -e "$D/two" ] && [ -z "$left" ]
ok $? "two-node cluster down: no namespace, no file, no segment${left:+ (left: $left)}"
finish
