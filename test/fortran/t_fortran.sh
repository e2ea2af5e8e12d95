#!/bin/sh
# The Fortran bindings: t_f77 (mpif.h), t_mpi (use mpi) and t_f08 (use
# mpi_f08) as singletons and under mpirun with 1-4 ranks, each run one TAP
# stream from rank 0 whose every check must pass; the examples; mpifort.
. "$top_srcdir/test/tap.sh"
T="$top_builddir/test/fortran"
if [ ! -x "$T/t_f08" ]; then
    plan 1
    skip "Fortran bindings not built (--disable-fortran, or configure found no usable compiler)"
    exit 0
fi
plan 25
# every_ok: the run passed, printed its plan and as many ok lines.
every_ok() {
    want=$(echo "$out" | sed -n 's/^1\.\.//p')
    got=$(echo "$out" | grep -c '^ok ')
    [ $rc -eq 0 ] && [ -n "$want" ] && [ "$got" -eq "$want" ] &&
        ! echo "$out" | grep -q '^not ok'
}
for prog in t_f77 t_mpi t_f08; do
    run "$T/$prog"
    every_ok; ok $? "$prog as a singleton"
    [ $rc -eq 0 ] || diag "$out" "$err"
    for n in 1 2 3 4; do
        run "$MPIRUN" --timeout 50 -n $n "$T/$prog"
        every_ok; r=$?
        ok $r "$prog with $n ranks ($got of $want checks)"
        [ $r -eq 0 ] && continue
        diag "$(echo "$out" | grep -v '^ok')" "$err"
    done
done

run "$MPIRUN" -n 2 "$top_builddir/examples/hello_f"
[ "$(echo "$out" | grep -c 'Hello from rank [01] of 2')" -eq 2 ]; ok $? "examples/hello.f90 at 2 ranks"
run "$MPIRUN" -n 3 "$top_builddir/examples/ring_f08"
[ "$out" = "token is 30 after 10 laps of 3 ranks" ]; ok $? "examples/ring_f08.f90: $out"

# mpifort, as users call it, against the build tree.
W="$top_builddir/wrappers/mpifort"
export RDMPI_INCDIR="$top_builddir/fortran" RDMPI_LIBDIR="$top_builddir/.libs"
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
run "$W" -show -o x x.f90
echo "$out" | grep -q -- "-I$RDMPI_INCDIR" && echo "$out" | grep -q -- "-lrdmpi_fortran -lrdmpi" &&
    echo "$out" | grep -q -- "-Wl,-rpath,$RDMPI_LIBDIR"
ok $? "mpifort -show prints module path, libraries and rpath: $out"
run env RDMPI_FC=flang FC=gfortran "$W" -show x.f90
case "$out" in flang\ *-allow-argument*) false ;; flang\ *) true ;; *) false ;; esac
ok $? "RDMPI_FC wins over FC, without gfortran's flags: $out"
run env FC="$W" "$W" -show x.f90
case "$out" in *mpifort\ *) false ;; *) true ;; esac; ok $? "FC=mpifort does not recurse: $out"
run "$W" --showme:libs
[ "$out" = "rdmpi_fortran rdmpi" ]; ok $? "--showme:libs: $out"
cp "$top_srcdir/examples/ring_f08.f90" "$D/"
run "$W" -Wall -o "$D/ring" "$D/ring_f08.f90"
ok $rc "mpifort builds examples/ring_f08.f90"
[ $rc -eq 0 ] || diag "$err"
cat > "$D/old.f" <<'F77'
      PROGRAM OLD
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, BUF(2)
      DOUBLE PRECISION T
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      T = MPI_WTIME()
      CALL MPI_BCAST(BUF, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      CALL MPI_BCAST(T, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD,
     &               IERR)
      PRINT *, 'fixed form rank', RANK
      CALL MPI_FINALIZE(IERR)
      END
F77
run "$W" -o "$D/old" "$D/old.f"
ok $rc "mpifort builds fixed-form FORTRAN 77 with mpif.h"
[ $rc -eq 0 ] || diag "$err"
run env -u LD_LIBRARY_PATH "$D/old"
echo "$out" | grep -q "fixed form rank *0"; ok $? "it runs without LD_LIBRARY_PATH: $out"
run "$top_builddir/tools/rdmpi_info"
echo "$out" | grep -q "^  fortran  *yes: mpif.h, use mpi, use mpi_f08"; ok $? "rdmpi_info reports Fortran"
finish
