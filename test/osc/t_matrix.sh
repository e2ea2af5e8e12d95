#!/bin/sh
# timeout: 3600 (the harness's limit: a whole matrix; each run judges its own progress)
# The one-sided programs over the rank counts in matrix.txt.
dir=osc
. "$top_srcdir/test/matrix.sh"
