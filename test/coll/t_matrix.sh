#!/bin/sh
# The collective programs over the rank counts and settings in matrix.txt.
dir=coll
. "$top_srcdir/test/matrix.sh"
