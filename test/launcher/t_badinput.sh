#!/bin/bash
# Bad input: one clear line that names the problem and the fix, a non-zero
# exit, and no rank started (each command would create $T/started).
. "$(dirname "$0")/lib.sh"

prog="$T/prog"
printf '#!/bin/sh\ntouch "%s/started"\n' "$T" >"$prog"
chmod +x "$prog"
printf '#!/bin/sh\n' >"$T/noexec"
chmod -x "$T/noexec"
touch "$T/a_file"

# bad EXPECTED-STATUS ERROR-REGEX DESCRIPTION -- mpirun arguments...
bad() {
	_want=$1 _re=$2 _desc=$3
	shift 4
	rm -f "$T/started"
	lrun "$@"
	if [ "$rc" -eq "$_want" ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
	   printf '%s\n' "$err" | grep -Eq -- "^mpirun: $_re" &&
	   [ -z "$out" ] && [ ! -e "$T/started" ]; then
		ok 0 "$_desc"
	else
		ok 1 "$_desc"
		diag "rc=$rc (want $_want) started=$([ -e "$T/started" ] && echo yes || echo no)"
		diag "err: $err"
		diag "out: $out"
	fi
}

plan 23

bad 2 "unknown option '--frobnicate' \(mpirun --help lists" \
	"unknown option" -- --frobnicate -n 2 "$prog"
bad 2 "-n needs a positive integer, got '0' \(example: mpirun -n 4 \./app\)" \
	"-n 0" -- -n 0 "$prog"
bad 2 "-n needs a positive integer, got 'abc' \(example: mpirun -n 4 \./app\)" \
	"-n abc" -- -n abc "$prog"
bad 2 "-np needs a positive integer, got '-3'" \
	"-np -3" -- -np -3 "$prog"
bad 2 "-n needs a value \\(example: mpirun -n 4 \\./app\\)" "-n at the end" -- -n
bad 2 "no program given \(example: mpirun -n 4 \./app\)" \
	"no program" -- -n 2
bad 2 "no program given" "no arguments at all" --
bad 127 "program 'no_such_prog_ln' not found in PATH \(give its path" \
	"program not in PATH" -- -n 2 no_such_prog_ln
bad 127 "program '\./no_such_prog_ln' not found: No such file" \
	"program path does not exist" -- -n 2 ./no_such_prog_ln
bad 126 "program '.*/noexec' is not executable \(chmod \+x" \
	"program not executable" -- -n 2 "$T/noexec"
bad 126 "program '.*' is a directory" \
	"program is a directory" -- -n 2 "$T"
bad 2 "cannot create the output directory '.*/a_file/rank.0': Not a directory \(give --output-filename a writable directory\)" \
	"output directory is a file" -- -n 2 --output-filename "$T/a_file" "$prog"
bad 2 "cannot create the output directory '/proc/ln_no/rank.0': .* \(give --output-filename" \
	"output directory cannot be created" -- -n 2 --output-filename /proc/ln_no "$prog"
# The option and its variables say the same thing.
bad 2 "--timeout needs a number of seconds \\(0: no limit\\), got 'soon' \\(example: mpirun --timeout 60" \
	"--timeout soon" -- --timeout soon -n 2 "$prog"
bad 2 "--timeout needs a number of seconds \\(0: no limit\\), got '-1'" \
	"--timeout -1" -- --timeout -1 -n 2 "$prog"
RDMPI_TIMEOUT=soon bad 2 "RDMPI_TIMEOUT needs a number of seconds \\(0: no limit\\), got 'soon' \\(example: RDMPI_TIMEOUT=60\\)$" \
	"RDMPI_TIMEOUT=soon" -- -n 1 "$prog"
bad 2 "--bind-to needs none, core, l3cache, numa or socket, got 'board'" \
	"--bind-to board" -- --bind-to board -n 2 "$prog"
bad 2 "-x needs VAR or VAR=value with a variable name, got '=1'" \
	"-x =1" -- -x =1 -n 2 "$prog"
bad 2 "-genv needs two values \\(example: mpirun -genv OMP_NUM_THREADS 2 \\./app\\)" "-genv with one value" -- -n 1 -genv A
bad 2 "--tag-output takes no value" "--tag-output=1" -- --tag-output=1 "$prog"
RDMPI_NP=lots bad 2 "RDMPI_NP needs a positive integer, got 'lots'" \
	"RDMPI_NP=lots" -- "$prog"
MPIEXEC_TIMEOUT=x bad 2 "MPIEXEC_TIMEOUT needs a number of seconds \\(0: no limit\\), got 'x'" \
	"MPIEXEC_TIMEOUT=x" -- -n 1 "$prog"
RDMPI_TAG_OUTPUT=maybe bad 2 "RDMPI_TAG_OUTPUT needs 1 or 0, got 'maybe'" \
	"RDMPI_TAG_OUTPUT=maybe" -- -n 1 "$prog"

finish
