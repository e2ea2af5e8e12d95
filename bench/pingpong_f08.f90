! Ping-pong through use mpi_f08, the twin of bench/pingpong.c: the same
! loop, sizes and output, so the two measure only the bindings' cost
! (issue 23: within 5% at 8 B and 1 MiB).  Rank 0 prints one line per size:
! bytes and the one-way latency in microseconds.
! Usage: mpirun -n 2 rdmpi-pingpong-f08 [iterations]
program pingpong_f08
  use mpi_f08
  implicit none
  integer, parameter :: nsizes = 2, warmup = 100
  integer, parameter :: sizes(nsizes) = [8, 1048576]
  character(len=1), allocatable :: buf(:)
  character(len=32) :: arg
  integer :: rank, nprocs, iters, s, i, n, peer, ios
  double precision :: t0, t

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (nprocs /= 2) then
     if (rank == 0) print '(a)', 'rdmpi-pingpong-f08: run with exactly 2 ranks (mpirun -n 2)'
     call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  iters = 1000
  if (command_argument_count() >= 1) then
     call get_command_argument(1, arg)
     read (arg, *, iostat=ios) iters
     if (ios /= 0 .or. iters <= 0) then
        if (rank == 0) print '(3a)', "rdmpi-pingpong-f08: iterations must be a positive number, not '", &
             trim(arg), "'"
        call MPI_Abort(MPI_COMM_WORLD, 1)
     end if
  end if
  peer = 1 - rank
  allocate (buf(sizes(nsizes)))
  buf = 'x'
  if (rank == 0) print '(a)', '# bytes  latency_us (mpi_f08)'
  do s = 1, nsizes
     n = sizes(s)
     do i = 1, warmup + iters
        if (i == warmup + 1) then
           call MPI_Barrier(MPI_COMM_WORLD)
           t0 = MPI_Wtime()
        end if
        if (rank == 0) then
           call MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD)
           call MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        else
           call MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
           call MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD)
        end if
     end do
     t = (MPI_Wtime() - t0) * 1.0d6 / (2.0d0 * iters)
     if (rank == 0) print '(i8,f12.3)', n, t
  end do
  call MPI_Finalize()
end program pingpong_f08
