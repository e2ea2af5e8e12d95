#!/bin/sh
# The C sources are laid out as the committed .clang-format says; a failure
# names each file clang-format would change and shows the first lines of
# the change. The tree was formatted with Debian 12's clang-format 14; other
# versions lay some constructs out differently, so they are not used.
. "$top_srcdir/test/tap.sh"
cd "$top_srcdir" || exit 1
if ! command -v clang-format >/dev/null 2>&1; then
    plan 1
    skip "clang-format is not installed (apt-get install clang-format)"
    exit 0
fi
v=$(clang-format --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$v" != 14 ]; then
    plan 1
    skip "clang-format $v: the tree follows clang-format 14's layout"
    exit 0
fi
# The files of the source tree: git's list in a clone, else every C file
# of a distribution tree.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files=$(git ls-files '*.c' '*.h')
else
    files=$(find . -path ./_build -prune -o \( -name '*.c' -o -name '*.h' \) -print |
        grep -v '^\./[^/]*/config\.h$' | sed 's|^\./||' | sort)
fi
plan 1
bad=
for f in $files; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 && continue
    bad="$bad $f"
    clang-format "$f" | diff -u "$f" - | head -20 | sed 's/^/# /'
done
n=$(echo "$files" | wc -l)
if [ -z "$bad" ]; then
    ok 0 "$n C files follow .clang-format"
else
    ok 1 "not formatted:$bad (run clang-format -i on them)"
fi
