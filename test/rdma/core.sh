#!/bin/sh
# The guests' core_pattern pipes crashes here (suite.sh sets it): the core
# goes to DIR as core.HOST.PID, and DIR/cores lists it with its program,
# so t_rdma.sh can print a backtrace on the host (same Debian 12 build).
# Args: DIR HOST PID EXE (%E: the path with ! for /)
dir=$1
cat >"$dir/core.$2.$3"
echo "$dir/core.$2.$3 $(echo "$4" | tr '!' /)" >>"$dir/cores"
