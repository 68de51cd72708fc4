#!/bin/bash
# gpu-check.sh — builds kc on the GPU machine and runs everything that needs
# the GPU: the whole `make check` (conformance suite on every backend,
# cuda included), the CUDA tests in each forced launch mode, compute-
# sanitizer memcheck over the CUDA tests and racecheck over the kernels
# with shared memory, the examples with KC_BACKEND=cuda, and bench/launch.
# Prints a short summary table last; logs go to $OUT (the device tool's
# output folder; /tmp/kc-gpu-out elsewhere).
#
# Prepare here first (the GPU machine has no libtool, autoconf-archive or
# libffi headers):   sh scripts/gpu-prepare.sh
# then, with the device tool, from the repository root:
#   run(command="bash scripts/gpu-check.sh", carry=[".devcarry"])
#
#   bash scripts/gpu-check.sh [STEP...]
# STEPs: build check modes bench memcheck racecheck examples (default: all,
# in that order), and fullcheck (make check on every backend).  A later call on the same (warm) machine reuses the build
# in $KC_GPU_BUILD (default /tmp/kc-gpu-build) and may name steps only.
# KC_GPU_DEADLINE (seconds, default 570) bounds the whole run: a step that
# would start too late is reported as skipped.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
carry=$root/.devcarry
OUT=${OUT:-/tmp/kc-gpu-out}
build=${KC_GPU_BUILD:-/tmp/kc-gpu-build}
deadline=$((SECONDS + ${KC_GPU_DEADLINE:-570}))
jobs=$(nproc 2>/dev/null || echo 4)
mkdir -p "$OUT"
summary=$OUT/summary.txt
: >"$summary"

steps=${*:-build check modes bench memcheck racecheck examples}
row() { printf '%-22s %s\n' "$1" "$2" | tee -a "$summary"; }
left() { echo $((deadline - SECONDS)); }
# enough SECONDS: is there time for a step that needs that long?
enough() { test "$(left)" -ge "$1"; }

# Counts of a test-suite.log's results: "PASS n FAIL n SKIP n ERROR n".
counts() {
  local log=$1
  if test ! -f "$log"; then
    echo "no test-suite.log"
    return
  fi
  local k out=
  for k in TOTAL PASS FAIL SKIP ERROR; do
    out="$out$k $(sed -n "s/^# $k: *\([0-9]*\).*/\1/p" "$log" | head -n 1) "
  done
  echo "$out"
}
# The automake driver writes one line per test into the .log of make.
results_of() { grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS): ' "$1" || true; }

device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader \
  2>/dev/null | head -n 1)
echo "gpu-check: ${device:-no nvidia-smi}; steps: $steps; $(left) s budget"

# ------------------------------------------------------------------ build
step_build() {
  local t0=$SECONDS log=$OUT/build.log
  if test ! -f "$carry/gen.tar"; then
    row build "FAILED: $carry/gen.tar missing (run sh scripts/gpu-prepare.sh)"
    return 1
  fi
  # The generated files, newer than their sources so make never tries to
  # regenerate them (no libtool here): unpack without their old times, then
  # touch them in dependency order.
  tar -xmf "$carry/gen.tar" -C "$root"
  touch "$root/aclocal.m4"
  sleep 1
  touch "$root/configure" "$root/config.h.in"
  find "$root" -name Makefile.in -not -path '*/.git/*' -exec touch {} +
  # libffi: the system's libffi.so.8 under the name the linker wants.
  local ffi
  ffi=$(ls /usr/lib/x86_64-linux-gnu/libffi.so.8* /usr/lib64/libffi.so.8* \
    2>/dev/null | head -n 1)
  mkdir -p "$carry/ffi/lib"
  ln -sf "$ffi" "$carry/ffi/lib/libffi.so"
  rm -rf "$build"
  mkdir -p "$build"
  (cd "$build" && "$root/configure" --enable-werror \
    FFI_CFLAGS="-I$carry/ffi/include" \
    FFI_LIBS="-L$carry/ffi/lib -Wl,-rpath,$carry/ffi/lib -lffi") \
    >"$log" 2>&1 || {
    row build "FAILED: configure (build.log)"
    tail -n 30 "$log"
    return 1
  }
  # -k: a directory another engineer is still writing must not stop the
  # rest; what matters is checked below.
  local note=ok
  if ! make -C "$build" -k -j"$jobs" >>"$log" 2>&1; then
    note="ok, but make -k reported errors (build.log)"
    grep -E ' error|Error [0-9]|No rule' "$log" | head -n 10
  fi
  if test ! -f "$build/libkc/.libs/libkc.so" ||
    test ! -f "$build/plugins/cuda/.libs/libkc-cuda.so"; then
    row build "FAILED: libkc or the CUDA plugin did not build (build.log)"
    return 1
  fi
  # The test programs too, so `check` times the tests alone.
  make -C "$build/tests" -k -j"$jobs" check TESTS= >>"$log" 2>&1
  row build "$note ($((SECONDS - t0)) s; nvcc $(nvcc --version 2>/dev/null |
    sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
}

