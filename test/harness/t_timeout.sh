#!/bin/sh
# timeout: 120
# test/timeout.sh, the harness's per-test limit: a test past its limit
# fails with "Bail out! timed out after N s", its MPI job's hang report is
# in the output, and no process of it is left; a test within its limit
# passes through untouched.
. "$top_srcdir/test/tap.sh"
W="$top_srcdir/test/timeout.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
plan 13

# left MARK: pids of processes still carrying T_TIMEOUT_MARK=MARK.
left() {
    grep -l "T_TIMEOUT_MARK=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' '
}

# A child in the test's group, one in a group of its own, one in a
# session of its own: all must go.
cat >"$T/slow.sh" <<'EOS'
#!/bin/sh
# timeout: 2
echo "1..1"
sleep 120 &
sh -c 'set -m; sleep 121 & wait' &
setsid sleep 122 &
sleep 123
EOS
chmod +x "$T/slow.sh"
t0=$(date +%s)
out=$(T_TIMEOUT_MARK=slow$$ sh "$W" "$T/slow.sh")
rc=$?
t1=$(date +%s)
[ "$rc" -ne 0 ]
ok $? "a test past its '# timeout: 2' line fails (rc $rc)"
printf '%s\n' "$out" | tail -n 1 | grep -qx 'Bail out! timed out after 2 s'
ok $? "and its TAP stream ends with 'Bail out! timed out after 2 s'"
[ $((t1 - t0)) -lt 20 ]
ok $? "within seconds of the limit ($((t1 - t0)) s)"
l=$(left "slow$$")
[ -z "$l" ]
ok $? "no process of it is left (${l:-none})"

# No header: TEST_TIMEOUT, the make variable, is the limit.
printf '#!/bin/sh\nsleep 60\n' >"$T/plain.sh"
chmod +x "$T/plain.sh"
out=$(TEST_TIMEOUT=1 T_TIMEOUT_MARK=plain$$ sh "$W" "$T/plain.sh")
printf '%s\n' "$out" | grep -qx 'Bail out! timed out after 1 s'
ok $? "without a header TEST_TIMEOUT=1 is the limit"
l=$(left "plain$$")
[ -z "$l" ]
ok $? "and nothing is left (${l:-none})"

# Within the limit: output and status pass through.
printf '#!/bin/sh\n# timeout: 30\necho "1..1"\necho "ok 1 - quick"\nexit 3\n' >"$T/quick.sh"
chmod +x "$T/quick.sh"
t0=$(date +%s)
out=$(sh "$W" "$T/quick.sh")
rc=$?
t1=$(date +%s)
[ "$rc" -eq 3 ] && [ "$out" = "$(printf '1..1\nok 1 - quick')" ]
ok $? "a test within its limit keeps its output and status (rc $rc)"
[ $((t1 - t0)) -lt 5 ]
ok $? "and the wrapper does not wait for the limit ($((t1 - t0)) s)"
# Nothing of the wrapper's may keep the driver's pipe open after a quick
# test (a timer once did, for as long as the limit, under bash).
t0=$(date +%s)
for i in 1 2 3 4 5; do
    for sh in sh bash; do
        command -v $sh >/dev/null && $sh "$W" "$T/quick.sh" | cat >/dev/null
    done
done
t1=$(date +%s)
[ $((t1 - t0)) -lt 10 ]
ok $? "ten quick tests through a pipe, under sh and bash, end in $((t1 - t0)) s"

# An MPI job that hangs, its stderr in a file as tap.sh's run keeps it:
# the hang report of every rank is copied into the output.
cat >"$T/hang.sh" <<EOS
#!/bin/sh
# timeout: 8
echo "1..1"
"$MPIRUN" -n 2 "$top_builddir/test/launcher/ln_mpi" hang >"$T/hang.out" 2>"$T/hang.err"
EOS
chmod +x "$T/hang.sh"
out=$(T_TIMEOUT_MARK=hang$$ sh "$W" "$T/hang.sh")
rc=$?
printf '%s\n' "$out" | tail -n 1 | grep -qx 'Bail out! timed out after 8 s'
ok $? "a hung MPI job times out (rc $rc)"
printf '%s\n' "$out" | grep -q '^#   rdmpi\[0\]: progress: [0-9]* events so far'
ok $? "rank 0's hang report is in the output"
printf '%s\n' "$out" | grep -q '^#   rdmpi\[1\]: progress: [0-9]* events so far'
ok $? "rank 1's too"
l=$(left "hang$$")
[ -z "$l" ]
ok $? "no mpirun or rank is left (${l:-none})"
[ "$tap_failed" -eq 0 ] || printf '%s\n' "$out" | diag
finish
