#!/bin/bash
# timeout: 3600 (the harness's limit: guests boot, then the suite runs)
# rdmpi over verbs on soft-RoCE (rxe0) and soft-iWARP (siw0) in qemu
# guests (rdma-vm.sh): the representative part of suite.sh in one guest,
# then the point-to-point and collective tests across two guests.
# docs/rdma-testing.md says how to run all of it. Skips, saying why, in a
# sanitizer build (too slow under emulation), with RDMPI_RDMA_VM=0, or
# where guests cannot run (no qemu and no root, no Debian archive).
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
src=$(cd "$top_srcdir" && pwd)
bld=$(cd "$top_builddir" && pwd)
vm=$src/test/rdma/rdma-vm.sh

skip_all() { echo "1..0 # SKIP $1"; exit 0; }
[ "${RDMPI_RDMA_VM:-1}" = 0 ] && skip_all "RDMPI_RDMA_VM=0"
case " ${SAN_FLAGS:-} " in *sanitize*) skip_all "sanitizer build: the guests run the -Werror build" ;; esac
why=$("$vm" check 2>&1) || skip_all "${why#rdma-vm: skipped: }"

# The guest mounts these at the same paths: one if the build is inside
# the source tree.
case $bld/ in "$src"/*) share=$src ;; *) share=$src:$bld ;; esac
export RDMA_VM_SHARE=$share RDMA_VM_TIMEOUT=${RDMA_VM_TIMEOUT:-2400}
work=$(mktemp -d "$bld/.rdma-XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '%s\n' "$src/test/rdma/suite.sh $bld ci rxe0 siw0" >"$work/one.sh"
printf '%s\n' "$src/test/rdma/suite.sh $bld two-a rxe0" >"$work/a.sh"
printf '%s\n' "$src/test/rdma/suite.sh $bld two-b" >"$work/b.sh"

# Each guest run prints its own TAP; renumber the two into one stream.
n=0
relay() {
    local line
    while IFS= read -r line; do
        case $line in
        "ok "* | "not ok "*)
            n=$((n + 1))
            echo "$line" | sed "s/^\(not \)\{0,1\}ok [0-9]*/\1ok $n/"
            ;;
        1..*) ;;
        *) echo "# $line" ;;
        esac
    done
}
cd "$work" || exit 1
"$vm" image >image.log 2>&1 || { rc=$?; [ $rc = 77 ] && skip_all "$(tail -n 1 image.log)"; }
"$vm" run one.sh 2>err1.log >out1.log
rc1=$?
relay <out1.log
[ $rc1 = 0 ] || { echo "# one guest: exit $rc1"; sed 's/^/# /' err1.log | tail -n 20; }
"$vm" run2 a.sh b.sh 2>err2.log >out2.log
rc2=$?
relay <out2.log
[ $rc2 = 0 ] || { echo "# two guests: exit $rc2"; sed 's/^/# /' err2.log | tail -n 20; }
# A rank that crashed in a guest left its core: its backtrace, read here.
if [ -f "$bld/.rdma-cores/cores" ]; then
    while read -r core exe; do
        echo "# core of $exe: $core"
        command -v gdb >/dev/null && gdb -batch -ex 'thread apply all bt 20' "$exe" "$core" 2>&1 | grep '^#\|^Thread' | sed 's/^/#   /'
    done <"$bld/.rdma-cores/cores"
fi
rm -rf "$bld/.rdma-cores"
# A guest that died early printed too few lines: count that as a failure.
[ $rc1 = 0 ] && [ $rc2 = 0 ] || { n=$((n + 1)); echo "not ok $n - every guest finished its tests"; }
echo "1..$n"
exit 0
