#!/bin/bash
# timeout: 600
# Multi-rail over tcp;ofi_rxm: two fake hosts (network namespaces, see
# test/fakehost) joined by their eth0 (198.51.100.0/24, over a bridge) and
# by a second, direct veth pair eth1 (198.51.100.64/26). Each rank opens
# two btl/ofi rails; t_rails's large messages (contiguous and vector, no
# multiple of the chunk) arrive intact, and the transport report shows
# RDMA bytes on both rails. RDMPI_BTL_OFI_RAILS=1 keeps one rail; a rail
# whose connections are killed mid-transfer recovers onto the other, and
# so does one whose link goes down (ip link set down) or whose path goes
# dead without any interface showing it (blackhole routes: the stall
# check); the only rail's link going down ends the job, naming the peer,
# the rail and the cause. Skips, saying why, without root or network
# namespaces.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/test/tap.sh"
FAKEHOST_LIB=1 . "$top_srcdir/test/fakehost/fakehost.sh"

B=$top_builddir
MPIRUN="${MPIRUN:-$B/launcher/mpirun}"
NTESTS=14
plan $NTESTS
skip_all() {
	for _i in $(seq $NTESTS); do skip "$1"; done
	exit 0
}
why=$(fakehost_check) || skip_all "no fake hosts here: $why"
[ -x "$B/test/ofi/t_rails" ] && [ -x "$B/launcher/rdmpi-launchd" ] || skip_all "test programs not built"

P="rl$$h"
T=$(mktemp -d "${TMPDIR:-/tmp}/rdmpi-rails.XXXXXX")
trap 'fakehost_down "$P"; rm -rf "$T"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
FH_NOTRAP=1 fakehost_up 2 "$P" || skip_all "cannot create fake hosts"
H0=${P}0 H1=${P}1
ip link add eth1 netns "$H0" type veth peer name eth1 netns "$H1" &&
	ip -n "$H0" addr add 198.51.100.65/26 dev eth1 &&
	ip -n "$H1" addr add 198.51.100.66/26 dev eth1 &&
	ip -n "$H0" link set eth1 up && ip -n "$H1" link set eth1 up ||
	skip_all "cannot add the second network"
for _i in $(seq 50); do
	ip -n "$H0" link show eth1 | grep -q LOWER_UP && ip -n "$H1" link show eth1 | grep -q LOWER_UP &&
		break
	sleep 0.1
done
mkdir -p "$T/tmp"
export RDMPI_AUTH=secret

# mrun [mpirun args...]: a 2-rank job, rank 0 on H0 and rank 1 on H1.
mrun() {
	TMPDIR="$T/tmp" timeout -k 2 300 ip netns exec "$H0" "$MPIRUN" --launch-agent "ip netns exec" \
		--host "$H0,$H1" -n 2 -x RDMPI_YIELD=1 -x RDMPI_OFI_PROVIDER=tcp -x RDMPI_REPORT=1 "$@" \
		>"$T/out" 2>"$T/err" </dev/null
	rc=$?
	out=$(cat "$T/out")
	err=$(cat "$T/err")
}
show() { diag "rc=$rc"; diag "$(tail -n 30 "$T/err")"; diag "$(tail -n 10 "$T/out")"; }
# The ofi rows of the report: interface and RDMA bytes (read + written).
rails() {
	echo "$err" | awk '
		$1 == "btl" && $2 == "ranks" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == "ofi" && $2 ~ /^[0-9]+$/ {
			for (i = 1; i <= NF; i++) if ($i == "on") { ifc = $(i + 1); break }
			printf "%s %.0f\n", ifc, $col["read_bytes"] + $col["write_bytes"] }'
}

