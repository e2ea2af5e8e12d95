#!/bin/sh
# timeout: 3600 (the harness's limit: a whole matrix; each run judges its own progress)
# The MPI-IO program over the rank counts in matrix.txt.
dir=io
. "$top_srcdir/test/matrix.sh"
