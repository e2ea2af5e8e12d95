#!/bin/bash
# Starting jobs: rank counts, the job info PMIx hands out, option forms,
# binding, and that a good run prints nothing of mpirun's own.
. "$(dirname "$0")/lib.sh"

plan 46

# Each rank prints exactly once, for 1, 2, 4 and 8 ranks (8 oversubscribes
# the 2 cores of the test machine).
for n in 1 2 4 8; do
	lrun -n $n "$CLIENT" hello
	want=$(for r in $(seq 0 $((n - 1))); do echo "hello from rank $r of $n"; done)
	got=$(printf '%s\n' "$out" | sort -t' ' -k4n)
	if [ $rc -eq 0 ] && [ "$got" = "$want" ] && [ -z "$err" ]; then
		ok 0 "-n $n: every rank says hello once, exit 0, nothing else ($ms ms)"
	else
		ok 1 "-n $n: every rank says hello once"
		diag "rc=$rc out=$out err=$err"
	fi
	[ -z "$(leftovers "$mpid")" ]
	ok $? "-n $n: no PMIx directory or /dev/shm file left"
done

# The job info every rank gets (what MPI_Init reads).
lrun -n 4 "$CLIENT" info
is "$rc" 0 "info job runs"
for r in 0 1 2 3; do
	like "$out" "^rank=$r size=4 univ=4 lsize=4 peers=0,1,2,3 lrank=$r nrank=$r host=$(hostname) appnum=0 jobid=rdmpi\.$mpid nodes=1 nspace=rdmpi\.$mpid\$" \
		"rank $r: sizes, local peers, local/node rank, host, appnum, job id"
done

# Fences normally complete inside the PMIx library; this sends them
# through mpirun's fence_nb upcall (cards are checked by every rank).
PMIX_MCA_pmix_server_fence_localonly_opt=0 lrun -n 4 "$CLIENT" hello
is "$(printf '%s\n' "$out" | wc -l)/$rc" "4/0" "fence through mpirun's fence_nb: cards exchanged"

# Option spellings: Open MPI's and Hydra's, one or two dashes, '='.
for form in "-np 3" "-c 3" "--n 3" "--np=3" "-n=3"; do
	lrun $form "$CLIENT" hello
	is "$(printf '%s\n' "$out" | wc -l)/$rc" "3/0" "'$form' starts 3 ranks"
done
RDMPI_NP=2 lrun "$CLIENT" hello
is "$(printf '%s\n' "$out" | wc -l)/$rc" "2/0" "RDMPI_NP=2 starts 2 ranks"
RDMPI_NP=5 lrun -n 2 "$CLIENT" hello
is "$(printf '%s\n' "$out" | wc -l)" "2" "the command line beats RDMPI_NP"

# Parsing stops at the program: its options are its own.
lrun -n 1 /bin/echo -n --timeout -x
is "$out/$rc" "--timeout -x/0" "options after the program name go to the program"
lrun -n 1 -- /bin/echo -- -l
is "$out/$rc" "-- -l/0" "'--' ends mpirun's options"
lrun --oversubscribe --allow-run-as-root -genvall -n 1 /bin/echo hi
is "$out/$err/$rc" "hi//0" "compatibility options are accepted silently"

# MPMD: each ':' starts a program with its own -n, variables and
# directory; the job's -x reaches every program.
lrun -x FOO=job -x BAR=job -n 1 sh -c 'echo "$PMIX_RANK $FOO $BAR $(pwd)"' : \
	-n 2 -x FOO=second -wdir / sh -c 'echo "$PMIX_RANK $FOO $BAR $(pwd)"'
is "$(printf '%s\n' "$out" | sort -n | tr '\n' ';')/$rc" "0 job job $PWD;1 second job /;2 second job /;/0" \
	"MPMD: ranks numbered through the programs, per-program -x and -wdir"
lrun -n 1 "$CLIENT" info : -n 2 "$CLIENT" info
is "$(printf '%s\n' "$out" | sed -n 's/^rank=\([0-9]\) size=\([0-9]\).* appnum=\([0-9]\).*/\1 \2 \3/p' | sort | tr '\n' ';')" \
	"0 3 0;1 3 1;2 3 1;" "MPMD: PMIx gives each rank its program's number"
lrun -wdir / -n 1 pwd
is "$out/$rc" "//0" "-wdir: the ranks start there"
lrun -n 1 true : true
like "$err/$rc" "give each its own -n.*/2" "MPMD without -n after ':' is refused"
lrun -n 1 true : -n 1 --timeout 5 true
like "$err/$rc" "--timeout concerns the whole job: give it before the first program.*/2" \
	"a job-wide option after ':' is refused, naming where it goes"
