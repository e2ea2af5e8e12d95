#!/bin/sh
# timeout: 3600 (the harness's limit: a whole matrix; each run judges its own progress)
# The MPI_THREAD_MULTIPLE program over the rank counts in matrix.txt.
dir=mt
. "$top_srcdir/test/matrix.sh"
