! Passes a token around the ranks ten times, through the mpi_f08 module.
!   mpifort -o ring_f08 ring_f08.f90 && mpirun -n 4 ./ring_f08
program ring_f08
  use mpi_f08
  implicit none
  integer :: rank, size, next, prev, token, lap
  type(MPI_Status) :: status

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  next = mod(rank + 1, size)
  prev = mod(rank + size - 1, size)
  token = 0
  do lap = 1, 10
     if (rank == 0) then
        token = token + 1
        call MPI_Send(token, 1, MPI_INTEGER, next, lap, MPI_COMM_WORLD)
        call MPI_Recv(token, 1, MPI_INTEGER, prev, lap, MPI_COMM_WORLD, status)
     else
        call MPI_Recv(token, 1, MPI_INTEGER, prev, lap, MPI_COMM_WORLD, status)
        token = token + 1
        call MPI_Send(token, 1, MPI_INTEGER, next, lap, MPI_COMM_WORLD)
     end if
  end do
  if (rank == 0) print '(a,i0,a,i0,a)', 'token is ', token, ' after 10 laps of ', size, ' ranks'
  call MPI_Finalize()
end program ring_f08
