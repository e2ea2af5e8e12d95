#!/bin/sh
# The harness's per-test limit (LOG_COMPILER in Makefile.am): runs one test
# in a session of its own and ends it when it outlives its limit.
#
# The limit is the test's "# timeout: N" line (in the comment block that
# opens the script), else $TEST_TIMEOUT (a make variable, default 900 s). On expiry
# the test's MPI jobs are asked for their hang report (SIGUSR1 to each
# mpirun, which passes it to its ranks, and to MPI programs run without
# mpirun); where a job's stderr goes to a file, as run and run_watched in
# test/tap.sh arrange, the report is copied from it into this output. Then
# everything in the session, and any process descended from the test that
# left it, gets SIGTERM, then SIGKILL, and the TAP stream ends with
# "Bail out! timed out after N s", which the driver counts as a failure.
test=$1
limit=${TEST_TIMEOUT:-900}
if [ -f "$test" ] && head -c 2 "$test" | grep -q '^#!'; then
    t=$(sed -n '/^[^#]/q; s/^# timeout: *\([0-9][0-9]*\).*$/\1/p' "$test" | head -n 1)
    [ -n "$t" ] && limit=$t
fi

# end SIG: every process of the test gets SIG, then SIGKILL if any is left
# after 5 s.
end() {
    for sig in "$1" KILL; do
        left=$(procs)
        [ -n "$left" ] || break
        kill -"$sig" "-$pid" 2>/dev/null
        for p in $left; do
            kill -"$sig" "$p" 2>/dev/null
        done
        for i in 1 2 3 4 5; do
            [ -n "$(procs)" ] || break
            sleep 1
        done
    done
}

# setsid without a fork: a background child of a non-interactive shell
# leads no group, so the test keeps this pid and it names the session.
setsid "$@" &
pid=$!

# procs: the pid of every process in the test's session or descended from
# the test (a daemon may start a session of its own).
procs() {
    # pid (comm) state ppid pgrp session: comm may hold spaces.
    sed -n 's/^\([0-9]*\) (.*) . \([0-9]*\) [0-9]* \([0-9]*\) .*/\1 \2 \3/p' \
        /proc/[0-9]*/stat 2>/dev/null | awk -v root="$pid" '
        { par[$1] = $2; sid[$1] = $3 }
        END {
            for (p in par) {
                keep = sid[p] == root
                for (q = p; !keep && q in par && q > 1; q = par[q])
                    keep = q == root
                if (keep)
                    print p
            }
        }'
}

# The test is outside the terminal's process group: if make is
# interrupted, the interrupt is passed on here.
trap 'kill "$timer" 2>/dev/null; end TERM; exit 130' HUP INT TERM

# The timer ends the wait below with SIGALRM. It polls, so that it never
# outlives this script by more than a second however it ends, and it keeps
# none of the driver's pipes open.
expired=0
trap 'expired=1' ALRM
(
    t=0
    while [ "$t" -lt "$limit" ]; do
        sleep 1
        kill -0 $$ 2>/dev/null || exit 0
        t=$((t + 1))
    done
    kill -ALRM $$
) </dev/null >/dev/null 2>&1 &
timer=$!
wait "$pid"
rc=$?
kill "$timer" 2>/dev/null
[ "$expired" -eq 1 ] || exit "$rc"

# Hang reports: from each mpirun (which passes SIGUSR1 on), and from MPI
# programs that no mpirun runs; other processes would die of SIGUSR1.
echo "# timeout.sh: $test still running after $limit s; asking for hang reports"
asked=
for p in $(procs); do
    comm=$(cat "/proc/$p/comm" 2>/dev/null)
    ppid=$(sed -n 's/^[0-9]* (.*) . \([0-9]*\) .*/\1/p' "/proc/$p/stat" 2>/dev/null)
    pcomm=$(cat "/proc/$ppid/comm" 2>/dev/null)
    if [ "$comm" = mpirun ] ||
        { [ "$pcomm" != mpirun ] && grep -q librdmpi "/proc/$p/maps" 2>/dev/null; }; then
        err=$(readlink "/proc/$p/fd/2" 2>/dev/null)
        kill -USR1 "$p" 2>/dev/null && asked="$asked $p:$err"
    fi
done
if [ -n "$asked" ]; then
    sleep 3
    for a in $asked; do
        err=${a#*:}
        echo "# timeout.sh: hang report of pid ${a%%:*} ($err):"
        if [ -f "$err" ]; then
            grep '^rdmpi\[' "$err" | tail -n 200 | sed 's/^/#   /'
        else
            echo "#   (on the test's stderr above)"
        fi
    done
fi

# SIGTERM first so that mpirun can remove its ranks' files.
end TERM
wait "$pid" 2>/dev/null
left=$(procs)
[ -z "$left" ] || echo "# timeout.sh: still running after SIGKILL: $left"
echo "Bail out! timed out after $limit s"
exit 1
