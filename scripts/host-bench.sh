#!/bin/sh
# host-bench.sh — the host backends against hand-written OpenMP, in a few
# minutes: bench/dispatch (launch overhead of a tiny parallel_for, reduce,
# scan) and bench/stream (BabelStream kernels) on the threads and openmp
# backends, each run with its OpenMP baseline in the same process, in
# several interleaved rounds (threads, openmp, threads, openmp, ...), then
# one table of medians over the rounds: kc, baseline, kc / baseline (the
# median of each round's ratio).
#
#   sh scripts/host-bench.sh BUILD_DIR [-t THREADS] [-r ROUNDS] [-s ELEMENTS]
#                            [-n RUNS] [-o OUTDIR]
#
# BUILD_DIR is a configured and built tree (make; bench/dispatch and
# bench/stream exist).  Defaults: 16 threads, 5 rounds, 2^25 elements per
# array, 20 stream runs per round (BabelStream's best time of runs 2..n);
# about 2 minutes on a 16-core host, 3 on a 2-vCPU VM at -t 2.  Dispatch
# figures are microseconds per launch (lower is better; ratio = kc / OpenMP),
# stream figures GB/s (higher is better; ratio = kc / OpenMP).  Every round's
# output and CSV stay in OUTDIR (default: a new directory under /tmp).
# Exit status 1 if a benchmark failed or gave a wrong answer.
set -u

usage() {
  sed -n '10,11p' "$0" | sed 's/^# *//' >&2
  exit 2
}

[ $# -ge 1 ] || usage
build=$(cd "$1" 2>/dev/null && pwd) || usage
shift
threads=16 rounds=5 elements=33554432 runs=20 out=
while getopts t:r:s:n:o: opt; do
  case $opt in
  t) threads=$OPTARG ;;
  r) rounds=$OPTARG ;;
  s) elements=$OPTARG ;;
  n) runs=$OPTARG ;;
  o) out=$OPTARG ;;
  *) usage ;;
  esac
done
for prog in dispatch stream; do
  [ -x "$build/bench/$prog" ] || {
    echo "host-bench: $build/bench/$prog is missing: build the tree first" >&2
    exit 2
  }
done
[ -n "$out" ] || out=$(mktemp -d /tmp/kc-host-bench.XXXXXX)
mkdir -p "$out" || exit 2

# The plugins of this tree, whatever is installed; libgomp's threads stay
# unbound unless the caller set OMP_PROC_BIND / OMP_PLACES.
KC_PLUGIN_PATH=$build/plugins/threads/.libs:$build/plugins/openmp/.libs
KC_NUM_THREADS=$threads
OMP_NUM_THREADS=$threads
export KC_PLUGIN_PATH KC_NUM_THREADS OMP_NUM_THREADS

echo "host-bench: $build, $threads threads, $rounds rounds; stream" \
  "$elements elements x $runs runs; logs in $out"
echo "host-bench: $(uname -n), $(nproc) CPUs online," \
  "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
status=0
start=$(date +%s)
r=1
while [ "$r" -le "$rounds" ]; do
  for b in threads openmp; do
    KC_BACKEND=$b "$build/bench/dispatch" --outer 10 \
      --csv "$out/dispatch-$b-$r.csv" >"$out/dispatch-$b-$r.log" 2>&1 ||
      { status=1; echo "host-bench: dispatch on $b failed (round $r):" \
        "$out/dispatch-$b-$r.log" >&2; }
    KC_BACKEND=$b "$build/bench/stream" -s "$elements" -n "$runs" \
      --csv "$out/stream-$b-$r.csv" >"$out/stream-$b-$r.log" 2>&1 ||
      { status=1; echo "host-bench: stream on $b failed (round $r):" \
        "$out/stream-$b-$r.log" >&2; }
  done
  echo "host-bench: round $r of $rounds done ($(($(date +%s) - start)) s)"
  r=$((r + 1))
done

# One row per backend and construct or kernel: medians over the rounds.
# (The file list below is split into words on purpose.)
# shellcheck disable=SC2046
# dispatch CSV: backend,threads,construct,kc_us,kc_ci95_us,base_us,...,ratio
# stream CSV:   backend,threads,type,elements,kernel,bytes,kc_gbs,base_gbs,ratio
awk -F, '
  function median(list,    n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++)
      for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
        t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
      }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  FNR == 1 { dispatch = FILENAME ~ /dispatch-/; next }
  {
    if (dispatch) { key = "dispatch " $1 " " $3; k = $4; b = $6; q = $8 }
    else { key = "stream " $1 " " $5; k = $7; b = $8; q = $9 }
    if (!(key in kc)) order[++n] = key
    kc[key] = kc[key] " " k; base[key] = base[key] " " b
    ratio[key] = ratio[key] " " q; count[key]++
  }
  END {
    printf "\n%-8s %-8s %-16s %6s %10s %10s %7s\n", "bench", "backend",
      "what", "rounds", "kc", "OpenMP", "ratio"
    for (i = 1; i <= n; i++) {
      split(order[i], w, " ")
      printf "%-8s %-8s %-16s %6d %10.3f %10.3f %7.3f\n", w[1], w[2], w[3],
        count[order[i]], median(kc[order[i]]), median(base[order[i]]),
        median(ratio[order[i]])
    }
    print "(dispatch: us per launch, lower is better; stream: GB/s, higher" \
      " is better; ratio: kc / OpenMP, median of the rounds'\'' ratios)"
  }' $(for f in dispatch-threads dispatch-openmp stream-threads stream-openmp; do
  ls "$out/$f"-*.csv 2>/dev/null
done)
echo "host-bench: $(($(date +%s) - start)) s in all"
exit $status
