#!/bin/sh
# Installs the Debian 12 packages that build, test and benchmark rdmpi.
# Usage: contrib/install-deps.sh [--peers] [--slurm] [--rdma-vm]
#   --peers    also installs Open MPI, MPICH and gnuplot for bench/compare.
#   --slurm    also installs Slurm for test/slurm (srun --mpi=pmix); munge
#              and libmunge-dev (mpirun --auth=munge) are always installed.
#   --rdma-vm  also installs qemu and debootstrap for the soft-RDMA guests
#              of test/rdma (which install them themselves when run as root),
#              and gdb for the backtraces of ranks that crash there.
set -e
pkgs="build-essential autoconf automake libtool pkg-config gfortran python3
      libpmix-dev libsodium-dev munge libmunge-dev libfabric-dev libfabric-bin libibverbs-dev rdma-core ibverbs-utils
      procps iproute2 util-linux clang-format"
for opt in "$@"; do
    case $opt in
    --peers) pkgs="$pkgs openmpi-bin libopenmpi-dev mpich libmpich-dev gnuplot-nox" ;;
    --slurm) pkgs="$pkgs slurm-wlm slurmctld slurmd slurm-client slurm-wlm-basic-plugins" ;;
    --rdma-vm) pkgs="$pkgs qemu-system-x86 qemu-utils debootstrap e2fsprogs gdb" ;;
    *) echo "usage: $0 [--peers] [--slurm] [--rdma-vm]" >&2; exit 2 ;;
    esac
done
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing
