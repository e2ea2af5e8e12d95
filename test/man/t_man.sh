#!/bin/sh
# The manual pages list exactly the options the programs take: each
# page's tags against the program's option table, --help or usage, and
# every option a page names is tried on the program.  The pages render
# without a warning where man(1) is installed.
. "$top_srcdir/test/tap.sh"
plan 18
M="$top_srcdir/man"
B="$top_builddir"
export RDMPI_RDMA_VM=0 RDMPI_INCDIR="$top_srcdir/include" RDMPI_LIBDIR="$B/.libs"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# tags PAGE SECTION: the tag lines (after .TP) of a .SH section, \- as -.
tags() {
    awk -v sec="$2" '/^\.SH /{ s = $0; sub(/^\.SH +"?/, "", s); sub(/"$/, "", s)
                               insec = (s == sec); prev = ""; next }
                     insec && prev == ".TP" { print } { prev = $0 }' "$1" | sed 's/\\-/-/g'
}
# opts PAGE SECTION: the options in those tags, as written.
opts() { tags "$1" "$2" | grep -o '\\fB-[-A-Za-z0-9_:]*' | sed 's/^\\fB//' | sort -u; }
# words PAGE SECTION: the bold words of tags that are not options.
words() {
    tags "$1" "$2" | grep -v '^\\fB-' | sed -e 's/^\.BR* //' -e 's/", "/ /g' |
        tr ' ' '\n' | grep -x '[a-z_]*' | grep . | sort -u
}
# same WHAT A B: two sorted lists are equal, else a diagnostic of the difference.
same() {
    if [ "$2" = "$3" ] && [ -n "$2" ]; then
        ok 0 "$1"
    else
        ok 1 "$1"
        diag "only in the page: $(printf '%s\n' "$2" | grep -vxF -e "$3" | tr '\n' ' ')"
        diag "only in the program: $(printf '%s\n' "$3" | grep -vxF -e "$2" | tr '\n' ' ')"
    fi
}

# mpirun: the table of launcher/options.c, its --help, and mpirun itself.
page=$(opts "$M/mpirun.1" OPTIONS | sed 's/^-*//' | sort -u)
table=$(sed -n 's/^    {"\([^"]*\)", O_.*/\1/p' "$top_srcdir/launcher/options.c" | sort -u)
same "mpirun.1 lists every option of launcher/options.c's table, and only those" "$page" "$table"
help=$("$MPIRUN" --help | grep -o -- '\(^\|[ ,(;]\)--*[A-Za-z][-A-Za-z]*' | sed 's/^[ ,(;]*-*//' |
    sort -u)
missing=$(printf '%s\n' "$help" | grep -vxF -e "$page")
[ -n "$help" ] && [ -z "$missing" ]
ok $? "every option of mpirun --help is in mpirun.1${missing:+ (missing: $(echo $missing))}"
bad=
for o in $(opts "$M/mpirun.1" OPTIONS); do
    "$MPIRUN" "$o" </dev/null 2>&1 | grep -q "unknown option" && bad="$bad $o"
done
"$MPIRUN" --no-such-option </dev/null 2>&1 | grep -q "unknown option"
[ $? -eq 0 ] && [ -z "$bad" ]; ok $? "mpirun takes every option of mpirun.1 as written${bad:+ (not:$bad)}"

# The wrappers: the options mpicc.in recognises (its case labels, globs aside).
page=$(opts "$M/mpicc.1" OPTIONS)
script=$(sed -n '/^for a in/,/^done/p' "$top_srcdir/wrappers/mpicc.in" |
    sed -n 's/^ *\(-[^)]*\)).*/\1/p' | tr '|' '\n' | grep -v '\*' | sort -u)
same "mpicc.1 lists every option of wrappers/mpicc.in, and only those" "$page" "$script"
bad=
for o in $(printf '%s\n' "$page" | grep -e showme: -e info); do
    "$B/wrappers/mpicc" "$o" >/dev/null 2>&1 || bad="$bad $o"
