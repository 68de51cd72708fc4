! examples/fortran/heat: 2-D heat diffusion from Fortran, kernels written
! once in C (heat.kc.c): the Fortran twin of examples/heat.c, with the
! same grid, steps, checks and output (tests/t-fortran-examples.sh
! compares the two).
!
! A cold square plate (0) has one edge held at 100 and the others at 0.
! Each step is an explicit Euler update of the interior over a 2-D range;
! every `check` steps an MD reduction measures the change of the step and
! the run stops when it falls below the tolerance or after the step limit.
! The program checks what physics promises (the total heat never falls;
! every value stays within [0, 100]) and stops with 1 if that fails or the
! run did not converge.
!
! The grid is the Fortran array u(nx, ny), column-major: x, the first
! index, is contiguous.  kc's MD ranges run their LAST dimension fastest,
! so the range is built as (y, x): begin = [1, 1], end = [ny - 1, nx - 1]
! (0-based C indices of the interior), and the kernels take (y, x).
!
!   KC_BACKEND=threads ./heat [-n N] [-s MAXSTEPS] [-t TILE_Y,TILE_X]
program heat
  use, intrinsic :: iso_c_binding
  use kc
  implicit none

  ! The functor: the C struct heat_step of heat.kc.c.
  type, bind(C) :: heat_step
    type(c_ptr) :: in, out
    integer(c_int64_t) :: nx
    real(c_double) :: alpha
  end type heat_step

  integer, parameter :: check = 50
  real(c_double), parameter :: alpha = 0.24_c_double, tol = 1e-6_c_double
  integer :: n, a, ios
  integer(kc_index) :: maxsteps, steps, tile(2)
  character(64) :: arg
  real(c_double), allocatable, target :: h(:, :)
  real(c_double), pointer :: u(:, :), v(:, :)
  type(heat_step), target :: f
  type(kc_kernel) :: kstep, kchange, ktotal
  type(kc_policy) :: interior
  type(c_ptr) :: t
  real(c_double) :: total0, total, prev_total, change, residual, lo, hi
  real(c_double) :: elapsed, gbs
  integer(c_int64_t) :: c0, c1, rate
  logical :: ok, converged

  n = 64
  maxsteps = 100000
  tile = 0
  a = 1
  do while (a <= command_argument_count())
    call get_command_argument(a, arg)
    if (a == command_argument_count()) call usage()
    select case (arg)
    case ('-n')
      call get_command_argument(a + 1, arg)
      read (arg, *, iostat=ios) n
    case ('-s')
      call get_command_argument(a + 1, arg)
      read (arg, *, iostat=ios) maxsteps
    case ('-t')
      call get_command_argument(a + 1, arg)
      read (arg, *, iostat=ios) tile
    case default
      call usage()
    end select
    if (ios /= 0) call usage()
    a = a + 2
  end do
  if (n < 8 .or. maxsteps < 1) then
    write (*, '(a)') 'heat: need N >= 8 and MAXSTEPS >= 1'
    stop 2
  end if

  call kc_init()
  write (*, '(a)') 'backend: '//kc_backend_name()

  ! Two grids: 0, but 100 along the edge y = 0 (edges never change).
  allocate (h(n, n))
  h = 0
  h(:, 1) = 100
  call kc_allocate(u, [n, n], KC_SPACE_DEVICE, 'heat u')
  call kc_allocate(v, [n, n], KC_SPACE_DEVICE, 'heat v')
  call kc_memcpy(c_loc(u), c_loc(h), kc_bytes(h))
  call kc_memcpy(c_loc(v), c_loc(h), kc_bytes(h))

  call kc_kernel_get('heat_step', kstep)
  call kc_kernel_get('heat_change', kchange)
  call kc_kernel_get('heat_total', ktotal)
  ! (y, x): the contiguous x last.
  if (any(tile > 0)) then
    interior = kc_mdrange([1, 1], [n - 1, n - 1], int(tile))
  else
    interior = kc_mdrange([1, 1], [n - 1, n - 1])
  end if
  f = heat_step(c_loc(u), c_loc(v), int(n, c_int64_t), alpha)
  f%out = c_loc(u) ! the total of the initial grid
  call kc_parallel_reduce('heat total', ktotal, interior, c_loc(f), &
    c_sizeof(f), total0)
  f%out = c_loc(v)

  ok = .true.
  residual = huge(1.0_c_double)
  total = total0
  prev_total = total0
  steps = 0
  call system_clock(c0, rate)
  do while (steps < maxsteps)
    call kc_parallel_for('heat step', kstep, interior, c_loc(f), c_sizeof(f))
    steps = steps + 1
    if (mod(steps, int(check, kc_index)) == 0 .or. steps == maxsteps) then
      call kc_parallel_reduce('heat change', kchange, interior, c_loc(f), &
        c_sizeof(f), change)
      call kc_parallel_reduce('heat total', ktotal, interior, c_loc(f), &
        c_sizeof(f), total)
      residual = sqrt(change)
      if (total < prev_total*(1 - 1e-12_c_double)) then
        write (*, '(a,i0,a,es24.17,a,es24.17,a)') &
          'heat: the total heat fell at step ', steps, ' (', total, ' < ', &
          prev_total, ')'
        ok = .false.
      end if
      prev_total = total
      if (residual < tol) exit
    end if
    t = f%in ! the new grid is the next step's input
    f%in = f%out
    f%out = t
  end do
  call kc_fence()
  call system_clock(c1)
  elapsed = real(c1 - c0, c_double)/real(rate, c_double)

  ! The maximum principle on the final grid.
  call kc_memcpy(c_loc(h), f%out, kc_bytes(h))
  lo = minval(h)
  hi = maxval(h)
  if (lo < 0 .or. hi > 100) then
    write (*, '(a,g0,a,g0,a)') 'heat: values left [0, 100]: [', lo, ', ', &
      hi, ']'
    ok = .false.
  end if
  converged = residual < tol
  gbs = 16.0_c_double*real(n - 2, c_double)**2*real(steps, c_double)/ &
    max(elapsed, 1e-9_c_double)/1e9_c_double
  write (*, '(a,i0,a,i0,a,i0,a,i0)') 'grid: ', n, ' x ', n, ', tile ', &
    tile(1), ' x ', tile(2)
  write (*, '(a,i0)') 'steps: ', steps
  write (*, '(5a)') 'residual: ', es(residual, 3), ' (tolerance ', &
    es(tol, 1), trim(merge(')              ', ') NOT CONVERGED', converged))
  write (*, '(5a)') 'total heat: ', es(total, 12), ' (initial ', &
    es(total0, 12), ')'
  write (*, '(3a)') 'time per step: ', &
    fixed(1e6_c_double*elapsed/real(steps, c_double), 3), ' us'
  write (*, '(3a)') 'bandwidth: ', fixed(gbs, 2), ' GB/s'

  call kc_deallocate(u)
  call kc_deallocate(v)
  deallocate (h)
  call kc_finalize()
  if (.not. (ok .and. converged)) stop 1

contains

  ! x in scientific notation with d digits after the point, no blanks.
  function es(x, d) result(s)
    real(c_double), intent(in) :: x
    integer, intent(in) :: d
    character(:), allocatable :: s
    character(40) :: buf, fmt
    write (fmt, '(a,i0,a,i0,a)') '(es', d + 9, '.', d, ')'
    write (buf, fmt) x
    s = trim(adjustl(buf))
  end function es

  ! x with d digits after the point, no blanks.
  function fixed(x, d) result(s)
    real(c_double), intent(in) :: x
    integer, intent(in) :: d
    character(:), allocatable :: s
    character(40) :: buf, fmt
    write (fmt, '(a,i0,a,i0,a)') '(f', 30, '.', d, ')'
    write (buf, fmt) x
    s = trim(adjustl(buf))
  end function fixed

  subroutine usage()
    write (*, '(a)') 'usage: heat [-n N] [-s MAXSTEPS] [-t TILE_Y,TILE_X]'
    stop 2
  end subroutine usage

end program heat
