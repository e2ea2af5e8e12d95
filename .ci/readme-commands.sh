#!/bin/sh
# CI: README's two commands work in either order, and again, in one clone.
# Command 1 configures in the source tree, command 2 (contrib/check.sh)
# configures two trees out of it; the clash between them shows at configure
# time, so this runs command 1 up to its configure and command 2 with
# --configure-only (a few minutes, against the full suite's much longer run).
# Each order gets a fresh clone of this checkout's HEAD.  TAP output.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdmpi-readme.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
bad=0
# step CLONE DESCRIPTION COMMAND: runs COMMAND in the clone, one TAP line.
step() {
    n=$((n + 1))
    if (cd "$tmp/$1" && sh -c "$3") >"$tmp/log" 2>&1; then
        echo "ok $n - $1: $2"
    else
        echo "not ok $n - $1: $2"
        sed 's/^/# /' "$tmp/log" | tail -n 30
        bad=$((bad + 1))
    fi
}
cmd1='sh contrib/install-deps.sh && ./autogen.sh && ./configure -q --prefix="$PWD/_install"'
cmd2='sh contrib/check.sh --configure-only'

echo "1..7"
for c in install-first check-first; do
    git clone -q "$top" "$tmp/$c" || exit 1
done
step install-first "command 1 (configure in place)" "$cmd1"
step install-first "then command 2" "$cmd2"
step install-first "command 2 again" "$cmd2"
step install-first "command 1 again" "$cmd1"
step check-first "command 2 (out-of-tree trees)" "$cmd2"
step check-first "then command 1" "$cmd1"
step check-first "then command 2 again" "$cmd2"
[ $bad -eq 0 ]
