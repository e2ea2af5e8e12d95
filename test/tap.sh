# TAP helpers for shell tests: source it, then plan N; ok COND-EXIT "desc".
tap_n=0
tap_failed=0
plan() { echo "1..$1"; }
# ok STATUS DESCRIPTION: STATUS 0 passes.
ok() {
    tap_n=$((tap_n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $tap_n - $2"
    else
        echo "not ok $tap_n - $2"
        tap_failed=$((tap_failed + 1))
    fi
}
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $1"; }
diag() { echo "$@" | sed 's/^/# /'; }
# is GOT WANT DESCRIPTION: one point, both values shown when they differ.
is() {
    if [ "$1" = "$2" ]; then ok 0 "$3"; else
        ok 1 "$3"; diag "got:  '$1'"; diag "want: '$2'"
    fi
}
# like TEXT EXTENDED-REGEX DESCRIPTION
like() {
    if printf '%s\n' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else
        ok 1 "$3"; diag "text: '$1'"; diag "does not match: $2"
    fi
}
# Runs a command with a safety timeout, capturing stdout, stderr and status
# into $out, $err and $rc. The timeout is $run_limit seconds (default 60);
# a test whose program judges its own progress raises it to a backstop.
run() {
    _o=$(mktemp) _e=$(mktemp)
    timeout "${run_limit:-60}" "$@" >"$_o" 2>"$_e" </dev/null
    rc=$?
    out=$(cat "$_o")
    err=$(cat "$_e")
    rm -f "$_o" "$_e"
}
# run_watched MPIRUN-COMMAND...: as run, but judges progress, not time.
# Every $watch_secs seconds (default 60) it asks the ranks for their hang
# report (SIGUSR1 to mpirun, which passes it on); each blocked rank prints
# "rdmpi[R]: progress: N events so far". Two reports in a row with the same
# lines mean no rank moved: the job is ended (SIGTERM) as stuck, rc 124. A
# rank busy computing prints none and counts as moving. $run_limit is a
# backstop (default 900 s here).
run_watched() {
    _o=$(mktemp) _e=$(mktemp)
    "$@" >"$_o" 2>"$_e" </dev/null &
    _pid=$! _t=0 _last= _stuck=0
    while kill -0 "$_pid" 2>/dev/null; do
        sleep 1
        _t=$((_t + 1))
        if [ "$_t" -ge "${run_limit:-900}" ]; then
            echo "run_watched: still running after $_t s, ended" >>"$_e"
            kill -TERM "$_pid" 2>/dev/null
            _stuck=1
            break
        fi
        [ $((_t % ${watch_secs:-60})) -eq 0 ] || continue
        _seen=$(grep -c '^rdmpi\[[0-9]*\]: progress: ' "$_e")
        kill -USR1 "$_pid" 2>/dev/null
        sleep 2
        _t=$((_t + 2))
        _now=$(grep '^rdmpi\[[0-9]*\]: progress: ' "$_e" | tail -n +$((_seen + 1)) | sort)
        if [ -n "$_now" ] && [ "$_now" = "$_last" ]; then
            echo "run_watched: no rank moved in ${watch_secs:-60} s: stuck" >>"$_e"
            kill -TERM "$_pid" 2>/dev/null
            _stuck=1
            break
        fi
        _last=$_now
    done
    wait "$_pid"
    rc=$?
    [ "$_stuck" -eq 0 ] || rc=124
    out=$(cat "$_o")
    err=$(cat "$_e")
    rm -f "$_o" "$_e"
}
finish() { exit $((tap_failed != 0)); }
