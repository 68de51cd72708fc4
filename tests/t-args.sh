#!/bin/sh
# The _ARGS kernels and one-line launches of <kc/kernel_args.h> as a user
# meets them, with gcc and clang (whichever is installed) and with the
# build's CC:
#  - a one-file program (kernels + host program in one .kc.c, the host part
#    inside #if !KC_DEVICE_PASS) built and linked by one kcc command, with
#    PTX when a PTX compiler is configured; it runs and is correct;
#  - a launch with a misspelled argument and one with a missing argument
#    are compile errors that name the problem; the same launch with every
#    argument compiles; an argument given twice is a warning;
#  - KC_CHECK_EXIT: a failed kc call (kc_free, kc_event_create) and a
#    failed kc_run_for print FILE:LINE, the call as written (NULL, not its
#    expansion) and the error, and exit
#    1, while the codes >= 0 of the other wrapped calls come back
#    unchanged (kc_event_query's 1); without it, kc_check()
#    does the same and the plain call returns its code.
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"

fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
ok() { echo "ok: $*"; }

KC_BACKEND=serial
export KC_BACKEND
KCC_INCLUDEDIR=
export KCC_INCLUDEDIR
unset KC_NVCCFLAGS KC_PTX_ARCH KCC_VERBOSE

work=$PWD/t-args.dir
rm -rf "$work"
mkdir -p "$work" || exit 99
cd "$work" || exit 99

