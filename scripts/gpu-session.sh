#!/bin/bash
# gpu-session.sh — everything that needs the GPU machine, in two calls,
# each ending with one short table:
#
#   sh scripts/gpu-prepare.sh                      (here, first)
#   run(command="bash scripts/gpu-session.sh 1", carry=[".devcarry"])
#   run(command="bash scripts/gpu-session.sh 2", carry=[".devcarry"])
#
# Part 1: build (with the Fortran binding when a gfortran-NN is there, the
#   MPI examples when an MPI is), the CUDA half of make check, the tests
#   that want root or the machine's own files (loader, setuid, pkg-config
#   without libffi.pc, kcc with hostile names, dlopen), compute-sanitizer
#   memcheck, the examples on cuda, then the Python package's tests on cuda
#   (CuPy and PyTorch interop), the Fortran tests on cuda and the MPI
#   examples on 2 ranks sharing the GPU.
# Part 2 (reuses part 1's build on a warm machine, else builds again):
#   racecheck, the Python launch overhead on the host backends at the
#   machine's core count, the MPI scaling table and bench/dispatch.
# Logs go to $OUT (the device tool's output folder).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/kc-gpu-out}
export KC_GPU_BUILD=${KC_GPU_BUILD:-/tmp/kc-gpu-build}
build=$KC_GPU_BUILD
part=${1:-1}
mkdir -p "$OUT"
table=$OUT/session.txt
: >"$table"
row() { printf '%-24s %s\n' "$1" "$2" | tee -a "$table"; }

# A Fortran compiler for configure (Ubuntu ships gfortran-NN only).
if test -z "${FC:-}"; then
  for f in gfortran $(compgen -c gfortran- 2>/dev/null | sort -V | tail -n 1); do
    if command -v "$f" >/dev/null 2>&1; then
      export FC=$f
      break
    fi
  done
fi

built() { test -f "$build/libkc/.libs/libkc.so"; }
# Counts of the PASS/FAIL/SKIP lines a make check printed.
tally() {
  local log=$1
  printf 'PASS %d FAIL %d SKIP %d' "$(grep -c '^PASS: ' "$log")" \
    "$(grep -cE '^(FAIL|ERROR): ' "$log")" "$(grep -c '^SKIP: ' "$log")"
}
tests_run() { # label, tests...
  local label=$1 log=$OUT/$1.log
  shift
  KC_TEST_TIMEOUT=120 timeout 240 make -C "$build/tests" -k check \
    TESTS="$*" >"$log" 2>&1
  row "$label" "$(tally "$log")"
  grep -E '^(FAIL|ERROR|SKIP): ' "$log" | head -n 12
  local t
  for t in $(sed -n 's/^\(FAIL\|ERROR\): \([^ ]*\).*/\2/p' "$log"); do
    {
      echo "===== $t"
      cat "$build/tests/${t%.sh}.log"
    } >>"$OUT/failures.log" 2>&1
    tail -n 25 "$build/tests/${t%.sh}.log"
  done
}
install_kc() {
  make -C "$build" install >"$OUT/install.log" 2>&1 && ldconfig
}

part1() {
  KC_GPU_DEADLINE=300 bash "$root/scripts/gpu-check.sh" build check memcheck \
    examples
  cp "$OUT/summary.txt" "$OUT/gpu-check-1.txt" 2>/dev/null
  built || return 1
  cat "$OUT/summary.txt" >>"$table"
  row "configure" "$(grep -E 'fortran binding|MPI examples' "$build/config.log" \
    "$OUT/build.log" 2>/dev/null | sed 's/.*|//' | tr -s ' ' | tr '\n' ';')"
  tests_run host-tests t-loader t-loader-files t-secure-env t-pkgconfig.sh \
    t-kcc-hostile.sh t-kcc-twins t-dlopen t-kcc.sh t-devmap

  install_kc || row install "FAILED (install.log)"
  # Python: the package from the source tree against the installed kc.
  (cd /tmp && PYTHONPATH=$root/python PKG_CONFIG_PATH=/usr/local/lib/pkgconfig \
    KC_PY_CACHE=/tmp/kc-pycache KC_BACKEND=cuda PYTHONUNBUFFERED=1 \
    timeout 240 python3 -m pytest -v -rs -p no:cacheprovider \
    "$root/python/tests") >"$OUT/pytest-cuda.log" 2>&1
  row "pytest (cuda)" "$(tail -n 1 "$OUT/pytest-cuda.log")"
  grep -E '^(FAILED|ERROR|SKIPPED)' "$OUT/pytest-cuda.log" | head -n 12
  grep -E "test_gpu_interop.py::.*(PASSED|FAILED)" "$OUT/pytest-cuda.log" | sed "s/.*:://" | head -n 8

  if test -n "${FC:-}" && test -f "$build/fortran/kc.mod"; then
    tests_run fortran t-fortran-api.cuda t-fortran-examples.cuda \
      t-fortran-bind.sh
  else
    row fortran "not built (FC=${FC:-none})"
  fi
  if command -v mpirun >/dev/null 2>&1 && test -x "$build/examples/mpi/heat-mpi"; then
    timeout 240 sh "$root/examples/mpi/gpu-run.sh" "$build" \
      >"$OUT/mpi-gpu.log" 2>&1
    row "mpi on cuda" "exit $? (mpi-gpu.log)"
    tail -n 15 "$OUT/mpi-gpu.log"
  else
    row "mpi on cuda" "not run: $(command -v mpirun >/dev/null 2>&1 &&
      echo 'MPI examples not built' || echo 'no mpirun on this machine')"
  fi
}

