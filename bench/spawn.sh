#!/bin/sh
# bench/spawn.sh: MPI_Comm_spawn of N children from a 2-rank job until both
# sides return (bench/spawn.c), rdmpi against Open MPI and MPICH from
# Debian, interleaved job by job (order swapped each round); prints each
# job's median and, last, per MPI the median over jobs and rdmpi's ratio
# to each peer (median of per-round ratios).
#
#   sh bench/spawn.sh -b BUILD [-n CHILDREN] [-s SPAWNS] [-r ROUNDS] [-c rdmpi,openmpi,mpich]
#
# BUILD is an rdmpi build tree or install prefix. Each job spawns SPAWNS
# times (each followed by MPI_Comm_disconnect on both sides) and reports
# the median. An MPI whose spawn fails is reported as such, not timed.
# rdmpi's universe holds every round's children: those of one round may
# still be finalizing when the next spawns.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
build= n=4 spawns=5 rounds=5 impls=rdmpi,openmpi,mpich
while getopts b:n:s:r:c: o; do
    case $o in
    b) build=$OPTARG ;;
    n) n=$OPTARG ;;
    s) spawns=$OPTARG ;;
    r) rounds=$OPTARG ;;
    c) impls=$OPTARG ;;
    *) sed -n '8p' "$0" >&2; exit 2 ;;
    esac
done
[ -n "$build" ] && find_rdmpi "$build" || die "-b BUILD: an rdmpi build tree or install prefix"
impls=$(echo "$impls" | tr , ' ')
work=$(mktemp -d "${TMPDIR:-/tmp}/rdmpi-spawn.XXXXXX")
trap 'rm -rf "$work"' EXIT
for i in $impls; do
    case $i in
    rdmpi) eval "$rd_mpicc -O2 -o $work/spawn.rdmpi $here/spawn.c" ;;
    openmpi) "$MPICC_OPENMPI" -O2 -o "$work/spawn.openmpi" "$here/spawn.c" ;;
    mpich) "$MPICC_MPICH" -O2 -o "$work/spawn.mpich" "$here/spawn.c" ;;
    *) die "unknown MPI $i" ;;
    esac
done
job() { # impl: prints the job's median (ms) or "failed"
    case $1 in
    rdmpi) set -- sh -c "$rd_mpirun --universe-size $((2 + n * spawns)) -n 2 $work/spawn.rdmpi $n $spawns" ;;
    openmpi) set -- "$MPIRUN_OPENMPI" --allow-run-as-root --oversubscribe -n 2 "$work/spawn.openmpi" "$n" "$spawns" ;;
    mpich) set -- "$MPIRUN_MPICH" -n 2 "$work/spawn.mpich" "$n" "$spawns" ;;
    esac
    timeout 600 "$@" 2>"$work/err" </dev/null | awk '$1 == "median" { print $3; found = 1 } END { if (!found) print "failed" }'
}
for r in $(seq "$rounds"); do
    order=$impls
    [ $((r % 2)) = 0 ] && order=$(echo "$impls" | tr ' ' '\n' | tac | tr '\n' ' ')
    for i in $order; do
        v=$(job "$i")
        echo "round $r $i $v"
        [ "$v" = failed ] && sed 's/^/#   /' "$work/err" | tail -n 3 >&2
        echo "$r $i $v" >>"$work/all"
    done
done
awk -v impls="$impls" '
function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : ""
}
$3 != "failed" { v[$2] = v[$2] " " $3; x[$1, $2] = $3 }
$3 == "failed" { bad[$2]++ }
END {
    n = split(impls, im, " ")
    for (k = 1; k <= n; k++) {
        i = im[k]
        printf "%s: median %s ms over %d jobs%s\n", i, median(v[i]) == "" ? "-" : median(v[i]),
            split(v[i], t, " "), bad[i] ? sprintf(", %d failed", bad[i]) : ""
        if (i == "rdmpi") continue
        l = ""
        for (key in x) { split(key, p, SUBSEP); if (p[2] == i && x[p[1], "rdmpi"] != "") l = l " " x[p[1], "rdmpi"] / x[key] }
        if (l != "") printf "rdmpi / %s: %.3f (median of per-round ratios)\n", i, median(l)
    }
}' "$work/all"
