#!/bin/sh
# The one-sided programs over the rank counts in matrix.txt.
dir=osc
. "$top_srcdir/test/matrix.sh"