part2() {
  if ! built; then
    KC_GPU_DEADLINE=200 bash "$root/scripts/gpu-check.sh" build || return 1
    install_kc
  fi
  KC_GPU_DEADLINE=200 bash "$root/scripts/gpu-check.sh" racecheck
  cat "$OUT/summary.txt" >>"$table"
  tests_run fortran-bind t-fortran-bind.sh
  # memcheck again over the programs whose compute-sanitizer run ended
  # with SIGSEGV and no report in part 1: is it reproducible?
  local i t ok=0 bad=0
  for i in 1 2 3; do
    for t in cuda-model heat cg; do
      if test $t = cuda-model; then
        (cd "$build/tests" && KC_TEST_SCALE=50 KC_TEST_SANITIZER=1 \
          KC_BACKEND=cuda timeout 120 compute-sanitizer --tool memcheck \
          --error-exitcode 86 ./run-backend ./cuda-model.cuda)
      else
        (cd "$build/examples" && KC_BACKEND=cuda \
          KC_PLUGIN_PATH="$build/plugins/cuda/.libs" timeout 120 \
          compute-sanitizer --tool memcheck --error-exitcode 86 ./$t -n 16)
      fi >>"$OUT/memretry.log" 2>&1
      local rc=$?
      echo "--- $t run $i: exit $rc" >>"$OUT/memretry.log"
      if test $rc -eq 0; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
    done
  done
  row "memcheck again" "$ok clean, $bad not ($(grep -c 'exit 139' "$OUT/memretry.log") SIGSEGV)"
  local b
  for b in threads openmp serial; do
    (cd /tmp && PYTHONPATH=$root/python PKG_CONFIG_PATH=/usr/local/lib/pkgconfig \
      KC_PY_CACHE=/tmp/kc-pycache KC_BACKEND=$b timeout 120 \
      python3 "$root/python/bench_launch.py" 20000) >"$OUT/pybench-$b.log" 2>&1
    row "python launch ($b)" "$(grep -E '^Python k.for_' "$OUT/pybench-$b.log" |
      awk '{print $(NF-1) " us/launch, " $NF " us over C"}')"
    grep -E '^C \(' "$OUT/pybench-$b.log"
  done
  (cd "$build/bench" && KC_BACKEND=threads KC_PLUGIN_PATH="$build/plugins/threads/.libs" \
    timeout 120 ./dispatch) >"$OUT/dispatch.log" 2>&1
  row "bench/dispatch" "exit $? (dispatch.log)"
  if command -v mpirun >/dev/null 2>&1 && test -x "$build/examples/mpi/heat-mpi"; then
    timeout 200 sh "$root/examples/mpi/scaling.sh" "$build" \
      >"$OUT/mpi-scaling.log" 2>&1
    row "mpi scaling" "exit $? (mpi-scaling.log)"
    tail -n 14 "$OUT/mpi-scaling.log"
  else
    row "mpi scaling" "not run: no mpirun or MPI examples on this machine"
  fi
}

"part$part"
# Everything in one archive: the device tool brings back few files.
(cd "$OUT" && tar -czf "/tmp/kc-gpu-part$part.tgz" . && rm -rf ./* &&
  mv "/tmp/kc-gpu-part$part.tgz" .)
echo
echo "== gpu-session part $part: $(nvidia-smi --query-gpu=name,driver_version \
  --format=csv,noheader 2>/dev/null | head -n 1) ($SECONDS s) =="
tar -xzOf "$OUT/kc-gpu-part$part.tgz" ./session.txt
