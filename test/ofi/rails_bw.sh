#!/bin/bash
# The multi-rail measurement (docs/btl-ofi.md, "Measuring two rails"), not
# a test: two fake hosts joined by two networks (eth0 over a bridge,
# 198.51.100.0/24, and a direct veth pair eth1, 198.51.100.64/26), every
# interface limited by tc tbf to RATE each way; 2 ranks, one per host,
# over tcp;ofi_rxm; t_rails's osu_bw-style loop with one rail
# (RDMPI_BTL_OFI_RAILS=1) and with two, alternated ROUNDS times; prints
# each run's MB/s and the ratio of the medians. MODE=lat times rdmpi-bench's
# SIZE-byte latency instead (ITERS round trips; default 8 B, 20000), to
# show that a second rail leaves eager traffic alone (ranks yield: see
# below). EXTRA adds mpirun arguments. Needs root.
#   sh test/ofi/rails_bw.sh [BUILDDIR]   (RATE=1gbit|none SIZE=4m ITERS=10 ROUNDS=3 MODE=bw)
B=$(cd "${1:-_build}" && pwd) || exit 2
S=$(cd "$(dirname "$0")/../.." && pwd)
MODE=${MODE:-bw}
if [ "$MODE" = lat ]; then
	# The fake hosts' packets are the kernel's work (veth, bridge, its
	# softirq thread): a rank that spins without yielding starves it, and
	# 8 B took 1-3 ms instead of 20 us on this 2-core machine.
	SIZE=${SIZE:-8} ITERS=${ITERS:-20000} unit=us EXTRA=${EXTRA--x RDMPI_YIELD=1}
else
	SIZE=${SIZE:-4m} ITERS=${ITERS:-10} unit=MB/s
fi
RATE=${RATE:-1gbit} ROUNDS=${ROUNDS:-3}
FAKEHOST_LIB=1 . "$S/test/fakehost/fakehost.sh"
why=$(fakehost_check) || { echo "rails_bw: $why" >&2; exit 2; }
[ -x "$B/test/ofi/t_rails" ] || { echo "rails_bw: build test/ofi/t_rails first (make check)" >&2; exit 2; }
P="rb$$h"
T=$(mktemp -d "${TMPDIR:-/tmp}/rdmpi-railsbw.XXXXXX")
trap 'fakehost_down "$P"; rm -rf "$T"' EXIT
FH_NOTRAP=1 fakehost_up 2 "$P" || exit 1
H0=${P}0 H1=${P}1
ip link add eth1 netns "$H0" type veth peer name eth1 netns "$H1" || exit 1
ip -n "$H0" addr add 198.51.100.65/26 dev eth1 && ip -n "$H1" addr add 198.51.100.66/26 dev eth1 &&
	ip -n "$H0" link set eth1 up && ip -n "$H1" link set eth1 up || exit 1
for h in "$H0" "$H1"; do
	[ "$RATE" = none ] && break # RATE=none: the links as they are
	for d in eth0 eth1; do
		ip netns exec "$h" tc qdisc add dev $d root tbf rate "$RATE" burst 256kb latency 100ms ||
			exit 1
	done
done
mkdir -p "$T/tmp"
run() {
	set -- --launch-agent "ip netns exec" --host "$H0,$H1" -n 2 -x RDMPI_OFI_PROVIDER=tcp ${EXTRA:-} "$@"
	if [ "$MODE" = lat ]; then
		TMPDIR="$T/tmp" RDMPI_AUTH=secret timeout 600 ip netns exec "$H0" "$B/launcher/mpirun" \
			"$@" "$B/bench/rdmpi-bench" latency -m "$SIZE:$SIZE" -i "$ITERS" </dev/null |
			awk -v s="$SIZE" '$1 == s { print $2 }'
	else
		TMPDIR="$T/tmp" RDMPI_AUTH=secret timeout 600 ip netns exec "$H0" "$B/launcher/mpirun" \
			"$@" "$B/test/ofi/t_rails" "$SIZE" "$ITERS" </dev/null |
			sed -n 's/.*: \([0-9.]*\) MB\/s$/\1/p'
	fi
}
one="" two=""
for i in $(seq "$ROUNDS"); do
	# The order swaps each round: this VM's placement drifts.
	if [ $((i % 2)) = 1 ]; then
		a=$(run -x RDMPI_BTL_OFI_RAILS=1) b=$(run)
	else
		b=$(run) a=$(run -x RDMPI_BTL_OFI_RAILS=1)
	fi
	echo "round $i: one rail $a $unit, two rails $b $unit"
	one="$one $a" two="$two $b" ratios="${ratios-} $(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%.4f", b / a }')"
done
med() { echo "$@" | tr ' ' '\n' | grep . | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
m1=$(med $one) m2=$(med $two)
echo "rate $RATE per interface, $SIZE messages: median one rail $m1 $unit, two rails $m2 $unit," \
	"ratio of medians $(awk -v a="$m1" -v b="$m2" 'BEGIN { if (a > 0) printf "%.3f", b / a; else print "-" }')," \
	"median of round ratios $(med $ratios)"
