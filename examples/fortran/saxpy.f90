! examples/fortran/saxpy: y = a x + y from Fortran, with the kernel
! written once in C (saxpy.kc.c, built by kcc): the Fortran twin of
! examples/saxpy-kc.c, with the same check.
!
! Arrays in kc memory come back as Fortran array pointers (kc_allocate);
! kernels get them as c_loc(...) in a bind(C) functor.  Any call that
! fails stops the program with kc's message (no stat= argument given).
!
!   KC_BACKEND=threads ./saxpy [n]
program saxpy
  use, intrinsic :: iso_c_binding
  use kc
  implicit none

  ! The functor: the C struct saxpy_functor of saxpy.kc.c.
  type, bind(C) :: saxpy_functor
    real(c_float) :: a
    type(c_ptr) :: x, y
  end type saxpy_functor

  integer(kc_index) :: n, i, bad
  integer :: ios
  character(32) :: arg
  real(c_float), allocatable, target :: hx(:), hy(:)
  real(c_float), pointer :: x(:), y(:)
  type(saxpy_functor), target :: f
  type(kc_kernel) :: k
  real(c_float) :: want

  n = 1000000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=ios) n
    if (ios /= 0 .or. n < 0 .or. n > huge(1)) then
      write (*, '(a)') 'usage: saxpy [n]'
      stop 2
    end if
  end if

  call kc_init()
  write (*, '(a)') 'backend: '//kc_backend_name()

  allocate (hx(n), hy(n))
  do i = 1, n
    hx(i) = real(mod(i - 1, 1000_kc_index), c_float)
    hy(i) = 1.0_c_float
  end do
  ! Device arrays: not to be touched from Fortran on a GPU backend; they
  ! are filled and read back with kc_memcpy.
  call kc_allocate(x, [int(n)], KC_SPACE_DEVICE, 'x')
  call kc_allocate(y, [int(n)], KC_SPACE_DEVICE, 'y')
  call kc_memcpy(c_loc(x), c_loc(hx), kc_bytes(hx))
  call kc_memcpy(c_loc(y), c_loc(hy), kc_bytes(hy))

  ! The kernel kcc registered under its name; C index i is element i + 1.
  call kc_kernel_get('saxpy', k)
  f = saxpy_functor(2.0_c_float, c_loc(x), c_loc(y))
  call kc_parallel_for('saxpy', k, kc_range(0_kc_index, n), c_loc(f), &
    c_sizeof(f))
  call kc_memcpy(c_loc(hy), c_loc(y), kc_bytes(hy))

  bad = 0
  do i = 1, n
    want = 2.0_c_float*real(mod(i - 1, 1000_kc_index), c_float) + 1.0_c_float
    if (abs(hy(i) - want) > 1e-6_c_float*abs(want)) then
      bad = bad + 1
      if (bad <= 5) write (*, '(a,i0,a,g0,a,g0)') 'saxpy: y(', i, ') = ', &
        hy(i), ', expected ', want
    end if
  end do
  if (bad == 0) then
    write (*, '(a,i0,a)') 'saxpy: n = ', n, ', result correct'
  else
    write (*, '(a,i0,a)') 'saxpy: n = ', n, ', MISMATCH'
  end if

  call kc_deallocate(x)
  call kc_deallocate(y)
  deallocate (hx, hy)
  call kc_finalize()
  if (bad /= 0) stop 1
end program saxpy