# ------------------------------------------------------------ make check
# `check`: the CUDA half of make check (every *.cuda test and cuda-probe);
# `fullcheck`: all of make check, every backend (the host backends run on
# CI too, so it is not a default step).
run_check() {
  local label=$1 t0=$SECONDS
  shift
  enough 90 || { row "$label" "skipped: out of time"; return; }
  KC_TEST_TIMEOUT=${KC_TEST_TIMEOUT:-90} timeout $(($(left) - 45)) \
    make -C "$build/tests" -j"$jobs" -k check "$@" >"$build/check-make.log" 2>&1
  cp "$build/tests/test-suite.log" "$OUT/check-suite.log" 2>/dev/null
  row "$label" "$(counts "$build/tests/test-suite.log") ($((SECONDS - t0)) s)"
  results_of "$build/check-make.log" | grep -E '^(FAIL|ERROR)' | head -n 30
}
step_check() {
  run_check "make check (cuda)" TESTS="$(cuda_tests) cuda-probe t-queue-devices.sh t-for-grids.sh t-scan-passes.sh t-reduce-waves.sh"
  # Every CUDA test's own log (what passing tests printed too).
  mkdir -p "$OUT/cuda-logs"
  cp "$build"/tests/*.cuda.log "$OUT/cuda-logs/" 2>/dev/null
}
step_fullcheck() { run_check "make check (all)"; }

# The CUDA tests of the suite (conformance *.cuda stubs and cuda-*.cuda).
cuda_tests() {
  (cd "$build/tests" && make -s -f Makefile -f - print-tests <<'EOF' 2>/dev/null
print-tests:
	@echo $(filter %.cuda,$(TESTS))
EOF
  )
}

# ------------------------------------------- each forced launch mode
step_modes() {
  local tests m t0
  # The profiling-hook tests do not depend on the launch mode.
  tests=$(for t in $(cuda_tests); do
    case $t in tools-*) ;; *) echo "$t" ;; esac
  done)
  : >"$OUT/modes.log"
  for m in param constant global; do
    enough 60 || { row "mode $m" "skipped: out of time"; continue; }
    t0=$SECONDS
    KC_CUDA_LAUNCH=$m KC_TEST_TIMEOUT=120 timeout $(($(left) - 30)) \
      make -C "$build/tests" -j"$jobs" -k check TESTS="$tests" \
      >"$OUT/mode-$m.tmp" 2>&1
    {
      echo "===== KC_CUDA_LAUNCH=$m"
      results_of "$OUT/mode-$m.tmp"
      grep -A30 -E '^(FAIL|ERROR): ' "$build/tests/test-suite.log" | head -n 80
    } >>"$OUT/modes.log"
    row "mode $m" "$(counts "$build/tests/test-suite.log") ($((SECONDS - t0)) s)"
    rm -f "$OUT/mode-$m.tmp"
  done
}

# ---------------------------------------------------- compute-sanitizer
# sanitize TOOL BUDGET TESTS [EXAMPLES]: compute-sanitizer over the named
# tests (names without .cuda) and examples ("name args", ';'-separated),
# each with KC_TEST_SCALE=50 and KC_TEST_SANITIZER=1 (tests skip their
# deliberate races then).
sanitize() {
  local tool=$1 budget=$2 filter t0=$SECONDS
  filter=$(echo $3)
  local exlist=${4:-}
  local n=0 bad=0 t name apis='' ex retried='' try
  echo "===== compute-sanitizer --tool $tool" >>"$OUT/sanitizer.log"
  # Each entry: a test stub, or "@example args".
  local -a entries=() exs=()
  for t in $(cuda_tests); do
    name=${t%.cuda}
    case $name in cuda-fault | cuda-fault-reduce | cuda-fault-scan | tools-*) continue ;; esac # faults on purpose
    if test -n "$filter"; then
      case " $filter " in *" $name "*) ;; *) continue ;; esac
    fi
    entries+=("$t")
  done
  IFS=';' read -r -a exs <<<"$exlist"
  for ex in "${exs[@]}"; do
    ex=$(echo $ex)
    test -z "$ex" || entries+=("@$ex")
  done
  for t in "${entries[@]}"; do
    name=${t%.cuda}
    enough "$budget" || { echo "$name: skipped, out of time" >>"$OUT/sanitizer.log"; continue; }
    n=$((n + 1))
    # compute-sanitizer itself sometimes dies of SIGSEGV (exit 139) with no
    # summary: on the H100 machine (driver 580.159, CUDA 13.0, 2026-11-26)
    # in 5 of 12 t-examples runs, with kc builds of before and after that
    # day's changes alike, and t-init, t-reduce, t-team once each on a
    # loaded host.  Such a run says nothing about the program; it is run
    # again once, and the summary row names it.
    for try in 1 2; do
      case $t in
        @*)
          ex=${t#@}
          # shellcheck disable=SC2086
          (cd "$build/examples" && KC_BACKEND=cuda \
            KC_PLUGIN_PATH="$build/plugins/cuda/.libs" \
            timeout $(($(left) - 20)) compute-sanitizer --tool "$tool" \
            --error-exitcode 86 --print-limit 20 ./$ex) >"$OUT/san.tmp" 2>&1
          ;;
        *)
          (cd "$build/tests" && KC_TEST_SCALE=50 KC_TEST_TIMEOUT=200 \
            KC_TEST_SANITIZER=1 timeout $(($(left) - 20)) \
            compute-sanitizer --tool "$tool" \
            --error-exitcode 86 --print-limit 20 ./run-backend "./$t") \
            >"$OUT/san.tmp" 2>&1
          ;;
      esac
      local rc=$?
      if test $try = 1 && test $rc -ge 128 &&
        ! grep -q -E '^========= (ERROR|RACECHECK) SUMMARY' "$OUT/san.tmp"; then
        echo "--- $t: exit $rc with no summary from compute-sanitizer; run again" >>"$OUT/sanitizer.log"
        retried="$retried $name"
        continue
      fi
      break
    done
    # Memory errors and races, apart from API errors (a test's deliberate
    # out-of-memory or broken PTX makes the driver return an error, which
    # compute-sanitizer reports too).
    local mem api total
    api=$(grep -c '^========= Program hit ' "$OUT/san.tmp")
    if test "$tool" = racecheck; then
      mem=$(sed -n 's/.*RACECHECK SUMMARY:.*(\([0-9]*\) errors*, \([0-9]*\) warning.*/\1 \2/p' \
        "$OUT/san.tmp" | awk '{ n += $1 + $2 } END { print n + 0 }')
    else
      total=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$OUT/san.tmp" |
        awk '{ n += $1 } END { print n + 0 }')
      mem=$((total - api))
      test "$mem" -ge 0 || mem=0
    fi
    {
      echo "--- $t: exit $rc, $mem memory/race reports, $api API errors"
      grep -E '^========= (Program hit|Invalid|Race|Error|Warning|ERROR SUMMARY|RACECHECK SUMMARY)|^(FAIL|PASS|SKIP)' \
        "$OUT/san.tmp" | sort | uniq -c | head -n 40
    } >>"$OUT/sanitizer.log"
    if test "$mem" -ne 0 || { test $rc -ne 0 && test $rc -ne 77 && test $rc -ne 86; }; then
      bad=$((bad + 1))
      echo "$tool: $t exit $rc, $mem memory/race reports"
      grep -E '^========= (Invalid|Race)|FAIL' "$OUT/san.tmp" | head -n 8
    fi
    if test "$api" -ne 0; then
      apis="$apis $name($api)"
    fi
  done
  rm -f "$OUT/san.tmp"
  row "$tool" "$n programs, $bad with memory errors or failures ($((SECONDS - t0)) s)"
  test -z "$apis" || row "" "  API errors reported (deliberate in those tests):$apis"
  test -z "$retried" || row "" "  run twice (compute-sanitizer died with no summary the first time):$retried"
}
# The lists can be replaced: KC_GPU_MEMCHECK / KC_GPU_RACECHECK (tests),
# KC_GPU_SAN_EXAMPLES (examples with their arguments, ';'-separated).
san_examples=${KC_GPU_SAN_EXAMPLES-cg -n 12; heat -n 16}
step_memcheck() {
  sanitize memcheck 45 "${KC_GPU_MEMCHECK-t-init t-for t-reduce t-scan t-custom
    t-memory t-mirror t-errors t-kcc-kernels t-ffi t-examples cuda-launch
    cuda-jit t-md t-team t-atomic t-chunkbuf cuda-model t-queue cuda-tune}" \
    "$san_examples"
}
step_racecheck() {
  sanitize racecheck 45 "${KC_GPU_RACECHECK-t-reduce t-scan t-custom
    cuda-launch t-md t-team cuda-model t-queue}" "$san_examples"
}

