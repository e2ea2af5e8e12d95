! TAP for the Fortran tests: every rank checks, rank 0 prints one line per
! check (ok only when it held on every rank); a rank where it failed prints
! a diagnostic with both values.  Uses mpif.h privately, so that a test may
! use any of the three interfaces.
module ftap
  implicit none
  private
  include 'mpif.h'
  public :: tap_plan, tap_int, tap_true, tap_done
  integer :: n = 0, me = 0
contains
  subroutine tap_plan(plan)
    integer, intent(in) :: plan
    integer :: ierr
    call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
    if (me == 0) print '(a,i0)', '1..', plan
  end subroutine

  subroutine tap_int(got, want, msg)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: msg
    call report(got == want, msg, got, want)
  end subroutine

  subroutine tap_true(cond, msg)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: msg
    call report(cond, msg, merge(1, 0, cond), 1)
  end subroutine

  subroutine report(good, msg, got, want)
    logical, intent(in) :: good
    character(len=*), intent(in) :: msg
    integer, intent(in) :: got, want
    integer :: l, g, ierr
    l = merge(1, 0, good)
    call MPI_ALLREDUCE(l, g, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
    n = n + 1
    if (.not. good) print '(a,i0,a,a,a,i0,a,i0)', '# rank ', me, ': ', msg, ': got ', got, &
         ', want ', want
    if (me == 0) then
       if (g == 1) then
          print '(a,i0,a,a)', 'ok ', n, ' - ', msg
       else
          print '(a,i0,a,a)', 'not ok ', n, ' - ', msg
       end if
    end if
    flush(6)
  end subroutine

  subroutine tap_done()
    integer :: ierr
    call MPI_FINALIZE(ierr)
  end subroutine
end module ftap
