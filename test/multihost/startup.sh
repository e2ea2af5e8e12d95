#!/bin/bash
# startup.sh: start-up wall time of our mpirun against srun --mpi=pmix on
# the same namespace hosts (a measurement, not a test; needs root, the
# Slurm packages and a built tree).
#
#   test/multihost/startup.sh BUILDDIR [REPS] [PROGS] [SIZES] [HOSTS]
#
# PROGS: "client" (test/launcher/ln_client hello: PMIx_Init, job info,
# Put/Commit/Fence/Get of a card, Finalize: what MPI_Init asks of the
# launcher) and/or "hello" (examples/hello, the whole MPI_Init/Finalize).
# Prints one line per layout: the median wall time of REPS runs, in ms.
# The hosts are one Slurm cluster's nodes (test/slurm/slurm.sh); mpirun
# runs on the first with `ip netns exec` as its launch agent.
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:?usage: $0 BUILDDIR [REPS] [PROGS] [SIZES] [HOSTS]}" && pwd)
REPS=${2:-5}
PROGS=${3:-"client hello"}
SIZES=${4:-"8 16 32 64"}
HOSTS=${5:-"1 2 4"}
. "$top_srcdir/test/slurm/slurm.sh"

D=$(mktemp -d /tmp/rdmpi-startup.XXXXXX) && chmod 755 "$D"
trap 'slurm_down; rm -rf "$D"' EXIT
SL_CPUS=64 slurm_up 4 "su$$n" "$D/c" >/dev/null || { echo "no Slurm cluster"; exit 1; }
P="su$$n"

ms() { echo $((($(date +%s%N) - $1) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-6s %5s %5s %12s %12s %7s\n' prog ranks hosts "mpirun ms" "srun ms" ratio
for prog in $PROGS; do
	case $prog in
	client) cmd=("$B/test/launcher/ln_client" hello) ;;
	hello) cmd=("$B/examples/hello") ;;
	esac
	for h in $HOSTS; do
		for n in $SIZES; do
			per=$((n / h))
			list=""
			for k in $(seq 0 $((h - 1))); do list="$list${list:+,}$P$k:$per"; done
			for i in $(seq "$REPS"); do
				s=$(date +%s%N)
				timeout 120 ip netns exec "${P}0" "$B/launcher/mpirun" --launch-agent "ip netns exec" \
					-x RDMPI_YIELD=1 --host "$list" "${cmd[@]}" >/dev/null 2>&1 </dev/null || echo "mpirun failed" >&2
				ms "$s" >>"$D/m"
				s=$(date +%s%N)
				slurm_srun 120 --mpi=pmix -N "$h" -n "$n" --ntasks-per-node="$per" \
					env RDMPI_YIELD=1 "${cmd[@]}" >/dev/null 2>&1 </dev/null || echo "srun failed" >&2
				ms "$s" >>"$D/s"
			done
			a=$(median <"$D/m") b=$(median <"$D/s")
			rm -f "$D/m" "$D/s"
			printf '%-6s %5d %5d %12d %12d %7.2f\n' "$prog" "$n" "$h" "$a" "$b" "$(awk "BEGIN {print $a / $b}")"
		done
	done
done