run() { LD_LIBRARY_PATH=$KC_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$@"; }

# ------------------------------------------------------- one-file program
cat >app.kc.c <<'EOF2'
#define KC_CHECK_EXIT
#include <kc/kernel.h>

KC_FOR_ARGS(saxpy, ((float, a), (const float *, x), (float *, y)), i,
            y[i] = a * x[i] + y[i])
KC_REDUCE_SUM_ARGS(dot, ((const float *, x), (const float *, y)), i, double,
                   acc, acc += (double)x[i] * y[i])

#if !KC_DEVICE_PASS
int main(void) {
  enum { N = 1000 };
  kc_init();
  float *x, *y;
  kc_malloc((void **)&x, N * sizeof *x, KC_SPACE_MANAGED, "x");
  kc_malloc((void **)&y, N * sizeof *y, KC_SPACE_MANAGED, "y");
  for (int i = 0; i < N; i++) {
    x[i] = (float)(i % 8);
    y[i] = 1.0f;
  }
  kc_run_for(saxpy, kc_range(0, N), .a = 2.0f, .x = x, .y = y);
  double d = kc_reduce(dot, kc_range(0, N), .x = x, .y = y);
  double want = 0;
  for (int i = 0; i < N; i++)
    want += (double)(i % 8) * (2.0 * (i % 8) + 1.0);
  printf("dot %g want %g\n", d, want);
  kc_free(x);
  kc_free(y);
  kc_finalize();
  return d == want ? 0 : 1;
}
#endif
EOF2

# shellcheck disable=SC2086
if CC=$CC KC_NVCC=$KC_NVCC "$KCC" $KC_CPPFLAGS $KC_BUILD_CFLAGS -Wall -Wextra \
  -Werror -o app app.kc.c $KC_BUILD_LDFLAGS -L"$KC_LIBDIR" -lkc >build.log 2>&1; then
  if out=$(run ./app 2>&1); then
    ok "one-file program built by 'kcc -o app app.kc.c' runs: $out"
  else
    fail "one-file program: $out"
  fi
  if test -n "$KC_NVCC" && command -v "$KC_NVCC" >/dev/null 2>&1; then
    if strings app | grep -q '^\.visible \.entry saxpy__kcp'; then
      ok "its device pass compiled only the kernels (PTX embedded)"
    else
      fail "no PTX of saxpy in the one-file program"
    fi
  fi
else
  fail "kcc -o app app.kc.c failed:"
  sed 's/^/  /' build.log
fi

# ------------------------------------------------- compile-time checks
compilers=$CC
for c in gcc clang; do
  test "$c" = "$CC" || ! command -v $c >/dev/null 2>&1 ||
    compilers="$compilers $c"
done
launch() {
  sed "s|kc_run_for(saxpy, kc_range(0, N), .a = 2.0f, .x = x, .y = y)|$1|" \
    app.kc.c >bad.c
}
for c in $compilers; do
  # shellcheck disable=SC2086
  cc_try() { $c $KC_CPPFLAGS -std=c11 -Wall -Wextra -c bad.c -o bad.o >err.log 2>&1; }
  launch "kc_run_for(saxpy, kc_range(0, N), .a = 2.0f, .x = x, .y = y)"
  if cc_try && ! test -s err.log; then
    ok "$c: the full launch compiles without a warning"
  else
    fail "$c: the full launch does not compile cleanly:"
    sed 's/^/  /' err.log
  fi
  launch "kc_run_for(saxpy, kc_range(0, N), .a = 2.0f, .xx = x, .y = y)"
  if cc_try; then
    fail "$c: a misspelled argument (.xx) compiled"
  elif grep -q "xx" err.log && grep -q "kc_args_saxpy" err.log; then
    ok "$c: a misspelled argument is an error: $(grep -m1 'error' err.log)"
  else
    fail "$c: a misspelled argument fails without naming it:"
    sed 's/^/  /' err.log
  fi
  launch "kc_run_for(saxpy, kc_range(0, N), .a = 2.0f, .y = y)"
  if cc_try; then
    fail "$c: a launch missing an argument (.x) compiled"
  elif grep -q "give every argument of the kernel" err.log; then
    ok "$c: a missing argument is an error: $(grep -m1 'error' err.log)"
  else
    fail "$c: a missing argument fails for another reason:"
    sed 's/^/  /' err.log
  fi
  launch "kc_run_for(saxpy, kc_range(0, N), .a = 2.0f, .x = x, .a = 3.0f)"
  if cc_try && grep -q "warning" err.log; then
    ok "$c: an argument given twice is a warning"
  else
    fail "$c: an argument given twice (and .y missing) is not reported:"
    sed 's/^/  /' err.log
  fi
done

# ----------------------------------------------------------- KC_CHECK_EXIT
cat >chk.c <<'EOF2'
#ifdef OPT_IN
#define KC_CHECK_EXIT
#endif
#include <kc/kernel.h>

KC_FOR_ARGS(fill, ((int *, p)), i, p[i] = 1)

int main(int argc, char **argv) {
  int v[4];
  kc_init();
  if (argc == 2 && argv[1][0] == 'l')
    kc_run_for(fill, kc_range(3, 2), .p = v); /* end < begin */
#ifdef OPT_IN
  if (argc == 2 && argv[1][0] == 'e') {
    /* Wrapped like the rest: a code >= 0 comes back unchanged. */
    kc_event *e;
    kc_kernel *k;
    kc_kernel_desc d = {.struct_size = sizeof d};
    int dev;
    kc_kernel_get("fill", &k);
    kc_kernel_describe(k, &d);
    kc_queue_device(NULL, &dev);
    kc_event_create(&e);
    kc_event_record(e, NULL);
    kc_event_synchronize(e);
    double ms;
    kc_event_elapsed(e, e, &ms);
    if (kc_event_query(e) != 1)
      return 4;
    kc_event_destroy(e);
    kc_event_create(NULL);
    return 5;
  }
#endif
#ifdef OPT_IN
  kc_free(v); /* not a kc allocation */
#else
  if (kc_free(v) >= 0)
    return 3;
  kc_check(kc_free(v));
#endif
  return 0;
}
EOF2
for mode in OPT_IN PLAIN; do
  # shellcheck disable=SC2086
  if ! $CC $KC_CPPFLAGS $KC_BUILD_CFLAGS -D$mode -o chk-$mode chk.c \
    $KC_BUILD_LDFLAGS -L"$KC_LIBDIR" -lkc >err.log 2>&1; then
    fail "chk.c ($mode) does not compile:"
    sed 's/^/  /' err.log
    continue
  fi
  run ./chk-$mode >out.log 2>&1
  rc=$?
  line=$(grep -n 'kc_free(v)' chk.c | grep -v '>= 0' | head -1 | cut -d: -f1)
  test $mode = PLAIN && line=$(grep -n 'kc_check(kc_free' chk.c | cut -d: -f1)
  if test $rc -eq 1 && grep -q "^chk.c:$line: kc_.*free(v).* failed: KC_E[A-Z]* (.*): " out.log; then
    ok "$mode: a failed kc_free exits 1: $(cat out.log)"
  else
    fail "$mode: a failed kc_free: exit $rc, output:"
    sed 's/^/  /' out.log
  fi
done
# exits_1 ARG SOURCE-LINE-TEXT PATTERN WHAT: chk-OPT_IN ARG exits 1 with
# "chk.c:LINE: PATTERN", LINE being that of SOURCE-LINE-TEXT in chk.c.
exits_1() {
  run ./chk-OPT_IN "$1" >out.log 2>&1
  rc=$?
  line=$(grep -n -F "$2" chk.c | cut -d: -f1)
  if test $rc -eq 1 && grep -q "^chk.c:$line: $3" out.log; then
    ok "OPT_IN: $4: $(cat out.log)"
  else
    fail "OPT_IN: $4: exit $rc, output:"
    sed 's/^/  /' out.log
  fi
}
exits_1 launch 'kc_run_for(fill' \
  'kc_run_for(fill, ...) failed: KC_ERANGE (.*): ' 'a failed kc_run_for exits 1'
exits_1 event 'kc_event_create(NULL)' \
  'kc_event_create(NULL) failed: KC_EINVAL (.*): .*out is NULL' \
  'the event and describe calls are checked (a failed kc_event_create exits 1, naming the call as written)'

test $fails -eq 0 || exit 1
exit 0
