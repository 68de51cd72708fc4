! kc — the Fortran 2008 binding of kc's user API.
!
!   use kc
!
! One module over <kc/kc.h> (and the codes of <kc/error.h>), written with
! ISO_C_BINDING only: every C function is reached through an interface
! bound to its C name, every struct is a bind(C) type with the C field
! names, every enumerator and constant a named constant of the same name
! and value.  tests/t-fortran-bind.sh keeps the two from drifting: it reads
! kc.h and fails if a function is neither bound here nor listed below as
! deliberately unbound, if a constant is missing or has another value, or
! if a bind(C) type differs from its C struct in size or in the offset of
! any field (it compiles the same generated list on both sides).
!
! Conventions (doc/fortran.md is the chapter on them):
!  - Calls that can fail are subroutines with an optional last argument
!    `stat`: present, it receives 0 or the negative KC_E... code and the
!    program goes on (kc_last_error() then has the detail); absent, a
!    failure prints "kc: <call> failed: <message> (<detail>)" on the error
!    unit and stops the program (error stop).
!  - Strings go in as ordinary character values (trailing blanks dropped;
!    an empty label means "none", C's NULL) and come back as
!    character(:), allocatable results.
!  - Indices and sizes: integer(kc_index) (C's int64_t kc_index) for
!    iteration spaces, integer(c_size_t) for bytes.  Range constructors
!    also take default integers.
!  - Opaque handles (kc_kernel *, kc_mirror *) are the derived types
!    type(kc_kernel) and type(kc_mirror).
!  - Kernels stay C (.kc.c files built by kcc).  A functor is a bind(C)
!    derived type with the fields of the kernel's C struct; launches take
!    c_loc(functor) and c_sizeof(functor).  Arrays reach kernels as
!    type(c_ptr) fields (c_loc of a contiguous array).  Fortran arrays are
!    column-major: the first index is the contiguous one, which in an MD
!    range is the LAST dimension (rank-1 in C) -- see doc/fortran.md.
!
! Deliberately unbound functions of kc.h (the drift test reads these lines):
!   (none)
module kc
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  ! ------------------------------------------------------------- kinds
  !> Kind of kc_index, the index type of every iteration space.
  integer, parameter, public :: kc_index = c_int64_t

  ! ------------------------------------------------------ error codes
  integer(c_int), parameter, public :: KC_EINVAL = -1
  integer(c_int), parameter, public :: KC_ENOMEM = -2
  integer(c_int), parameter, public :: KC_ENOINIT = -3
  integer(c_int), parameter, public :: KC_ENOBACKEND = -4
  integer(c_int), parameter, public :: KC_EPLUGIN = -5
  integer(c_int), parameter, public :: KC_EABI = -6
  integer(c_int), parameter, public :: KC_ENODEV = -7
  integer(c_int), parameter, public :: KC_ENOKERNEL = -8
  integer(c_int), parameter, public :: KC_EEXIST = -9
  integer(c_int), parameter, public :: KC_ENOTSUP = -10
  integer(c_int), parameter, public :: KC_EJIT = -11
  integer(c_int), parameter, public :: KC_ELAUNCH = -12
  integer(c_int), parameter, public :: KC_EDEVICE = -13
  integer(c_int), parameter, public :: KC_ENOTKC = -14
  integer(c_int), parameter, public :: KC_ERANGE = -15
  integer(c_int), parameter, public :: KC_ESTICKY = -16
  integer(c_int), parameter, public :: KC_ESIGNATURE = -17
  integer(c_int), parameter, public :: KC_ESCRATCH = -18
  integer(c_int), parameter, public :: KC_EINTERNAL = -19

  ! ----------------------------------------------------------- spaces
  integer(c_int), parameter, public :: KC_SPACE_HOST = 0
  integer(c_int), parameter, public :: KC_SPACE_DEVICE = 1
  integer(c_int), parameter, public :: KC_SPACE_MANAGED = 2
  integer(c_int), parameter, public :: KC_SPACE_HOST_PINNED = 3
  integer(c_int), parameter, public :: KC_SPACE_COUNT = 4

  ! --------------------------------------------------------- reducers
  integer(c_int), parameter, public :: KC_REDUCE_NONE = 0
  integer(c_int), parameter, public :: KC_REDUCE_SUM = 1
  integer(c_int), parameter, public :: KC_REDUCE_PROD = 2
  integer(c_int), parameter, public :: KC_REDUCE_MIN = 3
  integer(c_int), parameter, public :: KC_REDUCE_MAX = 4
  integer(c_int), parameter, public :: KC_REDUCE_MINLOC = 5
  integer(c_int), parameter, public :: KC_REDUCE_MAXLOC = 6
  integer(c_int), parameter, public :: KC_REDUCE_CUSTOM = 7
  integer(c_int), parameter, public :: KC_INT32 = 1
  integer(c_int), parameter, public :: KC_INT64 = 2
  integer(c_int), parameter, public :: KC_FLOAT = 3
  integer(c_int), parameter, public :: KC_DOUBLE = 4

  ! --------------------------------------------------------- policies
  integer(c_int), parameter, public :: KC_MAX_RANK = 6
  integer(c_int), parameter, public :: KC_AUTO = -1
  integer(c_int), parameter, public :: KC_POLICY_RANGE = 1
  integer(c_int), parameter, public :: KC_POLICY_MDRANGE = 2
  integer(c_int), parameter, public :: KC_POLICY_TEAM = 3
  integer(c_int), parameter, public :: KC_SCHEDULE_STATIC = 0
  integer(c_int), parameter, public :: KC_SCHEDULE_DYNAMIC = 1
  integer(c_int), parameter, public :: KC_ITERATE_RIGHT = 0
  integer(c_int), parameter, public :: KC_ITERATE_LEFT = 1
  integer(c_int), parameter, public :: KC_SCRATCH_ALIGN = 16
  !> Largest value (bytes) of a custom reducer.
  integer(c_size_t), parameter, public :: KC_REDUCER_SIZE_MAX = 65536

  ! ---------------------------------------------------------- kernels
  integer(c_int), parameter, public :: KC_KERNEL_FOR = 1
  integer(c_int), parameter, public :: KC_KERNEL_REDUCE = 2
  integer(c_int), parameter, public :: KC_KERNEL_SCAN = 3
  integer(c_int), parameter, public :: KC_KERNEL_MDFOR = 4
  integer(c_int), parameter, public :: KC_KERNEL_MDREDUCE = 5
  integer(c_int), parameter, public :: KC_KERNEL_TEAM = 6
  integer(c_int), parameter, public :: KC_KERNEL_TEAM_REDUCE = 7
  integer(c_int), parameter, public :: KC_KERNEL_CALL = 8
  !> kc_kernel_desc%flags: a team kernel's host function runs as one
  !> thread of a team of several (kc.h).
  integer(c_int), parameter, public :: KC_KERNEL_TEAM_THREADS = 1

  ! ------------------------------------------------------------ types
  !> kc_device_info: the device in use (the CPU on host backends).
  type, bind(C), public :: kc_device_info
    character(kind=c_char) :: name(128)
    integer(c_int) :: compute_major, compute_minor
    integer(c_int) :: multiprocessors
    integer(c_size_t) :: total_memory
    integer(c_int) :: max_threads_per_block
    integer(c_size_t) :: shared_memory_per_block
    integer(c_size_t) :: shared_memory_per_block_optin
    integer(c_size_t) :: constant_memory
    integer(c_int) :: warp_size
    integer(c_size_t) :: max_param_bytes
    integer(c_int) :: clock_khz, memory_clock_khz, memory_bus_width
  end type kc_device_info

  !> kc_info: what kc_get_info reports.  backend and path are C strings
  !> (kc_string converts them); spaces is C's unsigned bit set.
  type, bind(C), public :: kc_info
    integer(c_size_t) :: struct_size
    type(c_ptr) :: backend
    type(c_ptr) :: path
    integer(c_int) :: abi_major, abi_minor
    integer(c_int) :: concurrency
    integer(c_int) :: num_threads
    integer(c_int) :: device_count
    integer(c_int) :: device
    integer(c_int) :: spaces
    type(kc_device_info) :: dev
    type(c_ptr) :: device_from
  end type kc_info

  !> kc_alloc_info: what kc_pointer_info reports (label: a C string).
  type, bind(C), public :: kc_alloc_info
    type(c_ptr) :: base
    integer(c_size_t) :: size
    integer(c_int) :: space
    type(c_ptr) :: label
    integer(c_int) :: refcount
  end type kc_alloc_info

  !> Value types of MINLOC / MAXLOC: the value and its (0-based) index.
  type, bind(C), public :: kc_loc_int32
    integer(c_int32_t) :: val
    integer(c_int64_t) :: loc
  end type kc_loc_int32
  type, bind(C), public :: kc_loc_int64
    integer(c_int64_t) :: val
    integer(c_int64_t) :: loc
  end type kc_loc_int64
  type, bind(C), public :: kc_loc_float
    real(c_float) :: val
    integer(c_int64_t) :: loc
  end type kc_loc_float
  type, bind(C), public :: kc_loc_double
    real(c_double) :: val
    integer(c_int64_t) :: loc
  end type kc_loc_double

  !> kc_reducer: a built-in op over a scalar type, or a custom one
  !> (identity, join: c_funloc of bind(C) procedures).
  type, bind(C), public :: kc_reducer
    integer(c_int) :: op = KC_REDUCE_NONE
    integer(c_int) :: type = 0
    integer(c_size_t) :: size = 0
    type(c_funptr) :: identity = c_null_funptr
    type(c_funptr) :: join = c_null_funptr
  end type kc_reducer

  !> kc_policy: build it with kc_range, kc_mdrange, kc_team_policy.  The
  !> arrays are C's: element 1 is C's dimension 0, the slowest.
  type, bind(C), public :: kc_policy
    integer(c_int) :: kind
    integer(c_int) :: rank
    integer(c_int64_t) :: begin(KC_MAX_RANK)
    integer(c_int64_t) :: end(KC_MAX_RANK)
    integer(c_int64_t) :: tile(KC_MAX_RANK)
    integer(c_int) :: schedule
    integer(c_int64_t) :: chunk
    integer(c_int64_t) :: league_size
    integer(c_int) :: team_size
    integer(c_int) :: vector_length
    integer(c_size_t) :: scratch_per_team(2)
    integer(c_size_t) :: scratch_per_thread(2)
    type(c_ptr) :: queue = c_null_ptr ! kc_queue; null: the default queue
    integer(c_int) :: iterate = 0 ! KC_ITERATE_RIGHT or KC_ITERATE_LEFT
  end type kc_policy

  !> kc_kernel_desc: what kc_kernel_register takes.  The strings (name,
  !> ptx, ptx_entry, signature) are C strings that must live as long as
  !> the program: kc keeps the pointers (kc_kernel_register sets
  !> struct_size).
  type, bind(C), public :: kc_kernel_desc
    integer(c_size_t) :: struct_size = 0
    type(c_ptr) :: name = c_null_ptr
    integer(c_int) :: kind = 0
    integer(c_int) :: rank = 0
    type(c_funptr) :: host = c_null_funptr
    type(c_ptr) :: ptx = c_null_ptr
    type(c_ptr) :: ptx_entry = c_null_ptr
    type(kc_reducer) :: reducer
    type(c_ptr) :: signature = c_null_ptr
    integer(c_size_t) :: functor_size = 0 ! 0: launches are not size-checked
    integer(c_int) :: flags = 0 ! KC_KERNEL_TEAM_THREADS or 0
  end type kc_kernel_desc

  !> A registered kernel (C's kc_kernel *).
  type, public :: kc_kernel
    type(c_ptr) :: ptr = c_null_ptr
  end type kc_kernel

  !> A mirrored array (C's kc_mirror *).
  type, public :: kc_mirror
    type(c_ptr) :: ptr = c_null_ptr
  end type kc_mirror

  ! ----------------------------------------------------- the C functions
  ! One interface per function of kc.h, bound to its C name.  Strings are
  ! passed as type(c_ptr) (NUL-terminated c_char arrays, or NULL).
  interface
    integer(c_int) function c_kc_init() bind(C, name="kc_init")
      import :: c_int
    end function
    integer(c_int) function c_kc_finalize() bind(C, name="kc_finalize")
      import :: c_int
    end function
    integer(c_int) function c_kc_is_initialized() &
        bind(C, name="kc_is_initialized")
      import :: c_int
    end function
    type(c_ptr) function c_kc_version() bind(C, name="kc_version")
      import :: c_ptr
    end function
    type(c_ptr) function c_kc_strerror(code) bind(C, name="kc_strerror")
      import :: c_ptr, c_int
      integer(c_int), value :: code
    end function
    type(c_ptr) function c_kc_err_name(code) bind(C, name="kc_err_name")
      import :: c_ptr, c_int
      integer(c_int), value :: code
    end function
    type(c_ptr) function c_kc_last_error() bind(C, name="kc_last_error")
      import :: c_ptr
    end function
    integer(c_int) function c_kc_set_last_error(code, detail) &
        bind(C, name="kc_set_last_error")
      import :: c_int, c_ptr
      integer(c_int), value :: code
      type(c_ptr), value :: detail
    end function
    type(c_ptr) function c_kc_backend_name() bind(C, name="kc_backend_name")
      import :: c_ptr
    end function
    integer(c_int) function c_kc_fence() bind(C, name="kc_fence")
      import :: c_int
    end function
    type(c_ptr) function c_kc_space_name(space) bind(C, name="kc_space_name")
      import :: c_ptr, c_int
      integer(c_int), value :: space
    end function
    integer(c_int) function c_kc_get_info(out) bind(C, name="kc_get_info")
      import :: c_int, kc_info
      type(kc_info), intent(inout) :: out
    end function
    integer(c_int) function c_kc_malloc(out, bytes, space, label) &
        bind(C, name="kc_malloc")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), intent(out) :: out
      integer(c_size_t), value :: bytes
      integer(c_int), value :: space
      type(c_ptr), value :: label
    end function
    integer(c_int) function c_kc_free(p) bind(C, name="kc_free")
      import :: c_int, c_ptr
      type(c_ptr), value :: p
    end function
    integer(c_int) function c_kc_retain(p) bind(C, name="kc_retain")
      import :: c_int, c_ptr
      type(c_ptr), value :: p
    end function
    integer(c_int) function c_kc_pointer_info(p, out) &
        bind(C, name="kc_pointer_info")
      import :: c_int, c_ptr, kc_alloc_info
      type(c_ptr), value :: p
      type(kc_alloc_info), intent(out) :: out
    end function
    integer(c_int) function c_kc_memcpy(dst, src, bytes) &
        bind(C, name="kc_memcpy")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: bytes
    end function
    integer(c_int) function c_kc_memcpy_async(dst, src, bytes) &
        bind(C, name="kc_memcpy_async")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: dst, src
      integer(c_size_t), value :: bytes
    end function
    ! Queues, events and devices (doc/queues.md): the C calls; the
    ! wrappers below are public.
    integer(c_int) function c_kc_malloc_on(out, bytes, space, device, label) &
        bind(C, name="kc_malloc_on")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), intent(out) :: out
      integer(c_size_t), value :: bytes
      integer(c_int), value :: space, device
      type(c_ptr), value :: label
    end function
    integer(c_int) function c_kc_pointer_device(p, device) &
        bind(C, name="kc_pointer_device")
      import :: c_int, c_ptr
      type(c_ptr), value :: p
      integer(c_int), intent(out) :: device
    end function
    integer(c_int) function c_kc_queue_create(out, device) &
        bind(C, name="kc_queue_create")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: out
      integer(c_int), value :: device
    end function
    integer(c_int) function c_kc_queue_destroy(q) bind(C, name="kc_queue_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: q
    end function
    integer(c_int) function c_kc_queue_fence(q) bind(C, name="kc_queue_fence")
      import :: c_int, c_ptr
      type(c_ptr), value :: q
    end function
    integer(c_int) function c_kc_queue_device(q, device) &
        bind(C, name="kc_queue_device")
      import :: c_int, c_ptr
      type(c_ptr), value :: q
      integer(c_int), intent(out) :: device
    end function
    integer(c_int) function c_kc_memcpy_on(q, dst, src, bytes) &
        bind(C, name="kc_memcpy_on")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: q, dst, src
      integer(c_size_t), value :: bytes
    end function
    integer(c_int) function c_kc_memset_on(q, p, val, bytes) &
        bind(C, name="kc_memset_on")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: q, p
      integer(c_int), value :: val
      integer(c_size_t), value :: bytes
    end function
    integer(c_int) function c_kc_event_create(out) bind(C, name="kc_event_create")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: out
    end function
    integer(c_int) function c_kc_event_destroy(e) bind(C, name="kc_event_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: e
    end function
    integer(c_int) function c_kc_event_record(e, q) bind(C, name="kc_event_record")
      import :: c_int, c_ptr
      type(c_ptr), value :: e, q
    end function
    integer(c_int) function c_kc_event_wait(q, e) bind(C, name="kc_event_wait")
      import :: c_int, c_ptr
      type(c_ptr), value :: q, e
    end function
    integer(c_int) function c_kc_event_synchronize(e) &
        bind(C, name="kc_event_synchronize")
      import :: c_int, c_ptr
      type(c_ptr), value :: e
    end function
    integer(c_int) function c_kc_event_query(e) bind(C, name="kc_event_query")
      import :: c_int, c_ptr
      type(c_ptr), value :: e
    end function
    integer(c_int) function c_kc_event_elapsed(e0, e1, ms) &
        bind(C, name="kc_event_elapsed")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: e0, e1
      real(c_double), intent(out) :: ms
    end function
    function c_kc_policy_on(p, q) bind(C, name="kc_policy_on")
      import :: c_ptr, kc_policy
      type(kc_policy), value :: p
      type(c_ptr), value :: q
      type(kc_policy) :: c_kc_policy_on
    end function
    integer(c_int) function c_kc_memset(p, val, bytes) &
        bind(C, name="kc_memset")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: p
      integer(c_int), value :: val
      integer(c_size_t), value :: bytes
    end function
    integer(c_int) function c_kc_mirror_create(out, bytes, label) &
        bind(C, name="kc_mirror_create")
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), intent(out) :: out
      integer(c_size_t), value :: bytes
      type(c_ptr), value :: label
    end function
    integer(c_int) function c_kc_mirror_destroy(m) &
        bind(C, name="kc_mirror_destroy")
      import :: c_int, c_ptr
      type(c_ptr), value :: m
    end function
    type(c_ptr) function c_kc_mirror_host(m) bind(C, name="kc_mirror_host")
      import :: c_ptr
      type(c_ptr), value :: m
    end function
    type(c_ptr) function c_kc_mirror_target(m) &
        bind(C, name="kc_mirror_target")
      import :: c_ptr
      type(c_ptr), value :: m
    end function
    integer(c_size_t) function c_kc_mirror_size(m) &
        bind(C, name="kc_mirror_size")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: m
    end function
    integer(c_int) function c_kc_mirror_modify_host(m) &
        bind(C, name="kc_mirror_modify_host")
      import :: c_int, c_ptr
      type(c_ptr), value :: m
    end function
    integer(c_int) function c_kc_mirror_modify_target(m) &
        bind(C, name="kc_mirror_modify_target")
      import :: c_int, c_ptr
      type(c_ptr), value :: m
    end function
    integer(c_int) function c_kc_mirror_sync_host(m) &
        bind(C, name="kc_mirror_sync_host")
      import :: c_int, c_ptr
      type(c_ptr), value :: m
    end function
    integer(c_int) function c_kc_mirror_sync_target(m) &
        bind(C, name="kc_mirror_sync_target")
      import :: c_int, c_ptr
      type(c_ptr), value :: m
    end function
    integer(c_int) function c_kc_mirror_need_sync_host(m) &
        bind(C, name="kc_mirror_need_sync_host")
      import :: c_int, c_ptr
      type(c_ptr), value :: m
    end function
    integer(c_int) function c_kc_mirror_clear_sync_state(m) &
        bind(C, name="kc_mirror_clear_sync_state")
      import :: c_int, c_ptr
      type(c_ptr), value :: m
    end function
    integer(c_int) function c_kc_mirror_need_sync_target(m) &
        bind(C, name="kc_mirror_need_sync_target")
      import :: c_int, c_ptr
      type(c_ptr), value :: m
    end function
    integer(c_size_t) function c_kc_reducer_value_size(r) &
        bind(C, name="kc_reducer_value_size")
      import :: c_size_t, kc_reducer
      type(kc_reducer), intent(in) :: r
    end function
    type(kc_policy) function c_kc_range(b, e) bind(C, name="kc_range")
      import :: kc_policy, c_int64_t
      integer(c_int64_t), value :: b, e
    end function
    type(kc_policy) function c_kc_range_schedule(b, e, schedule, chunk) &
        bind(C, name="kc_range_schedule")
      import :: kc_policy, c_int64_t, c_int
      integer(c_int64_t), value :: b, e
      integer(c_int), value :: schedule
      integer(c_int64_t), value :: chunk
    end function
    type(kc_policy) function c_kc_mdrange(rank, b, e, tile) &
        bind(C, name="kc_mdrange")
      import :: kc_policy, c_int, c_ptr
      integer(c_int), value :: rank
      type(c_ptr), value :: b, e, tile
    end function
    type(kc_policy) function c_kc_team_policy(league, team, vector) &
        bind(C, name="kc_team_policy")
      import :: kc_policy, c_int64_t, c_int
      integer(c_int64_t), value :: league
      integer(c_int), value :: team, vector
    end function
    integer(c_int) function c_kc_policy_set_iterate(p, order) &
        bind(C, name="kc_policy_set_iterate")
      import :: c_int, kc_policy
      type(kc_policy), intent(inout) :: p
      integer(c_int), value :: order
    end function
    integer(c_int) function c_kc_policy_set_scratch(p, level, per_team, &
        per_thread) bind(C, name="kc_policy_set_scratch")
      import :: c_int, c_size_t, kc_policy
      type(kc_policy), intent(inout) :: p
      integer(c_int), value :: level
      integer(c_size_t), value :: per_team, per_thread
    end function
    integer(c_int) function c_kc_kernel_register(desc, out) &
        bind(C, name="kc_kernel_register")
      import :: c_int, c_ptr, kc_kernel_desc
      type(kc_kernel_desc), intent(in) :: desc
      type(c_ptr), intent(out) :: out
    end function
    integer(c_int) function c_kc_kernel_get(name, out) &
        bind(C, name="kc_kernel_get")
      import :: c_int, c_ptr
      type(c_ptr), value :: name
      type(c_ptr), intent(out) :: out
    end function
    type(c_ptr) function c_kc_kernel_name(k) bind(C, name="kc_kernel_name")
      import :: c_ptr
      type(c_ptr), value :: k
    end function
    integer(c_int) function c_kc_kernel_describe(k, out) &
        bind(C, name="kc_kernel_describe")
      import :: c_int, c_ptr, kc_kernel_desc
      type(c_ptr), value :: k
      type(kc_kernel_desc), intent(inout) :: out
    end function
    integer(c_int) function c_kc_kernel_set_team_scratch(k, fn) &
        bind(C, name="kc_kernel_set_team_scratch")
      import :: c_int, c_ptr, c_funptr
      type(c_ptr), value :: k
      type(c_funptr), value :: fn
    end function
    integer(c_int) function c_kc_parallel_for(label, kernel, policy, &
        functor, functor_size) bind(C, name="kc_parallel_for")
      import :: c_int, c_ptr, c_size_t, kc_policy
      type(c_ptr), value :: label, kernel
      type(kc_policy), intent(in) :: policy
      type(c_ptr), value :: functor
      integer(c_size_t), value :: functor_size
    end function
    integer(c_int) function c_kc_parallel_reduce(label, kernel, policy, &
        functor, functor_size, result) bind(C, name="kc_parallel_reduce")
      import :: c_int, c_ptr, c_size_t, kc_policy
      type(c_ptr), value :: label, kernel
      type(kc_policy), intent(in) :: policy
      type(c_ptr), value :: functor
      integer(c_size_t), value :: functor_size
      type(c_ptr), value :: result
    end function
    integer(c_int) function c_kc_parallel_scan(label, kernel, policy, &
        functor, functor_size, total) bind(C, name="kc_parallel_scan")
      import :: c_int, c_ptr, c_size_t, kc_policy
      type(c_ptr), value :: label, kernel
      type(kc_policy), intent(in) :: policy
      type(c_ptr), value :: functor
      integer(c_size_t), value :: functor_size
      type(c_ptr), value :: total
    end function
    integer(c_int) function c_kc_parallel_call(label, kernel, policy, &
        nargs, args) bind(C, name="kc_parallel_call")
      import :: c_int, c_ptr, kc_policy
      type(c_ptr), value :: label, kernel
      type(kc_policy), intent(in) :: policy
      integer(c_int), value :: nargs
      type(c_ptr), intent(in) :: args(*)
    end function
    integer(c_int) function c_kc_region_push(name) &
        bind(C, name="kc_region_push")
      import :: c_int, c_ptr
      type(c_ptr), value :: name
    end function
    integer(c_int) function c_kc_region_pop() bind(C, name="kc_region_pop")
      import :: c_int
    end function
    integer(c_int) function c_kc_declare_metadata(key, val) &
        bind(C, name="kc_declare_metadata")
      import :: c_int, c_ptr
      type(c_ptr), value :: key, val
    end function
    integer(c_int) function c_kc_profile_event(name) &
        bind(C, name="kc_profile_event")
      import :: c_int, c_ptr
      type(c_ptr), value :: name
    end function
    ! The C library's strlen, to read the strings kc returns.
    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function
  end interface

  ! ------------------------------------------------- the Fortran API
  public :: kc_init, kc_finalize, kc_is_initialized, kc_version
  public :: kc_strerror, kc_err_name, kc_last_error, kc_set_last_error
  public :: kc_backend_name
  public :: kc_fence, kc_space_name, kc_get_info, kc_string
  public :: kc_malloc, kc_free, kc_retain, kc_pointer_info
  public :: kc_memcpy, kc_memcpy_async, kc_memset
  public :: kc_allocate, kc_deallocate, kc_bytes
  public :: kc_mirror_create, kc_mirror_destroy, kc_mirror_host
  public :: kc_mirror_target, kc_mirror_size, kc_mirror_modify_host
  public :: kc_mirror_modify_target, kc_mirror_sync_host
  public :: kc_mirror_sync_target, kc_mirror_need_sync_host
  public :: kc_mirror_need_sync_target, kc_mirror_clear_sync_state
  public :: kc_reducer_value_size
  public :: kc_range, kc_range_schedule, kc_mdrange, kc_team_policy
  public :: kc_policy_set_scratch, kc_policy_set_iterate
  public :: kc_kernel_register, kc_kernel_get, kc_kernel_name
  public :: kc_kernel_describe
  public :: kc_kernel_set_team_scratch
  public :: kc_parallel_for, kc_parallel_reduce, kc_parallel_scan
  public :: kc_parallel_call
  public :: kc_region_push, kc_region_pop, kc_declare_metadata
  public :: kc_profile_event
  public :: kc_malloc_on, kc_pointer_device
  public :: kc_queue_create, kc_queue_destroy, kc_queue_fence
  public :: kc_queue_device, kc_memcpy_on, kc_memset_on, kc_policy_on
  public :: kc_event_create, kc_event_destroy, kc_event_record
  public :: kc_event_wait, kc_event_synchronize, kc_event_query
  public :: kc_event_elapsed

  !> kc_allocate(a, shape, space [, label] [, stat]): a kc allocation in
  !> `space` returned as the Fortran array pointer `a` of the given shape
  !> (real(c_float), real(c_double), integer(c_int32_t),
  !> integer(c_int64_t); rank 1 to 3).  Release it with kc_deallocate
  !> (never with deallocate).  Device memory (KC_SPACE_DEVICE on the cuda
  !> backend) must not be touched from Fortran: pass c_loc(a) to kernels
  !> and kc_memcpy.
  interface kc_allocate
    module procedure kc_allocate_r4_1
    module procedure kc_allocate_r4_2
    module procedure kc_allocate_r4_3
    module procedure kc_allocate_r8_1
    module procedure kc_allocate_r8_2
    module procedure kc_allocate_r8_3
    module procedure kc_allocate_i4_1
    module procedure kc_allocate_i4_2
    module procedure kc_allocate_i4_3
    module procedure kc_allocate_i8_1
    module procedure kc_allocate_i8_2
    module procedure kc_allocate_i8_3
  end interface kc_allocate

  !> kc_deallocate(a [, stat]): kc_free of an array from kc_allocate;
  !> nullifies `a`.  A disassociated `a` is a no-op.
  interface kc_deallocate
    module procedure kc_deallocate_r4_1
    module procedure kc_deallocate_r4_2
    module procedure kc_deallocate_r4_3
    module procedure kc_deallocate_r8_1
    module procedure kc_deallocate_r8_2
    module procedure kc_deallocate_r8_3
    module procedure kc_deallocate_i4_1
    module procedure kc_deallocate_i4_2
    module procedure kc_deallocate_i4_3
    module procedure kc_deallocate_i8_1
    module procedure kc_deallocate_i8_2
    module procedure kc_deallocate_i8_3
  end interface kc_deallocate

  !> kc_bytes(a): the bytes of array `a` (size times element size) as
  !> integer(c_size_t), for kc_memcpy and kc_memset: c_sizeof is limited
  !> to explicit-shape arrays in Fortran 2008.
  interface kc_bytes
    module procedure kc_bytes_r4_1
    module procedure kc_bytes_r4_2
    module procedure kc_bytes_r4_3
    module procedure kc_bytes_r8_1
    module procedure kc_bytes_r8_2
    module procedure kc_bytes_r8_3
    module procedure kc_bytes_i4_1
    module procedure kc_bytes_i4_2
    module procedure kc_bytes_i4_3
    module procedure kc_bytes_i8_1
    module procedure kc_bytes_i8_2
    module procedure kc_bytes_i8_3
  end interface kc_bytes

  !> kc_range(begin, end): [begin, end), both integer(kc_index) or both
  !> default integer.
  interface kc_range
    module procedure kc_range_i8, kc_range_i4
  end interface kc_range
  interface kc_range_schedule
    module procedure kc_range_schedule_i8, kc_range_schedule_i4
  end interface kc_range_schedule
  !> kc_mdrange(begin, end [, tile]): a box of rank size(begin), in C's
  !> dimension order (the last dimension is the contiguous one).
  interface kc_mdrange
    module procedure kc_mdrange_i8, kc_mdrange_i4
  end interface kc_mdrange
  interface kc_team_policy
    module procedure kc_team_policy_i8, kc_team_policy_i4
  end interface kc_team_policy

  !> kc_parallel_reduce(label, kernel, policy, functor, functor_size,
  !> result [, stat]): `result` is a scalar of the reducer's value type
  !> (real(c_float), real(c_double), integer(c_int32_t),
  !> integer(c_int64_t), a kc_loc_* type) or a type(c_ptr) to it (e.g.
  !> into a kc allocation, then asynchronous: kc_fence waits).
  interface kc_parallel_reduce
    module procedure kc_parallel_reduce_ptr, kc_parallel_reduce_r4, &
      kc_parallel_reduce_r8, kc_parallel_reduce_i4, kc_parallel_reduce_i8, &
      kc_parallel_reduce_loc_i4, kc_parallel_reduce_loc_i8, &
      kc_parallel_reduce_loc_r4, kc_parallel_reduce_loc_r8
  end interface kc_parallel_reduce

  !> kc_parallel_scan(label, kernel, policy, functor, functor_size, total
  !> [, stat]): `total` as kc_parallel_reduce's result; c_null_ptr if the
  !> total is not wanted.
  interface kc_parallel_scan
    module procedure kc_parallel_scan_ptr, kc_parallel_scan_r4, &
      kc_parallel_scan_r8, kc_parallel_scan_i4, kc_parallel_scan_i8
  end interface kc_parallel_scan

contains

  ! ------------------------------------------------------------ helpers

  !> A C string (NUL-terminated, e.g. kc_info%backend) as a Fortran
  !> string; "" for a null pointer.
  function kc_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: s
    character(kind=c_char), pointer :: a(:)
    integer(c_size_t) :: n, i
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = c_strlen(p)
    call c_f_pointer(p, a, [n])
    allocate (character(n) :: s)
    do i = 1, n
      s(i:i) = a(i)
    end do
  end function kc_string

  ! `s` without trailing blanks as a NUL-terminated C string in `buf`.
  subroutine to_c(s, buf)
    character(*), intent(in) :: s
    character(kind=c_char), allocatable, intent(out) :: buf(:)
    integer :: i, n
    n = len_trim(s)
    allocate (buf(n + 1))
    do i = 1, n
      buf(i) = s(i:i)
    end do
    buf(n + 1) = c_null_char
  end subroutine to_c

  ! The C pointer to pass for an optional label: NULL when it is absent
  ! or blank, else c_loc(buf) with buf holding it.
  function label_ptr(label, buf) result(p)
    character(*), intent(in), optional :: label
    character(kind=c_char), allocatable, target, intent(inout) :: buf(:)
    type(c_ptr) :: p
    p = c_null_ptr
    if (.not. present(label)) return
    if (len_trim(label) == 0) return
    call to_c(label, buf)
    p = c_loc(buf)
  end function label_ptr

  ! The error convention: `stat` present receives rc; absent, a negative
  ! rc stops the program with kc's message and detail.
  subroutine check(rc, what, stat)
    integer(c_int), intent(in) :: rc
    character(*), intent(in) :: what
    integer, intent(out), optional :: stat
    if (present(stat)) then
      stat = int(rc)
    else if (rc < 0) then
      write (error_unit, '(7a)') 'kc: ', what, ' failed: ', &
        kc_strerror(rc), ' (', kc_last_error(), ')'
      error stop
    end if
  end subroutine check

  !> A failure the binding finds itself: kc_last_error() becomes
  !> "<what>: <detail>", as for kc's own failures (it held an older,
  !> unrelated one); then stat = code, or the message and error stop.
  subroutine fail_here(code, what, detail, stat)
    integer(c_int), intent(in) :: code
    character(*), intent(in) :: what, detail
    integer, intent(out), optional :: stat
    call kc_set_last_error(int(code), what//': '//detail)
    if (present(stat)) then
      stat = int(code)
    else
      write (error_unit, '(7a)') 'kc: ', what, ' failed: ', &
        kc_strerror(code), ' (', detail, ')'
      error stop
    end if
  end subroutine fail_here

  !> .true., after fail_here, when `p` lies in a kc allocation that the
  !> array (`nbytes`, `contiguous`) does not cover exactly: kc_free would
  !> free all of it through a pointer to a part (memory that is not kc's is
  !> left to kc_free to refuse).
  logical function part_of_array(p, nbytes, contiguous, stat)
    type(c_ptr), intent(in) :: p
    integer(c_size_t), intent(in) :: nbytes
    logical, intent(in) :: contiguous
    integer, intent(out), optional :: stat
    type(kc_alloc_info) :: ai
    part_of_array = .false.
    if (c_kc_pointer_info(p, ai) /= 0) return
    part_of_array = .not. (contiguous .and. c_associated(ai%base, p) .and. &
      ai%size == nbytes)
    if (part_of_array) call fail_here(KC_EINVAL, 'kc_deallocate', &
      'the pointer addresses part of a kc_allocate array, not all of it', stat)
  end function part_of_array

  !> .true., after fail_here, when a typed result of `nbytes` bytes over the
  !> scalar type `scalar` (KC_INT32 ... KC_DOUBLE: the variable's, or its
  !> kc_loc_* type's) does not hold the kernel's value (kc writes the
  !> kernel's whole value through its address, and a value of another type
  !> of the same size would come back as its bits); a kernel that cannot be
  !> described, or that reduces nothing (the launch names its kind), is
  !> left to the launch.
  logical function wrong_result(kernel, nbytes, what, scalar, stat)
    type(kc_kernel), intent(in) :: kernel
    integer(c_size_t), intent(in) :: nbytes
    character(*), intent(in) :: what
    integer(c_int), intent(in) :: scalar
    integer, intent(out), optional :: stat
    character(*), parameter :: names(4) = [character(18) :: &
      'integer(c_int32_t)', 'integer(c_int64_t)', 'real(c_float)', &
      'real(c_double)']
    type(kc_kernel_desc) :: d
    d%struct_size = c_sizeof(d)
    wrong_result = .false.
    if (.not. c_associated(kernel%ptr)) return
    if (c_kc_kernel_describe(kernel%ptr, d) /= 0) return
    if (d%reducer%op == KC_REDUCE_NONE) return
    if (c_kc_reducer_value_size(d%reducer) /= nbytes) then
      wrong_result = .true.
      call fail_here(KC_EINVAL, what, 'the result ' // &
        'variable''s type does not hold the kernel''s value', stat)
    else if (d%reducer%op /= KC_REDUCE_CUSTOM .and. d%reducer%type /= scalar &
        .and. d%reducer%type >= 1 .and. d%reducer%type <= 4) then
      wrong_result = .true.
      call fail_here(KC_EINVAL, what, 'the result variable is of ' // &
        trim(names(scalar)) // ', the kernel''s value of ' // &
        trim(names(d%reducer%type)), stat)
    end if
  end function wrong_result

  !> kc_allocate's shape must have one element per dimension of the
  !> array (an explicit shape(3) took a shape of one element and read two
  !> integers past it).
  logical function wrong_rank(n, rank, stat)
    integer, intent(in) :: n, rank
    integer, intent(out), optional :: stat
    character(len=24) :: a, b
    wrong_rank = n /= rank
    if (.not. wrong_rank) return
    write (a, '(i0)') n
    write (b, '(i0)') rank
    call fail_here(KC_EINVAL, 'kc_allocate', 'the shape has ' // trim(a) // &
      ' element(s) for an array of rank ' // trim(b), stat)
  end function wrong_rank

  ! ------------------------------------------------------------ runtime

  !> Loads and initialises the backend (KC_BACKEND); reference counted.
  subroutine kc_init(stat)
    integer, intent(out), optional :: stat
    call check(c_kc_init(), 'kc_init', stat)
  end subroutine kc_init

  !> Drops one kc_init reference; the last one shuts kc down.
  subroutine kc_finalize(stat)
    integer, intent(out), optional :: stat
    call check(c_kc_finalize(), 'kc_finalize', stat)
  end subroutine kc_finalize

  logical function kc_is_initialized()
    kc_is_initialized = c_kc_is_initialized() /= 0
  end function kc_is_initialized

  !> "MAJOR.MINOR.PATCH" of the running library.
  function kc_version() result(s)
    character(:), allocatable :: s
    s = kc_string(c_kc_version())
  end function kc_version

  !> Message of an error code ("invalid argument").
  function kc_strerror(code) result(s)
    integer, intent(in) :: code
    character(:), allocatable :: s
    s = kc_string(c_kc_strerror(int(code, c_int)))
  end function kc_strerror

  !> Name of an error code ("KC_EINVAL").
  function kc_err_name(code) result(s)
    integer, intent(in) :: code
    character(:), allocatable :: s
    s = kc_string(c_kc_err_name(int(code, c_int)))
  end function kc_err_name

  !> Detail of the last failed kc call on this thread ("" if none).
  function kc_last_error() result(s)
    character(:), allocatable :: s
    s = kc_string(c_kc_last_error())
  end function kc_last_error

  !> Makes `detail` (trailing blanks dropped) this thread's
  !> kc_last_error(), for a library over kc that refuses a call itself;
  !> `code` (its KC_E... code) is not kept.  The module's own refusals use
  !> it.
  subroutine kc_set_last_error(code, detail)
    integer, intent(in) :: code
    character(*), intent(in) :: detail
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_int) :: rc
    call to_c(detail, buf)
    rc = c_kc_set_last_error(int(code, c_int), c_loc(buf))
  end subroutine kc_set_last_error

  !> Name of the backend in use; "" before kc_init.
  function kc_backend_name() result(s)
    character(:), allocatable :: s
    s = kc_string(c_kc_backend_name())
  end function kc_backend_name

  !> Waits for every launch and asynchronous copy issued so far.
  subroutine kc_fence(stat)
    integer, intent(out), optional :: stat
    call check(c_kc_fence(), 'kc_fence', stat)
  end subroutine kc_fence

  ! -------------------------------------------------------- information

  !> Name of a space ("host", "device", ...); "" if out of range.
  function kc_space_name(space) result(s)
    integer(c_int), intent(in) :: space
    character(:), allocatable :: s
    s = kc_string(c_kc_space_name(space))
  end function kc_space_name

  !> Fills `info` for the backend in use (struct_size is set here).
  subroutine kc_get_info(info, stat)
    type(kc_info), intent(out) :: info
    integer, intent(out), optional :: stat
    info%struct_size = c_sizeof(info)
    call check(c_kc_get_info(info), 'kc_get_info', stat)
  end subroutine kc_get_info

  ! ------------------------------------------------------------- memory

  !> `bytes` in `space` (KC_SPACE_...), labelled; `p` receives the pointer
  !> (c_null_ptr on failure).
  subroutine kc_malloc(p, bytes, space, label, stat)
    type(c_ptr), intent(out) :: p
    integer(c_size_t), intent(in) :: bytes
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_int) :: rc
    p = c_null_ptr
    rc = c_kc_malloc(p, bytes, space, label_ptr(label, buf))
    if (rc /= 0) p = c_null_ptr
    call check(rc, 'kc_malloc', stat)
  end subroutine kc_malloc

  ! kc_malloc of product(shape) elements of `elem` bytes each.  A product
  ! beyond integer(c_size_t) asks for huge(n) bytes, which kc refuses with
  ! KC_ENOMEM and its detail, instead of wrapping around to a small size.
  function alloc_elements(p, shape, elem, space, label) result(rc)
    type(c_ptr), intent(out) :: p
    integer, intent(in) :: shape(:)
    integer(c_size_t), intent(in) :: elem
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer(c_int) :: rc
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_size_t) :: n, extent
    integer :: d
    n = elem
    if (any(shape <= 0)) n = 0
    do d = 1, size(shape)
      extent = int(max(shape(d), 1), c_size_t)
      if (n > huge(n) / extent) then
        n = huge(n)
        exit
      end if
      n = n * extent
    end do
    p = c_null_ptr
    rc = c_kc_malloc(p, n, space, label_ptr(label, buf))
    if (rc /= 0) p = c_null_ptr
  end function alloc_elements

  !> Drops one reference of a kc allocation (c_null_ptr: no-op).
  subroutine kc_free(p, stat)
    type(c_ptr), intent(in) :: p
    integer, intent(out), optional :: stat
    call check(c_kc_free(p), 'kc_free', stat)
  end subroutine kc_free

  subroutine kc_retain(p, stat)
    type(c_ptr), intent(in) :: p
    integer, intent(out), optional :: stat
    call check(c_kc_retain(p), 'kc_retain', stat)
  end subroutine kc_retain

  !> Describes the kc allocation `p` points into (KC_ENOTKC if none).
  subroutine kc_pointer_info(p, info, stat)
    type(c_ptr), intent(in) :: p
    type(kc_alloc_info), intent(out) :: info
    integer, intent(out), optional :: stat
    call check(c_kc_pointer_info(p, info), 'kc_pointer_info', stat)
  end subroutine kc_pointer_info

  !> Copies `bytes` from `src` to `dst` (c_loc of arrays, or kc pointers);
  !> blocking.
  subroutine kc_memcpy(dst, src, bytes, stat)
    type(c_ptr), intent(in) :: dst, src
    integer(c_size_t), intent(in) :: bytes
    integer, intent(out), optional :: stat
    call check(c_kc_memcpy(dst, src, bytes), 'kc_memcpy', stat)
  end subroutine kc_memcpy

  !> As kc_memcpy, but may return before the copy completes (kc_fence).
  subroutine kc_memcpy_async(dst, src, bytes, stat)
    type(c_ptr), intent(in) :: dst, src
    integer(c_size_t), intent(in) :: bytes
    integer, intent(out), optional :: stat
    call check(c_kc_memcpy_async(dst, src, bytes), 'kc_memcpy_async', stat)
  end subroutine kc_memcpy_async

  !> Sets `bytes` bytes at `p` to the byte `value`.
  subroutine kc_memset(p, value, bytes, stat)
    type(c_ptr), intent(in) :: p
    integer, intent(in) :: value
    integer(c_size_t), intent(in) :: bytes
    integer, intent(out), optional :: stat
    call check(c_kc_memset(p, int(value, c_int), bytes), 'kc_memset', stat)
  end subroutine kc_memset

  ! ---------------------------------------------------- mirrored arrays

  subroutine kc_mirror_create(m, bytes, label, stat)
    type(kc_mirror), intent(out) :: m
    integer(c_size_t), intent(in) :: bytes
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_int) :: rc
    rc = c_kc_mirror_create(m%ptr, bytes, label_ptr(label, buf))
    if (rc /= 0) m%ptr = c_null_ptr
    call check(rc, 'kc_mirror_create', stat)
  end subroutine kc_mirror_create

  !> Destroys `m` (a null handle is a no-op) and nulls the handle.
  subroutine kc_mirror_destroy(m, stat)
    type(kc_mirror), intent(inout) :: m
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = c_kc_mirror_destroy(m%ptr)
    if (rc == 0) m%ptr = c_null_ptr
    call check(rc, 'kc_mirror_destroy', stat)
  end subroutine kc_mirror_destroy

  type(c_ptr) function kc_mirror_host(m)
    type(kc_mirror), intent(in) :: m
    kc_mirror_host = c_kc_mirror_host(m%ptr)
  end function kc_mirror_host

  type(c_ptr) function kc_mirror_target(m)
    type(kc_mirror), intent(in) :: m
    kc_mirror_target = c_kc_mirror_target(m%ptr)
  end function kc_mirror_target

  integer(c_size_t) function kc_mirror_size(m)
    type(kc_mirror), intent(in) :: m
    kc_mirror_size = c_kc_mirror_size(m%ptr)
  end function kc_mirror_size

  subroutine kc_mirror_modify_host(m, stat)
    type(kc_mirror), intent(in) :: m
    integer, intent(out), optional :: stat
    call check(c_kc_mirror_modify_host(m%ptr), 'kc_mirror_modify_host', stat)
  end subroutine kc_mirror_modify_host

  subroutine kc_mirror_modify_target(m, stat)
    type(kc_mirror), intent(in) :: m
    integer, intent(out), optional :: stat
    call check(c_kc_mirror_modify_target(m%ptr), 'kc_mirror_modify_target', &
      stat)
  end subroutine kc_mirror_modify_target

  subroutine kc_mirror_sync_host(m, stat)
    type(kc_mirror), intent(in) :: m
    integer, intent(out), optional :: stat
    call check(c_kc_mirror_sync_host(m%ptr), 'kc_mirror_sync_host', stat)
  end subroutine kc_mirror_sync_host

  subroutine kc_mirror_sync_target(m, stat)
    type(kc_mirror), intent(in) :: m
    integer, intent(out), optional :: stat
    call check(c_kc_mirror_sync_target(m%ptr), 'kc_mirror_sync_target', stat)
  end subroutine kc_mirror_sync_target

  !> Forgets both modified marks (after both sides were marked by mistake;
  !> then mark the side to keep and sync).
  subroutine kc_mirror_clear_sync_state(m, stat)
    type(kc_mirror), intent(in) :: m
    integer, intent(out), optional :: stat
    call check(c_kc_mirror_clear_sync_state(m%ptr), &
               'kc_mirror_clear_sync_state', stat)
  end subroutine kc_mirror_clear_sync_state

  logical function kc_mirror_need_sync_host(m)
    type(kc_mirror), intent(in) :: m
    kc_mirror_need_sync_host = c_kc_mirror_need_sync_host(m%ptr) /= 0
  end function kc_mirror_need_sync_host

  logical function kc_mirror_need_sync_target(m)
    type(kc_mirror), intent(in) :: m
    kc_mirror_need_sync_target = c_kc_mirror_need_sync_target(m%ptr) /= 0
  end function kc_mirror_need_sync_target

  ! ----------------------------------------------------------- reducers

  !> Bytes of a reducer's value; 0 if the reducer is invalid.
  integer(c_size_t) function kc_reducer_value_size(r)
    type(kc_reducer), intent(in) :: r
    kc_reducer_value_size = c_kc_reducer_value_size(r)
  end function kc_reducer_value_size

  ! ----------------------------------------------------------- policies

  type(kc_policy) function kc_range_i8(b, e)
    integer(c_int64_t), intent(in) :: b, e
    kc_range_i8 = c_kc_range(b, e)
  end function kc_range_i8

  type(kc_policy) function kc_range_i4(b, e)
    integer, intent(in) :: b, e
    kc_range_i4 = c_kc_range(int(b, c_int64_t), int(e, c_int64_t))
  end function kc_range_i4

  type(kc_policy) function kc_range_schedule_i8(b, e, schedule, chunk)
    integer(c_int64_t), intent(in) :: b, e, chunk
    integer(c_int), intent(in) :: schedule
    kc_range_schedule_i8 = c_kc_range_schedule(b, e, schedule, chunk)
  end function kc_range_schedule_i8

  type(kc_policy) function kc_range_schedule_i4(b, e, schedule, chunk)
    integer, intent(in) :: b, e, chunk
    integer(c_int), intent(in) :: schedule
    kc_range_schedule_i4 = c_kc_range_schedule(int(b, c_int64_t), &
      int(e, c_int64_t), schedule, int(chunk, c_int64_t))
  end function kc_range_schedule_i4

  ! The MD range of rank size(b); a rank that end (or tile) does not
  ! match, or one above KC_MAX_RANK, gives a policy the launch refuses.
  type(kc_policy) function kc_mdrange_i8(b, e, tile) result(p)
    integer(c_int64_t), intent(in) :: b(:), e(:)
    integer(c_int64_t), intent(in), optional :: tile(:)
    integer(c_int64_t), target :: cb(KC_MAX_RANK), ce(KC_MAX_RANK), &
      ct(KC_MAX_RANK)
    integer(c_int) :: rank
    rank = int(size(b), c_int)
    if (size(e) /= size(b) .or. size(b) > KC_MAX_RANK) rank = 0
    if (present(tile)) then
      if (size(tile) /= size(b)) rank = 0
    end if
    cb = 0
    ce = 0
    ct = 0
    if (rank > 0) then
      cb(1:rank) = b
      ce(1:rank) = e
      if (present(tile)) ct(1:rank) = tile
    end if
    p = c_kc_mdrange(rank, c_loc(cb), c_loc(ce), c_loc(ct))
  end function kc_mdrange_i8

  type(kc_policy) function kc_mdrange_i4(b, e, tile) result(p)
    integer, intent(in) :: b(:), e(:)
    integer, intent(in), optional :: tile(:)
    if (present(tile)) then
      p = kc_mdrange_i8(int(b, c_int64_t), int(e, c_int64_t), &
        int(tile, c_int64_t))
    else
      p = kc_mdrange_i8(int(b, c_int64_t), int(e, c_int64_t))
    end if
  end function kc_mdrange_i4

  type(kc_policy) function kc_team_policy_i8(league_size, team_size, &
      vector_length)
    integer(c_int64_t), intent(in) :: league_size
    integer(c_int), intent(in) :: team_size, vector_length
    kc_team_policy_i8 = c_kc_team_policy(league_size, team_size, &
      vector_length)
  end function kc_team_policy_i8

  type(kc_policy) function kc_team_policy_i4(league_size, team_size, &
      vector_length)
    integer, intent(in) :: league_size
    integer(c_int), intent(in) :: team_size, vector_length
    kc_team_policy_i4 = c_kc_team_policy(int(league_size, c_int64_t), &
      team_size, vector_length)
  end function kc_team_policy_i4

  !> An MD policy's iteration order: KC_ITERATE_LEFT makes the first index
  !> the fastest (Fortran's column-major order: the contiguous one of a
  !> Fortran array), KC_ITERATE_RIGHT (the default) the last.
  subroutine kc_policy_set_iterate(p, order, stat)
    type(kc_policy), intent(inout) :: p
    integer, intent(in) :: order
    integer, intent(out), optional :: stat
    call check(c_kc_policy_set_iterate(p, int(order, c_int)), &
      'kc_policy_set_iterate', stat)
  end subroutine kc_policy_set_iterate

  !> A TEAM policy's scratch of `level` (0 or 1): per team plus per thread.
  subroutine kc_policy_set_scratch(p, level, per_team, per_thread, stat)
    type(kc_policy), intent(inout) :: p
    integer, intent(in) :: level
    integer(c_size_t), intent(in) :: per_team, per_thread
    integer, intent(out), optional :: stat
    call check(c_kc_policy_set_scratch(p, int(level, c_int), per_team, &
      per_thread), 'kc_policy_set_scratch', stat)
  end subroutine kc_policy_set_scratch

  ! ------------------------------------------------------------ kernels

  !> Registers a kernel (host entry: c_funloc of a bind(C) procedure of
  !> the kind's C type); struct_size is set here.  `kernel` receives the
  !> handle.
  subroutine kc_kernel_register(desc, kernel, stat)
    type(kc_kernel_desc), intent(inout) :: desc
    type(kc_kernel), intent(out), optional :: kernel
    integer, intent(out), optional :: stat
    type(c_ptr) :: k
    integer(c_int) :: rc
    desc%struct_size = c_sizeof(desc)
    k = c_null_ptr
    rc = c_kc_kernel_register(desc, k)
    if (present(kernel)) kernel%ptr = k
    call check(rc, 'kc_kernel_register', stat)
  end subroutine kc_kernel_register

  !> The kernel registered under `name` (kcc registers each kernel of a
  !> .kc.c file under its name).  KC_ENOKERNEL if there is none.
  subroutine kc_kernel_get(name, kernel, stat)
    character(*), intent(in) :: name
    type(kc_kernel), intent(out) :: kernel
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_int) :: rc
    call to_c(name, buf)
    rc = c_kc_kernel_get(c_loc(buf), kernel%ptr)
    if (rc /= 0) kernel%ptr = c_null_ptr
    call check(rc, 'kc_kernel_get', stat)
  end subroutine kc_kernel_get

  function kc_kernel_name(kernel) result(s)
    type(kc_kernel), intent(in) :: kernel
    character(:), allocatable :: s
    s = kc_string(c_kc_kernel_name(kernel%ptr))
  end function kc_kernel_name

  !> What a kernel was registered with (its kind, rank, reducer with the
  !> value's size, signature); the strings stay C pointers (kc_string
  !> reads them).  struct_size is set here.
  subroutine kc_kernel_describe(kernel, desc, stat)
    type(kc_kernel), intent(in) :: kernel
    type(kc_kernel_desc), intent(out) :: desc
    integer, intent(out), optional :: stat
    desc%struct_size = c_sizeof(desc)
    call check(c_kc_kernel_describe(kernel%ptr, desc), 'kc_kernel_describe', &
      stat)
  end subroutine kc_kernel_describe

  !> Attaches (c_funloc of a bind(C) function) or removes (c_null_funptr)
  !> a TEAM kernel's scratch function.
  subroutine kc_kernel_set_team_scratch(kernel, fn, stat)
    type(kc_kernel), intent(in) :: kernel
    type(c_funptr), intent(in) :: fn
    integer, intent(out), optional :: stat
    call check(c_kc_kernel_set_team_scratch(kernel%ptr, fn), &
      'kc_kernel_set_team_scratch', stat)
  end subroutine kc_kernel_set_team_scratch

  ! ----------------------------------------------------------- dispatch

  !> Runs `kernel` over `policy` with the functor c_loc(f), c_sizeof(f)
  !> (c_null_ptr, 0 for none: only for a kernel registered without a
  !> functor size; one that kcc built takes its functor, KC_EINVAL
  !> otherwise).  A blank label names the launch after the
  !> kernel.
  subroutine kc_parallel_for(label, kernel, policy, functor, functor_size, &
      stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    call check(c_kc_parallel_for(label_ptr(label, buf), kernel%ptr, policy, &
      functor, functor_size), 'kc_parallel_for', stat)
  end subroutine kc_parallel_for

  subroutine reduce(label, kernel, policy, functor, functor_size, result, &
      stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor, result
    integer(c_size_t), intent(in) :: functor_size
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    call check(c_kc_parallel_reduce(label_ptr(label, buf), kernel%ptr, &
      policy, functor, functor_size, result), 'kc_parallel_reduce', stat)
  end subroutine reduce

  subroutine scan(label, kernel, policy, functor, functor_size, total, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor, total
    integer(c_size_t), intent(in) :: functor_size
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    call check(c_kc_parallel_scan(label_ptr(label, buf), kernel%ptr, &
      policy, functor, functor_size, total), 'kc_parallel_scan', stat)
  end subroutine scan

  subroutine kc_parallel_reduce_ptr(label, kernel, policy, functor, &
      functor_size, result, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    type(c_ptr), intent(in) :: result
    integer, intent(out), optional :: stat
    call reduce(label, kernel, policy, functor, functor_size, result, stat)
  end subroutine kc_parallel_reduce_ptr

  subroutine kc_parallel_reduce_r4(label, kernel, policy, functor, &
      functor_size, result, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    real(c_float), intent(inout), target :: result
    integer, intent(out), optional :: stat
    real(c_float), target :: tmp
    if (wrong_result(kernel, c_sizeof(result), 'kc_parallel_reduce', &
        KC_FLOAT, stat)) return
    call reduce(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    result = tmp
  end subroutine kc_parallel_reduce_r4

  subroutine kc_parallel_reduce_r8(label, kernel, policy, functor, &
      functor_size, result, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    real(c_double), intent(inout), target :: result
    integer, intent(out), optional :: stat
    real(c_double), target :: tmp
    if (wrong_result(kernel, c_sizeof(result), 'kc_parallel_reduce', &
        KC_DOUBLE, stat)) return
    call reduce(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    result = tmp
  end subroutine kc_parallel_reduce_r8

  subroutine kc_parallel_reduce_i4(label, kernel, policy, functor, &
      functor_size, result, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    integer(c_int32_t), intent(inout), target :: result
    integer, intent(out), optional :: stat
    integer(c_int32_t), target :: tmp
    if (wrong_result(kernel, c_sizeof(result), 'kc_parallel_reduce', &
        KC_INT32, stat)) return
    call reduce(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    result = tmp
  end subroutine kc_parallel_reduce_i4

  subroutine kc_parallel_reduce_i8(label, kernel, policy, functor, &
      functor_size, result, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    integer(c_int64_t), intent(inout), target :: result
    integer, intent(out), optional :: stat
    integer(c_int64_t), target :: tmp
    if (wrong_result(kernel, c_sizeof(result), 'kc_parallel_reduce', &
        KC_INT64, stat)) return
    call reduce(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    result = tmp
  end subroutine kc_parallel_reduce_i8

  subroutine kc_parallel_reduce_loc_i4(label, kernel, policy, functor, &
      functor_size, result, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    type(kc_loc_int32), intent(inout), target :: result
    integer, intent(out), optional :: stat
    type(kc_loc_int32), target :: tmp
    if (wrong_result(kernel, c_sizeof(result), 'kc_parallel_reduce', &
        KC_INT32, stat)) return
    call reduce(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    result = tmp
  end subroutine kc_parallel_reduce_loc_i4

  subroutine kc_parallel_reduce_loc_i8(label, kernel, policy, functor, &
      functor_size, result, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    type(kc_loc_int64), intent(inout), target :: result
    integer, intent(out), optional :: stat
    type(kc_loc_int64), target :: tmp
    if (wrong_result(kernel, c_sizeof(result), 'kc_parallel_reduce', &
        KC_INT64, stat)) return
    call reduce(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    result = tmp
  end subroutine kc_parallel_reduce_loc_i8

  subroutine kc_parallel_reduce_loc_r4(label, kernel, policy, functor, &
      functor_size, result, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    type(kc_loc_float), intent(inout), target :: result
    integer, intent(out), optional :: stat
    type(kc_loc_float), target :: tmp
    if (wrong_result(kernel, c_sizeof(result), 'kc_parallel_reduce', &
        KC_FLOAT, stat)) return
    call reduce(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    result = tmp
  end subroutine kc_parallel_reduce_loc_r4

  subroutine kc_parallel_reduce_loc_r8(label, kernel, policy, functor, &
      functor_size, result, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    type(kc_loc_double), intent(inout), target :: result
    integer, intent(out), optional :: stat
    type(kc_loc_double), target :: tmp
    if (wrong_result(kernel, c_sizeof(result), 'kc_parallel_reduce', &
        KC_DOUBLE, stat)) return
    call reduce(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    result = tmp
  end subroutine kc_parallel_reduce_loc_r8

  subroutine kc_parallel_scan_ptr(label, kernel, policy, functor, &
      functor_size, total, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    type(c_ptr), intent(in) :: total
    integer, intent(out), optional :: stat
    call scan(label, kernel, policy, functor, functor_size, total, stat)
  end subroutine kc_parallel_scan_ptr

  subroutine kc_parallel_scan_r4(label, kernel, policy, functor, &
      functor_size, total, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    real(c_float), intent(inout), target :: total
    integer, intent(out), optional :: stat
    real(c_float), target :: tmp
    if (wrong_result(kernel, c_sizeof(total), 'kc_parallel_scan', &
        KC_FLOAT, stat)) return
    call scan(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    total = tmp
  end subroutine kc_parallel_scan_r4

  subroutine kc_parallel_scan_r8(label, kernel, policy, functor, &
      functor_size, total, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    real(c_double), intent(inout), target :: total
    integer, intent(out), optional :: stat
    real(c_double), target :: tmp
    if (wrong_result(kernel, c_sizeof(total), 'kc_parallel_scan', &
        KC_DOUBLE, stat)) return
    call scan(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    total = tmp
  end subroutine kc_parallel_scan_r8

  subroutine kc_parallel_scan_i4(label, kernel, policy, functor, &
      functor_size, total, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    integer(c_int32_t), intent(inout), target :: total
    integer, intent(out), optional :: stat
    integer(c_int32_t), target :: tmp
    if (wrong_result(kernel, c_sizeof(total), 'kc_parallel_scan', &
        KC_INT32, stat)) return
    call scan(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    total = tmp
  end subroutine kc_parallel_scan_i4

  subroutine kc_parallel_scan_i8(label, kernel, policy, functor, &
      functor_size, total, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: functor
    integer(c_size_t), intent(in) :: functor_size
    integer(c_int64_t), intent(inout), target :: total
    integer, intent(out), optional :: stat
    integer(c_int64_t), target :: tmp
    if (wrong_result(kernel, c_sizeof(total), 'kc_parallel_scan', &
        KC_INT64, stat)) return
    call scan(label, kernel, policy, functor, functor_size, c_loc(tmp), &
      stat)
    if (present(stat)) then
      if (stat /= 0) return
    end if
    total = tmp
  end subroutine kc_parallel_scan_i8


  !> Runs a CALL kernel: args(i) = c_loc of the value of parameter i (for a
  !> pointer parameter, c_loc of a type(c_ptr) variable holding it).
  subroutine kc_parallel_call(label, kernel, policy, args, stat)
    character(*), intent(in) :: label
    type(kc_kernel), intent(in) :: kernel
    type(kc_policy), intent(in) :: policy
    type(c_ptr), intent(in) :: args(:)
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    type(c_ptr) :: a(max(size(args), 1))
    a = c_null_ptr
    a(1:size(args)) = args
    call check(c_kc_parallel_call(label_ptr(label, buf), kernel%ptr, policy, &
      int(size(args), c_int), a), 'kc_parallel_call', stat)
  end subroutine kc_parallel_call

  ! ---------------------------------------------------------- profiling

  subroutine kc_region_push(name, stat)
    character(*), intent(in) :: name
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    call to_c(name, buf)
    call check(c_kc_region_push(c_loc(buf)), 'kc_region_push', stat)
  end subroutine kc_region_push

  subroutine kc_region_pop(stat)
    integer, intent(out), optional :: stat
    call check(c_kc_region_pop(), 'kc_region_pop', stat)
  end subroutine kc_region_pop

  subroutine kc_declare_metadata(key, value, stat)
    character(*), intent(in) :: key, value
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: kbuf(:), vbuf(:)
    call to_c(key, kbuf)
    call to_c(value, vbuf)
    call check(c_kc_declare_metadata(c_loc(kbuf), c_loc(vbuf)), &
      'kc_declare_metadata', stat)
  end subroutine kc_declare_metadata

  subroutine kc_profile_event(name, stat)
    character(*), intent(in) :: name
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    call to_c(name, buf)
    call check(c_kc_profile_event(c_loc(buf)), 'kc_profile_event', stat)
  end subroutine kc_profile_event

  ! ------------------------------------------- typed allocations (generic)
  subroutine kc_allocate_r4_1(a, shape, space, label, stat)
    real(c_float), pointer, intent(inout) :: a(:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 1, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0.0_c_float), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_r4_1

  subroutine kc_deallocate_r4_1(a, stat)
    real(c_float), pointer, intent(inout) :: a(:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_r4_1

  subroutine kc_allocate_r4_2(a, shape, space, label, stat)
    real(c_float), pointer, intent(inout) :: a(:,:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 2, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0.0_c_float), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_r4_2

  subroutine kc_deallocate_r4_2(a, stat)
    real(c_float), pointer, intent(inout) :: a(:,:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_r4_2

  subroutine kc_allocate_r4_3(a, shape, space, label, stat)
    real(c_float), pointer, intent(inout) :: a(:,:,:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 3, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0.0_c_float), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_r4_3

  subroutine kc_deallocate_r4_3(a, stat)
    real(c_float), pointer, intent(inout) :: a(:,:,:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_r4_3

  subroutine kc_allocate_r8_1(a, shape, space, label, stat)
    real(c_double), pointer, intent(inout) :: a(:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 1, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0.0_c_double), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_r8_1

  subroutine kc_deallocate_r8_1(a, stat)
    real(c_double), pointer, intent(inout) :: a(:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_r8_1

  subroutine kc_allocate_r8_2(a, shape, space, label, stat)
    real(c_double), pointer, intent(inout) :: a(:,:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 2, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0.0_c_double), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_r8_2

  subroutine kc_deallocate_r8_2(a, stat)
    real(c_double), pointer, intent(inout) :: a(:,:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_r8_2

  subroutine kc_allocate_r8_3(a, shape, space, label, stat)
    real(c_double), pointer, intent(inout) :: a(:,:,:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 3, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0.0_c_double), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_r8_3

  subroutine kc_deallocate_r8_3(a, stat)
    real(c_double), pointer, intent(inout) :: a(:,:,:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_r8_3

  subroutine kc_allocate_i4_1(a, shape, space, label, stat)
    integer(c_int32_t), pointer, intent(inout) :: a(:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 1, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0_c_int32_t), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_i4_1

  subroutine kc_deallocate_i4_1(a, stat)
    integer(c_int32_t), pointer, intent(inout) :: a(:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_i4_1

  subroutine kc_allocate_i4_2(a, shape, space, label, stat)
    integer(c_int32_t), pointer, intent(inout) :: a(:,:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 2, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0_c_int32_t), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_i4_2

  subroutine kc_deallocate_i4_2(a, stat)
    integer(c_int32_t), pointer, intent(inout) :: a(:,:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_i4_2

  subroutine kc_allocate_i4_3(a, shape, space, label, stat)
    integer(c_int32_t), pointer, intent(inout) :: a(:,:,:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 3, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0_c_int32_t), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_i4_3

  subroutine kc_deallocate_i4_3(a, stat)
    integer(c_int32_t), pointer, intent(inout) :: a(:,:,:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_i4_3

  subroutine kc_allocate_i8_1(a, shape, space, label, stat)
    integer(c_int64_t), pointer, intent(inout) :: a(:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 1, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0_c_int64_t), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_i8_1

  subroutine kc_deallocate_i8_1(a, stat)
    integer(c_int64_t), pointer, intent(inout) :: a(:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_i8_1

  subroutine kc_allocate_i8_2(a, shape, space, label, stat)
    integer(c_int64_t), pointer, intent(inout) :: a(:,:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 2, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0_c_int64_t), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_i8_2

  subroutine kc_deallocate_i8_2(a, stat)
    integer(c_int64_t), pointer, intent(inout) :: a(:,:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_i8_2

  subroutine kc_allocate_i8_3(a, shape, space, label, stat)
    integer(c_int64_t), pointer, intent(inout) :: a(:,:,:)
    integer, intent(in) :: shape(:)
    integer(c_int), intent(in) :: space
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: rc
    nullify(a)
    if (wrong_rank(size(shape), 3, stat)) return
    rc = alloc_elements(p, shape, c_sizeof(0_c_int64_t), space, label)
    if (rc == 0) call c_f_pointer(p, a, max(shape, 0))
    call check(rc, 'kc_allocate', stat)
  end subroutine kc_allocate_i8_3

  subroutine kc_deallocate_i8_3(a, stat)
    integer(c_int64_t), pointer, intent(inout) :: a(:,:,:)
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = 0
    if (associated(a)) then
      if (part_of_array(c_loc(a), size(a, kind=c_size_t) * &
        int(storage_size(a) / 8, c_size_t), is_contiguous(a), stat)) return
      rc = c_kc_free(c_loc(a))
    end if
    if (rc == 0) nullify(a)
    call check(rc, 'kc_deallocate', stat)
  end subroutine kc_deallocate_i8_3

  pure integer(c_size_t) function kc_bytes_r4_1(a)
    real(c_float), intent(in) :: a(:)
    kc_bytes_r4_1 = size(a, kind=c_size_t)*c_sizeof(0.0_c_float)
  end function kc_bytes_r4_1

  pure integer(c_size_t) function kc_bytes_r4_2(a)
    real(c_float), intent(in) :: a(:,:)
    kc_bytes_r4_2 = size(a, kind=c_size_t)*c_sizeof(0.0_c_float)
  end function kc_bytes_r4_2

  pure integer(c_size_t) function kc_bytes_r4_3(a)
    real(c_float), intent(in) :: a(:,:,:)
    kc_bytes_r4_3 = size(a, kind=c_size_t)*c_sizeof(0.0_c_float)
  end function kc_bytes_r4_3

  pure integer(c_size_t) function kc_bytes_r8_1(a)
    real(c_double), intent(in) :: a(:)
    kc_bytes_r8_1 = size(a, kind=c_size_t)*c_sizeof(0.0_c_double)
  end function kc_bytes_r8_1

  pure integer(c_size_t) function kc_bytes_r8_2(a)
    real(c_double), intent(in) :: a(:,:)
    kc_bytes_r8_2 = size(a, kind=c_size_t)*c_sizeof(0.0_c_double)
  end function kc_bytes_r8_2

  pure integer(c_size_t) function kc_bytes_r8_3(a)
    real(c_double), intent(in) :: a(:,:,:)
    kc_bytes_r8_3 = size(a, kind=c_size_t)*c_sizeof(0.0_c_double)
  end function kc_bytes_r8_3

  pure integer(c_size_t) function kc_bytes_i4_1(a)
    integer(c_int32_t), intent(in) :: a(:)
    kc_bytes_i4_1 = size(a, kind=c_size_t)*c_sizeof(0_c_int32_t)
  end function kc_bytes_i4_1

  pure integer(c_size_t) function kc_bytes_i4_2(a)
    integer(c_int32_t), intent(in) :: a(:,:)
    kc_bytes_i4_2 = size(a, kind=c_size_t)*c_sizeof(0_c_int32_t)
  end function kc_bytes_i4_2

  pure integer(c_size_t) function kc_bytes_i4_3(a)
    integer(c_int32_t), intent(in) :: a(:,:,:)
    kc_bytes_i4_3 = size(a, kind=c_size_t)*c_sizeof(0_c_int32_t)
  end function kc_bytes_i4_3

  pure integer(c_size_t) function kc_bytes_i8_1(a)
    integer(c_int64_t), intent(in) :: a(:)
    kc_bytes_i8_1 = size(a, kind=c_size_t)*c_sizeof(0_c_int64_t)
  end function kc_bytes_i8_1

  pure integer(c_size_t) function kc_bytes_i8_2(a)
    integer(c_int64_t), intent(in) :: a(:,:)
    kc_bytes_i8_2 = size(a, kind=c_size_t)*c_sizeof(0_c_int64_t)
  end function kc_bytes_i8_2

  pure integer(c_size_t) function kc_bytes_i8_3(a)
    integer(c_int64_t), intent(in) :: a(:,:,:)
    kc_bytes_i8_3 = size(a, kind=c_size_t)*c_sizeof(0_c_int64_t)
  end function kc_bytes_i8_3

  ! ------------------------------------------- queues, events, devices
  ! doc/queues.md.  Queues and events are type(c_ptr) handles; a null
  ! queue is the default one.

  !> kc_malloc on device `device` of the backend (0 .. device_count - 1).
  subroutine kc_malloc_on(p, bytes, space, device, label, stat)
    type(c_ptr), intent(out) :: p
    integer(c_size_t), intent(in) :: bytes
    integer(c_int), intent(in) :: space, device
    character(*), intent(in), optional :: label
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    integer(c_int) :: rc
    p = c_null_ptr
    rc = c_kc_malloc_on(p, bytes, space, device, label_ptr(label, buf))
    if (rc /= 0) p = c_null_ptr
    call check(rc, 'kc_malloc_on', stat)
  end subroutine kc_malloc_on

  !> The device of kc allocation `p`.
  subroutine kc_pointer_device(p, device, stat)
    type(c_ptr), intent(in) :: p
    integer(c_int), intent(out) :: device
    integer, intent(out), optional :: stat
    device = -1
    call check(c_kc_pointer_device(p, device), 'kc_pointer_device', stat)
  end subroutine kc_pointer_device

  !> A queue on `device`; destroy it with kc_queue_destroy.
  subroutine kc_queue_create(q, device, stat)
    type(c_ptr), intent(out) :: q
    integer(c_int), intent(in) :: device
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    q = c_null_ptr
    rc = c_kc_queue_create(q, device)
    if (rc /= 0) q = c_null_ptr
    call check(rc, 'kc_queue_create', stat)
  end subroutine kc_queue_create

  !> Waits for the queue's work, then destroys it.
  subroutine kc_queue_destroy(q, stat)
    type(c_ptr), intent(in) :: q
    integer, intent(out), optional :: stat
    call check(c_kc_queue_destroy(q), 'kc_queue_destroy', stat)
  end subroutine kc_queue_destroy

  !> Waits for the work submitted to `q` so far.
  subroutine kc_queue_fence(q, stat)
    type(c_ptr), intent(in) :: q
    integer, intent(out), optional :: stat
    call check(c_kc_queue_fence(q), 'kc_queue_fence', stat)
  end subroutine kc_queue_fence

  !> The device `q` runs on.
  subroutine kc_queue_device(q, device, stat)
    type(c_ptr), intent(in) :: q
    integer(c_int), intent(out) :: device
    integer, intent(out), optional :: stat
    device = -1
    call check(c_kc_queue_device(q, device), 'kc_queue_device', stat)
  end subroutine kc_queue_device

  !> kc_memcpy_async on queue `q`.
  subroutine kc_memcpy_on(q, dst, src, bytes, stat)
    type(c_ptr), intent(in) :: q, dst, src
    integer(c_size_t), intent(in) :: bytes
    integer, intent(out), optional :: stat
    call check(c_kc_memcpy_on(q, dst, src, bytes), 'kc_memcpy_on', stat)
  end subroutine kc_memcpy_on

  !> kc_memset on queue `q` (may complete later).
  subroutine kc_memset_on(q, p, value, bytes, stat)
    type(c_ptr), intent(in) :: q, p
    integer(c_int), intent(in) :: value
    integer(c_size_t), intent(in) :: bytes
    integer, intent(out), optional :: stat
    call check(c_kc_memset_on(q, p, value, bytes), 'kc_memset_on', stat)
  end subroutine kc_memset_on

  !> `p` sent to queue `q` (c_null_ptr: the default queue).
  function kc_policy_on(p, q) result(r)
    type(kc_policy), intent(in) :: p
    type(c_ptr), intent(in) :: q
    type(kc_policy) :: r
    r = c_kc_policy_on(p, q)
  end function kc_policy_on

  !> An event (unrecorded: complete).
  subroutine kc_event_create(e, stat)
    type(c_ptr), intent(out) :: e
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    e = c_null_ptr
    rc = c_kc_event_create(e)
    if (rc /= 0) e = c_null_ptr
    call check(rc, 'kc_event_create', stat)
  end subroutine kc_event_create

  subroutine kc_event_destroy(e, stat)
    type(c_ptr), intent(in) :: e
    integer, intent(out), optional :: stat
    call check(c_kc_event_destroy(e), 'kc_event_destroy', stat)
  end subroutine kc_event_destroy

  !> Records `e` after the work submitted to `q` so far.
  subroutine kc_event_record(e, q, stat)
    type(c_ptr), intent(in) :: e, q
    integer, intent(out), optional :: stat
    call check(c_kc_event_record(e, q), 'kc_event_record', stat)
  end subroutine kc_event_record

  !> `q`'s later work waits for `e` (the host does not).
  subroutine kc_event_wait(q, e, stat)
    type(c_ptr), intent(in) :: q, e
    integer, intent(out), optional :: stat
    call check(c_kc_event_wait(q, e), 'kc_event_wait', stat)
  end subroutine kc_event_wait

  !> Blocks until `e` has completed.
  subroutine kc_event_synchronize(e, stat)
    type(c_ptr), intent(in) :: e
    integer, intent(out), optional :: stat
    call check(c_kc_event_synchronize(e), 'kc_event_synchronize', stat)
  end subroutine kc_event_synchronize

  !> .true. if `e` has completed (or was never recorded); never blocks.
  logical function kc_event_query(e, stat)
    type(c_ptr), intent(in) :: e
    integer, intent(out), optional :: stat
    integer(c_int) :: rc
    rc = c_kc_event_query(e)
    kc_event_query = rc == 1
    call check(min(rc, 0_c_int), 'kc_event_query', stat)
  end function kc_event_query

  !> Milliseconds between two recorded, completed events.
  subroutine kc_event_elapsed(e0, e1, ms, stat)
    type(c_ptr), intent(in) :: e0, e1
    real(c_double), intent(out) :: ms
    integer, intent(out), optional :: stat
    ms = 0
    call check(c_kc_event_elapsed(e0, e1, ms), 'kc_event_elapsed', stat)
  end subroutine kc_event_elapsed

end module kc
