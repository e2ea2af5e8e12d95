#!/bin/sh
# timeout: 1800 (the harness's limit: several jobs over simulated hosts)
# The fake-host tooling: hosts come up with their addresses, reach each
# other and nothing else, and always go away (also when the test using
# them fails).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$top_srcdir/test/tap.sh"
FH="$top_srcdir/test/fakehost/fakehost.sh"
P="tfh$$x"

plan 6
if ! why=$("$FH" check); then
	for i in 1 2 3 4 5 6; do skip "fake hosts unavailable: $why"; done
	exit 0
fi

# reach NS ADDR: a TCP connect that is refused (nobody listens) proves
# the address answers; a timeout or "no route" does not.
reach() {
	ip netns exec "$1" timeout 2 bash -c "exec 3<>/dev/tcp/$2/9" 2>&1 | grep -q refused
}

"$FH" up 3 "$P"
ok $? "up 3: exit 0"
is_list=$("$FH" list "$P" | tr '\n' ' ')
[ "$is_list" = "${P}0 ${P}1 ${P}2 " ]
ok $? "list: ${P}0 ${P}1 ${P}2 (got: $is_list)"
addr=$(ip -n "${P}2" -4 -o addr show dev eth0 | awk '{print $4}')
[ "$addr" = "198.51.100.3/24" ] && ip -n "${P}2" -o link show lo | grep -q UP
ok $? "host 2 has 198.51.100.3/24 on eth0 and loopback up"
reach "${P}0" 198.51.100.3 && reach "${P}2" 198.51.100.1 && ! reach "${P}0" 192.0.2.2
ok $? "hosts reach each other, and only each other"
"$FH" down "$P"
[ -z "$(ip netns list | grep "^$P")" ]
ok $? "down removes every namespace"

# A test that fails half-way still leaves nothing behind (the trap).
(FAKEHOST_LIB=1 . "$FH"; fakehost_up 2 "${P}t" || exit 9; false)
st=$?
[ $st -eq 1 ] && [ -z "$(ip netns list | grep "^${P}t")" ]
ok $? "a failing user of fakehost_up leaves no namespace (status $st)"
"$FH" down "$P"
finish
