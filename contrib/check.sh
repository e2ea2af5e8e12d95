#!/bin/sh
# Runs the whole test suite: a warnings-as-errors build and a sanitizer build
# (AddressSanitizer + UndefinedBehaviorSanitizer), each with `make check`.
# Prints "N passed, N failed" last. Build trees: _build/ and _build-san/.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
jobs=$(nproc 2>/dev/null || echo 2)

[ -x configure ] || ./autogen.sh || exit 1

passed=0
failed=0
status=0
# Counts TAP results from the automake summary of one build tree.
count() {
    log="$1/test-suite.log"
    [ -f "$log" ] || { failed=$((failed + 1)); return; }
    p=$(sed -n 's/^# PASS: *//p' "$log" | head -n 1)
    s=$(sed -n 's/^# SKIP: *//p' "$log" | head -n 1)
    f=$(sed -n 's/^# FAIL: *//p' "$log" | head -n 1)
    x=$(sed -n 's/^# XPASS: *//p' "$log" | head -n 1)
    e=$(sed -n 's/^# ERROR: *//p' "$log" | head -n 1)
    passed=$((passed + ${p:-0} + ${s:-0}))
    failed=$((failed + ${f:-0} + ${x:-0} + ${e:-0}))
}

build() {
    dir=$1
    shift
    mkdir -p "$dir"
    (cd "$dir" && "$top/configure" -q "$@" && make -s -j"$jobs") || return 1
    (cd "$dir" && make -s -j"$jobs" check) || return 1
}

build _build --enable-werror || status=1
count _build
build _build-san --enable-werror --enable-sanitizers || status=1
count _build-san

for d in _build _build-san; do
    [ -f "$d/test-suite.log" ] && grep -q '^# \(FAIL\|ERROR\): *[1-9]' "$d/test-suite.log" &&
        sed -n '/^FAIL\|^ERROR/,$p' "$d/test-suite.log" | head -n 200
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $status -eq 0 ]