# --------------------------------------------------------------- examples
step_examples() {
  enough 30 || { row examples "skipped: out of time"; return; }
  local n=0 bad=0 f refused=''
  : >"$OUT/examples.log"
  for f in "$build"/examples/*; do
    test -f "$f" && test -x "$f" || continue
    case $f in *.o | *.la | *.lo | *.sh | */Makefile) continue ;; esac
    n=$((n + 1))
    echo "===== KC_BACKEND=cuda $(basename "$f")" >>"$OUT/examples.log"
    KC_BACKEND=cuda KC_PLUGIN_PATH="$build/plugins/cuda/.libs" \
      timeout 60 "$f" >"$OUT/example.tmp" 2>&1
    local rc=$?
    cat "$OUT/example.tmp" >>"$OUT/examples.log"
    echo "exit $rc" >>"$OUT/examples.log"
    # saxpy's kernel is host-only on purpose (the example needs no PTX
    # compiler); it refuses cuda by name, as documented.
    if test $rc -ne 0 &&
      grep -q "cannot run this example's host-only kernels" "$OUT/example.tmp"; then
      refused="$refused $(basename "$f")"
    elif test $rc -ne 0; then
      bad=$((bad + 1))
    fi
  done
  rm -f "$OUT/example.tmp"
  row examples "$n run with KC_BACKEND=cuda, $bad failed${refused:+ (host-only, refused as documented:$refused)}"
  # The model examples at a size worth timing, on the GPU and on the host
  # (OpenMP over the machine's cores): answers side by side.
  local args
  for args in "cg -n 100" "heat"; do
    enough 30 || break
    for be in cuda openmp; do
      echo "===== KC_BACKEND=$be $args" >>"$OUT/examples.log"
      # shellcheck disable=SC2086
      KC_BACKEND=$be KC_PLUGIN_PATH="$build/plugins/$be/.libs" \
        timeout 60 "$build"/examples/$args >>"$OUT/examples.log" 2>&1
      echo "exit $?" >>"$OUT/examples.log"
    done
  done
}

