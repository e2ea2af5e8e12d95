#!/bin/sh
# btl/sm with many local peers (t_sm_peers.c: all pairs, every protocol
# size, quiet spells that let the doorbell bits go down, ANY_SOURCE) at 16
# ranks on a 2-core host, with the default and the smallest rings and
# without CMA; after each job nothing of it may be left in /dev/shm (btl/sm
# segments, coll's shared segment, the shared window). Then the segment
# helper alone (t_shm_seg.c), and a rank killed while its segment still has
# a name: mpirun must sweep it.
. "$top_srcdir/test/tap.sh"
b="$top_builddir/test/btl"
plan 6

# leftovers NSPACE: our /dev/shm files of that job.
leftovers() {
    ls /dev/shm 2>/dev/null | grep -c "^rdmpi-$(id -u)-$1-"
}

# peers_ok DESCRIPTION ENV...: t_sm_peers on $n ranks; every rank passed
# and the job left nothing in /dev/shm.
peers_ok() {
    desc=$1
    shift
    run_limit=900
    run env RDMPI_COLL_SHM_AFTER=0 "$@" "$MPIRUN" --timeout 840 -n "$n" "$b/t_sm_peers"
    run_limit=60
    ns=$(echo "$out" | sed -n 's/^# .*nspace \(.*\)$/\1/p')
    left=$(leftovers "$ns")
    nok=$(echo "$out" | grep -c '^# rank [0-9]* ok$')
    [ $rc -eq 0 ] && [ -n "$ns" ] && [ "$left" -eq 0 ] && [ "$nok" -eq "$n" ]
    ok $? "$desc ($n ranks: $nok passed, exit $rc, $left files left in /dev/shm)"
    [ $rc -eq 0 ] || diag "$out" "$err"
}

n=16
peers_ok "all pairs, every size, doorbells down and up again" RDMPI_VERBOSE=0
peers_ok "the same with 8 KiB rings (eager capped, rings full)" RDMPI_SM_RING_BUDGET=32k
n=4
peers_ok "the same without CMA (copy pipeline)" RDMPI_SM_CMA=0

run "$b/t_shm_seg"
[ $rc -eq 0 ]
ok $? "the segment helper alone (t_shm_seg: $(echo "$out" | grep -c '^ok') of $(echo "$out" | grep -c '^\(not \)*ok') passed)"
[ $rc -eq 0 ] || diag "$out" "$err"

run_limit=300
run "$MPIRUN" --timeout 240 -n 3 "$b/t_shm_seg" --kill
run_limit=60
orphan=$(echo "$out" | sed -n 's/^# orphan \(.*\)$/\1/p')
[ $rc -ne 0 ] && [ -n "$orphan" ]
ok $? "a rank killed with a named segment ends the job (exit $rc, segment ${orphan:-none})"
[ -n "$orphan" ] && [ ! -e "/dev/shm$orphan" ] &&
    ns=$(echo "$orphan" | sed "s|^/rdmpi-$(id -u)-\(.*\)-[0-9]*\.orphan.*|\1|") &&
    [ "$(leftovers "$ns")" -eq 0 ]
ok $? "mpirun swept the killed rank's segment and the job's others"
[ -n "$orphan" ] && [ -e "/dev/shm$orphan" ] && rm -f "/dev/shm$orphan"
finish
