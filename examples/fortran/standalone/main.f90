! A standalone Fortran program using an installed kc: y = a x in kc
! memory, then the sum of y, both with kernels written once in C
! (scale.kc.c).  Exits 0 when the sum is right.
!   KC_BACKEND=threads ./scale
program scale
  use, intrinsic :: iso_c_binding
  use kc
  implicit none

  ! The functors: the C structs of scale.kc.c.
  type, bind(C) :: scale_args
    real(c_double) :: a
    type(c_ptr) :: x, y
  end type scale_args
  type, bind(C) :: sum_args
    type(c_ptr) :: y
  end type sum_args

  integer, parameter :: n = 100000
  real(c_double), allocatable, target :: h(:)
  real(c_double), pointer :: x(:), y(:)
  type(scale_args), target :: sa
  type(sum_args), target :: su
  type(kc_kernel) :: kscale, ksum
  real(c_double) :: total, want
  integer :: i, stat

  ! stat=: handle the error here instead of stopping inside kc.
  call kc_init(stat)
  if (stat /= 0) then
    write (*, '(4a)') 'scale: kc_init failed: ', kc_strerror(stat), ': ', &
      kc_last_error()
    stop 1
  end if
  write (*, '(a)') 'backend: '//kc_backend_name()

  allocate (h(n))
  h = [(real(i, c_double), i = 1, n)]
  call kc_allocate(x, [n], KC_SPACE_DEVICE, 'x')
  call kc_allocate(y, [n], KC_SPACE_DEVICE, 'y')
  call kc_memcpy(c_loc(x), c_loc(h), kc_bytes(h))

  call kc_kernel_get('scale', kscale)
  call kc_kernel_get('sum', ksum)
  sa = scale_args(0.5_c_double, c_loc(x), c_loc(y))
  call kc_parallel_for('scale', kscale, kc_range(0, n), c_loc(sa), &
    c_sizeof(sa))
  su = sum_args(c_loc(y))
  call kc_parallel_reduce('sum', ksum, kc_range(0, n), c_loc(su), &
    c_sizeof(su), total)

  want = 0.5_c_double*n*(n + 1)/2
  call kc_deallocate(x)
  call kc_deallocate(y)
  call kc_finalize()
  if (abs(total - want) > 1e-9_c_double*want) then
    write (*, '(a,es24.16,a,es24.16)') 'scale: sum ', total, ', expected ', &
      want
    stop 1
  end if
  write (*, '(a)') 'scale: result correct'
end program scale
