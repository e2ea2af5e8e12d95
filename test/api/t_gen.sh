#!/bin/sh
# runtime/gen-unsupported.sh on a small fixture header: which functions get
# stubs, which object each stub reports on, and the link-test program.
. "$top_srcdir/test/tap.sh"
gen="$top_srcdir/runtime/gen-unsupported.sh"
cc=${CC:-cc}
plan 15

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/mpi.h" <<'EOF'
typedef struct c *MPI_Comm;
typedef struct w *MPI_Win;
typedef struct f *MPI_File;
typedef struct s *MPI_Session;
#define MPI_COMM_SELF ((MPI_Comm)2)
#define MPI_FILE_NULL ((MPI_File)0)
#define MPI_ERR_UNSUPPORTED_OPERATION 58
#define MPI_T_ERR_NOT_SUPPORTED 79
#define RDMPI_NO_ACCESS(i)
typedef int (MPI_Fake_function)(MPI_Comm comm);
int MPI_Done(MPI_Comm comm);
int PMPI_Done(MPI_Comm comm);
int MPI_Put_x(const void *buf, MPI_Comm comm, MPI_Win win);
int PMPI_Put_x(const void *buf, MPI_Comm comm, MPI_Win win);
int MPI_File_read_x(MPI_File fh, void *buf);
int PMPI_File_read_x(MPI_File fh, void *buf);
int MPI_File_open_x(MPI_Comm comm, const char *name, MPI_File *fh);
int PMPI_File_open_x(MPI_Comm comm, const char *name, MPI_File *fh);
int MPI_Session_x(MPI_Session session);
int PMPI_Session_x(MPI_Session session);
int MPI_Comm_x(int n, MPI_Comm *out, MPI_Comm c, MPI_Comm d);
int PMPI_Comm_x(int n, MPI_Comm *out, MPI_Comm c, MPI_Comm d);
int MPI_Init_x(int *argc, int ranges[][3], ...);
int PMPI_Init_x(int *argc, int ranges[][3], ...);
int MPI_T_x(int i);
int PMPI_T_x(int i);
int MPI_Address_x(const void *location) RDMPI_NO_ACCESS(1);
int PMPI_Address_x(const void *location) RDMPI_NO_ACCESS(1);
double MPI_Time_x(void);
double PMPI_Time_x(void);
int MPI_CALLBACK_FN(MPI_Comm comm);
EOF
cat >"$dir/errors.h" <<'EOF'
#include "mpi.h"
int rdmpi_err_comm(MPI_Comm comm, int errclass, const char *func, const char *fmt, ...);
int rdmpi_err_win(MPI_Win win, int errclass, const char *func, const char *fmt, ...);
int rdmpi_err_file(MPI_File fh, int errclass, const char *func, const char *fmt, ...);
int rdmpi_err_session(MPI_Session s, int errclass, const char *func, const char *fmt, ...);
EOF
cat >"$dir/impl.c" <<'EOF'
#pragma weak MPI_Done = PMPI_Done
  # pragma weak MPI_Gone = PMPI_Gone
EOF

run sh "$gen" "$dir/mpi.h" "$dir/stubs.c" "$dir/impl.c"
ok $rc "the generator runs"
[ $rc -eq 0 ] || diag "$err"
stubs=$(cat "$dir/stubs.c" 2>/dev/null)
echo "$err" | grep -q 'marks MPI_Gone implemented, but mpi.h does not declare it'
ok $? "a mark for an undeclared function is reported"

has() { echo "$stubs" | grep -qF "$1"; }
! has 'PMPI_Done'; ok $? "a function marked implemented gets no stub"
has 'return rdmpi_err_win(win, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Put_x"'
ok $? "a window parameter wins over a communicator"
has 'return rdmpi_err_file(fh, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_read_x"'
ok $? "a file parameter is reported on"
has 'return rdmpi_err_file(MPI_FILE_NULL, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_open_x"'
ok $? "an I/O function without a file reports on MPI_FILE_NULL"
has 'return rdmpi_err_session(session, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Session_x"'
ok $? "a session parameter is reported on"
has 'return rdmpi_err_comm(c, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Comm_x", "MPI_Comm_x is not implemented in rdmpi yet");'
ok $? "the first communicator passed by value is reported on"
has 'return rdmpi_err_comm(MPI_COMM_SELF, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Init_x"'
ok $? "a function with no object reports on MPI_COMM_SELF"
has 'return MPI_T_ERR_NOT_SUPPORTED;'
ok $? "MPI_T functions return MPI_T_ERR_NOT_SUPPORTED"
! has 'Time_x' && ! has 'CALLBACK_FN' && ! has 'Fake'
ok $? "non-int functions, callbacks and typedefs get no stub"
has 'int PMPI_Address_x(const void *location)
{'
ok $? "a trailing attribute macro is dropped from the definition"

# The warnings configure --enable-werror makes errors in the library build.
warn="-Wall -Wextra -Wshadow -Wmissing-prototypes -Werror"
run $cc $warn -I"$dir" -c "$dir/stubs.c" -o "$dir/stubs.o"
ok $rc "the stubs compile with $warn"
[ $rc -eq 0 ] || diag "$err"

run sh "$gen" --link-test "$dir/mpi.h" "$dir/link.c"
n=$(grep -c '^    (rdmpi_any_fn)' "$dir/link.c" 2>/dev/null)
[ $rc -eq 0 ] && [ "$n" = 21 ] && grep -q 'n == 21 ?' "$dir/link.c"
ok $? "the link test takes the address of all 21 functions (found $n)"

run sh "$gen" "$dir/mpi.h" "$dir/none.c" "$dir/no-such-source.c"
[ $rc -ne 0 ] && [ ! -e "$dir/none.c" ]
ok $? "a missing source fails the run and leaves no output"
finish
