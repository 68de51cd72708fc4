#!/bin/sh
# The threads backend under a narrowed CPU mask.  A pool whose threads
# share the calling thread's one CPU while the process may use more is
# never silent: one warning line on stderr (without KC_VERBOSE) names the
# mask, the likely cause and the fix.  KC_THREADS_BIND=spread puts the
# workers on the other CPUs the process may use (read back from
# /proc/self/task by t-threads-bind), KC_THREADS_BIND=mask keeps the mask
# without a warning, another value is KC_EINVAL.  The narrowing comes from
# `taskset -c CPU` and, where the OpenMP backend was built, from
# OMP_PROC_BIND=close in a program that links OpenMP (t-threads-bind-omp).
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
prog=$top/tests/t-threads-bind
prog_omp=$top/tests/t-threads-bind-omp
case " $KC_TEST_BACKENDS " in
  *" threads "*) ;;
  *) echo "SKIP: the threads backend was not built"; exit 77 ;;
esac
command -v taskset >/dev/null 2>&1 || {
  echo "SKIP: no taskset here (Debian: util-linux)"
  exit 77
}
# The first two CPUs this test may run on.
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status |
  tr ',' '\n' | awk -F- '{ e = NF > 1 ? $2 : $1
    for (c = $1; c <= e && n < 2; c++) { print c; n++ } }')
a=$(echo "$cpus" | sed -n 1p)
b=$(echo "$cpus" | sed -n 2p)
test -n "$b" || {
  echo "SKIP: this test may run on one CPU only ($cpus); the pool cannot spread"
  exit 77
}

tmp=${TMPDIR:-/tmp}/kc-t-threads-bind.$$
trap 'rm -f "$tmp".*' EXIT
fail=0
KC_BACKEND=threads
export KC_BACKEND
unset KC_VERBOSE KC_NUM_THREADS KC_THREADS_BIND OMP_PROC_BIND OMP_PLACES \
  GOMP_CPU_AFFINITY KMP_AFFINITY OMP_NUM_THREADS

# run WHAT COMMAND...: stdout to $tmp.out, stderr to $tmp.err.
run() {
  what=$1
  shift
  echo "== $what: $*"
  "$@" >"$tmp.out" 2>"$tmp.err"
  rc=$?
  sed 's/^/   out: /' "$tmp.out"
  sed 's/^/   err: /' "$tmp.err"
  if test $rc -ne 0; then
    echo "FAIL: $what: exit status $rc"
    fail=1
  fi
}
bad() {
  echo "FAIL: $what: $*"
  fail=1
}
# where THREAD: the CPU list THREAD (main, kc-worker-1) may run on.
where() { sed -n "s/^$1: //p" "$tmp.out"; }
want_where() {
  got=$(where "$1")
  test "$got" = "$2" || bad "$1 may run on '$got', expected '$2'"
}
want_no_warning() {
  ! grep -q 'warning' "$tmp.err" || bad "unexpected warning: $(cat "$tmp.err")"
}
# want_warning TEXT...: one warning line on stderr holding every TEXT.
want_warning() {
  n=$(grep -c '^kc: warning: threads backend: ' "$tmp.err")
  test "$n" = 1 || bad "$n warning lines on stderr, expected 1"
  for t in "$@"; do
    grep -qF -- "$t" "$tmp.err" || bad "the warning lacks '$t'"
  done
}

run "2 threads under taskset -c $a" \
  env KC_NUM_THREADS=2 taskset -c "$a" "$prog"
want_where main "$a"
want_where kc-worker-1 "$a"
want_warning "the pool's 2 threads share CPU $a, the calling thread's affinity mask" \
  "though the process may use" "likely cause: a launcher's binding (taskset" \
  "KC_NUM_THREADS=1 fits the pool to the mask" "KC_THREADS_BIND=spread" \
  "KC_THREADS_BIND=mask keeps this and silences the warning"

run "KC_THREADS_BIND=spread under taskset -c $a" \
  env KC_NUM_THREADS=2 KC_THREADS_BIND=spread taskset -c "$a" "$prog"
want_where main "$a"
want_where kc-worker-1 "$b"
want_no_warning

run "KC_THREADS_BIND=mask under taskset -c $a" \
  env KC_NUM_THREADS=2 KC_THREADS_BIND=mask taskset -c "$a" "$prog"
want_where kc-worker-1 "$a"
want_no_warning

run "default size under taskset -c $a (a launcher's choice: no warning)" \
  taskset -c "$a" "$prog"
test -z "$(where kc-worker-1)" || bad "a worker started: $(cat "$tmp.out")"
want_no_warning

# Pinned to one CPU; which one depends on where the scheduler had put the
# calling thread (the pool leaves that CPU to it: pool-test checks the
# order itself).
run "2 threads, no narrowing" env KC_NUM_THREADS=2 "$prog"
case $(where kc-worker-1) in
*[!0-9]* | "") bad "kc-worker-1 may run on '$(where kc-worker-1)', expected one CPU" ;;
esac
want_no_warning

what="KC_THREADS_BIND=bogus"
echo "== $what"
KC_THREADS_BIND=bogus "$prog" >"$tmp.out" 2>&1 && bad "kc_init succeeded"
cat "$tmp.out"
grep -q "kc_init: KC_EINVAL: .*KC_THREADS_BIND='bogus'" "$tmp.out" ||
  bad "expected KC_EINVAL naming KC_THREADS_BIND"

# A program that links OpenMP, run with OMP_PROC_BIND=close: the OpenMP
# runtime binds the main thread to one CPU before kc starts.
if test -x "$prog_omp"; then
  run "OMP_PROC_BIND=close, 2 threads" \
    env OMP_PROC_BIND=close KC_NUM_THREADS=2 "$prog_omp"
  m=$(where main)
  case $m in
    *[,-]*)
      echo "note: the OpenMP runtime left the main thread on CPUs $m:" \
        "nothing narrowed, OpenMP cases not checked"
      ;;
    *)
      want_where kc-worker-1 "$m"
      want_warning "the pool's 2 threads share CPU $m" \
        "likely cause: OMP_PROC_BIND=close, with which the OpenMP runtime bound this thread" \
        "KC_THREADS_BIND=spread spreads the pool over CPUs"
      run "OMP_PROC_BIND=close, default size" \
        env OMP_PROC_BIND=close "$prog_omp"
      want_warning "a pool of 1 thread only, sized by the calling thread's affinity mask (CPU $m)" \
        "OMP_PROC_BIND=close"
      run "OMP_PROC_BIND=close, KC_THREADS_BIND=spread" \
        env OMP_PROC_BIND=close KC_THREADS_BIND=spread "$prog_omp"
      want_where main "$m"
      w=$(where kc-worker-1)
      test -n "$w" && test "$w" != "$m" ||
        bad "worker 1 may run on '$w', expected a CPU other than the main thread's $m"
      want_no_warning
      ;;
  esac
else
  echo "note: no $prog_omp (OpenMP not built): OpenMP binding not checked"
fi
exit $fail
