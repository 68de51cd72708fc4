#!/bin/sh
# The team conformance tests (t-team, t-team-args) on the host backends
# with 9 threads, more than the CI machine's CPUs: a league of 39 ranks
# on 9 threads runs as teams of several threads there (host-team.c), as it
# does on a 16-core host, where at 2 threads every host team is one
# thread.  t-team once required host teams of one thread and failed at 16
# threads.  SKIPs (77) when neither host backend was built.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
ran=0
for be in threads openmp; do
  case " $KC_TEST_BACKENDS " in
    *" $be "*) ;;
    *) continue ;;
  esac
  for t in t-team t-team-args; do
    echo "--- KC_BACKEND=$be KC_NUM_THREADS=9 ./$t"
    KC_BACKEND=$be KC_NUM_THREADS=9 OMP_NUM_THREADS=9 "$top/tests/$t"
    rc=$?
    test $rc -eq 0 || exit $rc
    ran=$((ran + 1))
  done
done
test $ran -gt 0 || {
  echo "SKIP: neither the threads nor the openmp backend was built"
  exit 77
}
