#!/bin/sh
# bench/startup.sh: the wall time of `mpirun -n N hello` with rdmpi, Open MPI
# (its defaults) and MPICH, the launchers alternating run by run, with
# medians and our ratio to each peer and to the faster one (issue 2's goal:
# at most 0.5x the faster peer at -n 8).  A run counts only when it exits 0
# and every rank printed its line.  POSIX sh and awk only.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

rounds=7 nps="2 8" out=startup-out dry=no rdmpi=$top quiet=10 max_foreign=10 report_only=no

usage() {
    cat <<EOF
Usage: bench/startup.sh [options]
  -r N         rounds (default $rounds)
  -n "N ..."   rank counts (default "$nps")
  -o DIR       output directory (default $out); writes DIR/report.md
  -q SEC       before each run wait up to SEC for idle CPUs (default $quiet)
  -F PCT       a run is disturbed when other processes took more than PCT% of
               the CPUs meanwhile (default $max_foreign); medians use quiet runs
  --report     only rebuild DIR/report.md from an earlier run
  --rdmpi DIR  rdmpi install prefix or build tree (default: $top)
  --dry-run    print the commands instead of running them
EOF
}

while [ $# -gt 0 ]; do
    case $1 in
    -r) rounds=${2:?-r needs a number}; shift ;;
    -n) nps=${2:?-n needs rank counts}; shift ;;
    -o) out=${2:?-o needs a directory}; shift ;;
    -q) quiet=${2:?-q needs seconds}; shift ;;
    -F) max_foreign=${2:?-F needs a percentage}; shift ;;
    --report) report_only=yes ;;
    --rdmpi) rdmpi=${2:?--rdmpi needs a directory}; shift ;;
    --dry-run | -N) dry=yes ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
    esac
    shift
done
for n in $rounds $nps $quiet $max_foreign; do
    case $n in '' | *[!0-9]*) die "'$n' is not a number" ;; esac
done
find_rdmpi "$rdmpi" || rd_mpicc=

# measure: builds hello with each MPI and times the runs.
measure() {
    [ $dry = yes ] || { mkdir -p "$out/raw" && : >"$out/runs.tsv"; } || exit 1
    [ $dry = yes ] || snapshot_rdmpi "$out/rdmpi" || die "cannot copy rdmpi from $rd_tree"
    built=
    for m in rdmpi openmpi mpich; do
        if ! have $m; then
            say "startup: $m not available"
            continue
        fi
        line="$(mpicc_of $m) -O2 -o $(q "$out/hello.$m") $(q "$top/examples/hello.c")"
        if [ $dry = yes ]; then
            echo "$line"
        elif ! eval "$line" >"$out/build-$m.log" 2>&1; then
            say "startup: building hello with $m failed, see $out/build-$m.log"
            continue
        fi
        built="$built $m"
    done

    for n in $nps; do
        r=1
        while [ $r -le $rounds ]; do
            for m in $built; do
                line="$(mpirun_of $m $n) $(q "$out/hello.$m")"
                if [ $dry = yes ]; then
                    echo "$line"
                    continue
                fi
                f=$out/raw/$m.n$n.r$r.txt
                busy=$(wait_quiet "$quiet")
                u0=$(cpu_used)
                times >"$f.t0"
                t0=$(date +%s%N)
                eval "timeout 120 $line" >"$f" 2>&1 </dev/null
                rc=$?
                t1=$(date +%s%N)
                times >"$f.t1"
                u1=$(cpu_used)
                ms=$(((t1 - t0) / 1000000))
                fg=$(foreign_pct "$u0" "$u1" "$(children_cpu "$f.t0")" "$(children_cpu "$f.t1")" $ms)
                rm -f "$f.t0" "$f.t1"
                st=ok
                [ $rc -eq 0 ] && [ "$(grep -c '^Hello from rank' "$f")" -eq "$n" ] || st=failed
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $n $m $r $st $ms "$busy" "$fg" >>"$out/runs.tsv"
                say "startup: -n $n $m round $r: $ms ms ($st, busy before $busy%, foreign load $fg%)"
            done
            r=$((r + 1))
        done
    done
}

