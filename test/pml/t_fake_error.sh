#!/bin/sh
# test/pml/t_fake_error: the TAP scenarios of a peer failed through the BTL
# error callback, then the same failure under MPI_ERRORS_ARE_FATAL (the job
# ends with the BTL's message) and a fake module of another interface
# version (refused, so no transport reaches the rank).
. "$top_srcdir/test/tap.sh"
t="$top_builddir/test/pml/t_fake_error"
plan 3
run env -u PMIX_NAMESPACE "$t"
ok $rc "the pml fails requests to a peer its BTL lost"
[ $rc -ne 0 ] && diag "$out" && diag "$err"
# Fails unless the program ended in error with the message $1.
died() {
    [ $rc -ne 0 ] && printf '%s\n' "$err" | grep -Eq -- "$1"
    _r=$?
    ok $_r "$2"
    [ $_r -ne 0 ] && diag "rc $rc" && diag "$out" && diag "$err"
}
run env -u PMIX_NAMESPACE "$t" fatal
died "fake BTL: a [0-9]+-byte message of header type [0-9]+ to rank 0 failed: .* \(scripted\)" \
    "MPI_ERRORS_ARE_FATAL: the job ends with the BTL's message"
run env -u PMIX_NAMESPACE "$t" version
died "module fake has BTL interface version 2 and [0-9]+ bytes, this build version 3" \
    "a module of another interface version is refused"
finish
