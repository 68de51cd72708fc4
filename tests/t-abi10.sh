#!/bin/sh
# A plugin of backend ABI 1.0 (tests/testplugins/abi10.c: its ops object is
# 1.0's struct, without the 1.1 queue and event slots) passes the
# conformance suite's programs on this libkc, t-queue included: every
# kc_queue runs on its default queue.  Through the plugin author's own
# runner, plugins/example/run-kc-suite.sh.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
runner=$KC_TEST_TOP_SRCDIR/plugins/example/run-kc-suite.sh
pdir=$top/tests/testplugins/.libs
test -f "$runner" || { echo "SKIP: no $runner"; exit 77; }
test -f "$pdir/libkc-abi10.so" || { echo "ERROR: no $pdir/libkc-abi10.so"; exit 99; }

out=$PWD/t-abi10.dir
rm -rf "$out"
# The programs are built (make check builds them before any test runs).
KC_SUITE_OUTDIR=$out KC_SUITE_BUILD=no KC_SUITE_SCRIPTS=no \
  ${SHELL:-/bin/sh} "$runner" "$top" abi10 "$pdir"
rc=$?
test $rc -eq 0 || { cat "$out/test-suite.log"; exit 1; }

# ... and says, under KC_VERBOSE, that its queues share the default one.
KC_VERBOSE=1 KC_BACKEND=abi10 KC_PLUGIN_PATH=$pdir \
  "$top/tests/t-queue" >"$out/verbose.log" 2>&1
if ! grep -q "backend 'abi10' has no queue slots: every queue runs on the default one, in order" "$out/verbose.log"; then
  echo "FAIL: KC_VERBOSE did not say that abi10's queues run on its default queue:"
  tail -n 20 "$out/verbose.log"
  exit 1
fi
echo "ok: KC_VERBOSE says the 1.0 plugin's queues run on its default queue"
rm -rf "$out"
exit 0
