#!/bin/bash
# PMIx_Spawn served by mpirun, called directly by a plain PMIx client
# (ln_spawn.c): children start in a namespace of their own, with their
# parent, program number, universe size and environment; their output is
# tagged with their namespace; mpirun waits for them and reports a failing
# child like a rank; refused spawns return their status and start nothing.
# Then the name service (PMIx_Publish/Lookup/Unpublish) across ranks.
# Nothing is left behind (processes, PMIx directory, /dev/shm).
. "$(dirname "$0")/lib.sh"

plan 47

host=$(hostname)
S="$T/lnt_spawn_$$"
cp "$top_builddir/test/launcher/ln_spawn" "$S" || exit 1

check_clean() {
	is "$(alive "^$S")" 0 "$1: no process left running"
	is "$(leftovers "$mpid")" "" "$1: no PMIx directory or /dev/shm file left"
}
# lines PATTERN: how many lines of $out match.
lines() { printf '%s\n' "$out" | grep -Ec -- "$1"; }

lrun --tag-output --universe-size 4 -n 1 "$S" spawn 2
is "$rc/$err" "0/" "spawn of 2: exit 0, silent"
is "$(lines "^\[0\] spawned rdmpi\.$mpid\.1$")" 1 "the parent got namespace rdmpi.$mpid.1"
is "$(lines "^\[rdmpi\.$mpid\.1:[01]\] child [01] of 2 parent rdmpi\.$mpid:0 appnum 0 univ 4 arg x$")" 2 \
	"both children ran, tagged with their namespace, saw their parent, size, universe and env"
check_clean "spawn of 2"

lrun -l --universe-size 4 -n 1 "$S" mpmd
is "$rc" 0 "two programs in one spawn: exit 0"
is "$(lines "^\[rdmpi\.$mpid\.1:0\] child 0 of 3 parent rdmpi\.$mpid:0 appnum 0 univ 4 arg a$")/$(lines "^\[rdmpi\.$mpid\.1:[12]\] child [12] of 3 .* appnum 1 univ 4 arg b$")" "1/2" \
	"each program has its MPI_APPNUM and its own environment"

lrun -l -x LN_SPAWN_GONE=1 --universe-size 4 -n 1 "$S" envar
is "$rc/$(lines "^\[rdmpi\.$mpid\.1:0\] child 0 of 1 .* arg x:y$")" "0/1" \
	"PMIX_APPEND_ENVAR appends to the app's variable, PMIX_UNSET_ENVAR drops mpirun's -x"

lrun -l --universe-size 4 -n 1 "$S" nested
is "$rc" 0 "a child spawns a grandchild: exit 0"
is "$(lines "^\[rdmpi\.$mpid\.2:0\] child 0 of 1 parent rdmpi\.$mpid\.1:0 ")" 1 \
	"the grandchild's namespace is rdmpi.$mpid.2, its parent the child"
check_clean "nested spawn"

lrun -l --universe-size 21 -n 1 "$S" loop 20
is "$rc/$err" "0/" "20 spawns in a row: exit 0, silent"
is "$(printf '%s\n' "$out" | sed -n "s/^\[\(rdmpi\.$mpid\.[0-9]*\):0\] child 0 of 1 .*/\1/p" | sort -u | wc -l)" 20 \
	"20 children ran, each in a namespace of its own"
check_clean "20 spawns"

# The universe counts processes still running: room comes back.
lrun -l --universe-size 2 -n 1 "$S" reuse
is "$rc/$(lines "^\[rdmpi\.$mpid\.2:0\] child 0 of 1 .* arg again$")" "0/1" \
	"universe of 2: a second child starts once the first has ended"

lrun --universe-size 4 -n 2 "$S" spawn 1 3
is "$rc" 3 "a child exiting 3: mpirun exits 3"
like "$err" "^mpirun: rank 0 of rdmpi\.$mpid\.1 \(pid [0-9]+\) on host $host exited with status 3$" \
	"the failing child is reported like a rank, with its namespace"
check_clean "failing child"

# Refused spawns: the caller gets the status, mpirun says why, and nothing
# starts.
refuse() { # WHAT STATUS MESSAGE-REGEX
	lrun --universe-size 4 -n 1 "$S" expect "$1" "$2"
	is "$rc/$out" "0/refused: $2" "$1: the spawn returns $2"
	like "$err" "^mpirun: spawn by rank 0: $3" "$1: mpirun says why"
	is "$(lines '^child')" 0 "$1: no child started"
}
refuse notfound PMIX_ERR_JOB_EXE_NOT_FOUND "program 'ln_spawn_no_such_program' not found in PATH"
refuse toomany PMIX_ERR_OUT_OF_RESOURCE "4 more processes asked, but 1 of the universe's 4 run already"
refuse wdir PMIX_ERR_JOB_WDIR_NOT_FOUND "working directory '/nonexistent/dir': No such file"
refuse zero PMIX_ERR_BAD_PARAM "0 processes asked for"
refuse host PMIX_ERR_NOT_SUPPORTED "host 'no-such-host.invalid' is not this host"
refuse required PMIX_ERR_NOT_SUPPORTED "the directive ln.unknown.directive is required"
check_clean "refused spawns"

lrun --universe-size 1 -n 2 "$S" spawn 1
is "$rc" 2 "--universe-size below -n: usage error"

mkdir "$T/outdir"
lrun --output-filename "$T/outdir" --universe-size 2 -n 1 "$S" spawn 1
is "$rc/$(cat "$T/outdir/rdmpi.$mpid.1/rank.0/stdout" 2>/dev/null)" \
	"0/child 0 of 1 parent rdmpi.$mpid:0 appnum 0 univ 2 arg x" \
	"--output-filename: a child writes DIR/NAMESPACE/rank.R/stdout"

lrun -l -n 2 "$S" names
is "$rc/$err" "0/" "publish, lookup, waiting lookup, unpublish across 2 ranks: exit 0"
is "$(lines '^\[[01]\] names ok on rank [01]$')" 2 "every check of both ranks passed"
check_clean "names"
finish