lrun -n 1 true :
like "$err/$rc" "no program given after ':'.*/2" "':' without a program is refused"
lrun -wdir /nonexistent-dir -n 1 true
like "$err/$rc" "^mpirun: -wdir /nonexistent-dir: No such file or directory.*/2" \
	"-wdir of a missing directory: one line, exit 2"

lrun --map-by ppr:2:node -n 2 "$CLIENT" hello
is "$(printf '%s\n' "$out" | wc -l)/$rc" "2/0" "--map-by ppr:2:node is accepted (-ppn 2)"
lrun --map-by ppr:two:node -n 2 true
like "$err/$rc" "needs 'node', 'slot' or 'ppr:N:node'.*/2" "--map-by ppr with a bad count is refused"

# What scripts written for Open MPI's and MPICH's launchers read.
OMPI_COMM_WORLD_RANK=99 lrun -n 2 sh -c 'echo $OMPI_COMM_WORLD_RANK $OMPI_COMM_WORLD_SIZE $OMPI_COMM_WORLD_LOCAL_RANK $OMPI_COMM_WORLD_LOCAL_SIZE $PMI_RANK $PMI_SIZE $MPI_LOCALRANKID $MPI_LOCALNRANKS'
is "$(printf '%s\n' "$out" | sort | tr '\n' ';')/$rc" "0 2 0 2 0 2 0 2;1 2 1 2 1 2 1 2;/0" \
	"OMPI_COMM_WORLD_*, PMI_RANK/SIZE, MPI_LOCALRANKID/NRANKS (an inherited value replaced)"

lrun -N 2 -n 2 "$CLIENT" hello
is "$(printf '%s\n' "$out" | wc -l)/$rc" "2/0" "-N 2 (Open MPI's ranks per node) is accepted"
lrun -launcher fork -n 1 true
like "$err/$rc" "-launcher needs ssh, rsh or slurm, got 'fork'.*/2" "Hydra's -launcher: an unknown one is refused"

# The second name.
out=$(timeout 30 "$top_builddir/launcher/mpiexec" -n 2 "$CLIENT" hello | wc -l)
is "$out" 2 "mpiexec starts ranks too"

lrun --version
like "$out" "^mpirun \(rdmpi\) [0-9]" "--version prints the version"
is "$rc" 0 "--version exits 0"
lrun -h
like "$out" "Usage: mpirun" "-h prints the usage"

# Binding: rank r on the r-th allowed CPU when ranks fit, else nothing.
ncpu=$(nproc)
lrun -n "$ncpu" --bind-to core sh -c 'echo "$PMIX_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)"'
got=$(printf '%s\n' "$out" | sort -n | tr '\n' ';')
want=$(for r in $(seq 0 $((ncpu - 1))); do printf '%s %s;' $r $r; done)
is "$got" "$want" "--bind-to core pins rank r to CPU r"
lrun -n "$ncpu" sh -c 'echo "$PMIX_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)"'
got=$(printf '%s\n' "$out" | sort -n | tr '\n' ';')
is "$got" "$want" "ranks <= CPUs binds by default"
all=$(grep Cpus_allowed_list /proc/self/status | cut -f2)
first=$(printf '%s' "$all" | sed 's/[-,].*//')
pkg=$(cat "/sys/devices/system/cpu/cpu$first/topology/package_cpus_list" 2>/dev/null)
lrun -n 1 --bind-to socket sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2'
if [ "$all" = "$(cat /sys/devices/system/cpu/online)" ] && [ -n "$pkg" ]; then
	is "$out/$rc" "$pkg/0" "--bind-to socket pins to the CPUs of the first CPU's package"
else
	skip "mpirun may not use every online CPU here, or sysfs has no package list"
fi
lrun --report-bindings -n "$ncpu" true
want_r=$(for r in $(seq 0 $((ncpu - 1))); do printf 'mpirun: rank %s on host %s bound to CPU %s;' $r "$(hostname)" $r; done)
is "$(printf '%s\n' "$err" | sort -t' ' -k3n | tr '\n' ';')" "$want_r" "--report-bindings says where each rank is bound"
all=$(grep Cpus_allowed_list /proc/self/status | cut -f2)
lrun -n 1 --bind-to none sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2'
is "$out" "$all" "--bind-to none leaves the affinity alone"
lrun -n $((ncpu + 1)) sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2'
is "$(printf '%s\n' "$out" | sort -u)" "$all" "more ranks than CPUs: no binding by default"

finish
