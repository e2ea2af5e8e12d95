#!/bin/sh
# The communicator and group programs over the rank counts in matrix.txt.
dir=comm
. "$top_srcdir/test/matrix.sh"
