#!/bin/sh
# timeout: 3600 (the harness's limit: a whole matrix; each run judges its own progress)
# The collective programs over the rank counts and settings in matrix.txt.
dir=coll
. "$top_srcdir/test/matrix.sh"
