#!/bin/sh
# Symbol hygiene: every plugin exports exactly one symbol, its entry point
# kc_backend_<name> (a data object); libkc exports only kc_ / kc__ names.
# Symbols the toolchain adds on its own (sanitizer instrumentation,
# _init/_fini and the linker's section markers) and the version nodes of
# libkc/libkc.map (KC_0.1, ...) are not counted; versioned names count
# without their @version.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm (binutils) here"; exit 77; }

toolchain='^(KC_[0-9.]+|_init|_fini|_edata|_end|__bss_start|__odr_asan\..*|__asan_.*|__ubsan_.*|__tsan_.*|__sancov_.*)$'
exports() { nm -D --defined-only "$1" | awk '{ sub(/@.*/, "", $NF); print $NF }' | grep -Ev "$toolchain" | sort -u; }

fail=0
for b in $KC_TEST_BACKENDS; do
  test "$b" = serial && continue
  so=$top/plugins/$b/.libs/libkc-$b.so
  if test ! -f "$so"; then
    echo "FAIL: $so is missing"
    fail=1
    continue
  fi
  got=$(exports "$so" | tr '\n' ' ')
  if test "$got" = "kc_backend_$b "; then
    echo "ok: libkc-$b.so exports only kc_backend_$b"
  else
    echo "FAIL: libkc-$b.so exports: $got(expected only kc_backend_$b)"
    fail=1
  fi
  # The entry point is data (the ops struct), not a function.
  type=$(nm -D --defined-only "$so" | awk -v s="kc_backend_$b" '$NF == s { print $2 }' | head -n 1)
  case $type in
    D | R | d | r) ;;
    *) echo "FAIL: kc_backend_$b has symbol type '$type', expected data (D/R)"; fail=1 ;;
  esac
done

lib=$(ls "$top"/libkc/.libs/libkc.so.* 2>/dev/null | head -n 1)
if test -z "$lib"; then
  echo "FAIL: no libkc.so.* in $top/libkc/.libs"
  exit 1
fi
bad=$(exports "$lib" | grep -v '^kc_' | tr '\n' ' ')
if test -n "$bad"; then
  echo "FAIL: $lib exports names outside kc_/kc__: $bad"
  fail=1
else
  echo "ok: libkc exports $(exports "$lib" | wc -l) symbols, all kc_ / kc__"
fi
# Internal (kc__) names: only those the installed headers' inline code and
# kc-info call.  The compat definitions behind the KC_0.1 aliases
# (kc__v0_*) were once exported under their own names too.
internal=$(exports "$lib" | grep '^kc__' | tr '\n' ' ')
want="kc__chunk_buffer kc__chunk_buffer_try kc__plugin_dirs kc__plugin_list kc__team_barrier kc__team_peer kc__team_publish "
if test "$internal" = "$want"; then
  echo "ok: libkc's internal exports are the headers' and kc-info's"
else
  echo "FAIL: libkc exports internal names: $internal(expected $want)"
  fail=1
fi
# The API the headers declare is there.
for s in kc_init kc_finalize kc_malloc kc_parallel_for kc_parallel_reduce \
  kc_parallel_scan kc_mirror_create kc_kernel_register kc_backend_error \
  kc_host_launch kc_strerror kc_last_error; do
  exports "$lib" | grep -qx "$s" || { echo "FAIL: libkc does not export $s"; fail=1; }
done
# Programs built against kc 0.1 bind to the KC_0.1 versions of the calls
# whose arguments changed (libkc/compat.c).  A -flto build once lost them
# all while the default versions stayed: look for each.
if nm -D --defined-only "$lib" | grep -q '@@KC_0\.2'; then
  for s in kc_range kc_range_schedule kc_mdrange kc_team_policy \
    kc_parallel_for kc_parallel_reduce kc_parallel_scan kc_parallel_call; do
    nm -D --defined-only "$lib" | awk '{ print $NF }' | grep -qx "$s@KC_0.1" ||
      { echo "FAIL: libkc lacks $s@KC_0.1 (0.1 programs would bind to 0.2's)"; fail=1; }
  done
fi
# libkc is never unmapped (-z nodelete): a program that dlclose()d it and
# then ended a thread that had run a KC_CHUNK_BUFFER kernel crashed in the
# thread key's destructor, unmapped with it.
if command -v readelf >/dev/null 2>&1; then
  if readelf -d "$lib" | grep -q 'NODELETE'; then
    echo "ok: libkc is marked NODELETE"
  else
    echo "FAIL: libkc is not marked NODELETE (-Wl,-z,nodelete)"
    fail=1
  fi
fi
test $fail -eq 0 && echo PASS
exit $fail
