#!/bin/sh
# mpi.h as users meet it: test/api/api_user.c must compile without a warning
# as C (gcc, clang; c89, c99, c11, with -Wpedantic) and as C++ (g++,
# clang++; c++98, c++11, c++17), and the header must keep the form that
# runtime/gen-unsupported.sh parses.
. "$top_srcdir/test/tap.sh"
hdr="$top_srcdir/include/mpi.h"
user="$top_srcdir/test/api/api_user.c"
warn="-O2 -Wall -Wextra -Wpedantic -Werror"
plan 18

# compile COMPILER LANGUAGE STD: one test per combination; a compiler that is
# not installed is a skip, not a failure.
compile() {
    if ! command -v "$1" >/dev/null 2>&1; then
        skip "$1 is not installed"
        return
    fi
    run "$1" -x "$2" -std="$3" $warn -I"$top_srcdir/include" -c "$user" -o /dev/null
    ok $rc "api_user.c compiles with $1 -std=$3 $warn"
    [ $rc -eq 0 ] || diag "$err"
}
for cc in gcc clang; do
    for std in c89 c99 c11; do compile $cc c $std; done
done
for cxx in g++ clang++; do
    for std in c++98 c++11 c++17; do compile $cxx c++ $std; done
done

cc=${CC:-cc}
printf '#include <mpi.h>\n#if MPI_VERSION == 4 && MPI_SUBVERSION == 1\nint v41;\n#else\n#error not 4.1\n#endif\n' >conftest_api.c
run $cc -I"$top_srcdir/include" -c conftest_api.c -o /dev/null
ok $rc "#if MPI_VERSION == 4 && MPI_SUBVERSION == 1 holds"
[ $rc -eq 0 ] || diag "$err"

# Macros the header adds beyond what its own includes define.
printf '#include <stddef.h>\n#include <stdint.h>\n' >conftest_api.c
base=$($cc -dM -E conftest_api.c | sed -n 's/^#define \([A-Za-z0-9_]*\).*/\1/p' | sort)
mine=$(printf '#include <mpi.h>\n' | $cc -I"$top_srcdir/include" -dM -E - |
    sed -n 's/^#define \([A-Za-z0-9_]*\).*/\1/p' | sort)
added=$(printf '%s\n' "$mine" | grep -vxF "$base")
rm -f conftest_api.c

foreign=$(printf '%s\n' "$added" | grep -E '^(MPICH|OPEN_MPI|OMPI_|MPICH_|MSMPI)')
[ -z "$foreign" ]; ok $? "mpi.h defines no other implementation's markers (MPICH, OPEN_MPI, ...)"
[ -z "$foreign" ] || diag "$foreign"

stray=$(printf '%s\n' "$added" | grep -vE '^(MPI_|PMPI_|RDMPI_)')
[ -z "$stray" ]; ok $? "every macro mpi.h defines starts with MPI_, PMPI_ or RDMPI_"
[ -z "$stray" ] || diag "$stray"

# The form the generator relies on.  A declaration line names a function and
# is not a typedef or a macro.
decls=$(grep -E '^[A-Za-z_][A-Za-z0-9_ ]*[ *]P?MPI_[A-Za-z0-9_]+\(' "$hdr" | grep -v '^typedef')

bad=$(printf '%s\n' "$decls" | grep -vE '\)( RDMPI_[A-Z_]+\([0-9, ]*\))?;$')
[ -z "$bad" ]; ok $? "every prototype is on one line"
[ -z "$bad" ] || diag "$bad"

bad=$(printf '%s\n' "$decls" | awk '
{
    p = $0
    sub(/ RDMPI_[A-Z_]+\([0-9, ]*\);$/, ";", p)
    sub(/^[^(]*\(/, "", p)
    sub(/\)[^)]*;$/, "", p)
    n = split(p, a, ",")
    for (i = 1; i <= n; i++) {
        gsub(/^ +| +$/, "", a[i])
        if (a[i] == "void" || a[i] == "...")
            continue
        if (a[i] !~ /[ *][A-Za-z_][A-Za-z0-9_]*(\[\]\[3\])?$/ || a[i] ~ /^(const )?[A-Za-z_0-9]+$/ ||
            (a[i] ~ /\[\]/ && a[i] !~ /^int ranges\[\]\[3\]$/)) {
            print
            next
        }
    }
}')
[ -z "$bad" ]; ok $? "parameters are named, and arrays are pointers (but ranges[][3])"
[ -z "$bad" ] || diag "$bad"

bad=$(printf '%s\n' "$decls" | awk '
/^[^(]* PMPI_/ {
    twin = $0
    sub(/ PMPI_/, " MPI_", twin)
    if (twin != prev)
        print "no MPI_ line before: " $0
    prev = ""
    next
}
{
    if (prev != "" && prev !~ /^[^(]* MPI_[A-Z0-9_]+\(/)
        print "no PMPI_ twin after: " prev
    prev = $0
}
END {
    if (prev != "" && prev !~ /^[^(]* MPI_[A-Z0-9_]+\(/)
        print "no PMPI_ twin after: " prev
}')
[ -z "$bad" ]; ok $? "every MPI_ function but the predefined callbacks has an identical PMPI_ twin"
[ -z "$bad" ] || diag "$bad"
finish
