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
# compiles OK FAILED FILE FLAGS...: compiles FILE with FLAGS and prints
# "ok: OK", or "FAIL: FAILED:" and the first errors.
compiles() {
  ok=$1 failed=$2 src=$3
  shift 3
  # shellcheck disable=SC2086
  if "$@" $KC_CPPFLAGS -Wall -Werror -c "$src" -o "$dir/t.o" >"$dir/err" 2>&1; then
    echo "ok: $ok"
  else
    echo "FAIL: $failed:"
    sed 's/^/    /' "$dir/err" | head -n 10
    fail=1
  fi
}
for h in kc.h kernel.h backend.h atomic.h error.h version.h; do
  printf '#include <kc/%s>\nint kc_t_headers_%s;\n' "$h" "$(echo "$h" | tr . _)" >"$dir/t.c"
  for std in c99 c11; do
    # shellcheck disable=SC2086
    compiles "<kc/$h> as $std" "<kc/$h> as -std=$std -pedantic" "$dir/t.c" \
      $CC -std=$std -pedantic -Wextra
  done
  if command -v c++ >/dev/null 2>&1 && test "$h" != kernel.h; then
    cp "$dir/t.c" "$dir/t.cc"
    compiles "<kc/$h> as C++11" "<kc/$h> as C++11" "$dir/t.cc" c++ -std=c++11
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
# With clang too where there is one (the kernel-name check is a GNU
# builtin in a static assertion, which both must take in every mode).
ccs=$CC
if command -v clang >/dev/null 2>&1 && test "$CC" != clang; then
  ccs="$CC clang"
fi
for cc in $ccs; do
  for std in c99 gnu99 c11 gnu11; do
    case $std in *99) k=k99 ;; *) k=k11 ;; esac
    # shellcheck disable=SC2086
    compiles "kernel definitions ($k.c) as $std -pedantic ($cc)" \
      "kernel definitions ($k.c) as -std=$std -pedantic ($cc)" "$dir/$k.c" \
      $cc -std=$std -pedantic -Wextra
  done
done
test $fail -eq 0 && echo PASS
exit $fail
