#!/bin/sh
# tests/fuzz/run.sh — build kc's fuzz targets with clang's libFuzzer and run
# each for a bounded time.
#
#     sh tests/fuzz/run.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR is a configured kc build tree (its config.h, include/kc/version.h
# and Makefile's FFI flags are used; `make` need not have run).  libkc's
# sources are compiled once with -fsanitize=fuzzer-no-link,address,undefined
# into OUT_DIR/libkc-fuzz.a, so that a target can call any internal kc__
# function; each target tests/fuzz/<name>.c of TARGETS below is linked with
# it as OUT_DIR/<name> and run on a copy of its seed corpus
# tests/fuzz/corpus/<name>/ (if any) for its share of the time.
#
# Adding a target: write tests/fuzz/fuzz-<what>.c defining
# LLVMFuzzerTestOneInput, add its name to TARGETS (one line), and commit a
# few tiny seed inputs under tests/fuzz/corpus/fuzz-<what>/.
#
# Environment:
#   CLANG                 the compiler (default clang)
#   KC_FUZZ_SECONDS       time for all targets together (default 60)
#   KC_FUZZ_TARGETS       run only these targets (default: all of TARGETS)
#
# Exit status: 0 every target ran without a finding; 1 a target crashed,
# leaked, hung or failed to build (the reproducer is left in OUT_DIR and
# its log shown); 77 clang or its libFuzzer runtime is missing here (the
# reason is printed).

TARGETS="
fuzz-elf
fuzz-backend-list
fuzz-plugin-path
fuzz-tools-libs
"

set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${1:?usage: run.sh BUILD_DIR OUT_DIR}
out=${2:?usage: run.sh BUILD_DIR OUT_DIR}
CLANG=${CLANG:-clang}
total=${KC_FUZZ_SECONDS:-60}
targets=${KC_FUZZ_TARGETS:-$TARGETS}
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined"
flags="$flags -fno-sanitize-recover=all"

skip() {
  echo "SKIP: $*"
  exit 77
}

command -v "$CLANG" >/dev/null 2>&1 ||
  skip "no $CLANG here (install clang to fuzz)"
test -f "$build/config.h" ||
  { echo "ERROR: $build/config.h is missing: configure kc there first"; exit 1; }
mkdir -p "$out" || exit 1
build=$(cd "$build" && pwd)
out=$(cd "$out" && pwd)

# The runtime: clang installs libFuzzer separately on some systems
# (Debian/Ubuntu: libclang-rt-<version>-dev).
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n);\n' \
  >"$out/probe.c"
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) {\n' \
  >>"$out/probe.c"
printf '  return (int)(d && n && 0);\n}\n' >>"$out/probe.c"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined "$out/probe.c" \
  -o "$out/probe" >"$out/probe.log" 2>&1; then
  ver=$("$CLANG" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' |
    head -n 1)
  skip "$CLANG cannot link with -fsanitize=fuzzer (libFuzzer's runtime" \
    "is missing; on Debian/Ubuntu: apt-get install libclang-rt-$ver-dev):" \
    "$(head -n 3 "$out/probe.log")"
fi

ffi_cflags=$(sed -n 's/^FFI_CFLAGS = //p' "$build/Makefile" | head -n 1)
ffi_libs=$(sed -n 's/^FFI_LIBS = //p' "$build/Makefile" | head -n 1)
cppflags="-I$build -I$src/include -I$build/include -I$src/libkc"

# libkc, instrumented, as one archive.
echo "fuzz: compiling libkc with $CLANG ($flags)"
rm -f "$out/libkc-fuzz.a"
objs=
running=0
for f in "$src"/libkc/*.c; do
  o=$out/libkc-$(basename "$f" .c).o
  rm -f "$o"
  # Two compilers at a time (CI machines have two cores).
  # shellcheck disable=SC2086
  "$CLANG" $flags -fsanitize=fuzzer-no-link -pthread $cppflags $ffi_cflags \
    -DKC_PLUGINDIR='"/nonexistent-kc-fuzz"' -c "$f" -o "$o" 2>"$o.log" &
  running=$((running + 1))
  if test $running -ge 2; then
    wait
    running=0
  fi
  objs="$objs $o"
done
wait
for o in $objs; do
  test -f "$o" || {
    echo "FAIL: compiling libkc/$(basename "$o" .o | sed 's/^libkc-//').c:"
    cat "$o.log"
    exit 1
  }
done
# shellcheck disable=SC2086
ar rcs "$out/libkc-fuzz.a" $objs || exit 1

# shellcheck disable=SC2086
set -- $targets
n=$#
test "$n" -gt 0 || { echo "no fuzz target"; exit 1; }
each=$((total / n))
test "$each" -ge 1 || each=1
fail=0
for t in "$@"; do
  echo "fuzz: $t: building"
  # shellcheck disable=SC2086
  "$CLANG" $flags -fsanitize=fuzzer -pthread $cppflags $ffi_cflags \
    "$here/$t.c" "$out/libkc-fuzz.a" $ffi_libs -ldl -lpthread -lm \
    -o "$out/$t" 2>"$out/$t.build.log" || {
    echo "FAIL: $t does not build:"
    cat "$out/$t.build.log"
    fail=1
    continue
  }
  # A fresh working corpus from the committed seeds.
  rm -rf "$out/$t.corpus"
  mkdir -p "$out/$t.corpus" "$out/$t.crashes"
  if test -d "$here/corpus/$t"; then
    cp "$here/corpus/$t"/* "$out/$t.corpus/" 2>/dev/null
  fi
  echo "fuzz: $t: running for ${each}s"
  if (cd "$out/$t.crashes" &&
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$out/$t" -max_total_time="$each" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 "$out/$t.corpus") \
    >"$out/$t.log" 2>&1; then
    echo "ok: $t: $(grep -E '^stat::number_of_executed_units' "$out/$t.log" |
      sed 's/.*: *//') inputs, corpus $(ls "$out/$t.corpus" | wc -l) files"
  else
    echo "FAIL: $t found a problem; reproducer(s) in $out/$t.crashes:"
    ls "$out/$t.crashes"
    tail -n 60 "$out/$t.log"
    fail=1
  fi
done
exit $fail