mrun "$B/test/ofi/t_rails"
[ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'
ok $? "two rails: every message intact, contiguous and vector"
[ $rc -ne 0 ] && show
r=$(rails)
[ "$(echo "$r" | awk '$2 > 0' | wc -l)" -eq 2 ] && echo "$r" | grep -q '^eth0 ' &&
	echo "$r" | grep -q '^eth1 '
_r=$?
ok $_r "the report shows RDMA bytes on both rails: $(echo "$r" | tr '\n' ';')"
[ $_r -ne 0 ] && diag "$err"
e0=$(echo "$r" | awk '$1 == "eth0" { print $2 }') e1=$(echo "$r" | awk '$1 == "eth1" { print $2 }')
[ -n "$e0" ] && [ -n "$e1" ] && [ "$e1" -ge $((e0 / 3)) ] && [ "$e0" -ge $((e1 / 3)) ]
ok $? "equal rails carry comparable shares ($e0 and $e1 bytes)"

mrun -x RDMPI_PML_RNDV=write "$B/test/ofi/t_rails"
r=$(rails)
[ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok' &&
	[ "$(echo "$r" | awk '$2 > 0' | wc -l)" -eq 2 ]
ok $? "write rendezvous over two rails: intact, bytes on both ($(echo "$r" | tr '\n' ';'))"
[ $rc -ne 0 ] && show

mrun -x RDMPI_BTL_OFI_RAILS=1 "$B/test/ofi/t_rails"
r=$(rails)
[ $rc -eq 0 ] && [ "$(echo "$r" | wc -l)" -eq 1 ] && echo "$r" | grep -Eq '^eth[01] [1-9]'
ok $? "RDMPI_BTL_OFI_RAILS=1: one rail, the one selection chose ($(echo "$r" | tr '\n' ';'))"
[ $rc -ne 0 ] && show

mrun -x RDMPI_BTL_OFI_RAILS=eth1 "$B/test/ofi/t_rails"
r=$(rails)
[ $rc -eq 0 ] && [ "$(echo "$r" | wc -l)" -eq 1 ] && echo "$r" | grep -q '^eth1 '
ok $? "RDMPI_BTL_OFI_RAILS=eth1: that rail alone ($(echo "$r" | tr '\n' ';'))"
[ $rc -ne 0 ] && show

# The rails listed in opposite orders on the two hosts: rank 1's rail 0
# is eth1, rank 0's eth0. Rails pair by network (the fabric in each
# card), not by index, so both networks carry data and every byte arrives.
cat >"$T/swap.sh" <<'EOF2'
#!/bin/sh
[ "$PMI_RANK" = 1 ] && RDMPI_BTL_OFI_RAILS=eth1,eth0 && export RDMPI_BTL_OFI_RAILS
exec "$@"
EOF2
chmod +x "$T/swap.sh"
mrun -x RDMPI_BTL_OFI_RAILS=eth0,eth1 "$T/swap.sh" "$B/test/ofi/t_rails"
r=$(rails)
[ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok' &&
	[ "$(echo "$r" | awk '$2 > 0' | wc -l)" -eq 2 ] && echo "$r" | grep -q '^eth0 [1-9]' &&
	echo "$r" | grep -q '^eth1 [1-9]'
ok $? "rails in opposite orders on the two hosts pair by network: intact, bytes on both ($(echo "$r" | tr '\n' ';'))"
[ $rc -ne 0 ] && show

# A third network, eth2 (198.51.100.128/26); rails eth1 and eth2. Killing
# every TCP connection over eth2 (ss -K) mid-transfer fails the reads in
# flight there: rail 1 leaves the peer's list, its chunks go over eth1.
ip link add eth2 netns "$H0" type veth peer name eth2 netns "$H1" &&
	ip -n "$H0" addr add 198.51.100.129/26 dev eth2 &&
	ip -n "$H1" addr add 198.51.100.130/26 dev eth2 &&
	ip -n "$H0" link set eth2 up && ip -n "$H1" link set eth2 up
# libfabric lists an interface once its carrier is up.
for _i in $(seq 50); do
	ip -n "$H0" link show eth2 | grep -q LOWER_UP && ip -n "$H1" link show eth2 | grep -q LOWER_UP &&
		break
	sleep 0.1
done
# rxm connects a rail at its first use: kill once eth2 carries data.
(
	for _i in $(seq 300); do
		[ -n "$(ip netns exec "$H0" ss -Htn state established dst 198.51.100.130)" ] && break
		sleep 0.1
	done
	sleep 0.5
	ip netns exec "$H0" ss -K dst 198.51.100.130 >/dev/null 2>&1
	ip netns exec "$H1" ss -K dst 198.51.100.129 >/dev/null 2>&1
) &
killer=$!
mrun -x RDMPI_BTL_OFI_RAILS=eth1,eth2 -x RDMPI_VERBOSE=1 "$B/test/ofi/t_rails" --loop 60
wait $killer
r=$(rails)
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^ok 1' &&
	printf '%s\n' "$err" | grep -q "failed on rail [0-9]* (btl ofi)" &&
	[ "$(echo "$r" | awk '$1 == "eth1" && $2 > 0' | wc -l)" -eq 1 ]
_r=$?
ok $_r "eth2's connections killed mid-transfer: its chunks go over eth1, data intact ($(echo "$r" | tr '\n' ';'))"
[ $_r -ne 0 ] && show

# cut_busy CMD...: runs CMD in the background (as $killer) once rank 0
# has a connection over eth2 and data flows, as the killer above.
cut_busy() {
	(
		for _i in $(seq 300); do
			[ -n "$(ip netns exec "$H0" ss -Htn state established dst 198.51.100.130)" ] && break
			sleep 0.1
		done
		sleep 0.5
		"$@"
	) &
	killer=$!
}
# eth2_up: both ends up again, with carrier.
eth2_up() {
	ip -n "$H0" link set eth2 up && ip -n "$H1" link set eth2 up
	for _i in $(seq 50); do
		ip -n "$H0" link show eth2 | grep -q LOWER_UP && ip -n "$H1" link show eth2 | grep -q LOWER_UP &&
			break
		sleep 0.1
	done
}
# Rail 1's link goes down on H0 under large striped messages and a stream
# of small ones: the interface says so (netlink) on both hosts (H1's end
# loses its carrier), the rail fails for its peers and the chunks in flight
# there go again over eth1; every byte of every message arrives.
for mode in read write; do
	cut_busy ip -n "$H0" link set eth2 down
	mrun -x RDMPI_BTL_OFI_RAILS=eth1,eth2 -x RDMPI_VERBOSE=1 -x RDMPI_PML_RNDV=$mode \
		"$B/test/ofi/t_rails" --mixed 40
	wait $killer
	r=$(rails)
	[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^ok 1' &&
		printf '%s\n' "$err" | grep -q "rail 1 (tcp;ofi_rxm on eth2 .*) lost rank 1: its interface eth2 went down" &&
		[ "$(echo "$r" | awk '$1 == "eth1" && $2 > 0' | wc -l)" -eq 1 ]
	_r=$?
	ok $_r "eth2's link down mid-transfer ($mode rendezvous): its chunks go over eth1, large and small messages intact ($(echo "$r" | tr '\n' ';'))"
	[ $_r -ne 0 ] && show
	eth2_up
done

# A path that dies with both interfaces up (blackhole routes to the peer's
# eth2 address on both hosts): reads in flight there never complete, and
# after RDMPI_OFI_RAIL_STALL seconds of polling without a completion the
# rail fails as above.
cut_busy sh -c "ip -n $H0 route add blackhole 198.51.100.130/32 && ip -n $H1 route add blackhole 198.51.100.129/32"
mrun -x RDMPI_BTL_OFI_RAILS=eth1,eth2 -x RDMPI_VERBOSE=1 -x RDMPI_OFI_RAIL_STALL=3 \
	"$B/test/ofi/t_rails" --mixed 40
wait $killer
ip -n "$H0" route del blackhole 198.51.100.130/32 2>/dev/null
ip -n "$H1" route del blackhole 198.51.100.129/32 2>/dev/null
r=$(rails)
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^ok 1' &&
	printf '%s\n' "$err" | grep -q "rail 1 (tcp;ofi_rxm on eth2 .*) lost rank [01]: [0-9]* operations in flight and none completed for 3 s" &&
	[ "$(echo "$r" | awk '$1 == "eth1" && $2 > 0' | wc -l)" -eq 1 ]
_r=$?
ok $_r "a dead path with its interfaces up: the stall check fails eth2, data intact ($(echo "$r" | tr '\n' ';'))"
[ $_r -ne 0 ] && show

# The only rail's link goes down: no rail is left to rank 1, and the job
# ends (not hangs: mrun's timeout would say 124) naming the peer, the rail
# and the cause.
cut_busy ip -n "$H0" link set eth2 down
mrun -x RDMPI_BTL_OFI_RAILS=eth2 "$B/test/ofi/t_rails" --loop 60
wait $killer
[ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ] &&
	printf '%s\n' "$err" | grep -q "rail 0 (tcp;ofi_rxm on eth2 .*) lost rank [01]: its interface eth2 went down"
_r=$?
ok $_r "the only rail's link down mid-transfer ends the job naming the peer, the rail and the cause (rc $rc)"
[ $_r -ne 0 ] && show
eth2_up

# A routed network: eth3 is 10.1.0.1/24 on H0 and 10.2.0.1/24 on H1, each
# with an on-link route to the other's subnet. The two rails are on
# different fabrics, so they pair as rail 0s (the old rule) and number
# their keys differently; the pml takes the one key of a one-rail peer.
ip link add eth3 netns "$H0" type veth peer name eth3 netns "$H1" &&
	ip -n "$H0" addr add 10.1.0.1/24 dev eth3 && ip -n "$H1" addr add 10.2.0.1/24 dev eth3 &&
	ip -n "$H0" link set eth3 up && ip -n "$H1" link set eth3 up &&
	ip -n "$H0" route add 10.2.0.0/24 dev eth3 && ip -n "$H1" route add 10.1.0.0/24 dev eth3
for _i in $(seq 50); do
	ip -n "$H0" link show eth3 | grep -q LOWER_UP && ip -n "$H1" link show eth3 | grep -q LOWER_UP &&
		break
	sleep 0.1
done
mrun -x RDMPI_BTL_OFI_RAILS=eth3 "$B/test/ofi/t_rails"
r=$(rails)
[ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok' && echo "$r" | grep -q '^eth3 [1-9]'
ok $? "one rail across two subnets (routed): RDMA by read, every byte ($(echo "$r" | tr '\n' ';'))"
[ $rc -ne 0 ] && show

mrun -x RDMPI_BTL_OFI_RAILS=eth7 "$B/test/ofi/t_rails"
[ $rc -ne 0 ] && printf '%s\n' "$err" | grep -q "RDMPI_BTL_OFI_RAILS=eth7: no tcp;ofi_rxm entry on eth7"
_r=$?
ok $_r "a rail name that matches nothing ends the job naming it"
[ $_r -ne 0 ] && show
finish
