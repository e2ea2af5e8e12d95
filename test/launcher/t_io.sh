#!/bin/bash
# What ranks get and give: environment, stdin, stdout/stderr forwarding
# (whole lines, nothing lost), --tag-output and --output-filename.
. "$(dirname "$0")/lib.sh"

plan 29

# -x and -genv.
export LN_T_FROM_MPIRUN=inherited
lrun -n 2 -x LN_T_A=1 -x LN_T_FROM_MPIRUN -genv LN_T_B "two words" \
	"$CLIENT" env LN_T_A
is "$(printf '%s\n' "$out" | sort)" "0 LN_T_A=1
1 LN_T_A=1" "-x VAR=value reaches every rank"
lrun -n 1 -genv LN_T_B "two words" "$CLIENT" env LN_T_B
is "$out" "0 LN_T_B=two words" "-genv VAR value sets a value with spaces"
lrun -n 1 -x LN_T_FROM_MPIRUN "$CLIENT" env LN_T_FROM_MPIRUN
is "$out" "0 LN_T_FROM_MPIRUN=inherited" "-x VAR exports mpirun's value"
lrun -n 1 -x LN_T_C=1 -x LN_T_C=2 "$CLIENT" env LN_T_C
is "$out" "0 LN_T_C=2" "the last -x of a variable wins"
lrun -n 1 -x LN_T_UNSET_VAR "$CLIENT" env LN_T_UNSET_VAR
is "$out/$rc" "0 LN_T_UNSET_VAR unset/0" "-x of an unset variable is nothing to export"

# Options that become RDMPI_* variables of the ranks.
lrun -n 1 --btl sm,self --provider tcp --iface lo --report-transport -v \
	--mca btl_sm_eager_limit 4096 sh -c \
	'echo "$RDMPI_BTL|$RDMPI_OFI_PROVIDER|$RDMPI_OFI_IFACE|$RDMPI_REPORT|$RDMPI_VERBOSE|$RDMPI_BTL_SM_EAGER_LIMIT"'
is "$out" "sm,self|tcp|lo|1|1|4096" "--btl --provider --iface --report-transport -v --mca map to RDMPI_*"
is "$err" "" "-v alone adds no mpirun chatter"
lrun -n 1 sh -c 'echo "${PMIX_RANK}|${PMIX_NAMESPACE}|${PMIX_MCA_gds}"'
is "$out" "0|rdmpi.$mpid|hash" "ranks get the PMIx connection variables"
PMIX_SERVER_URI41=bogus PMIX_NAMESPACE=bogus lrun -n 2 "$CLIENT" hello
is "$rc" 0 "PMIx variables of an outer launcher are dropped"

# --tag-output / -l: "[R] " before every line, stdout and stderr alike.
lrun -n 3 --tag-output "$CLIENT" hello
is "$(printf '%s\n' "$out" | sort)" "[0] hello from rank 0 of 3
[1] hello from rank 1 of 3
[2] hello from rank 2 of 3" "--tag-output prefixes each line with [rank]"
lrun -n 2 -l sh -c 'echo out-$PMIX_RANK; echo err-$PMIX_RANK >&2'
is "$(printf '%s\n' "$out" | sort)/$(printf '%s\n' "$err" | sort)" \
	"[0] out-0
[1] out-1/[0] err-0
[1] err-1" "-l tags stdout and stderr, each to its own stream"
RDMPI_TAG_OUTPUT=1 lrun -n 1 /bin/echo x
is "$out" "[0] x" "RDMPI_TAG_OUTPUT=1 tags too"

# stdin goes to rank 0 only; the others read /dev/null.
printf 'line one\nline two\n' >"$T/in"
LRUN_IN="$T/in" lrun -n 2 "$CLIENT" stdin
is "$(printf '%s\n' "$out" | grep '^0 ')" "0 stdin: line one
0 stdin: line two
0 stdin: EOF" "rank 0 reads mpirun's stdin"
is "$(printf '%s\n' "$out" | grep '^1 ')" "1 stdin: EOF" "rank 1 reads an empty stdin"
lrun -n 2 "$CLIENT" stdin
is "$(printf '%s\n' "$out" | sort | tr '\n' ';')" "0 stdin: EOF;1 stdin: EOF;" \
	"stdin from /dev/null: rank 0 gets EOF at once"
out=$(timeout 30 "$MPIRUN" -n 1 "$CLIENT" stdin <&-)
is "$out" "0 stdin: EOF" "a closed stdin gives rank 0 EOF"
out=$(printf 'piped\n' | timeout 30 "$MPIRUN" -n 1 "$CLIENT" stdin | head -1)
is "$out" "0 stdin: piped" "a pipe into mpirun reaches rank 0"

# Many lines, written as fast as possible by 4 ranks that exit at once:
# every line arrives, whole, exactly once.
N=20000
lrun -n 4 "$CLIENT" spam $N
is "$rc" 0 "4 ranks x $N lines: exit 0 ($ms ms)"
printf '%s\n' "$out" >"$T/spam"
is "$(wc -l <"$T/spam")" $((4 * N)) "all $((4 * N)) lines arrive"
bad=$(grep -Evc '^rank [0-3] line [0-9]+ of '$N' padding-padding-padding-padding-padding$' "$T/spam")
is "$bad" 0 "no line is split or mixed with another"
dups=$(sort "$T/spam" | uniq -d | wc -l)
is "$dups" 0 "no line twice"
per=$(for r in 0 1 2 3; do grep -c "^rank $r line" "$T/spam"; done | sort -u)
is "$per" "$N" "each rank's $N lines are all there"
ordered=1
for r in 0 1 2 3; do
	grep "^rank $r line" "$T/spam" | awk '{print $4}' | sort -nc 2>/dev/null || ordered=0
done
is "$ordered" 1 "each rank's lines keep their order"
lrun -n 2 --tag-output "$CLIENT" spam 5000
bad=$(printf '%s\n' "$out" | grep -Evc '^\[([01])\] rank \1 line [0-9]+ of 5000 padding-padding-padding-padding-padding$')
is "$(printf '%s\n' "$out" | wc -l)/$bad" "10000/0" "tagged: 10000 whole lines, each with its own rank's tag"

# A last line without a newline is kept as it is (tagged: ended).
lrun -n 1 "$CLIENT" partial
is "$out" "no newline" "a final partial line is printed"
lrun -n 2 -l "$CLIENT" partial
is "$(printf '%s\n' "$out" | sort)" "[0] no newline
[1] no newline" "tagged partial lines get their own line"

# --output-filename DIR: DIR/rank.R/stdout and stderr.
lrun -n 2 --output-filename "$T/outdir" sh -c 'echo out $PMIX_RANK; echo err $PMIX_RANK >&2'
is "$rc/$out/$err" "0//" "--output-filename: nothing on the terminal"
is "$(cat "$T/outdir/rank.0/stdout" "$T/outdir/rank.1/stdout")" "out 0
out 1" "each rank's stdout in DIR/rank.R/stdout"
is "$(cat "$T/outdir/rank.0/stderr" "$T/outdir/rank.1/stderr")" "err 0
err 1" "each rank's stderr in DIR/rank.R/stderr"

finish
