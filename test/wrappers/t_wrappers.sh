#!/bin/sh
# mpicc/mpicxx: -show, compiler choice (RDMPI_CC over CC, no recursion on
# CC=mpicc), include and link flags with an rpath so programs run without
# LD_LIBRARY_PATH; and the pkg-config file.
. "$top_srcdir/test/tap.sh"
plan 15
W="$top_builddir/wrappers"
export RDMPI_INCDIR="$top_srcdir/include" RDMPI_LIBDIR="$top_builddir/.libs"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

run "$W/mpicc" -show -o x x.c
echo "$out" | grep -q -- "-I$RDMPI_INCDIR" && echo "$out" | grep -q -- "-lrdmpi" &&
    echo "$out" | grep -q -- "-Wl,-rpath,$RDMPI_LIBDIR"
ok $? "mpicc -show prints include, library and rpath: $out"
run "$W/mpicc" --showme -c x.c
echo "$out" | grep -q -- "-lrdmpi"; [ $? -ne 0 ]; ok $? "no link flags when compiling only (-c)"
run env RDMPI_CC=clang CC=gcc "$W/mpicc" -show x.c
case "$out" in clang\ *) true ;; *) false ;; esac; ok $? "RDMPI_CC wins over CC: $out"
run env CC=clang "$W/mpicc" -show x.c
case "$out" in clang\ *) true ;; *) false ;; esac; ok $? "CC is honoured: $out"
run env CC="$W/mpicc" "$W/mpicc" -show x.c
case "$out" in *mpicc\ *) false ;; *) true ;; esac; ok $? "CC=mpicc does not recurse: $out"
run "$W/mpicc" --showme:compile
case "$out" in -I*) true ;; *) false ;; esac; ok $? "--showme:compile: $out"
run "$W/mpicc" -showme:link
case "$out" in *-lrdmpi*) true ;; *) false ;; esac; ok $? "-showme:link (one dash, as CMake asks): $out"
run "$W/mpicc" -showme:incdirs
[ "$out" = "$RDMPI_INCDIR" ]; ok $? "-showme:incdirs: $out"
run "$W/mpicxx" --showme:version
case "$out" in "mpicxx: rdmpi "[0-9]*"(language: C++)") true ;; *) false ;; esac
ok $? "--showme:version: $out"
run "$W/mpicc" --showme:nonsense
[ $rc -ne 0 ] && echo "$err" | grep -q "unknown query"; ok $? "an unknown --showme query is refused"

cp "$top_srcdir/examples/hello.c" "$T/"
run "$W/mpicc" -Wall -Wextra -Werror -o "$T/hello" "$T/hello.c"
ok $rc "mpicc builds examples/hello.c warning-free"
[ $rc -eq 0 ] || diag "$err"
run env -u LD_LIBRARY_PATH "$T/hello"
echo "$out" | grep -q "rank 0 of 1"; ok $? "it runs without LD_LIBRARY_PATH: $out"
cat > "$T/hello.cc" <<'CC'
#include <mpi.h>
#include <cstdio>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r; MPI_Comm_rank(MPI_COMM_WORLD, &r);
    std::printf("c++ rank %d\n", r);
    MPI_Finalize();
}
CC
run "$W/mpicxx" -Wall -Wextra -Werror -o "$T/hellocc" "$T/hello.cc"
ok $rc "mpicxx builds a C++ program"
run "$MPIRUN" -n 2 "$T/hellocc"
[ "$(echo "$out" | grep -c 'c++ rank')" -eq 2 ]; ok $? "and it runs on 2 ranks"
grep -q -- '-lrdmpi' "$top_builddir/rdmpi.pc"; ok $? "rdmpi.pc names the library"
finish