# ------------------------------------------------------------------ bench
step_bench() {
  enough 45 || { row bench/launch "skipped: out of time"; return; }
  (cd "$build/bench" && KC_PLUGIN_PATH="$build/plugins/cuda/.libs" \
    timeout $(($(left) - 10)) ./launch --csv "$OUT/launch.csv") \
    >"$OUT/launch.log" 2>&1
  local rc=$?
  row bench/launch "exit $rc (launch.log, launch.csv)"
  enough 30 || { row bench/queues "skipped: out of time"; return; }
  (cd "$build/bench" && KC_PLUGIN_PATH="$build/plugins/cuda/.libs" \
    timeout $(($(left) - 10)) ./queues) >"$OUT/queues.log" 2>&1
  rc=$?
  row bench/queues "exit $rc (queues.log)"
  tail -n 5 "$OUT/queues.log" | tee -a "$summary"
}

failed=0
for s in $steps; do
  if ! "step_$s"; then
    failed=1
    test "$s" = build && break
  fi
done

if test -f "$OUT/launch.log"; then
  echo
  sed -n '/^kc launch latency/,$p' "$OUT/launch.log"
  grep -E '^SKIP|failed' "$OUT/launch.log"
fi
if test -f "$OUT/examples.log"; then
  echo
  awk '/^===== /{keep = ($3 ~ /^(cg|heat)$/)} keep' "$OUT/examples.log" |
    grep -E '^=====|^(backend|grid|iterations|steps|residual|solution|total heat|time per|bandwidth|exit|cg|heat)' |
    head -n 80
fi
echo
echo "== gpu-check summary: ${device:-?} ($SECONDS s) =="
cat "$summary"
exit $failed