if [ $report_only = yes ]; then
    [ -f "$out/runs.tsv" ] || die "no earlier run in $out"
    built=
    for m in rdmpi openmpi mpich; do [ -x "$out/hello.$m" ] && built="$built $m"; done
    rounds=$(awk -F '\t' '$3 > m { m = $3 } END { print m + 0 }' "$out/runs.tsv")
else
    measure
fi
[ $dry = yes ] && exit 0

{
    echo "# Startup: wall time of \`mpirun -n N hello\`"
    echo
    echo "Medians over $rounds rounds, launchers alternating run by run; ratios are"
    echo "medians of the per-round ratios (below 1: rdmpi starts faster).  Only quiet"
    echo "runs count (other processes took at most $max_foreign% of the CPUs meanwhile);"
    echo "~ marks a value from all runs when none was quiet."
    echo "Generated $(date -u +%Y-%m-%dT%H:%MZ) by \`bench/startup.sh\` on $(uname -n)."
    echo
    for m in $built; do echo "* $m: \`$(mpirun_of $m N) hello\`"; done
    echo
    awk -F '\t' -v built="$built" -v maxf=$max_foreign "$AWK_LIB"'
    $4 == "ok" && ($7 == "" || $7 + 0 <= maxf) { tq[$1, $2, $3] = $5; vq[$1, $2, ++nq[$1, $2]] = $5; quiet[$1, $2]++ }
    $4 == "ok" { t[$1, $2, $3] = $5; v[$1, $2, ++nv[$1, $2]] = $5; if (!($1 in seen)) { seen[$1] = 1; ns[++nn] = $1 } }
    $4 != "ok" { bad[$1, $2]++ }
    function med(n, m,    i, a) {
        if (nq[n, m]) {
            for (i = 1; i <= nq[n, m]; i++) a[i] = vq[n, m, i]
            return fmt(median(a, nq[n, m]))
        }
        for (i = 1; i <= nv[n, m]; i++) a[i] = v[n, m, i]
        return nv[n, m] ? "~" fmt(median(a, nv[n, m])) : "failed"
    }
    # The median over rounds of rdmpi / peer B[i] (or / the faster peer, for
    # i past the last), over the runs in T.
    function ratio(n, i, T,    a, c, r, j, p) {
        c = 0
        for (r = 1; r <= 1000; r++) {
            if (!((n, "rdmpi", r) in T)) continue
            if (i <= nb) { if (!((n, B[i], r) in T)) continue; p = T[n, B[i], r] }
            else {
                p = -1
                for (j = 2; j <= nb; j++)
                    if (((n, B[j], r) in T) && (p < 0 || T[n, B[j], r] < p)) p = T[n, B[j], r]
                if (p < 0) continue
            }
            if (p > 0) a[++c] = T[n, "rdmpi", r] / p
        }
        return c ? sprintf("%.2fx", median(a, c)) : "-"
    }
    END {
        nb = split(built, B, " ")
        hdr = "| ranks |"; sep = "|---:|"
        for (i = 1; i <= nb; i++) { hdr = hdr " " B[i] " (ms) |"; sep = sep "---:|" }
        if (B[1] == "rdmpi") {
            for (i = 2; i <= nb; i++) { hdr = hdr " rdmpi/" B[i] " |"; sep = sep "---:|" }
            if (nb > 2) { hdr = hdr " rdmpi/faster peer |"; sep = sep "---:|" }
        }
        print hdr; print sep
        for (k = 1; k <= nn; k++) {
            n = ns[k]; line = "| " n " |"
            for (i = 1; i <= nb; i++) {
                note = bad[n, B[i]] ? bad[n, B[i]] " failed" : ""
                if (nv[n, B[i]] && quiet[n, B[i]] < nv[n, B[i]])
                    note = note (note ? ", " : "") (quiet[n, B[i]] + 0) "/" nv[n, B[i]] " quiet"
                line = line " " med(n, B[i]) (note ? " (" note ")" : "") " |"
            }
            if (B[1] == "rdmpi") {
                for (i = 2; i <= nb + (nb > 2); i++) {
                    x = ratio(n, i, tq)
                    if (x == "-") { x = ratio(n, i, t); if (x != "-") x = "~" x }
                    line = line " " x " |"
                }
            }
            print line
        }
    }' "$out/runs.tsv"
    echo
    echo "Goal (issue 2): rdmpi at most 0.5x the faster peer at -n 8."
} >"$out/report.md"
cat "$out/report.md"
