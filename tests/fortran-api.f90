! The Fortran binding's conformance test: every procedure of the module kc
! (every specific of its generics too) called at least once, on the backend
! KC_BACKEND names, with the kernels of fortran-kernels.kc.c and kernels
! written in Fortran itself (bind(C) host functions registered with
! kc_kernel_register, host backends only).  Results are checked against
! values computed here; errors must come back as codes with their
! messages.  Run through t-fortran-api.sh (per backend).
!
!   fortran-api           the checks; exit 0, or 1 with FAIL lines
!   fortran-api --stop    a failing call without stat=: must stop the
!                         program with kc's message (t-fortran-api.sh)
module ft_support
  use, intrinsic :: iso_c_binding
  use kc
  implicit none

  integer :: failures = 0

  ! The C struct ft_vec of fortran-kernels.kc.c.
  type, bind(C) :: ft_vec
    real(c_double) :: a = 0
    type(c_ptr) :: y = c_null_ptr, x = c_null_ptr, yf = c_null_ptr
    type(c_ptr) :: yi = c_null_ptr, yl = c_null_ptr
    integer(c_int64_t) :: nx = 0
  end type ft_vec

  ! The value of the custom reducer below: the smallest and largest value.
  type, bind(C) :: minmax
    real(c_double) :: lo, hi
  end type minmax

  interface expect_eq
    module procedure expect_eq_i4, expect_eq_i8, expect_eq_s
  end interface expect_eq

