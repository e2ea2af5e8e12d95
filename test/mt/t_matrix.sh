#!/bin/sh
# The MPI_THREAD_MULTIPLE program over the rank counts in matrix.txt.
dir=mt
. "$top_srcdir/test/matrix.sh"