done
[ -z "$bad" ]; ok $? "mpicc answers every query of mpicc.1${bad:+ (not:$bad)}"
names=$(sed -n '/^\.SH NAME/{n;p}' "$M/mpicc.1" | sed 's/ \\-.*//; s/,//g')
inst=$( (sed -n 's/^bin_SCRIPTS += //p' "$top_srcdir/wrappers/Makefile.inc" | tr ' ' '\n' |
    sed 's|wrappers/||'; grep -o 'LN_S) [a-z]* [a-zA-Z0-9+]*' "$top_srcdir/wrappers/Makefile.inc" |
    sed 's/.* //') | grep . | sort -u)
same "mpicc.1 names every wrapper that is installed" "$(echo $names | tr ' ' '\n' | sort -u)" "$inst"

# rdmpi-bench: its benchmarks and the options their -h lists.
page=$(words "$M/rdmpi-bench.1" BENCHMARKS)
prog=$("$B/bench/rdmpi-bench" help | sed -n 's/^  \([a-z_][a-z_]*\)  .*/\1/p' | sort -u)
same "rdmpi-bench.1 lists every benchmark of rdmpi-bench help, and only those" "$page" "$prog"
: >"$T/o"
for b in $prog; do
    "$B/bench/rdmpi-bench" "$b" -h </dev/null 2>/dev/null | grep -o '^  -[A-Za-z]' >>"$T/o" ||
        echo "$b" >>"$T/failed"
done
[ ! -s "$T/failed" ]; ok $? "rdmpi-bench BENCHMARK -h answers for each benchmark"
same "rdmpi-bench.1 lists every option of rdmpi-bench's -h texts, and only those" \
    "$(opts "$M/rdmpi-bench.1" OPTIONS)" "$(sed 's/^ *//' "$T/o" | sort -u)"
usage=$("$B/bench/rdmpi-bench-limits" -h)
same "rdmpi-bench.1 lists rdmpi-bench-limits' options" \
    "$(opts "$M/rdmpi-bench.1" RDMPI-BENCH-LIMITS)" \
    "$( (echo -h; echo "$usage" | grep -o '\[-[a-z]' | tr -d '[') | sort -u)"
same "rdmpi-bench.1 lists rdmpi-bench-limits' measurements" \
    "$(words "$M/rdmpi-bench.1" RDMPI-BENCH-LIMITS)" \
    "$(echo "$usage" | grep -o '\[[a-z]*\]' | tr -d '[]' | sort -u)"

# rdmpi-launchd: its usage line.
usage=$("$B/launcher/rdmpi-launchd" 2>&1 </dev/null)
same "rdmpi-launchd.8 lists the options of rdmpi-launchd's usage" \
    "$(opts "$M/rdmpi-launchd.8" OPTIONS)" "$(echo "$usage" | grep -o -- '--[a-z][a-z-]*' | sort -u)"

# Every .so alias names a page that exists, and each page is installed.
bad=
for f in "$M"/*.[18]; do
    t=$(sed -n 's/^\.so man[18]\///p' "$f")
    [ -z "$t" ] || [ -f "$M/$t" ] || bad="$bad ${f##*/}"
done
[ -z "$bad" ]; ok $? "every .so page points at a page${bad:+ (not:$bad)}"
bad=
for f in "$M"/*.[18]; do
    grep -q "man/${f##*/}\( \|$\)" "$top_srcdir/man/Makefile.inc" || bad="$bad ${f##*/}"
done
[ -z "$bad" ]; ok $? "every page is in man/Makefile.inc${bad:+ (not:$bad)}"

# Rendering: no warning from man's formatter (groff -ww).
if command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; then
    for p in mpirun.1 mpicc.1 rdmpi-bench.1 rdmpi-launchd.8; do
        w=$(MANWIDTH=80 man --warnings -l -E UTF-8 "$M/$p" 2>&1 >/dev/null)
        [ -z "$w" ]; ok $? "man -l $p renders without a warning${w:+: $w}"
    done
else
    for p in mpirun.1 mpicc.1 rdmpi-bench.1 rdmpi-launchd.8; do skip "$p: no man or groff here"; done
fi
finish
