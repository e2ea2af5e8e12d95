#!/bin/sh
# bench/compare and bench/startup.sh in --dry-run mode: the commands they
# would run, in the interleaved order, with each MPI's launch options.
# Peers that are not installed must show up as "not available".
. "$top_srcdir/test/tap.sh"
cmp=$top_srcdir/bench/compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/out

plan 11
run "$cmp" --dry-run -r 2 -b latency,barrier -o "$dir" --rdmpi "$top_builddir"
ok $rc "compare --dry-run exits 0"
[ $rc -eq 0 ] || diag "$out" "$err"
[ ! -e "$dir" ]
ok $? "a dry run writes nothing"

lat=$(echo "$out" | grep -v '^#' | grep ' latency$')
# Ours on sm and tcp, Open MPI's three (vader, ofi tcp, tcp) and MPICH's
# one where installed; two rounds: the same block twice (A B A B).
n=2
command -v mpicc.openmpi >/dev/null 2>&1 && n=$((n + 3))
command -v mpicc.mpich >/dev/null 2>&1 && n=$((n + 1))
[ "$(echo "$lat" | wc -l)" -eq $((2 * n)) ] &&
    [ "$(echo "$lat" | head -n $n)" = "$(echo "$lat" | tail -n $n)" ] &&
    [ "$(echo "$lat" | head -n $n | sort -u | wc -l)" -eq $n ]
st=$?
ok $st "each round runs every configuration once, in the same order ($n of them)"
[ $st -eq 0 ] || diag "$lat"

first=$(echo "$lat" | head -n 1)
echo "$first" | grep -q "launcher/mpirun -n 2 --bind-to core .*rdmpi-bench.rdmpi latency$" &&
    ! echo "$first" | grep -q RDMPI_BTL
ok $? "ours first, on sm, pinned"
echo "$lat" | grep -q '^env RDMPI_BTL=ofi,self FI_PROVIDER=tcp .*launcher/mpirun -n 2 --bind-to core '
ok $? "ours over libfabric tcp"
echo "$out" | grep -q 'wrappers/mpicc -O2 -pthread -o .*rdmpi-bench.rdmpi .*bench.c .*b_latency.c'
ok $? "built with our mpicc from the bench sources"

# A peer: its launch lines when installed, "not available" otherwise.
peer() { # MPI PATTERN DESCRIPTION
    if command -v mpicc.$1 >/dev/null 2>&1; then
        echo "$lat" | grep -q -- "$2"
        ok $? "$3"
    else
        echo "$out" | grep -q "$1: not available"
        ok $? "$3: reported not available"
    fi
}
root=
[ "$(id -u)" = 0 ] && root=' --allow-run-as-root'
peer openmpi "^mpirun.openmpi -n 2 --oversubscribe$root --bind-to core --mca pml ob1 --mca btl vader,self " \
    "Open MPI vader"
peer openmpi "^env FI_PROVIDER=tcp mpirun.openmpi .* --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_exclude '' -x FI_PROVIDER=tcp " \
    "Open MPI cm/ofi over tcp"
peer mpich '^mpirun.mpich -n 2 -bind-to core .*rdmpi-bench.mpich latency$' "MPICH, pinned"

run "$cmp" --dry-run -b nosuch
[ $rc -eq 2 ] && echo "$err" | grep -q "unknown benchmark 'nosuch'"
ok $? "an unknown benchmark is refused"

run "$top_srcdir/bench/startup.sh" --dry-run -r 2 -n "2 8" -o "$dir" --rdmpi "$top_builddir"
n8=$(echo "$out" | grep -c 'mpirun -n 8 ')
[ $rc -eq 0 ] && [ "$n8" -eq 2 ] && echo "$out" | grep -q 'launcher/mpirun -n 2 .*hello.rdmpi$'
ok $? "startup.sh --dry-run: ours at -n 2 and -n 8, twice"
[ $rc -eq 0 ] || diag "$out" "$err"
finish
