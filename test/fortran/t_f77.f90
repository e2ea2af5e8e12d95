! mpif.h: point-to-point, collectives, datatypes, communicators, user ops,
! attributes and error handlers in Fortran, one-sided, MPI-IO.
program t_f77
  use ftap
  implicit none
  include 'mpif.h'
  include 'body77.inc'
end program t_f77
include 'callbacks77.inc'
