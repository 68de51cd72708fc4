#!/bin/sh
# Every public header meant to be included on its own (kernel_args.h
# comes through kernel.h) compiles alone as strict ISO C (c99 and c11,
# -pedantic, no feature macros) and as C++: a plugin author's
# `gcc -std=c11` once failed on <kc/backend.h> ("unknown type name
# 'sigset_t'": a POSIX type in a public prototype; packager review,
# 2026-11-27).
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"
dir=${TMPDIR:-/tmp}/kc-t-headers.$$
mkdir -p "$dir" || exit 99
trap 'rm -rf "$dir"' EXIT
fail=0
for h in kc.h kernel.h backend.h atomic.h error.h version.h; do
  printf '#include <kc/%s>\nint kc_t_headers_%s;\n' "$h" "$(echo "$h" | tr . _)" >"$dir/t.c"
  for std in c99 c11; do
    # shellcheck disable=SC2086
    if $CC $KC_CPPFLAGS -std=$std -pedantic -Wall -Wextra -Werror -c "$dir/t.c" \
      -o "$dir/t.o" >"$dir/err" 2>&1; then
      echo "ok: <kc/$h> as $std"
    else
      echo "FAIL: <kc/$h> as -std=$std -pedantic:"
      sed 's/^/    /' "$dir/err" | head -n 10
      fail=1
    fi
  done
  if command -v c++ >/dev/null 2>&1 && test "$h" != kernel.h; then
    cp "$dir/t.c" "$dir/t.cc"
    # shellcheck disable=SC2086
    if c++ $KC_CPPFLAGS -std=c++11 -Wall -Werror -c "$dir/t.cc" -o "$dir/t.o" \
      >"$dir/err" 2>&1; then
      echo "ok: <kc/$h> as C++11"
    else
      echo "FAIL: <kc/$h> as C++11:"
      sed 's/^/    /' "$dir/err" | head -n 10
      fail=1
    fi
  fi
done
# Kernel definitions too.  Kernel files are C11 (built-in reductions use
# _Generic); a for kernel also compiles as C99 with GNU compilers, as it
# did before every kernel macro began with the name check (a C11
# _Static_assert, which made each kernel file an error under -std=gnu99
# -pedantic -Werror).
cat >"$dir/k99.c" <<'EOF'
#include <kc/kernel.h>
typedef struct { double *x; } k_f;
KC_FOR(k_fill, k_f, f, i, f->x[i] = 1.0)
KC_FOR_ARGS(k_axpy, ((double, a), (const double *, x), (double *, y)), i,
            y[i] += a * x[i])
EOF
{
  cat "$dir/k99.c"
  echo 'KC_REDUCE_SUM(k_sum, k_f, f, i, double, acc, acc += f->x[i])'
  echo 'KC_TEAM(k_team, k_f, f, t, (void)f)'
} >"$dir/k11.c"
for std in c99 gnu99 c11 gnu11; do
  case $std in *99) k=k99 ;; *) k=k11 ;; esac
  # shellcheck disable=SC2086
  if $CC $KC_CPPFLAGS -std=$std -pedantic -Wall -Wextra -Werror -c "$dir/$k.c" \
    -o "$dir/k.o" >"$dir/err" 2>&1; then
    echo "ok: kernel definitions ($k.c) as $std -pedantic"
  else
    echo "FAIL: kernel definitions ($k.c) as -std=$std -pedantic:"
    sed 's/^/    /' "$dir/err" | head -n 10
    fail=1
  fi
done
test $fail -eq 0 && echo PASS
exit $fail
