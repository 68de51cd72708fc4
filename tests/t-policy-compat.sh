#!/bin/sh
# Programs built against kc 0.1 run unchanged on this libkc (libkc/compat.c):
# tests/fixtures/policy-v0-app.c, which uses 0.1's kc_policy layout, is
# linked the way a 0.1 program was — against a libkc.so.1 without symbol
# versions (a stub with libkc's names and soname, made here) — and then run
# against the real libkc of this build.  Before the versioned exports, the
# constructors wrote past its policies and the launches refused them (a
# stray `queue`).
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"

lib=$(ls "$KC_LIBDIR"/libkc.so.* 2>/dev/null | head -n 1)
test -n "$lib" || { echo "FAIL: no libkc.so.* in $KC_LIBDIR"; exit 99; }
command -v readelf >/dev/null 2>&1 || { echo "SKIP: no readelf (binutils) here"; exit 77; }
if ! readelf -W -V "$lib" | grep -q 'KC_0\.1'; then
  echo "SKIP: this libkc has no symbol versions (configure: the linker took no version script), so 0.1 programs must be rebuilt"
  exit 77
fi
soname=$(readelf -W -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
test -n "$soname" || { echo "FAIL: $lib has no SONAME"; exit 1; }

work=$PWD/t-policy-compat.dir
rm -rf "$work"
mkdir -p "$work/stub" || exit 99

# The stub: every function libkc defines, no versions, libkc's soname.
${NM:-nm} -D --defined-only "$lib" |
  awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u |
  sed 's/.*/void &(void) {}/' >"$work/stub/stub.c"
# shellcheck disable=SC2086
$CC -shared -fPIC -o "$work/stub/libkc.so" -Wl,-soname,"$soname" \
  "$work/stub/stub.c" || { echo "FAIL: building the stub libkc"; exit 99; }
# shellcheck disable=SC2086
$CC $KC_CPPFLAGS $KC_BUILD_CFLAGS -o "$work/app" \
  "$KC_TEST_SRCDIR/fixtures/policy-v0-app.c" $KC_BUILD_LDFLAGS -L"$work/stub" -lkc ||
  { echo "FAIL: building the 0.1-style program"; exit 99; }

# Its references to libkc carry no version, as a 0.1 program's do.
if readelf -W --dyn-syms "$work/app" | grep -q 'kc_range@'; then
  echo "FAIL: the test program's kc_range reference is versioned:"
  readelf -W --dyn-syms "$work/app" | grep 'kc_range'
  exit 99
fi
echo "ok: the program's libkc references are unversioned, like a 0.1 program's"

LD_LIBRARY_PATH=$KC_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$work/app"
rc=$?
test $rc -eq 0 && rm -rf "$work"
exit $rc