contains

  subroutine expect(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      write (*, '(2a)') 'FAIL: ', what
      failures = failures + 1
    end if
  end subroutine expect

  subroutine expect_eq_i4(got, want, what)
    integer, intent(in) :: got, want
    character(*), intent(in) :: what
    if (got /= want) then
      write (*, '(3a,i0,a,i0)') 'FAIL: ', what, ': got ', got, ', want ', want
      failures = failures + 1
    end if
  end subroutine expect_eq_i4

  subroutine expect_eq_i8(got, want, what)
    integer(c_int64_t), intent(in) :: got, want
    character(*), intent(in) :: what
    if (got /= want) then
      write (*, '(3a,i0,a,i0)') 'FAIL: ', what, ': got ', got, ', want ', want
      failures = failures + 1
    end if
  end subroutine expect_eq_i8

  subroutine expect_eq_s(got, want, what)
    character(*), intent(in) :: got, want
    character(*), intent(in) :: what
    if (got /= want) then
      write (*, '(6a)') 'FAIL: ', what, ': got "', got, '", want "', want//'"'
      failures = failures + 1
    end if
  end subroutine expect_eq_s

  subroutine expect_near(got, want, what)
    real(c_double), intent(in) :: got, want
    character(*), intent(in) :: what
    if (abs(got - want) > 1e-9_c_double*max(1.0_c_double, abs(want))) then
      write (*, '(3a,es24.16,a,es24.16)') 'FAIL: ', what, ': got ', got, &
        ', want ', want
      failures = failures + 1
    end if
  end subroutine expect_near

  ! A call that must fail with `want`, and say something in its detail.
  subroutine expect_err(stat, want, what)
    integer, intent(in) :: stat, want
    character(*), intent(in) :: what
    call expect_eq(stat, want, what//' (code)')
    if (stat == want) then
      call expect(len(kc_last_error()) > 0, what//': kc_last_error is empty')
      write (*, '(5a)') 'ok: ', what, ': ', kc_err_name(stat), &
        ' ('//kc_last_error()//')'
    end if
  end subroutine expect_err

  ! Leaves kc_last_error() describing a failure of the C library (an
  ! unknown kernel), unrelated to the refusal checked next.
  subroutine unrelated_error()
    type(kc_kernel) :: k
    integer :: st
    call kc_kernel_get('unrelated_kernel', k, st)
    call expect_eq(st, int(KC_ENOKERNEL), 'kc_kernel_get of an unknown name')
    call expect(index(kc_last_error(), 'unrelated_kernel') > 0, &
      'the unrelated failure is the last error: '//kc_last_error())
  end subroutine unrelated_error

  ! A refusal of the module's own with stat=: the code, and kc_last_error()
  ! describes it as kc's failures are described ("<call>: ..."), not the
  ! failure unrelated_error left.
  subroutine expect_refusal(stat, want, detail, what)
    integer, intent(in) :: stat, want
    character(*), intent(in) :: detail, what
    call expect_err(stat, want, what)
    call expect(index(kc_last_error(), detail) == 1, what// &
      ': kc_last_error() is "'//kc_last_error()//'", want "'//detail//'..."')
  end subroutine expect_refusal

  ! ------------------------------------------ kernels written in Fortran

  ! FOR host entry: y(k) = y(k) + 3 k over the chunk [b, e).
  subroutine f_for(functor, b, e) bind(C)
    type(c_ptr), value :: functor
    integer(c_int64_t), value :: b, e
    type(ft_vec), pointer :: f
    real(c_double), pointer :: y(:)
    integer(c_int64_t) :: i
    call c_f_pointer(functor, f)
    call c_f_pointer(f%y, y, [e])
    do i = b + 1, e
      y(i) = y(i) + 3*real(i, c_double)
    end do
  end subroutine f_for

  ! REDUCE host entry with the custom reducer: min and max of x.
  subroutine f_minmax(functor, b, e, acc) bind(C)
    type(c_ptr), value :: functor
    integer(c_int64_t), value :: b, e
    type(c_ptr), value :: acc
    type(ft_vec), pointer :: f
    type(minmax), pointer :: m
    real(c_double), pointer :: x(:)
    integer(c_int64_t) :: i
    call c_f_pointer(functor, f)
    call c_f_pointer(acc, m)
    call c_f_pointer(f%x, x, [e])
    do i = b + 1, e
      m%lo = min(m%lo, x(i))
      m%hi = max(m%hi, x(i))
    end do
  end subroutine f_minmax

  subroutine minmax_identity(v) bind(C)
    type(c_ptr), value :: v
    type(minmax), pointer :: m
    call c_f_pointer(v, m)
    m%lo = huge(1.0_c_double)
    m%hi = -huge(1.0_c_double)
  end subroutine minmax_identity

  subroutine minmax_join(dst, src) bind(C)
    type(c_ptr), value :: dst, src
    type(minmax), pointer :: d, s
    call c_f_pointer(dst, d)
    call c_f_pointer(src, s)
    d%lo = min(d%lo, s%lo)
    d%hi = max(d%hi, s%hi)
  end subroutine minmax_join

  ! CALL host entry, signature "pd": y(k) = a for k in the chunk.
  subroutine f_call(b, e, yp, a) bind(C)
    integer(c_int64_t), value :: b, e
    type(c_ptr), value :: yp
    real(c_double), value :: a
    real(c_double), pointer :: y(:)
    call c_f_pointer(yp, y, [e])
    y(b + 1:e) = a
  end subroutine f_call

  ! Scratch function of ft_team: 32 bytes of level 0 per team.
  integer(c_size_t) function f_team_scratch(functor, level, team_size) &
      bind(C)
    type(c_ptr), value :: functor
    integer(c_int), value :: level, team_size
    f_team_scratch = 0
    if (level == 0 .and. team_size > 0 .and. c_associated(functor)) &
      f_team_scratch = 32
  end function f_team_scratch

end module ft_support

program fortran_api
  use, intrinsic :: iso_c_binding
  use kc
  use ft_support
  implicit none

  character(16) :: arg
  logical :: device
  type(kc_info) :: info
  type(kc_kernel) :: k, knone
  integer :: st, sp

  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    if (arg == '--stop') then
      call kc_init()
      call kc_kernel_get('missing_kernel', k) ! no stat: must stop here
      write (*, '(a)') 'FAIL: kc_kernel_get returned without stat'
      stop 1
    end if
  end if

  ! ---------------------------------------------------- before kc_init
  call expect(.not. kc_is_initialized(), 'initialized before kc_init')
  call expect_eq(kc_backend_name(), '', 'backend name before kc_init')
  call kc_fence(st)
  call expect_err(st, KC_ENOINIT, 'kc_fence before kc_init')
  call expect_eq(kc_strerror(KC_EINVAL), 'invalid argument', 'kc_strerror')
  call expect_eq(kc_err_name(KC_ENOKERNEL), 'KC_ENOKERNEL', 'kc_err_name')
  call expect_eq(kc_err_name(12345), 'KC_E?', 'kc_err_name of an unknown code')
  call expect_eq(kc_strerror(12345), 'unknown error', 'kc_strerror unknown')
  call expect(index(kc_version(), '.') > 1, 'kc_version: '//kc_version())
  ! A library over kc sets the detail of its own refusals (at any time).
  call kc_set_last_error(KC_EINVAL, 'mylib_solve: the matrix is singular  ')
  call expect_eq(kc_last_error(), 'mylib_solve: the matrix is singular', &
    'kc_set_last_error (trailing blanks dropped)')

  ! ------------------------------------------------------------ runtime
  call kc_init(st)
  call expect_eq(st, 0, 'kc_init')
  if (st /= 0) then
    write (*, '(a)') 'kc_init failed: '//kc_last_error()
    stop 1
  end if
  call kc_init() ! reference counted
  call kc_finalize()
  call expect(kc_is_initialized(), 'initialized after kc_init')
  write (*, '(a)') 'backend: '//kc_backend_name()
  call kc_get_info(info)
  call expect_eq(kc_string(info%backend), kc_backend_name(), 'kc_info%backend')
  call expect(len(kc_string(info%path)) > 0, 'kc_info%path')
  call expect(info%num_threads >= 1, 'kc_info%num_threads >= 1')
  call expect(iand(info%spaces, 1) == 1, 'kc_info%spaces has host')
  device = info%dev%compute_major > 0
  write (*, '(a,l1,a,i0,a,i0)') 'device: ', device, ', concurrency ', &
    info%concurrency, ', threads ', info%num_threads
  call expect_eq(kc_space_name(KC_SPACE_HOST), 'host', 'kc_space_name host')
  call expect_eq(kc_space_name(KC_SPACE_HOST_PINNED), 'host_pinned', &
    'kc_space_name host_pinned')
  call expect_eq(kc_space_name(KC_SPACE_COUNT), '', 'kc_space_name out of range')

  call test_memory()
  call test_allocate()
  call test_mirror()
  call test_launches()
  call test_md_team()
  call test_fortran_kernels()
  call test_queues()

  ! ---------------------------------------------------------- errors
  call kc_kernel_get('no_such_kernel', k, st)
  call expect_err(st, KC_ENOKERNEL, 'kc_kernel_get of an unknown name')
  call expect(index(kc_last_error(), 'no_such_kernel') > 0, &
    'the detail names the kernel: '//kc_last_error())
  call expect(.not. c_associated(k%ptr), 'no handle for an unknown kernel')
  call kc_parallel_for('', knone, kc_range(0, 4), c_null_ptr, 0_c_size_t, st)
  call expect_err(st, KC_EINVAL, 'kc_parallel_for of a null kernel')

  ! -------------------------------------------------------- profiling
  call kc_region_push('fortran region', st)
  call expect_eq(st, 0, 'kc_region_push')
  call kc_profile_event('fortran event', st)
  call expect_eq(st, 0, 'kc_profile_event')
  call kc_declare_metadata('fortran key', 'fortran value', st)
  call expect_eq(st, 0, 'kc_declare_metadata')
  call kc_region_pop(st)
  call expect_eq(st, 0, 'kc_region_pop')

  call kc_fence()
  call kc_finalize(st)
  call expect_eq(st, 0, 'kc_finalize')
  call expect(.not. kc_is_initialized(), 'initialized after kc_finalize')
  call kc_finalize(st)
  call expect_err(st, KC_ENOINIT, 'kc_finalize once too often')

  if (failures > 0) then
    write (*, '(i0,a)') failures, ' check(s) failed'
    stop 1
  end if
  write (*, '(a)') 'fortran-api: all checks passed'

contains

  subroutine test_memory()
    type(c_ptr) :: p, q
    type(kc_alloc_info) :: ai
    real(c_double), target :: h(16), back(16)
    real(c_double), pointer :: d(:)
    integer :: i

    ! kc_malloc / kc_pointer_info / kc_retain / kc_free on the host.
    call kc_malloc(p, 128_c_size_t, KC_SPACE_HOST, 'raw block', st)
    call expect_eq(st, 0, 'kc_malloc')
    call kc_pointer_info(p, ai)
    call expect_eq(int(ai%size, c_int64_t), 128_c_int64_t, 'alloc_info%size')
    call expect_eq(int(ai%space), int(KC_SPACE_HOST), 'alloc_info%space')
    call expect_eq(kc_string(ai%label), 'raw block', 'alloc_info%label')
    call expect_eq(int(ai%refcount), 1, 'alloc_info%refcount')
    call kc_retain(p)
    call kc_pointer_info(p, ai)
    call expect_eq(int(ai%refcount), 2, 'refcount after kc_retain')
    call kc_free(p)
    call kc_free(p)
    call kc_free(p, st)
    call expect_err(st, KC_ENOTKC, 'kc_free of a freed pointer')
    call kc_pointer_info(c_loc(h), ai, st)
    call expect_err(st, KC_ENOTKC, 'kc_pointer_info of a Fortran array')
    call kc_free(c_null_ptr)
    call kc_malloc(q, 16_c_size_t, 99, 'bad space', st)
    call expect_err(st, KC_EINVAL, 'kc_malloc in space 99')
    call expect(.not. c_associated(q), 'kc_malloc failure gives c_null_ptr')

    ! Every space: memset, copies both ways (sync and async), compared.
    do sp = KC_SPACE_HOST, KC_SPACE_HOST_PINNED
      call kc_allocate(d, [16], sp, 'space '//kc_space_name(sp), st)
      call expect_eq(st, 0, 'kc_allocate in '//kc_space_name(sp))
      if (st /= 0) cycle
      call kc_pointer_info(c_loc(d), ai)
      call expect_eq(int(ai%space), int(sp), 'space of the allocation')
      call kc_memset(c_loc(d), 0, kc_bytes(d))
      back = -1
      call kc_memcpy(c_loc(back), c_loc(d), kc_bytes(back))
      call expect(all(back == 0), 'kc_memset zeroes '//kc_space_name(sp))
      h = [(real(i, c_double), i = 1, 16)]
      call kc_memcpy_async(c_loc(d), c_loc(h), kc_bytes(h))
      call kc_fence()
      back = 0
      call kc_memcpy(c_loc(back), c_loc(d), kc_bytes(back))
      call expect(all(back == h), 'copies through '//kc_space_name(sp))
      call kc_deallocate(d)
      call expect(.not. associated(d), 'kc_deallocate nullifies')
    end do
    call kc_memcpy(c_null_ptr, c_loc(h), 8_c_size_t, st)
    call expect_err(st, KC_EINVAL, 'kc_memcpy to NULL')
  end subroutine test_memory

  ! Every specific of kc_allocate, kc_deallocate and kc_bytes.
  subroutine test_allocate()
    real(c_float), pointer :: r4a(:), r4b(:, :), r4c(:, :, :)
    real(c_double), pointer :: r8a(:), r8b(:, :), r8c(:, :, :), r8p(:)
    integer(c_int32_t), pointer :: i4a(:), i4b(:, :), i4c(:, :, :)
    integer(c_int64_t), pointer :: i8a(:), i8b(:, :), i8c(:, :, :)
    integer, allocatable :: sh(:)

    call kc_allocate(r4a, [5], KC_SPACE_HOST, 'r4a')
    r4a = 1.5
    call check_alloc(c_loc(r4a), kc_bytes(r4a), 5*4, shape(r4a), [5], 'r4a')
    call kc_deallocate(r4a)
    call kc_allocate(r4b, [2, 3], KC_SPACE_HOST, 'r4b')
    r4b = 1.5
    call check_alloc(c_loc(r4b), kc_bytes(r4b), 6*4, shape(r4b), [2, 3], 'r4b')
    call kc_deallocate(r4b)
    call kc_allocate(r4c, [2, 3, 4], KC_SPACE_HOST, 'r4c')
    r4c = 1.5
    call check_alloc(c_loc(r4c), kc_bytes(r4c), 24*4, shape(r4c), [2, 3, 4], &
      'r4c')
    call kc_deallocate(r4c)

    call kc_allocate(r8a, [5], KC_SPACE_HOST)
    r8a = 1.5
    call check_alloc(c_loc(r8a), kc_bytes(r8a), 5*8, shape(r8a), [5], '')
    call kc_deallocate(r8a)
    call kc_allocate(r8b, [2, 3], KC_SPACE_HOST, 'r8b')
    r8b = 1.5
    call check_alloc(c_loc(r8b), kc_bytes(r8b), 6*8, shape(r8b), [2, 3], 'r8b')
    call kc_deallocate(r8b)
    call kc_allocate(r8c, [2, 3, 4], KC_SPACE_HOST, 'r8c')
    r8c = 1.5
    call check_alloc(c_loc(r8c), kc_bytes(r8c), 24*8, shape(r8c), [2, 3, 4], &
      'r8c')
    call kc_deallocate(r8c)

    call kc_allocate(i4a, [5], KC_SPACE_HOST, 'i4a')
    i4a = 7
    call check_alloc(c_loc(i4a), kc_bytes(i4a), 5*4, shape(i4a), [5], 'i4a')
    call kc_deallocate(i4a)
    call kc_allocate(i4b, [2, 3], KC_SPACE_HOST, 'i4b')
    i4b = 7
    call check_alloc(c_loc(i4b), kc_bytes(i4b), 6*4, shape(i4b), [2, 3], 'i4b')
    call kc_deallocate(i4b)
    call kc_allocate(i4c, [2, 3, 4], KC_SPACE_HOST, 'i4c')
    i4c = 7
    call check_alloc(c_loc(i4c), kc_bytes(i4c), 24*4, shape(i4c), [2, 3, 4], &
      'i4c')
    call kc_deallocate(i4c)

    call kc_allocate(i8a, [5], KC_SPACE_HOST, 'i8a')
    i8a = 7
    call check_alloc(c_loc(i8a), kc_bytes(i8a), 5*8, shape(i8a), [5], 'i8a')
    call kc_deallocate(i8a)
    call kc_allocate(i8b, [2, 3], KC_SPACE_HOST, 'i8b')
    i8b = 7
    call check_alloc(c_loc(i8b), kc_bytes(i8b), 6*8, shape(i8b), [2, 3], 'i8b')
    call kc_deallocate(i8b)
    call kc_allocate(i8c, [2, 3, 4], KC_SPACE_HOST, 'i8c')
    i8c = 7
    call check_alloc(c_loc(i8c), kc_bytes(i8c), 24*8, shape(i8c), [2, 3, 4], &
      'i8c')
    call kc_deallocate(i8c)

    ! Zero size: a real, freeable allocation (kc gives a unique pointer).
    call kc_allocate(r8a, [0], KC_SPACE_HOST, 'empty', st)
    call expect_eq(st, 0, 'kc_allocate of zero elements')
    call expect(associated(r8a), 'a zero-size allocation is associated')
    call expect_eq(size(r8a), 0, 'size of a zero-size allocation')
    call kc_deallocate(r8a, st)
    call expect_eq(st, 0, 'kc_deallocate of a zero-size allocation')
    call kc_deallocate(r8a, st) ! disassociated: a no-op
    call expect_eq(st, 0, 'kc_deallocate of a disassociated pointer')
    ! A pointer to part of a kc_allocate array: kc_free freed all of it,
    ! leaving the whole array's pointer dangling.  Refused; the whole one
    ! is freed as usual.
    call kc_allocate(r8a, [100], KC_SPACE_HOST, 'part')
    r8p => r8a(1:10)
    call unrelated_error()
    call kc_deallocate(r8p, st)
    call expect_refusal(st, KC_EINVAL, &
      'kc_deallocate: the pointer addresses part', 'kc_deallocate of a part')
    call expect(associated(r8p), 'a refused kc_deallocate keeps the pointer')
    r8p => r8a(1:100:2)
    call kc_deallocate(r8p, st)
    call expect_eq(st, int(KC_EINVAL), 'kc_deallocate of a strided section')
    r8a = 2
    call kc_deallocate(r8a, st)
    call expect_eq(st, 0, 'kc_deallocate of the whole array')

    ! More bytes than size_t holds (2^67, which wraps around to 0 in 64
    ! bits): kc must refuse, not allocate nothing.
    call kc_allocate(r8c, [2**30, 2**30, 16], KC_SPACE_HOST, 'huge', st)
    call expect_err(st, KC_ENOMEM, 'kc_allocate of 2^67 bytes')
    call expect(.not. associated(r8c), 'failed kc_allocate: not associated')
    call kc_allocate(i8a, [1000], 42, 'bad space', st)
    call expect_err(st, KC_EINVAL, 'kc_allocate in space 42')
    ! A shape without one element per dimension: a rank-3 array with a
    ! shape of one element read two integers past it (shape(3) declared),
    ! a rank-1 one with three took the first.
    sh = [10]
    call kc_allocate(r8c, sh, KC_SPACE_HOST, 'short shape', st)
    call expect_refusal(st, KC_EINVAL, 'kc_allocate: the shape has 1 ' // &
      'element(s) for an array of rank 3', 'kc_allocate, shape too short')
    call expect(.not. associated(r8c), 'refused kc_allocate: not associated')
    if (associated(r8c)) call kc_deallocate(r8c)
    sh = [10, 20, 30]
    call kc_allocate(i4a, sh, KC_SPACE_HOST, 'long shape', st)
    if (st == 0) call kc_deallocate(i4a)
    call expect_refusal(st, KC_EINVAL, 'kc_allocate: the shape has 3 ' // &
      'element(s) for an array of rank 1', 'kc_allocate, shape too long')
  end subroutine test_allocate

  subroutine check_alloc(p, bytes, want_bytes, got_shape, want_shape, label)
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: bytes
    integer, intent(in) :: want_bytes, got_shape(:), want_shape(:)
    character(*), intent(in) :: label
    type(kc_alloc_info) :: ai
    call expect_eq(int(bytes), want_bytes, 'kc_bytes of '//label)
    call expect(all(got_shape == want_shape), 'shape of '//label)
    call kc_pointer_info(p, ai)
    call expect_eq(int(ai%size), want_bytes, 'allocation size of '//label)
    call expect_eq(kc_string(ai%label), label, 'label')
  end subroutine check_alloc

  subroutine test_mirror()
    type(kc_mirror) :: m
    real(c_double), pointer :: h(:)
    type(ft_vec), target :: f
    logical :: split

    call kc_mirror_create(m, 80_c_size_t, 'mirror')
    call expect_eq(int(kc_mirror_size(m)), 80, 'kc_mirror_size')
    call c_f_pointer(kc_mirror_host(m), h, [10])
    split = .not. c_associated(kc_mirror_host(m), kc_mirror_target(m))
    h = 1
    call kc_mirror_modify_host(m)
    call expect(kc_mirror_need_sync_target(m) .eqv. split, &
      'kc_mirror_need_sync_target after modify_host')
    call kc_mirror_sync_target(m)
    call expect(.not. kc_mirror_need_sync_target(m), 'synced target')
    call kc_kernel_get('ft_fill', k)
    f%a = 2
    f%y = kc_mirror_target(m)
    call kc_parallel_for('fill mirror', k, kc_range(0, 10), c_loc(f), &
      c_sizeof(f))
    call kc_mirror_modify_target(m)
    call expect(kc_mirror_need_sync_host(m) .eqv. split, &
      'kc_mirror_need_sync_host after modify_target')
    call kc_mirror_sync_host(m)
    call expect_near(sum(h), 110.0_c_double, 'mirror host side after sync')
    call kc_mirror_modify_host(m)
    call kc_mirror_modify_target(m)
    call kc_mirror_sync_host(m, st)
    call expect_err(st, KC_EINVAL, 'sync of a mirror modified on both sides')
    ! The way out: forget both marks, mark the side to keep, sync.
    call kc_mirror_clear_sync_state(m)
    call expect(.not. kc_mirror_need_sync_host(m), 'cleared: host current')
    h = 3
    call kc_mirror_modify_host(m)
    call kc_mirror_sync_target(m)
    call expect(.not. kc_mirror_need_sync_target(m), 'synced after clear')
    call kc_mirror_destroy(m)
    call expect(.not. c_associated(m%ptr), 'kc_mirror_destroy nulls')
    call kc_mirror_destroy(m) ! null: a no-op
  end subroutine test_mirror

  ! Queues, events and device allocations (doc/queues.md): every call,
  ! results through a queue, and the errors of dead handles.
  subroutine test_queues()
    integer, parameter :: n = 500
    real(c_double), target :: hy(n)
    type(c_ptr) :: q, e0, e1, d, dead
    type(ft_vec), target :: f
    type(kc_policy) :: p
    real(c_double) :: ms
    integer(c_int) :: dev
    integer :: i

    call kc_queue_create(q, 0)
    call expect(c_associated(q), 'kc_queue_create')
    call kc_queue_device(q, dev)
    call expect_eq(int(dev), 0, 'kc_queue_device')
    call kc_malloc_on(d, int(n * 8, c_size_t), KC_SPACE_DEVICE, 0, 'qy')
    call kc_pointer_device(d, dev)
    ! -1: the memory is on no device (a host backend's device space is the
    ! host's).
    call expect_eq(int(dev), merge(0, -1, device), 'kc_pointer_device')
    call kc_event_create(e0)
    call kc_event_create(e1)
    call expect(kc_event_query(e0), 'an unrecorded event is complete')

    call kc_memset_on(q, d, 0, int(n * 8, c_size_t))
    call kc_event_record(e0, q)
    f%y = d
    f%a = 3
    call kc_kernel_get('ft_fill', k)
    p = kc_policy_on(kc_range(0, n), q)
    call expect(c_associated(p%queue, q), 'kc_policy_on sets the queue')
    call kc_parallel_for('fill on a queue', k, p, c_loc(f), c_sizeof(f))
    call kc_event_record(e1, q)
    call kc_event_wait(c_null_ptr, e1)
    call kc_memcpy_on(q, c_loc(hy), d, kc_bytes(hy))
    call kc_queue_fence(q)
    call expect(all(hy == [(3.0_c_double*i, i = 1, n)]), &
      'ft_fill on a queue, copied back on it')
    call kc_event_synchronize(e1)
    call expect(kc_event_query(e1), 'a synchronized event is complete')
    call kc_event_elapsed(e0, e1, ms)
    call expect(ms >= 0, 'kc_event_elapsed >= 0')

    call kc_queue_create(dead, 99999, st)
    call expect_err(st, KC_EINVAL, 'kc_queue_create on a device out of range')
    call kc_event_destroy(e0)
    call kc_event_destroy(e1)
    call kc_queue_destroy(q)
    call kc_queue_fence(q, st)
    call expect_err(st, KC_EINVAL, 'kc_queue_fence of a destroyed queue')
    call kc_free(d)
  end subroutine test_queues

  subroutine test_launches()
    integer, parameter :: n = 1000
    real(c_double), pointer :: x(:), y(:), msum(:)
    real(c_float), pointer :: yf(:)
    integer(c_int32_t), pointer :: yi(:)
    integer(c_int64_t), pointer :: yl(:)
    real(c_double), target :: hx(n), hy(n)
    real(c_float), target :: hf(n)
    integer(c_int32_t), target :: hi(n)
    integer(c_int64_t), target :: hl(n)
    real(c_double), target :: sd
    real(c_float) :: sf
    integer(c_int32_t) :: si
    integer(c_int64_t) :: sl
    type(kc_loc_int32) :: li
    type(kc_loc_int64) :: ll
    type(kc_loc_float) :: lf
    type(kc_loc_double), target :: ld
    type(ft_vec), target :: f
    type(kc_policy) :: p
    type(kc_kernel_desc) :: desc
    real(c_double), pointer :: dsum(:)
    integer :: i

    call kc_allocate(x, [n], KC_SPACE_DEVICE, 'x')
    call kc_allocate(y, [n], KC_SPACE_DEVICE, 'y')
    call kc_allocate(yf, [n], KC_SPACE_DEVICE, 'yf')
    call kc_allocate(yi, [n], KC_SPACE_DEVICE, 'yi')
    call kc_allocate(yl, [n], KC_SPACE_DEVICE, 'yl')
    f%x = c_loc(x)
    f%y = c_loc(y)
    f%yf = c_loc(yf)
    f%yi = c_loc(yi)
    f%yl = c_loc(yl)

    ! for, with both range constructors and both schedules.
    call kc_kernel_get('ft_fill', k)
    call expect_eq(kc_kernel_name(k), 'ft_fill', 'kc_kernel_name')
    call kc_kernel_describe(k, desc)
    call expect(desc%kind == KC_KERNEL_FOR, 'kc_kernel_describe: kind')
    call expect_eq(kc_string(desc%name), 'ft_fill', 'kc_kernel_describe: name')
    f%a = 0.5
    p = kc_range(0_kc_index, int(n, kc_index))
    call expect(p%kind == KC_POLICY_RANGE .and. p%begin(1) == 0 .and. &
      p%end(1) == n .and. p%chunk == KC_AUTO, 'kc_range fields')
    call kc_parallel_for('fill', k, p, c_loc(f), c_sizeof(f))
    call kc_memcpy(c_loc(hy), c_loc(y), kc_bytes(hy))
    call expect(all(hy == [(0.5_c_double*i, i = 1, n)]), 'ft_fill')
    f%a = 2
    p = kc_range_schedule(0, n, KC_SCHEDULE_DYNAMIC, 7)
    call expect(p%schedule == KC_SCHEDULE_DYNAMIC .and. p%chunk == 7, &
      'kc_range_schedule fields')
    call kc_parallel_for('', k, p, c_loc(f), c_sizeof(f))
    p = kc_range_schedule(0_kc_index, int(n, kc_index), KC_SCHEDULE_STATIC, &
      int(KC_AUTO, kc_index))
    call kc_parallel_for('fill', k, p, c_loc(f), c_sizeof(f))
    call kc_memcpy(c_loc(hy), c_loc(y), kc_bytes(hy))
    call expect(all(hy == [(2.0_c_double*i, i = 1, n)]), &
      'ft_fill with schedules')
    call kc_parallel_for('', k, kc_range(5, 2), c_loc(f), c_sizeof(f), st)
    call expect_err(st, KC_ERANGE, 'kc_parallel_for over end < begin')
    p = kc_range_schedule(0, n, KC_SCHEDULE_STATIC, 0)
    call kc_parallel_for('', k, p, c_loc(f), c_sizeof(f), st)
    call expect_err(st, KC_EINVAL, 'kc_parallel_for with chunk 0')

    ! reductions into every scalar type, the loc types and a c_ptr.
    hx = [(real(mod(i * 37, 101), c_double), i = 1, n)]
    call kc_memcpy(c_loc(x), c_loc(hx), kc_bytes(hx))
    p = kc_range(0, n)
    call kc_kernel_get('ft_sum_d', k)
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), sd)
    call expect_near(sd, sum(hx), 'double sum')
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), c_loc(sd))
    call expect_near(sd, sum(hx), 'double sum through a c_ptr')
    ! Into kc memory: asynchronous, there after kc_fence.
    call kc_allocate(dsum, [1], KC_SPACE_DEVICE, 'dsum')
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), c_loc(dsum))
    call kc_fence()
    call kc_memcpy(c_loc(sd), c_loc(dsum), 8_c_size_t)
    call expect_near(sd, sum(hx), 'double sum into kc memory')
    call kc_deallocate(dsum)
    ! Into a variable in kc memory (managed: the typed form blocks until
    ! it is stored; kc took an address inside a kc allocation for the
    ! asynchronous kind, and on a GPU the value read at once was stale).
    call kc_allocate(msum, [1], KC_SPACE_MANAGED, 'managed sum')
    msum = -1
    call kc_kernel_get('ft_sum_d', k)
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), msum(1))
    call expect_near(msum(1), sum(hx), 'typed double sum into managed memory')
    call kc_deallocate(msum)
    call kc_kernel_get('ft_sum_f', k)
    call kc_parallel_reduce('sum', k, kc_range(0, 100), c_loc(f), &
      c_sizeof(f), sf)
    call expect_near(real(sf, c_double), 5050.0_c_double, 'float sum')
    call kc_kernel_get('ft_sum_i', k)
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), si)
    call expect_eq(int(si), n*(n + 1)/2, 'int32 sum')
    call kc_kernel_get('ft_sum_l', k)
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), sl)
    call expect_eq(sl, int(n, c_int64_t)*(n + 1)/2, 'int64 sum')
    call kc_parallel_reduce('empty', k, kc_range(3, 3), c_loc(f), &
      c_sizeof(f), sl)
    call expect_eq(sl, 0_c_int64_t, 'sum over an empty range')
    ! A result whose type is not the kernel's value: kc wrote the kernel's
    ! whole value through its address (a wrong value, or the memory after a
    ! smaller variable overwritten) with stat 0.
    call kc_kernel_get('ft_sum_i', k)
    sl = -1
    call unrelated_error()
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), sl, st)
    call expect_refusal(st, KC_EINVAL, 'kc_parallel_reduce: the result ' // &
      'variable''s type does not hold', 'int64 result of an int32 reduction')
    call expect_eq(sl, -1_c_int64_t, 'int64 result left as it was')
    call kc_kernel_get('ft_sum_d', k)
    sf = 42
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), sf, st)
    call expect_eq(st, int(KC_EINVAL), 'float result of a double reduction')
    call expect_near(real(sf, c_double), 42.0_c_double, 'float left as it was')
    ! Of the same size but another type: the bits of the double came back
    ! as an integer, with stat 0.
    sl = -1
    call unrelated_error()
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), sl, st)
    call expect_refusal(st, KC_EINVAL, 'kc_parallel_reduce: the result ' // &
      'variable is of integer(c_int64_t), the kernel''s value of ' // &
      'real(c_double)', 'int64 result of a double reduction')
    call expect_eq(sl, -1_c_int64_t, 'int64 result left as it was')
    call kc_kernel_get('ft_sum_f', k)
    si = -1
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), si, st)
    call expect_err(st, KC_EINVAL, 'int32 result of a float reduction')
    call expect_eq(int(si), -1, 'int32 result left as it was')
    ! A for kernel launched as a reduction: the launch names its kind.
    call kc_kernel_get('ft_fill', k)
    call kc_parallel_reduce('sum', k, p, c_loc(f), c_sizeof(f), sd, st)
    call expect_err(st, KC_EINVAL, 'kc_parallel_reduce of a for kernel')
    call expect(index(kc_last_error(), 'launch it with kc_parallel_for') > 0, &
      'the message says how to launch a for kernel')

    hi = int(hx, c_int32_t) - 50
    hl = int(hx, c_int64_t) * 3
    hf = real(hx, c_float) / 4
    call kc_memcpy(c_loc(yi), c_loc(hi), kc_bytes(hi))
    call kc_memcpy(c_loc(yl), c_loc(hl), kc_bytes(hl))
    call kc_memcpy(c_loc(yf), c_loc(hf), kc_bytes(hf))
    call kc_kernel_get('ft_minloc_i', k)
    call kc_parallel_reduce('minloc', k, p, c_loc(f), c_sizeof(f), li)
    call expect_eq(int(li%val), int(minval(hi)), 'minloc int32 value')
    call expect_eq(li%loc + 1, int(minloc(hi, 1), c_int64_t), &
      'minloc int32 index')
    call kc_kernel_get('ft_maxloc_l', k)
    call kc_parallel_reduce('maxloc', k, p, c_loc(f), c_sizeof(f), ll)
    call expect_eq(ll%val, maxval(hl), 'maxloc int64 value')
    call expect_eq(ll%loc + 1, int(maxloc(hl, 1), c_int64_t), &
      'maxloc int64 index')
    call kc_kernel_get('ft_minloc_f', k)
    call kc_parallel_reduce('minloc', k, p, c_loc(f), c_sizeof(f), lf)
    call expect_near(real(lf%val, c_double), real(minval(hf), c_double), &
      'minloc float value')
    call expect_eq(lf%loc + 1, int(minloc(hf, 1), c_int64_t), &
      'minloc float index')
    call kc_kernel_get('ft_maxloc_d', k)
    call kc_parallel_reduce('maxloc', k, p, c_loc(f), c_sizeof(f), ld)
    call expect_near(ld%val, maxval(hx), 'maxloc double value')
    call expect_eq(ld%loc + 1, int(maxloc(hx, 1), c_int64_t), &
      'maxloc double index')

    ! scans: totals into every scalar type and a c_ptr (or none).
    call kc_kernel_get('ft_scan_d', k)
    call kc_parallel_scan('scan', k, p, c_loc(f), c_sizeof(f), sd)
    call expect_near(sd, sum(hx), 'double scan total')
    call kc_parallel_scan('scan', k, p, c_loc(f), c_sizeof(f), c_null_ptr)
    call kc_memcpy(c_loc(hy), c_loc(y), kc_bytes(hy))
    call expect_near(hy(n/2), sum(hx(1:n/2)), 'double scan, middle element')
    call expect_near(hy(n), sum(hx), 'double scan, last element')
    call kc_kernel_get('ft_scan_f', k)
    call kc_parallel_scan('scan', k, kc_range(0, 100), c_loc(f), &
      c_sizeof(f), sf)
    call expect_near(real(sf, c_double), 5050.0_c_double, 'float scan total')
    call kc_kernel_get('ft_scan_i', k)
    call kc_parallel_scan('scan', k, p, c_loc(f), c_sizeof(f), si)
    call expect_eq(int(si), n*(n + 1)/2, 'int32 scan total')
    call kc_memcpy(c_loc(hi), c_loc(yi), kc_bytes(hi))
    call expect_eq(int(hi(10)), 55, 'int32 scan element 10')
    call kc_kernel_get('ft_scan_l', k)
    call kc_parallel_scan('scan', k, p, c_loc(f), c_sizeof(f), sl)
    call expect_eq(sl, int(n, c_int64_t)*(n + 1)/2, 'int64 scan total')
    call kc_parallel_scan('scan', k, p, c_loc(f), c_sizeof(f), c_loc(sd))
    call expect_eq(transfer(sd, 0_c_int64_t), sl, 'int64 scan via c_ptr')
    ! A total of another type than the kernel's value: refused as results.
    sd = -1
    call unrelated_error()
    call kc_parallel_scan('scan', k, p, c_loc(f), c_sizeof(f), sd, st)
    call expect_refusal(st, KC_EINVAL, 'kc_parallel_scan: the result ' // &
      'variable is of real(c_double)', 'double total of an int64 scan')
    call expect_near(sd, -1.0_c_double, 'double total left as it was')

    call kc_deallocate(x)
    call kc_deallocate(y)
    call kc_deallocate(yf)
    call kc_deallocate(yi)
    call kc_deallocate(yl)
  end subroutine test_launches

  subroutine test_md_team()
    integer, parameter :: nx = 37, ny = 11, league = 9
    real(c_double), pointer :: a(:, :), t(:)
    real(c_double), target :: h(nx, ny), ht(league)
    real(c_double) :: s
    type(ft_vec), target :: f
    type(kc_policy) :: p
    integer :: ix, iy

    ! A Fortran a(nx, ny): the range is (y, x), x (contiguous) last.
    call kc_allocate(a, [nx, ny], KC_SPACE_DEVICE, 'md')
    f%y = c_loc(a)
    f%nx = nx
    call kc_kernel_get('ft_md', k)
    p = kc_mdrange([0, 0], [ny, nx])
    call expect(p%kind == KC_POLICY_MDRANGE .and. p%rank == 2 .and. &
      p%end(1) == ny .and. p%end(2) == nx, 'kc_mdrange fields')
    call kc_parallel_for('md', k, p, c_loc(f), c_sizeof(f))
    call kc_memcpy(c_loc(h), c_loc(a), kc_bytes(h))
    call expect(all(h == reshape([((real(ix + 1000*iy, c_double), &
      ix = 1, nx), iy = 1, ny)], [nx, ny])), 'ft_md fills a(x, y) = x + 1000 y')
    h = 0
    call kc_memcpy(c_loc(a), c_loc(h), kc_bytes(h))
    p = kc_mdrange([0_kc_index, 0_kc_index], [int(ny, kc_index), &
      int(nx, kc_index)], [4_kc_index, 8_kc_index])
    call expect(p%tile(1) == 4 .and. p%tile(2) == 8, 'kc_mdrange tile')
    call kc_parallel_for('md tiled', k, p, c_loc(f), c_sizeof(f))
    call kc_memcpy(c_loc(h), c_loc(a), kc_bytes(h))
    call expect(all(h == reshape([((real(ix + 1000*iy, c_double), &
      ix = 1, nx), iy = 1, ny)], [nx, ny])), 'ft_md tiled')
    ! The first index fastest: the same points, the same values.
    h = 0
    call kc_memcpy(c_loc(a), c_loc(h), kc_bytes(h))
    call kc_policy_set_iterate(p, KC_ITERATE_LEFT)
    call expect(p%iterate == KC_ITERATE_LEFT, 'kc_policy_set_iterate')
    call kc_parallel_for('md left', k, p, c_loc(f), c_sizeof(f))
    call kc_memcpy(c_loc(h), c_loc(a), kc_bytes(h))
    call expect(all(h == reshape([((real(ix + 1000*iy, c_double), &
      ix = 1, nx), iy = 1, ny)], [nx, ny])), 'ft_md, KC_ITERATE_LEFT')
    call kc_policy_set_iterate(p, 5, st)
    call expect_err(st, KC_EINVAL, 'kc_policy_set_iterate with no order')
    ! Arrays of different sizes: the launch says why its rank is 0.
    call kc_kernel_get('ft_md', k)
    call kc_parallel_for('md', k, kc_mdrange([0, 0], [ny, nx], [2]), &
      c_loc(f), c_sizeof(f), st)
    call expect_err(st, KC_EINVAL, 'kc_mdrange with a tile of 1 element')
    call expect(index(kc_last_error(), 'gives rank 0 when its arrays') > 0, &
      'kc_mdrange sizes named: "' // kc_last_error() // '"')
    call kc_kernel_get('ft_mdsum', k)
    call kc_parallel_reduce('mdsum', k, kc_mdrange([0, 0], [ny, nx], [3, 5]), &
      c_loc(f), c_sizeof(f), s)
    call expect_near(s, real(ny*nx*(nx + 1)/2 + 1000*nx*ny*(ny + 1)/2, &
      c_double), 'MD sum over the tiled fill')
    p = kc_mdrange([0_kc_index, 0_kc_index], [int(ny, kc_index), &
      int(nx, kc_index)])
    call kc_parallel_reduce('mdsum', k, p, c_loc(f), c_sizeof(f), s)
    call expect(s > 0, 'MD sum, 64-bit bounds')
    call kc_kernel_get('ft_md', k)
    call kc_parallel_for('md', k, kc_mdrange([0, 0], [ny]), c_loc(f), &
      c_sizeof(f), st)
    call expect_err(st, KC_EINVAL, 'kc_mdrange with begin and end of two ranks')
    call kc_deallocate(a)

    ! A team policy with level-0 scratch from the policy (64) and from
    ! the kernel's scratch function, written in Fortran (32).
    call kc_allocate(t, [league], KC_SPACE_DEVICE, 'team')
    f%y = c_loc(t)
    call kc_kernel_get('ft_team', k)
    call kc_kernel_set_team_scratch(k, c_funloc(f_team_scratch))
    p = kc_team_policy(league, KC_AUTO, 1)
    call expect(p%kind == KC_POLICY_TEAM .and. p%league_size == league, &
      'kc_team_policy fields')
    call kc_policy_set_scratch(p, 0, 64_c_size_t, 0_c_size_t)
    call kc_parallel_for('team', k, p, c_loc(f), c_sizeof(f))
    call kc_memcpy(c_loc(ht), c_loc(t), kc_bytes(ht))
    call expect(all(ht == 96), 'team scratch = policy 64 + Fortran function 32')
    call kc_kernel_set_team_scratch(k, c_null_funptr)
    p = kc_team_policy(int(league, kc_index), KC_AUTO, 1)
    call kc_parallel_for('team', k, p, c_loc(f), c_sizeof(f))
    call kc_memcpy(c_loc(ht), c_loc(t), kc_bytes(ht))
    call expect(all(ht == 0), 'team scratch without any request')
    call kc_policy_set_scratch(p, 2, 64_c_size_t, 0_c_size_t, st)
    call expect_err(st, KC_EINVAL, 'kc_policy_set_scratch of level 2')
    call kc_deallocate(t)
  end subroutine test_md_team

  ! Kernels whose host entries are Fortran procedures: they have no
  ! device code, so a device backend refuses them (KC_ENOKERNEL).
  subroutine test_fortran_kernels()
    integer, parameter :: n = 500
    ! Names kc keeps for the life of the program (it does not copy them).
    character(kind=c_char), target, save :: nfor(9) = &
      ['f', '_', 'f', 'o', 'r', c_null_char, ' ', ' ', ' ']
    character(kind=c_char), target, save :: nmm(9) = &
      ['f', '_', 'm', 'i', 'n', 'm', 'a', 'x', c_null_char]
    character(kind=c_char), target, save :: ncall(9) = &
      ['f', '_', 'c', 'a', 'l', 'l', c_null_char, ' ', ' ']
    character(kind=c_char), target, save :: sig(3) = ['p', 'd', c_null_char]
    type(kc_kernel_desc) :: d
    type(kc_kernel) :: kf, km, kcall
    type(kc_reducer) :: r
    type(ft_vec), target :: f
    type(minmax), target :: mm
    real(c_double), pointer :: y(:)
    real(c_double), target :: h(n), a
    type(c_ptr), target :: yp
    integer :: i

    d%name = c_loc(nfor)
    d%kind = KC_KERNEL_FOR
    d%host = c_funloc(f_for)
    call kc_kernel_register(d, kf)
    call expect_eq(kc_kernel_name(kf), 'f_for', 'name of a Fortran kernel')
    call kc_kernel_register(d, stat=st)
    call expect_err(st, KC_EEXIST, 'kc_kernel_register of a taken name')

    r%op = KC_REDUCE_CUSTOM
    r%size = c_sizeof(mm)
    r%identity = c_funloc(minmax_identity)
    r%join = c_funloc(minmax_join)
    call expect_eq(int(kc_reducer_value_size(r)), 16, 'custom value size')
    call expect_eq(int(kc_reducer_value_size(kc_reducer(KC_REDUCE_SUM, &
      KC_DOUBLE))), 8, 'double sum value size')
    call expect_eq(int(kc_reducer_value_size(kc_reducer(KC_REDUCE_MINLOC, &
      KC_FLOAT))), int(c_sizeof(kc_loc_float(0, 0))), 'float minloc size')
    d = kc_kernel_desc()
    d%name = c_loc(nmm)
    d%kind = KC_KERNEL_REDUCE
    d%host = c_funloc(f_minmax)
    d%reducer = r
    call kc_kernel_register(d, km)
    d = kc_kernel_desc()
    d%name = c_loc(ncall)
    d%kind = KC_KERNEL_CALL
    d%host = c_funloc(f_call)
    d%signature = c_loc(sig)
    call kc_kernel_register(d, kcall)

    call kc_allocate(y, [n], KC_SPACE_DEVICE, 'fortran kernels')
    f%y = c_loc(y)
    f%x = c_loc(y)
    call kc_memset(c_loc(y), 0, kc_bytes(y))
    call kc_parallel_for('f_for', kf, kc_range(0, n), c_loc(f), c_sizeof(f), &
      st)
    if (device) then
      call expect_err(st, KC_ENOKERNEL, 'a Fortran host kernel on a device')
      call kc_deallocate(y)
      return
    end if
    call expect_eq(st, 0, 'kc_parallel_for of a Fortran kernel')
    call kc_memcpy(c_loc(h), c_loc(y), kc_bytes(h))
    call expect(all(h == [(3.0_c_double*i, i = 1, n)]), &
      'Fortran FOR kernel result')
    call kc_parallel_reduce('f_minmax', km, kc_range(0, n), c_loc(f), &
      c_sizeof(f), c_loc(mm))
    call expect_near(mm%lo, 3.0_c_double, 'custom reducer: min')
    call expect_near(mm%hi, 3.0_c_double*n, 'custom reducer: max')
    a = 4.25
    yp = c_loc(y)
    call kc_parallel_call('f_call', kcall, kc_range(10, 20), &
      [c_loc(yp), c_loc(a)])
    call kc_memcpy(c_loc(h), c_loc(y), kc_bytes(h))
    call expect(all(h(11:20) == 4.25) .and. h(10) == 30 .and. h(21) == 63, &
      'Fortran CALL kernel result')
    call kc_parallel_call('f_call', kcall, kc_range(0, 1), [c_loc(yp)], st)
    call expect_err(st, KC_ESIGNATURE, 'kc_parallel_call with one argument')
    call kc_deallocate(y)
  end subroutine test_fortran_kernels

end program fortran_api
