#!/bin/sh
# bench/report renders bench/RESULTS.md from the data in bench/results/: the
# committed page must be exactly what the committed data gives, so that the
# page never drifts from its data. Also: every file the page links to exists,
# and bad options are refused with a message naming them.
. "$top_srcdir/test/tap.sh"
rep=$top_srcdir/bench/report
page=$top_srcdir/bench/RESULTS.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

plan 7
if ! command -v python3 >/dev/null 2>&1; then
    for i in 1 2 3 4 5 6 7; do skip "python3 is not installed"; done
    exit 0
fi

run "$rep" --no-plots -o "$tmp/RESULTS.md"
ok $rc "bench/report renders the committed data"
[ $rc -eq 0 ] || diag "$err"

cmp -s "$tmp/RESULTS.md" "$page"
st=$?
ok $st "bench/RESULTS.md is exactly what bench/report renders (rerun bench/report if not)"
[ $st -eq 0 ] || diag "$(diff "$page" "$tmp/RESULTS.md" | head -n 20)"

# Relative links of the page: images and Markdown links to files.
missing=
for l in $(grep -o '](\([^)#:]*\))' "$page" | sed 's/^](//; s/)$//' | sort -u); do
    [ -e "$top_srcdir/bench/$l" ] || missing="$missing $l"
done
[ -z "$missing" ]
ok $? "every file the page links to exists"
[ -z "$missing" ] || diag "missing:$missing"

# Every data file is used by the page (none is left behind unrendered).
unused=
for f in "$top_srcdir"/bench/results/*.tsv; do
    t=$(sed -n 's/^# title: //p' "$f" | head -n 1 | cut -c 1-40)
    grep -qF -- "$t" "$page" || unused="$unused ${f##*/}"
done
[ -z "$unused" ]
ok $? "every data file's table is on the page"
[ -z "$unused" ] || diag "not on the page:$unused"

run "$rep" --measure
[ $rc -ne 0 ] && echo "$err" | grep -q -- '--measure needs --rdmpi BUILD'
ok $? "--measure without --rdmpi is refused"

run "$rep" --measure --rdmpi "$tmp" -m 8
[ $rc -ne 0 ] && echo "$err" | grep -q -- '-m 8: give MIN:MAX'
ok $? "a bad size range is refused"

run "$rep" --measure --rdmpi "$tmp"
[ $rc -ne 0 ] && echo "$err" | grep -q "not an rdmpi build tree"
ok $? "--rdmpi that is not a build tree is refused"
finish
