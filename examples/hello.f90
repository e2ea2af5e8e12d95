! Hello from every rank, through the mpi module.
!   mpifort -o hello hello.f90 && mpirun -n 4 ./hello
program hello
  use mpi
  implicit none
  integer :: rank, size, len, ierror
  character(len=MPI_MAX_PROCESSOR_NAME) :: host

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierror)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierror)
  call MPI_Get_processor_name(host, len, ierror)
  print '(a,i0,a,i0,a,a)', 'Hello from rank ', rank, ' of ', size, ' on ', host(1:len)
  call MPI_Finalize(ierror)
end program hello
