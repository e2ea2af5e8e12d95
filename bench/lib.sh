# bench/lib.sh: what bench/compare and bench/startup.sh share (sourced, POSIX
# sh): finding each MPI, quoting commands so that they can be both printed
# (--dry-run) and run (eval), waiting for a quiet machine, and the awk
# helpers for medians.  Callers set $here to the bench/ directory first.

top=$(dirname "$here")
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
is_root=no
[ "$(id -u)" = 0 ] && is_root=yes

# The peers' commands; the environment may name others.
MPICC_OPENMPI=${MPICC_OPENMPI:-mpicc.openmpi}
MPIRUN_OPENMPI=${MPIRUN_OPENMPI:-mpirun.openmpi}
MPICC_MPICH=${MPICC_MPICH:-mpicc.mpich}
MPIRUN_MPICH=${MPIRUN_MPICH:-mpirun.mpich}
BENCH_CFLAGS=${BENCH_CFLAGS:--O2}

say() { printf '%s\n' "$*" >&2; }
die() { say "$(basename "$0"): $*"; exit 2; }

# q ARG: ARG quoted for the shell when it needs it.
q() {
    case $1 in
    '' | *[!A-Za-z0-9_./:=,+@%-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
    *) printf '%s' "$1" ;;
    esac
}

# find_rdmpi DIR: an install prefix (DIR/bin/mpicc) or a build tree
# (DIR/wrappers/mpicc, used in place); sets rd_mpicc (a command line) and
# rd_mpirun, or returns 1.
find_rdmpi() {
    if [ -x "$1/bin/mpicc" ] && [ -x "$1/bin/mpirun" ]; then
        rd_mpicc=$(q "$1/bin/mpicc")
        rd_mpirun=$(q "$1/bin/mpirun")
    elif [ -x "$1/wrappers/mpicc" ] && [ -x "$1/launcher/mpirun" ]; then
        # mpi.h is in the source tree, which is the build tree unless the
        # build is out of tree (then it is the tree holding this script).
        rd_inc=$1/include
        [ -f "$rd_inc/mpi.h" ] || rd_inc=$top/include
        rd_mpicc="env RDMPI_INCDIR=$(q "$rd_inc") RDMPI_LIBDIR=$(q "$1/.libs") $(q "$1/wrappers/mpicc")"
        rd_mpirun=$(q "$1/launcher/mpirun")
        rd_tree=$1
    else
        return 1
    fi
}

# snapshot_rdmpi DIR: from a build tree, copies the library and mpirun into
# DIR and uses those copies, so that a rebuild in the tree during a long
# comparison cannot change what is measured, or break it half way.
snapshot_rdmpi() {
    [ -n "${rd_tree:-}" ] || return 0
    mkdir -p "$1/lib" "$1/bin" && cp -P -p "$rd_tree"/.libs/librdmpi.so* "$1/lib/" &&
        cp "$rd_tree/launcher/mpirun" "$1/bin/" || return 1
    rd_mpicc="env RDMPI_INCDIR=$(q "$rd_inc") RDMPI_LIBDIR=$(q "$1/lib") $(q "$rd_tree/wrappers/mpicc")"
    rd_mpirun=$(q "$1/bin/mpirun")
}

# mpicc_of MPI / mpirun_of MPI: the commands of rdmpi, openmpi or mpich.
mpicc_of() {
    case $1 in
    rdmpi) printf '%s' "$rd_mpicc" ;;
    openmpi) printf '%s' "$MPICC_OPENMPI" ;;
    mpich) printf '%s' "$MPICC_MPICH" ;;
    esac
}

# The launcher for N ranks.  Open MPI refuses root without
# --allow-run-as-root, and more ranks than cores without --oversubscribe
# (which changes nothing when they fit).
mpirun_of() {
    case $1 in
    rdmpi) printf '%s -n %s' "$rd_mpirun" "$2" ;;
    openmpi)
        printf '%s -n %s --oversubscribe' "$MPIRUN_OPENMPI" "$2"
        [ $is_root = yes ] && printf ' --allow-run-as-root'
        ;;
    mpich) printf '%s -n %s' "$MPIRUN_MPICH" "$2" ;;
    esac
    return 0
}

# The option that pins one rank per core, in each launcher's spelling.
bind_of() {
    case $1 in
    mpich) printf -- '-bind-to core' ;;
    *) printf -- '--bind-to core' ;;
    esac
}

# have MPI: its compiler exists (the first word of the command).
have() {
    case $1 in
    rdmpi) [ -n "${rd_mpicc:-}" ] ;;
    *) command -v "$(mpicc_of "$1" | cut -d' ' -f1)" >/dev/null 2>&1 ;;
    esac
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# cpu_busy: percent of all CPU time that was not idle over half a second.
cpu_busy() {
    a=$(head -n 1 /proc/stat 2>/dev/null) || { echo 0; return; }
    sleep 0.5
    b=$(head -n 1 /proc/stat)
    printf '%s\n%s\n' "$a" "$b" | awk '{ t = 0; for (i = 2; i <= NF; i++) t += $i; tot[NR] = t; idle[NR] = $5 + $6 }
        END { d = tot[2] - tot[1]; printf "%d\n", (d > 0 ? 100 * (d - (idle[2] - idle[1])) / d : 0) }'
}

# wait_quiet SECONDS: waits until other work leaves the CPUs below 20% busy,
# at most SECONDS; prints the last reading.  Other jobs on the machine
# change every number, so each run records what it found.
wait_quiet() {
    end=$(($(date +%s) + $1))
    while :; do
        busy=$(cpu_busy)
        [ "$busy" -lt 20 ] || [ "$(date +%s)" -ge "$end" ] && break
    done
    echo "$busy"
}

# Foreign load during a run: the CPU time the machine spent, minus what the
# run's own processes spent, over the CPU time available.  cpu_used reads the
# first; `times >FILE`, in the running shell (a subshell would see no
# children), records the second, which children_cpu FILE then reads.
cpu_used() {
    awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.2f\n", ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat
}
children_cpu() {
    awk 'NR == 2 { for (i = 1; i <= NF; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] } }
        END { printf "%.2f\n", s }' "$1"
}
# foreign_pct USED0 USED1 CHILDREN0 CHILDREN1 WALL_MS
foreign_pct() {
    awk -v u0="$1" -v u1="$2" -v c0="$3" -v c1="$4" -v w="$5" -v n="$ncpu" 'BEGIN {
        f = (w > 0) ? 100 * ((u1 - u0) - (c1 - c0)) / (w / 1000 * n) : 0
        printf "%d\n", (f < 0 ? 0 : f)
    }'
}

# awk helpers: median of a[1..n] (sorts a), and numbers at 3-4 significant
# digits without exponents.
AWK_LIB='
function median(a, n,    i, j, t) {
    for (i = 2; i <= n; i++) {
        t = a[i]
        for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function fmt(v) {
    if (v >= 1000) return sprintf("%.0f", v)
    if (v >= 100) return sprintf("%.1f", v)
    if (v >= 10) return sprintf("%.2f", v)
    return sprintf("%.3f", v)
}
'
