! use mpi: the program of t_f77, checked against the module's interfaces.
program t_mpi
  use mpi
  use ftap
  implicit none
  include 'body77.inc'
end program t_mpi
include 'callbacks77.inc'
