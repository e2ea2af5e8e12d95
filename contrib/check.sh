#!/bin/sh
# Runs the whole test suite: a warnings-as-errors build and a sanitizer build
# (AddressSanitizer + UndefinedBehaviorSanitizer), each with `make check`.
# Prints "N passed, N failed, N skipped" last (a TAP "ok ... # SKIP" and an
# Automake SKIP count as skipped, not passed). Build trees: _build/ and
# _build-san/.
#
# The builds are out of tree, and configure refuses those while the source
# tree is configured in place (README's install command does that).  Then
# they are made from a copy of the checkout in _build-src/: the files git
# tracks, as they are in the work tree, plus untracked files that are not
# ignored, outside build trees.  The in-place build is left alone.
#
# Usage: contrib/check.sh [--configure-only]
#   --configure-only  only configures both trees (the README commands test).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
jobs=$(nproc 2>/dev/null || echo 2)
only_configure=0
case "${1-}" in
"") ;;
--configure-only) only_configure=1 ;;
*) echo "usage: $0 [--configure-only]" >&2; exit 2 ;;
esac

# Brings _build-src/ up to date with the work tree.  Unchanged files keep
# their times (tar -p), so the builds stay incremental; files gone from the
# checkout are removed from the copy.
sync_copy() {
    copy=$top/_build-src
    if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
        echo "contrib/check.sh: $top is configured in place (config.status) and is" \
            "not a git checkout, so there is no clean copy to build the tests from;" \
            "run 'make distclean' there first" >&2
        return 1
    fi
    mkdir -p "$copy" || return 1
    git -C "$top" ls-files -z --cached --others --exclude-standard |
        tr '\0' '\n' | while IFS= read -r f; do
            # Not a build tree of the user's (a directory with config.status).
            d=${f%%/*}
            [ "$d" != "$f" ] && [ -f "$top/$d/config.status" ] && continue
            [ -f "$top/$f" ] && printf '%s\n' "$f"
        done | sort >"$copy/.files.new" || return 1
    if [ -f "$copy/.files" ]; then
        comm -23 "$copy/.files" "$copy/.files.new" | while IFS= read -r f; do
            rm -f "$copy/$f"
        done
    fi
    (cd "$top" && tar -cf - -T "$copy/.files.new") | (cd "$copy" && tar -xpf -) ||
        return 1
    mv "$copy/.files.new" "$copy/.files"
    # Regenerate the build system when it is missing or older than its inputs.
    if [ ! -x "$copy/configure" ] ||
        [ -n "$(cd "$copy" && find . -path ./autom4te.cache -prune -o \
            \( -name configure.ac -o -name Makefile.am -o -name '*.inc' \) \
            -newer configure -print)" ]; then
        (cd "$copy" && ./autogen.sh) || return 1
    fi
}

if [ -f "$top/config.status" ]; then
    src=$top/_build-src
    sync_copy || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
else
    src=$top
    [ -x configure ] || ./autogen.sh || exit 1
fi

passed=0
failed=0
skipped=0
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
    passed=$((passed + ${p:-0}))
    skipped=$((skipped + ${s:-0}))
    failed=$((failed + ${f:-0} + ${x:-0} + ${e:-0}))
}

# A tree configured from the other source (the checkout or the copy) is
# made anew: its objects and dependency files name the other one.
build() {
    dir=$1
    shift
    if [ -f "$dir/config.status" ] && [ "$(cat "$dir/.srcdir" 2>/dev/null)" != "$src" ]; then
        rm -rf "$dir"
    fi
    mkdir -p "$dir" && printf '%s\n' "$src" >"$dir/.srcdir" || return 1
    (cd "$dir" && "$src/configure" -q "$@") || return 1
    [ $only_configure -eq 1 ] && return 0
    (cd "$dir" && make -s -j"$jobs") || return 1
    (cd "$dir" && make -s -j"$jobs" check) || return 1
}

if [ $only_configure -eq 1 ]; then
    build _build --enable-werror && build _build-san --enable-werror --enable-sanitizers
    exit
fi

build _build --enable-werror || status=1
count _build
build _build-san --enable-werror --enable-sanitizers || status=1
count _build-san

for d in _build _build-san; do
    [ -f "$d/test-suite.log" ] && grep -q '^# \(FAIL\|ERROR\): *[1-9]' "$d/test-suite.log" &&
        sed -n '/^FAIL\|^ERROR/,$p' "$d/test-suite.log" | head -n 200
done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ] && [ $status -eq 0 ]
