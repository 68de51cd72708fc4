/* libkc — programs built against kc 0.1.
 *
 * kc_policy grew a field at its end in 0.2 (`queue`).  A program compiled
 * against 0.1's <kc/kc.h> has the shorter struct: the policy constructors
 * return it through a buffer of the old size, and the launch calls get a
 * pointer to one.  The 0.2 functions would write past that buffer and read
 * a `queue` the program never set.  So libkc's exports are versioned
 * (libkc.map): the 0.2 functions are kc_range@@KC_0.2 and so on, and the
 * ones below are the same names @KC_0.1, taking and returning the 0.1
 * layout — which is exactly kc_launch_policy, the policy as plugins see it
 * (tests/t-abi.c holds the layouts).  A program linked against 0.1's
 * unversioned libkc.so.1 binds to the KC_0.1 definitions (the dynamic
 * linker gives an unversioned reference the oldest version); one built now
 * binds to KC_0.2; dlsym gives KC_0.2.  tests/t-policy-compat.sh runs an
 * application linked the 0.1 way.
 *
 * Without a linker that takes version scripts (configure says so) this
 * file is empty and 0.1 programs must be rebuilt. */
#include <config.h>

#include <string.h>

#include "internal.h"

/* Only the shared library has versions (libtool defines PIC for it); a
 * static libkc has nothing to be compatible with. */
#if defined(KC_HAVE_SYMVER) && defined(PIC)

static kc_launch_policy to_v0(kc_policy p) {
  kc_launch_policy o;
  memcpy(&o, &p, sizeof o);
  return o;
}

/* A 0.1 policy: its fields, and the default queue. */
static const kc_policy *from_v0(const kc_launch_policy *o, kc_policy *p) {
  if (!o)
    return NULL;
  memset(p, 0, sizeof *p);
  memcpy(p, o, sizeof *o);
  return p;
}

/* kc__v0_<name> is exported as kc_<name>@KC_0.1.  GCC's symver attribute
 * where it has one: GCC's link-time optimisation drops a .symver
 * directive written in asm (a -flto build of libkc lost every KC_0.1
 * symbol), not the attribute.  Other compilers keep the directive. */
#if defined(__has_attribute)
#if __has_attribute(symver)
#define KC__V0_ATTR(name) __attribute__((symver("kc_" #name "@KC_0.1")))
#endif
#endif
#ifdef KC__V0_ATTR
#define KC__V0(name) _Static_assert(1, "versioned by attribute")
#else
#define KC__V0_ATTR(name)
#define KC__V0(name) __asm__(".symver kc__v0_" #name ",kc_" #name "@KC_0.1")
#endif

KC_API KC__V0_ATTR(range)
kc_launch_policy kc__v0_range(kc_index begin, kc_index end);
KC_API KC__V0_ATTR(range_schedule)
kc_launch_policy kc__v0_range_schedule(kc_index begin, kc_index end,
                                       kc_schedule schedule, kc_index chunk);
KC_API KC__V0_ATTR(mdrange)
kc_launch_policy kc__v0_mdrange(int rank, const kc_index *begin,
                                const kc_index *end, const kc_index *tile);
KC_API KC__V0_ATTR(team_policy)
kc_launch_policy kc__v0_team_policy(kc_index league_size, int team_size,
                                    int vector_length);
KC_API KC__V0_ATTR(parallel_for)
int kc__v0_parallel_for(const char *label, kc_kernel *kernel,
                        const kc_launch_policy *policy, const void *functor,
                        size_t functor_size);
KC_API KC__V0_ATTR(parallel_reduce)
int kc__v0_parallel_reduce(const char *label, kc_kernel *kernel,
                           const kc_launch_policy *policy, const void *functor,
                           size_t functor_size, void *result);
KC_API KC__V0_ATTR(parallel_scan)
int kc__v0_parallel_scan(const char *label, kc_kernel *kernel,
                         const kc_launch_policy *policy, const void *functor,
                         size_t functor_size, void *total);
KC_API KC__V0_ATTR(parallel_call)
int kc__v0_parallel_call(const char *label, kc_kernel *kernel,
                         const kc_launch_policy *policy, int nargs,
                         void *const *args);

KC__V0(range);
KC__V0(range_schedule);
KC__V0(mdrange);
KC__V0(team_policy);
KC__V0(parallel_for);
KC__V0(parallel_reduce);
KC__V0(parallel_scan);
KC__V0(parallel_call);

kc_launch_policy kc__v0_range(kc_index begin, kc_index end) {
  return to_v0(kc_range(begin, end));
}

kc_launch_policy kc__v0_range_schedule(kc_index begin, kc_index end,
                                       kc_schedule schedule, kc_index chunk) {
  return to_v0(kc_range_schedule(begin, end, schedule, chunk));
}

kc_launch_policy kc__v0_mdrange(int rank, const kc_index *begin,
                                const kc_index *end, const kc_index *tile) {
  return to_v0(kc_mdrange(rank, begin, end, tile));
}

kc_launch_policy kc__v0_team_policy(kc_index league_size, int team_size,
                                    int vector_length) {
  return to_v0(kc_team_policy(league_size, team_size, vector_length));
}

int kc__v0_parallel_for(const char *label, kc_kernel *kernel,
                        const kc_launch_policy *policy, const void *functor,
                        size_t functor_size) {
  kc_policy p;
  return kc_parallel_for(label, kernel, from_v0(policy, &p), functor,
                         functor_size);
}

int kc__v0_parallel_reduce(const char *label, kc_kernel *kernel,
                           const kc_launch_policy *policy, const void *functor,
                           size_t functor_size, void *result) {
  kc_policy p;
  return kc_parallel_reduce(label, kernel, from_v0(policy, &p), functor,
                            functor_size, result);
}

int kc__v0_parallel_scan(const char *label, kc_kernel *kernel,
                         const kc_launch_policy *policy, const void *functor,
                         size_t functor_size, void *total) {
  kc_policy p;
  return kc_parallel_scan(label, kernel, from_v0(policy, &p), functor,
                          functor_size, total);
}

int kc__v0_parallel_call(const char *label, kc_kernel *kernel,
                         const kc_launch_policy *policy, int nargs,
                         void *const *args) {
  kc_policy p;
  return kc_parallel_call(label, kernel, from_v0(policy, &p), nargs, args);
}

#endif /* KC_HAVE_SYMVER && PIC */
