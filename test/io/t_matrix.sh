#!/bin/sh
# The MPI-IO program over the rank counts in matrix.txt.
dir=io
. "$top_srcdir/test/matrix.sh"
