! use mpi_f08: handle types, optional ierror, descriptors for choice buffers
! (array sections refused when not contiguous), large counts, callbacks.
program t_f08
  use mpi_f08
  use ftap
  use, intrinsic :: iso_c_binding, only: c_ptr
  implicit none
  integer, parameter :: nplan = 47
  integer :: rank, nprocs, next, prev, i, cnt, ierr, cls
  integer :: ibuf(10), ibuf2(10), iarr(64), a2(4, 3), col(3)
  integer(kind=MPI_COUNT_KIND) :: ccount
  integer(kind=MPI_ADDRESS_KIND) :: aval, winsize
  integer(kind=MPI_OFFSET_KIND) :: off
  real :: r(8), rsum(8)
  double precision :: d(4)
  logical :: lflag
  type(MPI_Status) :: status, stats(2)
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: newcomm, dupcomm
  type(MPI_Datatype) :: vtype
  type(MPI_Op) :: op
  type(MPI_Errhandler) :: eh
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  type(MPI_Group) :: group
  type(MPI_Session) :: session
  type(MPI_Comm) :: inter
  integer :: back(2), ncancel, nfree, fstat(MPI_STATUS_SIZE)
  common /gqcount/ ncancel, nfree
  ! In common, so the compiler rereads it after calls that may change it.
  integer(kind=MPI_ADDRESS_KIND) :: gstate
  common /gqstate/ gstate
  integer :: keyval
  character(len=64) :: fname
  integer :: ncopy, ndelete, nerr
  common /cbcount/ ncopy, ndelete, nerr
  integer :: nbarrier, nreduce
  common /profcount/ nbarrier, nreduce
  character(len=1) :: packed(64)
  integer(kind=MPI_ADDRESS_KIND) :: pos, psize
  integer(kind=MPI_COUNT_KIND) :: cpos
  external my_sum08, copy_fn08, delete_fn08, err_fn08, err_sess08, my_sum08c
  external gq_query08, gq_free08, gq_cancel08, plus_read08, plus_write08, plus_extent08

  ncopy = 0
  ndelete = 0
  nerr = 0
  call MPI_Init()
  call tap_plan(nplan)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call tap_int(ierr, MPI_SUCCESS, 'optional ierror present')
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)

  ! Point-to-point with typed handles.
  ibuf = rank
  call MPI_Sendrecv(ibuf, 10, MPI_INTEGER, next, 7, ibuf2, 10, MPI_INTEGER, prev, 7, &
       MPI_COMM_WORLD, status)
  call tap_int(ibuf2(10), prev, 'sendrecv')
  call tap_int(status%MPI_SOURCE, prev, 'status%MPI_SOURCE')
  call tap_int(status%MPI_TAG, 7, 'status%MPI_TAG')
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call tap_int(cnt, 10, 'get_count')
  call MPI_Irecv(d, 4, MPI_DOUBLE_PRECISION, prev, 2, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend([1d0, 2d0, 3d0, dble(rank)], 4, MPI_DOUBLE_PRECISION, next, 2, &
       MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call tap_true(d(4) == prev, 'isend of an array constructor, irecv, waitall')
  call tap_true(reqs(1) == MPI_REQUEST_NULL, 'handle == on MPI_Request')
  call MPI_Send_init(ibuf, 10, MPI_INTEGER, next, 4, MPI_COMM_WORLD, reqs(2))
  call MPI_Recv_init(ibuf2, 10, MPI_INTEGER, prev, 4, MPI_COMM_WORLD, reqs(1))
  do i = 1, 2
     ibuf = rank + i
     call MPI_Startall(2, reqs)
     call MPI_Waitall(2, reqs, stats)
  end do
  call tap_int(ibuf2(1), prev + 2, 'persistent send/recv')
  ! The glue writes TYPE(MPI_Status) in place: it has MPI_Status's size.
  call MPI_Status_f082f(stats(1), fstat)
  call MPI_Get_count(stats(1), MPI_INTEGER, cnt)
  call tap_true(storage_size(stats(1)) == 8 * 4 * MPI_STATUS_SIZE .and. &
       stats(1)%MPI_SOURCE == prev .and. stats(1)%MPI_TAG == 4 .and. cnt == 10 .and. &
       fstat(MPI_SOURCE) == prev .and. fstat(MPI_TAG) == 4, 'statuses of waitall in place')
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))
  call MPI_Isend(ibuf, 3, MPI_INTEGER, next, 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Probe(prev, 5, MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  call MPI_Recv(ibuf2, cnt, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call tap_int(cnt, 3, 'probe')

  ! MPI_Send and MPI_Recv call C straight for a scalar or a contiguous
  ! rank-1 buffer with predefined handles, and go the general way for a 2-D
  ! array, a derived datatype or a user communicator (docs/fortran.md).
  cnt = -1
  call MPI_Irecv(cnt, 1, MPI_INTEGER, prev, 13, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(rank + 1, 1, MPI_INTEGER, next, 13, MPI_COMM_WORLD, ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  i = ierr
  ibuf = [(rank * 10 + i, i = 1, 10)]
  ibuf2 = -1
  call MPI_Isend(ibuf, 10, MPI_INTEGER, next, 14, MPI_COMM_WORLD, reqs(1))
  call MPI_Recv(ibuf2, 10, MPI_INTEGER, prev, 14, MPI_COMM_WORLD, status)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call tap_true(i == MPI_SUCCESS .and. cnt == prev + 1 .and. ibuf2(10) == prev * 10 + 10 .and. &
       status%MPI_SOURCE == prev .and. status%MPI_TAG == 14, &
       'send of a scalar with ierror, recv of an array into a status')
  call MPI_Comm_dup(MPI_COMM_WORLD, newcomm)
  call MPI_Type_contiguous(2, MPI_INTEGER, vtype)
  call MPI_Type_commit(vtype)
  a2 = rank
  ibuf2 = -1
  call MPI_Irecv(ibuf2, 5, vtype, prev, 15, newcomm, reqs(1))
  call MPI_Send(a2, 12, MPI_INTEGER, next, 16, MPI_COMM_WORLD)
  call MPI_Send(ibuf, 5, vtype, next, 15, newcomm, ierr)
  a2 = -1
  call MPI_Recv(a2, 12, MPI_INTEGER, prev, 16, MPI_COMM_WORLD, status, ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  call MPI_Type_free(vtype)
  call MPI_Comm_free(newcomm)
  call tap_true(ierr == MPI_SUCCESS .and. all(a2 == prev) .and. status%MPI_TAG == 16 .and. &
       ibuf2(10) == prev * 10 + 10, 'send and recv of a 2-D array, a derived type, a dup''ed comm')

  ! A large-count form, chosen by the kind of count.
  ccount = 10
  call MPI_Sendrecv(ibuf, ccount, MPI_INTEGER, next, 9, ibuf2, ccount, MPI_INTEGER, prev, 9, &
       MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_INTEGER, ccount)
  call tap_true(ccount == 10, 'large-count sendrecv and get_count')

  ! A contiguous section is passed in place; a strided one is refused.
  r = rank
  call MPI_Allreduce(r(3:6), rsum(3:6), 4, MPI_REAL, MPI_SUM, MPI_COMM_WORLD)
  call tap_true(rsum(6) == nprocs * (nprocs - 1) / 2.0, 'allreduce on contiguous sections')
  call MPI_Comm_dup(MPI_COMM_WORLD, newcomm)
  call MPI_Comm_set_errhandler(newcomm, MPI_ERRORS_RETURN)
  r = 0
  if (rank == 0) r = [(real(i), i = 1, 8)]
  call MPI_Bcast(r(1:8:2), 4, MPI_REAL, 0, newcomm, ierr)
  call tap_true(ierr == MPI_SUCCESS .and. r(7) == 7 .and. r(8) == merge(8, 0, rank == 0), &
       'bcast of a strided section moves only its elements')
  a2 = rank
  call MPI_Sendrecv(a2(2, :), 3, MPI_INTEGER, next, 6, col, 3, MPI_INTEGER, prev, 6, newcomm, &
       MPI_STATUS_IGNORE, ierr)
  call tap_true(ierr == MPI_SUCCESS .and. all(col == prev), 'a row of a 2-D array as a section')
  ibuf2 = -1
  ibuf = [(rank * 100 + i, i = 1, 10)]
  call MPI_Irecv(ibuf2(10:1:-3), 4, MPI_INTEGER, prev, 3, newcomm, reqs(1))
  call MPI_Isend(ibuf(1:10:3), 4, MPI_INTEGER, next, 3, newcomm, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call tap_true(ibuf2(10) == prev * 100 + 1 .and. ibuf2(1) == prev * 100 + 10 .and. &
       ibuf2(2) == -1, 'isend/irecv of strided and reversed sections')
  call MPI_Bcast(r(1:8:2), 3, MPI_REAL, 0, newcomm, ierr)
  call MPI_Error_class(ierr, cls)
  call tap_int(cls, MPI_ERR_BUFFER, 'a section it cannot describe is refused with MPI_ERR_BUFFER')
  call MPI_Send(ibuf, -1, MPI_INTEGER, next, 0, newcomm, ierr)
  call MPI_Error_class(ierr, cls)
  call tap_int(cls, MPI_ERR_COUNT, 'a negative count gives MPI_ERR_COUNT')
  call MPI_Comm_create_errhandler(err_fn08, eh)
  call MPI_Comm_set_errhandler(newcomm, eh)
  call MPI_Errhandler_free(eh)
  call MPI_Send(ibuf, 1, MPI_INTEGER, nprocs + 5, 0, newcomm, ierr)
  call tap_true(nerr == 1 .and. ierr /= MPI_SUCCESS, 'Fortran error handler')
  call MPI_Comm_free(newcomm)

  ! A column-major row through a vector type.
  do i = 1, 3
     a2(:, i) = rank * 10 + i
  end do
  call MPI_Type_vector(3, 1, 4, MPI_INTEGER, vtype)
  call MPI_Type_commit(vtype)
  call MPI_Sendrecv(a2(2, 1), 1, vtype, next, 8, col, 3, MPI_INTEGER, prev, 8, &
       MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call tap_int(col(3), prev * 10 + 3, 'vector type over a 2-D array')
  call MPI_Type_free(vtype)
  call tap_true(vtype == MPI_DATATYPE_NULL, 'type_free')

  ! Collectives.
  call MPI_Allgather(rank, 1, MPI_INTEGER, iarr, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call tap_int(iarr(nprocs), nprocs - 1, 'allgather')
  cnt = 1
  call MPI_Allreduce(MPI_IN_PLACE, cnt, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call tap_int(cnt, nprocs, 'allreduce MPI_IN_PLACE')
  call MPI_Ibarrier(MPI_COMM_WORLD, reqs(1))
  call MPI_Wait(reqs(1), status)
  call tap_true(reqs(1) == MPI_REQUEST_NULL, 'ibarrier')
  call MPI_Op_create(my_sum08, .true., op)
  call MPI_Allreduce(rank + 1, cnt, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call tap_int(cnt, nprocs * (nprocs + 1) / 2, 'user op (f08 interface)')
  call MPI_Op_free(op)

  ! Groups, attributes.
  call MPI_Comm_group(MPI_COMM_WORLD, group)
  call MPI_Group_size(group, cnt)
  call tap_int(cnt, nprocs, 'group_size')
  call MPI_Group_free(group)
  call MPI_Comm_create_keyval(copy_fn08, delete_fn08, keyval, 5_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_WORLD, newcomm)
  call MPI_Comm_set_attr(newcomm, keyval, 41_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(newcomm, dupcomm)
  call MPI_Comm_get_attr(dupcomm, keyval, aval, lflag)
  call tap_true(lflag .and. aval == 42, 'attribute copy callback')
  call MPI_Comm_free(dupcomm)
  call MPI_Comm_free(newcomm)
  call MPI_Comm_free_keyval(keyval)
  call tap_int(ndelete, 2, 'attribute delete callback')

  ! One-sided and MPI-IO.
  iarr = -1
  winsize = 4 * 64
  call MPI_Win_create(iarr, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  call MPI_Put(rank, 1, MPI_INTEGER, next, 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call tap_int(iarr(3), prev, 'put')
  call MPI_Win_free(win)
  write (fname, '(a,i0)') '/tmp/rdmpi-ftest08-', getpid()
  call MPI_Bcast(fname, len(fname), MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh)
  ibuf = rank
  off = rank * 40
  call MPI_File_write_at_all(fh, off, ibuf, 10, MPI_INTEGER, MPI_STATUS_IGNORE)
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh)
  off = prev * 40
  call MPI_File_read_at_all(fh, off, ibuf2, 10, MPI_INTEGER, status)
  call tap_int(ibuf2(10), prev, 'file write/read')
  call MPI_File_close(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL)
  call tap_true(MPI_Wtime() > 0, 'wtime')

  ! A session error handler written in Fortran gets the session and the code.
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session)
  call MPI_Session_create_errhandler(err_sess08, eh)
  call MPI_Session_set_errhandler(session, eh)
  call MPI_Errhandler_free(eh)
  call MPI_Session_call_errhandler(session, MPI_ERR_OTHER)
  call tap_int(nerr, 1 + 100 * MPI_ERR_OTHER, 'Fortran session error handler')
  call MPI_Session_finalize(session)

  ! A large-count user op.
  call MPI_Op_create_c(my_sum08c, .true., op)
  call MPI_Allreduce(rank + 1, cnt, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call tap_int(cnt, nprocs * (nprocs + 1) / 2, 'MPI_Op_create_c with a large-count Fortran op')
  call MPI_Op_free(op)

  ! A generalized request: cancel, query and free written in Fortran.
  ncancel = 0
  nfree = 0
  gstate = 7
  call MPI_Grequest_start(gq_query08, gq_free08, gq_cancel08, gstate, reqs(1))
  call MPI_Cancel(reqs(1))
  call MPI_Grequest_complete(reqs(1))
  call MPI_Wait(reqs(1), status, ierr)
  call tap_true(ierr == MPI_SUCCESS .and. status%MPI_TAG == 7 .and. ncancel == 1, &
       'grequest: cancel callback, then the query callback fills the status')
  call tap_int(nfree, 1, 'grequest: free callback once, request freed')
  call tap_int(int(gstate), 6, 'grequest: extra_state is the program''s variable (free_fn decremented it)')

  ! A data representation converting in Fortran: the file holds v + 1000.
  call MPI_Register_datarep('rdmpi-f08-plus', plus_read08, plus_write08, plus_extent08, &
       1000_MPI_ADDRESS_KIND, ierr)
  write (fname, '(a,i0)') '/tmp/rdmpi-ftest08-rep-', getpid()
  call MPI_Bcast(fname, len(fname), MPI_CHARACTER, 0, MPI_COMM_WORLD)
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'rdmpi-f08-plus', &
       MPI_INFO_NULL)
  off = rank * 2
  call MPI_File_write_at(fh, off, [rank, -rank], 2, MPI_INTEGER, MPI_STATUS_IGNORE)
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh)
  off = prev * 2
  call MPI_File_read_at(fh, off, back, 2, MPI_INTEGER, MPI_STATUS_IGNORE)
  call tap_true(back(1) == prev .and. back(2) == -prev, 'registered datarep reads back')
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', &
       MPI_INFO_NULL)
  call MPI_File_read_at(fh, off, back, 2, MPI_INTEGER, MPI_STATUS_IGNORE)
  call tap_true(ierr == MPI_SUCCESS .and. back(1) == prev + 1000 .and. back(2) == 1000 - prev, &
       'Fortran write conversion made the file')
  call MPI_File_close(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL)
  call MPI_Register_datarep_c('rdmpi-f08-null', MPI_CONVERSION_FN_NULL_C, &
       MPI_CONVERSION_FN_NULL_C, plus_extent08, 0_MPI_ADDRESS_KIND, ierr)
  cnt = ierr
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN)
  call MPI_Register_datarep_c('rdmpi-f08-null', MPI_CONVERSION_FN_NULL_C, &
       MPI_CONVERSION_FN_NULL_C, plus_extent08, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Error_class(ierr, cls)
  call tap_true(cnt == MPI_SUCCESS .and. cls == MPI_ERR_DUP_DATAREP, &
       'MPI_Register_datarep_c with MPI_CONVERSION_FN_NULL_C, then a duplicate')

  ! Spawning programs that do not exist: Fortran gets C's error.
  call MPI_Comm_dup(MPI_COMM_WORLD, newcomm)
  call MPI_Comm_set_errhandler(newcomm, MPI_ERRORS_RETURN)
  call MPI_Comm_spawn('./child', ['-v ', 'x  ', '   '], 2, MPI_INFO_NULL, 0, newcomm, inter, &
       MPI_ERRCODES_IGNORE, ierr)
  call MPI_Error_class(ierr, cls)
  call tap_int(cls, MPI_ERR_SPAWN, 'MPI_Comm_spawn returns C''s error')
  call MPI_Comm_spawn_multiple(2, ['./a', './b'], MPI_ARGVS_NULL, [1, 1], &
       [MPI_INFO_NULL, MPI_INFO_NULL], 0, newcomm, inter, MPI_ERRCODES_IGNORE, ierr)
  call MPI_Error_class(ierr, cls)
  call tap_int(cls, MPI_ERR_SPAWN, 'MPI_Comm_spawn_multiple returns C''s error')
  call MPI_Comm_free(newcomm)

  ! MPI_(Un)pack_external: a choice buffer and a string in one call.
  call MPI_Pack_external_size('external32', 3, MPI_INTEGER, psize)
  pos = 0
  call MPI_Pack_external('external32 ', [rank, 258, -2], 3, MPI_INTEGER, packed, &
       int(size(packed), MPI_ADDRESS_KIND), pos)
  call tap_true(psize == 12 .and. pos == 12 .and. ichar(packed(7)) == 1 .and. &
       ichar(packed(8)) == 2, 'pack_external and pack_external_size: big-endian, 12 bytes')
  cpos = 0
  ibuf = 0
  call MPI_Unpack_external('external32', packed, int(pos, MPI_COUNT_KIND), cpos, ibuf, &
       3_MPI_COUNT_KIND, MPI_INTEGER, ierr)
  call tap_true(ierr == MPI_SUCCESS .and. cpos == 12 .and. all(ibuf(1:3) == [rank, 258, -2]), &
       'unpack_external_c reads it back')

  ! The profiling interface: this program replaces MPI_Barrier_f08 and
  ! MPI_Reduce_f08ts (below); they count and call PMPI_Barrier, PMPI_Reduce.
  ! Both are plain Fortran, as MPI-4.1 section 19.1.5 expects of a tool.
  nbarrier = 0
  nreduce = 0
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Reduce(rank, cnt, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call tap_true(nbarrier == 1 .and. nreduce == 1, 'replaced specific procedures are called')
  call tap_true(ierr == MPI_SUCCESS .and. (rank /= 0 .or. cnt == nprocs * (nprocs - 1) / 2), &
       'and reach the library through PMPI_Reduce')
  call PMPI_Comm_size(MPI_COMM_WORLD, cnt)
  call PMPI_Barrier(MPI_COMM_WORLD)
  call tap_true(cnt == nprocs .and. nbarrier == 1, 'PMPI_ generics bypass the replacements')
  call tap_done()
end program t_f08

subroutine MPI_Barrier_f08(comm, ierror)
  use mpi_f08, only: MPI_Comm, PMPI_Barrier
  implicit none
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  integer :: nbarrier, nreduce
  common /profcount/ nbarrier, nreduce
  nbarrier = nbarrier + 1
  call PMPI_Barrier(comm, ierror)
end subroutine

subroutine MPI_Reduce_f08ts(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
  use mpi_f08, only: MPI_Comm, MPI_Datatype, MPI_Op, PMPI_Reduce
  implicit none
  type(*), dimension(..), intent(in) :: sendbuf
  type(*), dimension(..) :: recvbuf
  integer, intent(in) :: count, root
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Op), intent(in) :: op
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  integer :: nbarrier, nreduce
  common /profcount/ nbarrier, nreduce
  nreduce = nreduce + 1
  call PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
end subroutine

subroutine my_sum08(invec, inoutvec, len, datatype)
  use mpi_f08, only: MPI_Datatype
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  type(c_ptr), value :: invec, inoutvec
  integer :: len
  type(MPI_Datatype) :: datatype
  integer, pointer :: a(:), b(:)
  call c_f_pointer(invec, a, [len])
  call c_f_pointer(inoutvec, b, [len])
  b = a + b
end subroutine

subroutine copy_fn08(oldcomm, keyval, extra, vin, vout, flag, ierr)
  use mpi_f08, only: MPI_Comm, MPI_ADDRESS_KIND
  implicit none
  type(MPI_Comm) :: oldcomm
  integer :: keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, vin, vout
  logical :: flag
  vout = vin + 1
  flag = extra == 5
  ierr = 0
end subroutine

subroutine delete_fn08(comm, keyval, val, extra, ierr)
  use mpi_f08, only: MPI_Comm, MPI_ADDRESS_KIND
  implicit none
  type(MPI_Comm) :: comm
  integer :: keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  integer :: ncopy, ndelete, nerr
  common /cbcount/ ncopy, ndelete, nerr
  ndelete = ndelete + 1
  ierr = 0
end subroutine

subroutine err_fn08(comm, code)
  use mpi_f08, only: MPI_Comm
  implicit none
  type(MPI_Comm) :: comm
  integer :: code
  integer :: ncopy, ndelete, nerr
  common /cbcount/ ncopy, ndelete, nerr
  nerr = nerr + 1
end subroutine

subroutine err_sess08(session, code)
  use mpi_f08, only: MPI_Session
  implicit none
  type(MPI_Session) :: session
  integer :: code
  integer :: ncopy, ndelete, nerr
  common /cbcount/ ncopy, ndelete, nerr
  nerr = nerr + 100 * code
end subroutine

subroutine my_sum08c(invec, inoutvec, len, datatype)
  use mpi_f08, only: MPI_Datatype, MPI_COUNT_KIND
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  type(c_ptr), value :: invec, inoutvec
  integer(kind=MPI_COUNT_KIND) :: len
  type(MPI_Datatype) :: datatype
  integer, pointer :: a(:), b(:)
  call c_f_pointer(invec, a, [len])
  call c_f_pointer(inoutvec, b, [len])
  b = a + b
end subroutine

subroutine gq_query08(extra_state, status, ierror)
  use mpi_f08, only: MPI_Status, MPI_ADDRESS_KIND, MPI_SUCCESS
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  type(MPI_Status) :: status
  integer :: ierror
  status%MPI_TAG = int(extra_state)
  ierror = MPI_SUCCESS
end subroutine

subroutine gq_free08(extra_state, ierror)
  use mpi_f08, only: MPI_ADDRESS_KIND, MPI_SUCCESS
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: ierror
  integer :: ncancel, nfree
  common /gqcount/ ncancel, nfree
  nfree = nfree + 1
  extra_state = extra_state - 1
  ierror = MPI_SUCCESS
end subroutine

subroutine gq_cancel08(extra_state, complete, ierror)
  use mpi_f08, only: MPI_ADDRESS_KIND, MPI_SUCCESS
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  logical :: complete
  integer :: ierror
  integer :: ncancel, nfree
  common /gqcount/ ncancel, nfree
  if (.not. complete .and. extra_state == 7) ncancel = ncancel + 1
  ierror = MPI_SUCCESS
end subroutine

! position counts elements of datatype into userbuf.
subroutine plus_write08(userbuf, datatype, count, filebuf, position, extra_state, ierror)
  use mpi_f08, only: MPI_Datatype, MPI_OFFSET_KIND, MPI_ADDRESS_KIND, MPI_SUCCESS
  use, intrinsic :: iso_c_binding, only: c_ptr
  implicit none
  type(c_ptr), value :: userbuf, filebuf
  type(MPI_Datatype) :: datatype
  integer :: count, ierror
  integer(kind=MPI_OFFSET_KIND) :: position
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  call plus_shift(userbuf, filebuf, count, position, int(extra_state), .true.)
  ierror = MPI_SUCCESS
end subroutine

subroutine plus_read08(userbuf, datatype, count, filebuf, position, extra_state, ierror)
  use mpi_f08, only: MPI_Datatype, MPI_OFFSET_KIND, MPI_ADDRESS_KIND, MPI_SUCCESS
  use, intrinsic :: iso_c_binding, only: c_ptr
  implicit none
  type(c_ptr), value :: userbuf, filebuf
  type(MPI_Datatype) :: datatype
  integer :: count, ierror
  integer(kind=MPI_OFFSET_KIND) :: position
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  call plus_shift(userbuf, filebuf, count, position, int(extra_state), .false.)
  ierror = MPI_SUCCESS
end subroutine

! The conversions of plus_write08 and plus_read08: the file holds the
! count integers of userbuf from position on, each plus delta.
subroutine plus_shift(userbuf, filebuf, count, position, delta, to_file)
  use mpi_f08, only: MPI_OFFSET_KIND
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  type(c_ptr) :: userbuf, filebuf
  integer :: count, delta
  integer(kind=MPI_OFFSET_KIND) :: position
  logical :: to_file
  integer, pointer :: u(:), f(:)
  call c_f_pointer(userbuf, u, [position + count])
  call c_f_pointer(filebuf, f, [count])
  if (to_file) then
     f = u(position + 1:) + delta
  else
     u(position + 1:) = f - delta
  end if
end subroutine

subroutine plus_extent08(datatype, extent, extra_state, ierror)
  use mpi_f08, only: MPI_Datatype, MPI_ADDRESS_KIND, MPI_Type_get_extent
  implicit none
  type(MPI_Datatype) :: datatype
  integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
  integer :: ierror
  integer(kind=MPI_ADDRESS_KIND) :: lb
  call MPI_Type_get_extent(datatype, lb, extent, ierror)
end subroutine
