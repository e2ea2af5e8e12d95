#!/bin/sh
# Dynamic processes (t_dpm_conn.c) over btl/sm and over btl/ofi's tcp
# provider: accept/connect and join inside one job, spawn of 1..4
# children (20 rounds of spawn and disconnect), a spawning child,
# spawn_multiple, refused spawns, and two mpirun jobs meeting through a
# port in a file. After each job no process of the test runs and no
# /dev/shm object of its namespaces is left.
. "$top_srcdir/test/tap.sh"
P="$top_builddir/test/dpm/t_dpm_conn"
# The children run the real binary (argv[0]), which must find the library.
LD_LIBRARY_PATH="$top_builddir/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
uid=$(id -u)
plan 24

# clean WHAT: nothing of the last job's namespaces is left.
clean() {
    ns=$(printf '%s\n' "$out" | sed -n 's/^# namespace \(rdmpi\.[0-9]*\)$/\1/p' | head -1)
    left=$(ls /dev/shm 2>/dev/null | grep -c -- "^rdmpi-$uid-$ns[.-]")
    alive=$(pgrep -f "^$P" | wc -l)
    [ -n "$ns" ] && [ "$left" -eq 0 ] && [ "$alive" -eq 0 ]
    ok $? "$1: nothing left (namespace ${ns:-?}: $left /dev/shm objects, $alive processes)"
}

job() { # what np universe env... -- args...
    what=$1 np=$2 univ=$3
    shift 3
    envs=
    while [ "$1" != -- ]; do envs="$envs $1"; shift; done
    shift
    run_limit=600 run_watched env $envs "$MPIRUN" --universe-size "$univ" -n "$np" "$P" "$@"
    ok $rc "$what"
    [ $rc -eq 0 ] || diag "$out" "$err"
}

for t in sm ofi; do
    if [ $t = sm ]; then
        set --
    else
        set -- RDMPI_BTL=ofi,self RDMPI_OFI_PROVIDER=tcp
    fi
    job "$t: accept/connect between halves of one job, 4 ranks, 3 rounds" 4 4 "$@" -- self
    job "$t: MPI_Comm_join over a socket" 2 2 "$@" -- join
    job "$t: 2 parents spawn 4 children" 2 6 "$@" -- spawn 4 1
    job "$t: spawn and disconnect, 20 rounds, no descriptor left" 1 30 "$@" -- spawn 1 20
    clean "$t: 20 rounds"
    job "$t: a child spawns a grandchild" 1 3 "$@" -- nested
    job "$t: spawn_multiple, per-command arguments and MPI_APPNUM" 2 5 "$@" -- multi
    job "$t: refused spawns and dead ports: classes and messages" 2 8 "$@" -- errors
    clean "$t: refused spawns"
    f=$(mktemp -u "${TMPDIR:-/tmp}/t_dpm_port.XXXXXX")
    env "$@" "$MPIRUN" -n 2 "$P" server "$f" >"$f.out" 2>&1 &
    srv=$!
    job "$t: two mpirun jobs: the client side, 3 ranks" 3 3 "$@" -- client "$f"
    [ $rc -eq 0 ] || kill $srv 2>/dev/null # its accept would wait for ever
    wait $srv
    st=$?
    ok $st "$t: two mpirun jobs: the server side, 2 ranks"
    [ $st -eq 0 ] || diag "$(cat "$f.out")"
    rm -f "$f" "$f.out"
done

# Two jobs on two fake hosts: the port's address is the server host's.
FH="$top_srcdir/test/fakehost/fakehost.sh"
if ! why=$("$FH" check); then
    skip "fake hosts unavailable: $why"
    skip "fake hosts unavailable: $why"
    finish
fi
FAKEHOST_LIB=1 . "$FH"
fakehost_up 2 "dpm$$h" || exit 1
f=$(mktemp -u "${TMPDIR:-/tmp}/t_dpm_port.XXXXXX")
ofi="RDMPI_BTL=ofi,self RDMPI_OFI_PROVIDER=tcp"
ip netns exec "dpm$$h0" env $ofi "$MPIRUN" -n 2 "$P" server "$f" >"$f.out" 2>&1 &
srv=$!
run_limit=600 run_watched ip netns exec "dpm$$h1" env $ofi "$MPIRUN" -n 2 "$P" client "$f"
ok $rc "two fake hosts: the client job connects to the server job's port"
[ $rc -eq 0 ] || { diag "$out" "$err"; kill $srv 2>/dev/null; }
wait $srv
st=$?
ok $st "two fake hosts: the server job accepts"
[ $st -eq 0 ] || diag "$(cat "$f.out")"
rm -f "$f" "$f.out"
finish
