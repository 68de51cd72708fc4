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
test $fail -eq 0 && echo PASS
exit $fail
