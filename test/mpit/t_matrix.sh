#!/bin/sh
# The MPI_T program over the rank counts in matrix.txt.
dir=mpit
. "$top_srcdir/test/matrix.sh"
