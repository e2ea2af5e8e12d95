#!/bin/sh
# A program started without a launcher runs as rank 0 of 1; one started by a
# launcher whose PMIx server is missing stops and says how to launch.
. "$top_srcdir/test/tap.sh"
hello="$top_builddir/examples/hello"
plan 8

run env -u PMIX_NAMESPACE "$hello"
ok $rc "singleton exits 0"
echo "$out" | grep -q '^Hello from rank 0 of 1 on ' ; ok $? "singleton is rank 0 of 1 ($out)"
[ -z "$err" ]; ok $? "singleton prints nothing on stderr"

run env OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$hello"
[ $rc -ne 0 ]; ok $? "under Open MPI's variables without PMIx: non-zero exit ($rc)"
echo "$err" | grep -q "Open MPI's mpirun.*OMPI_COMM_WORLD_SIZE.*launch with rdmpi's mpirun"
ok $? "names Open MPI and the fix: $err"
[ -z "$out" ]; ok $? "and the program did not run"

run env PMI_RANK=0 PMI_SIZE=2 "$hello"
echo "$err" | grep -q "PMI_RANK"; ok $? "PMI variables are recognised"

run env SLURM_STEP_ID=0 SLURM_PROCID=0 "$hello"
echo "$err" | grep -q "srun --mpi=pmix"; ok $? "Slurm without PMIx is told to use --mpi=pmix"
finish
