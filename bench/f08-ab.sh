#!/bin/sh
# bench/f08-ab.sh: the mpi_f08 ping-pong against its C twin (issue 23: the
# bindings add no copy, so within 5% at 8 B and 1 MiB).  Runs
# rdmpi-pingpong and rdmpi-pingpong-f08 of one build alternately, the
# order swapped every round (C F, F C, ...), and prints per size the
# median latency of each and the median over rounds of F / C.
#
#   bench/f08-ab.sh [-b BUILD] [-r ROUNDS] [-i ITERS] [-o OUT.tsv]
#
# BUILD is a build tree with Fortran (default: the one holding this
# script's bench/ directory's programs, ./_build otherwise).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
build=
rounds=21
iters=2000
out=
while [ $# -gt 0 ]; do
    case $1 in
    -b) build=$2; shift 2 ;;
    -r) rounds=$2; shift 2 ;;
    -i) iters=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) die "unknown argument '$1'; see --help" ;;
    esac
done
[ -n "$build" ] || build=$top/_build
for p in bench/rdmpi-pingpong bench/rdmpi-pingpong-f08 launcher/mpirun; do
    [ -x "$build/$p" ] || die "$build/$p is not built (a build with Fortran: configure without --disable-fortran, make)"
done
bind=
[ "$ncpu" -ge 2 ] && bind="--bind-to core"
raw=$(mktemp) || exit 1
trap 'rm -f "$raw"' EXIT

# run LANG ROUND: one run, its lines as "ROUND LANG BYTES US".
run() {
    prog=$build/bench/rdmpi-pingpong
    [ "$1" = F ] && prog=$prog-f08
    # shellcheck disable=SC2086
    "$build/launcher/mpirun" --timeout 300 -n 2 $bind "$prog" "$iters" |
        awk -v r="$2" -v l="$1" '$1 ~ /^[0-9]+$/ { print r, l, $1, $2 }' >>"$raw" ||
        die "round $2: $prog failed"
}
busy=$(wait_quiet 60)
say "f08-ab: $rounds rounds of $iters iterations, CPU $busy% busy before the start"
r=1
while [ "$r" -le "$rounds" ]; do
    if [ $((r % 2)) -eq 1 ]; then run C "$r"; run F "$r"; else run F "$r"; run C "$r"; fi
    r=$((r + 1))
done
{
    printf '# rdmpi-pingpong-f08 against rdmpi-pingpong, %s rounds of %s iterations, alternating; %s\n' \
        "$rounds" "$iters" "$(git -C "$top" describe --always --dirty 2>/dev/null)"
    printf 'bytes\tc_us\tf08_us\tf08_over_c\n'
    awk '
        function median(a, n,    i, j, t) {
            for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        { v[$3, $1, $2] = $4; if (!($3 in seen)) { seen[$3] = 1; sizes[++ns] = $3 } if ($1 > nr) nr = $1 }
        END {
            for (s = 1; s <= ns; s++) {
                b = sizes[s]; nc = nf = nq = 0
                for (r = 1; r <= nr; r++) {
                    c[++nc] = v[b, r, "C"]; f[++nf] = v[b, r, "F"]
                    if (v[b, r, "C"] > 0) q[++nq] = v[b, r, "F"] / v[b, r, "C"]
                }
                printf "%s\t%.3f\t%.3f\t%.3f\n", b, median(c, nc), median(f, nf), median(q, nq)
                delete c; delete f; delete q
            }
        }' "$raw"
} | if [ -n "$out" ]; then tee "$out"; else cat; fi
