#!/bin/sh
# The pml's internals are private: outside pml/ the library includes only
# pml/pml_api.h. Fails naming each file that includes another pml header
# (pml.h, pml_check.h, pml_hdr.h, ...). Tests (test/) may reach in: a unit
# test of the pml needs its internals.
. "${top_srcdir:-.}/test/tap.sh"
src=${top_srcdir:-.}

plan 2
bad=$(cd "$src" && for d in runtime btl coll osc io fortran launcher tools wrappers include \
                          bench examples; do
          [ -d "$d" ] && find "$d" -name '*.[ch]' -o -name '*.cc'
      done | xargs -r grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?pml_?[a-z0-9_]*\.h[">]' |
      while read -r f; do
          grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?pml_?[a-z0-9_]*\.h[">]' "$f" |
              grep -v 'pml_api\.h' | sed "s|^|$f:|"
      done)
[ -z "$bad" ]
ok $? "no file outside pml/ includes a private pml header"
[ -z "$bad" ] || diag "include pml_api.h instead of:
$bad"

# The public header must stand alone (every layer includes it first).
[ -f "$src/pml/pml_api.h" ] && ! grep -qE '#[[:space:]]*include[[:space:]]*"pml(_check|_hdr)?\.h"' \
    "$src/pml/pml_api.h"
ok $? "pml/pml_api.h exists and includes no private pml header"
finish
