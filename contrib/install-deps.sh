#!/bin/sh
# Installs the Debian 12 packages that build, test and benchmark rdmpi.
# Usage: contrib/install-deps.sh [--peers] [--slurm]
#   --peers  also installs Open MPI, MPICH and gnuplot for bench/compare.
#   --slurm  also installs Slurm and munge for test/slurm (srun --mpi=pmix).
set -e
pkgs="build-essential autoconf automake libtool pkg-config
      libpmix-dev libfabric-dev libfabric-bin libibverbs-dev rdma-core ibverbs-utils
      procps iproute2 util-linux"
for opt in "$@"; do
    case $opt in
    --peers) pkgs="$pkgs openmpi-bin libopenmpi-dev mpich libmpich-dev gnuplot-nox" ;;
    --slurm) pkgs="$pkgs slurm-wlm slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge" ;;
    *) echo "usage: $0 [--peers] [--slurm]" >&2; exit 2 ;;
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
