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
# Runs a command with a safety timeout, capturing stdout, stderr and status
# into $out, $err and $rc.
run() {
    _o=$(mktemp) _e=$(mktemp)
    timeout 60 "$@" >"$_o" 2>"$_e" </dev/null
    rc=$?
    out=$(cat "$_o")
    err=$(cat "$_e")
    rm -f "$_o" "$_e"
}
finish() { exit $((tap_failed != 0)); }
