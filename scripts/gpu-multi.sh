#!/bin/bash
# gpu-multi.sh — kc on a machine with several GPUs, in one call of the
# device tool, ending with one short table:
#
#   sh scripts/gpu-prepare.sh                                  (here, first)
#   run(command="bash scripts/gpu-multi.sh", carry=[".devcarry"],
#       kind="nvidia-h100-x2")
#
# 1. The GPUs and how they are connected (nvidia-smi topo -m).
# 2. Build (gpu-check.sh's build step) and the CUDA half of make check: on
#    this machine t-queue.cuda's every-device test (queues, allocations,
#    kernels, reductions and scans on each device, copies and events
#    between devices, the default queue between the last and the first)
#    runs on every GPU, and t-queue-devices.sh on three virtual devices
#    over them.
# 3. The queue test again with the default device the last GPU
#    (KC_DEVICE), and with two virtual devices on each GPU
#    (KC_CUDA_VIRTUAL_DEVICES), and t-for/t-reduce/t-scan on the last GPU.
# 4. compute-sanitizer memcheck over t-queue (every GPU) and a small
#    bench/devices.
# 5. bench/devices: the stream triad split over every GPU against one, and
#    copies between GPUs through kc against cuMemcpyPeerAsync.
# 6. The MPI examples with one rank per GPU, when the machine has an MPI.
# Logs go to $OUT (the device tool's output folder).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/kc-gpu-out}
export OUT
export KC_GPU_BUILD=${KC_GPU_BUILD:-/tmp/kc-gpu-build}
build=$KC_GPU_BUILD
mkdir -p "$OUT"
table=$OUT/multi.txt
: >"$table"
row() { printf '%-30s %s\n' "$1" "$2" | tee -a "$table"; }
export KC_PLUGIN_PATH=$build/plugins/cuda/.libs

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
{
  nvidia-smi -L
  nvidia-smi topo -m
} >"$OUT/topo.txt" 2>&1
cat "$OUT/topo.txt"
row GPUs "$ngpu ($(nvidia-smi --query-gpu=name --format=csv,noheader \
  2>/dev/null | sort | uniq -c | sed 's/^ *//' | tr '\n' ' '))"
link=$(awk '$1 == "GPU0" { print $3; exit }' "$OUT/topo.txt")
test -z "$link" || row "GPU0 - GPU1 link" "$link (nvidia-smi topo -m)"

# 2. Build and the CUDA half of make check.
KC_GPU_DEADLINE=${KC_GPU_DEADLINE:-300} bash "$root/scripts/gpu-check.sh" \
  build check >"$OUT/gpu-check.log" 2>&1
sed 's/^/  /' "$OUT/summary.txt" | tee -a "$table"
test -f "$build/libkc/.libs/libkc.so" || {
  echo "gpu-multi: the build failed (gpu-check.log)"
  cat "$table"
  exit 1
}
# What t-queue printed about the devices it used.
grep -h -i 'device' "$build/tests/t-queue.cuda.log" 2>/dev/null | head -n 8

# 3. The queue test on other device layouts.
run_test() { # label, env assignments..., program
  local label=$1 log
  shift
  log=$OUT/$(echo "$label" | tr -c 'a-zA-Z0-9\n' '-').log
  (cd "$build/tests" && timeout 180 env KC_BACKEND=cuda KC_TEST_TIMEOUT=120 \
    "$@") >"$log" 2>&1
  local rc=$?
  row "$label" "exit $rc"
  test $rc -eq 0 || tail -n 15 "$log"
}
last=$((ngpu > 0 ? ngpu - 1 : 0))
run_test "t-queue, KC_DEVICE=$last" KC_DEVICE=$last ./run-backend ./t-queue.cuda
run_test "t-queue, $((2 * ngpu)) virtual" \
  KC_CUDA_VIRTUAL_DEVICES=$((2 * ngpu)) ./run-backend ./t-queue.cuda
for t in t-for t-reduce t-scan t-md t-team; do
  run_test "$t, KC_DEVICE=$last" KC_DEVICE=$last ./run-backend ./$t.cuda
done

# 4. memcheck over the multi-device test and a small bench/devices.
san() { # label, dir, program...
  local label=$1 dir=$2 log
  shift 2
  log=$OUT/memcheck-$(echo "$label" | tr -c 'a-zA-Z0-9\n' '-').log
  (cd "$dir" && KC_BACKEND=cuda KC_TEST_SCALE=50 KC_TEST_SANITIZER=1 \
    KC_TEST_TIMEOUT=240 timeout 300 compute-sanitizer --tool memcheck \
    --error-exitcode 86 --print-limit 20 "$@") >"$log" 2>&1
  local rc=$? errs
  errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$log" |
    awk '{ n += $1 } END { print n + 0 }')
  row "memcheck $label" "exit $rc, $errs reports"
  test $rc -eq 0 || grep -E '^========= (Invalid|Program hit)|FAIL' "$log" |
    head -n 10
}
san t-queue "$build/tests" ./run-backend ./t-queue.cuda
san "bench/devices (small)" "$build/bench" ./devices --reps 1 --n 2^20 \
  --bytes 4M

# 5. The benchmark.
(cd "$build/bench" && timeout 240 ./devices) >"$OUT/devices.log" 2>&1
rc=$?
row bench/devices "exit $rc (devices.log)"
grep -v '^CSV,' "$OUT/devices.log" | sed 's/^/  /' | tee -a "$table"

# 6. MPI, one rank per GPU: the examples' own runner (each rank's device,
# the halo modes, t-mpi-examples.cuda against the single-process results),
# then each example at a size worth timing on one rank and on one rank per
# GPU: time per step and the answer of each.
mpi_time() { # ranks, program, args...
  local np=$1 prog=$2 log
  shift 2
  log=$OUT/mpi-$prog-np$np.log
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 KC_BACKEND=cuda \
    timeout 120 mpirun --oversubscribe -np "$np" \
    "$build/examples/mpi/$prog" "$@" >"$log" 2>&1
  local rc=$?
  row "$prog -np $np $*" "exit $rc; $(sed -n \
    's/^\(time per [a-z]*\|total heat\|solution checksum\): *\([^ ]*\).*/\1 \2;/p' \
    "$log" | tr '\n' ' ')"
}
if command -v mpirun >/dev/null 2>&1 && test -x "$build/examples/mpi/heat-mpi"; then
  timeout 240 sh "$root/examples/mpi/gpu-run.sh" "$build" \
    >"$OUT/mpi-gpu.log" 2>&1
  row "mpi on cuda (gpu-run.sh)" "exit $? (mpi-gpu.log)"
  grep -E '^rank .*: device(-from)?:|^(ok|FAIL)|^PASS|^FAIL' "$OUT/mpi-gpu.log" |
    head -n 40
  for np in 1 "$ngpu"; do
    mpi_time "$np" heat-mpi -n 8192 -s 200 -bench
  done
  for np in 1 "$ngpu"; do
    mpi_time "$np" cg-mpi -n 200 -maxit 100 -bench
  done
else
  row "mpi on cuda" "not run: $(command -v mpirun >/dev/null 2>&1 &&
    echo 'MPI examples not built' || echo 'no mpirun on this machine')"
fi

echo
echo "===== gpu-multi.sh: $(nvidia-smi --query-gpu=name,driver_version \
  --format=csv,noheader 2>/dev/null | head -n 1)"
cat "$table"
