#!/bin/sh
# timeout: 3600 (the harness's limit: a whole matrix; each run judges its own progress)
# The communicator and group programs over the rank counts in matrix.txt.
dir=comm
. "$top_srcdir/test/matrix.sh"
