#!/bin/sh
# Installs the Debian 12 packages that build, test and benchmark rdmpi.
# Usage: contrib/install-deps.sh [--peers]
#   --peers  also installs Open MPI, MPICH and gnuplot for bench/compare.
set -e
pkgs="build-essential autoconf automake libtool pkg-config
      libpmix-dev libfabric-dev libfabric-bin libibverbs-dev rdma-core ibverbs-utils
      procps iproute2 util-linux"
if [ "$1" = "--peers" ]; then
    pkgs="$pkgs openmpi-bin libopenmpi-dev mpich libmpich-dev gnuplot-nox"
fi
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
