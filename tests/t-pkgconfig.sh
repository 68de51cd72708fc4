#!/bin/sh
# kc.pc and kc-uninstalled.pc work on a machine where only kc's .pc files
# are known: compiling against kc needs nothing but kc's headers, so
# `pkg-config --exists kc`, `--cflags kc` and `--libs kc` must not ask for
# the .pc file of a library libkc links privately (libffi's is missing on
# many machines that have libffi itself).  A static link still gets those
# libraries, as flags (`--libs --static` lists -lffi).
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
src=${KC_TEST_TOP_SRCDIR:?run me through tests/run-backend}
pc=${PKG_CONFIG:-pkg-config}
command -v "$pc" >/dev/null 2>&1 || {
  echo "SKIP: no $pc here (Debian: apt-get install pkgconf)"
  exit 77
}
tmp=${TMPDIR:-/tmp}/kc-t-pkgconfig.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/installed" "$tmp/uninstalled" || exit 99
cp "$top/kc.pc" "$tmp/installed/" &&
  cp "$top/kc-uninstalled.pc" "$tmp/uninstalled/" || exit 99

fail=0
# Runs pkg-config with a search path that holds only the directory $1.
only() {
  dir=$1
  shift
  env -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR="$dir" \
    PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 "$pc" "$@"
}
# expect DIR WANTED-OUTPUT-PATTERN PKG-CONFIG-ARGS...
expect() {
  dir=$1 want=$2
  shift 2
  if ! got=$(only "$dir" "$@" 2>&1); then
    echo "FAIL: $pc $* with only $(ls "$dir") on its path: $got"
    fail=1
    return
  fi
  # shellcheck disable=SC2254
  case $got in
    $want) echo "ok: $pc $* ($(ls "$dir")): $got" ;;
    *)
      echo "FAIL: $pc $* ($(ls "$dir")): '$got', expected $want"
      fail=1
      ;;
  esac
}

for d in "$tmp/installed" "$tmp/uninstalled"; do
  if only "$d" --exists kc; then
    echo "ok: $pc --exists kc ($(ls "$d"))"
  else
    echo "FAIL: $pc --exists kc with only $(ls "$d") on its path:" \
      "$(only "$d" --exists --print-errors kc 2>&1)"
    fail=1
  fi
  expect "$d" '*-lkc*' --libs kc
  expect "$d" '*-lffi*' --libs --static kc
done
expect "$tmp/installed" "-I$(only "$tmp/installed" --variable=includedir kc)*" \
  --cflags kc
expect "$tmp/uninstalled" "*-I$top/include*" --cflags kc
expect "$tmp/uninstalled" "*-I$src/include*" --cflags kc
# The shared link stays minimal: libkc.so records its own dependencies.
for d in "$tmp/installed" "$tmp/uninstalled"; do
  case $(only "$d" --libs kc) in
    *-lffi*)
      echo "FAIL: $pc --libs kc ($(ls "$d")) lists -lffi (only a static link needs it)"
      fail=1
      ;;
  esac
done
exit $fail
