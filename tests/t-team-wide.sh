#!/bin/sh
# The team conformance tests (t-team, t-team-args, t-team-threads) on the
# host backends with 9 and 16 threads, more than the CI machine's CPUs: a
# league of 39 ranks on 9 threads runs as teams of several threads there
# (host-team.c), as it does on a 16-core host, where at 2 threads every
# host team is one thread.  t-team once required host teams of one thread
# and failed at 16 threads; t-team-threads required a league of 1 to take
# every thread, which the size rule (the smallest within 1/8 of the best)
# does only up to 8, and failed at 16.  SKIPs (77) when neither host
# backend was built.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
ran=0
for be in threads openmp; do
  case " $KC_TEST_BACKENDS " in
    *" $be "*) ;;
    *) continue ;;
  esac
  for t in t-team t-team-args t-team-threads; do
    for n in 9 16; do
      echo "--- KC_BACKEND=$be KC_NUM_THREADS=$n ./$t"
      KC_BACKEND=$be KC_NUM_THREADS=$n OMP_NUM_THREADS=$n "$top/tests/$t"
      rc=$?
      # A program's SKIP (77) skips that run only; any other failure fails.
      case $rc in
        0) ran=$((ran + 1)) ;;
        77) ;;
        *) exit $rc ;;
      esac
    done
  done
done
test $ran -gt 0 || {
  echo "SKIP: no host backend ran these tests (threads and openmp not built, or every run skipped)"
  exit 77
}
