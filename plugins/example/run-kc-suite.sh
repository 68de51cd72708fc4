#!/bin/sh
# run-kc-suite.sh — runs kc's conformance suite on an out-of-tree backend.
#
#   run-kc-suite.sh KC_BUILDDIR [NAME [PLUGIN_DIR]]
#
#   KC_BUILDDIR  a configured kc build tree (its tests are built there if
#                they are not yet); any kc of the plugin's backend ABI
#   NAME         the backend's name (default: example)
#   PLUGIN_DIR   the directory holding libkc-NAME.so, or that file itself
#                (default: .libs beside this script, where `make` puts it);
#                searched first through KC_PLUGIN_PATH
#
# `make check-kc-suite KC_BUILDDIR=...` runs it on this plugin.  Each test
# of the suite (tests/Makefile.am's KC_CONFORMANCE programs and
# KC_CONFORMANCE_SH scripts) runs through the build tree's tests/run-backend,
# with its environment and timeout, as KC_BACKEND=NAME.  Prints one line
# per test; writes the logs and a test-suite.log in automake's format to
# $KC_SUITE_OUTDIR (default: ./kc-suite); the build tree's own
# tests/test-suite.log is left as it was.  Exit status 0 if none failed.
# KC_SUITE_BUILD=no skips building the test programs (they are built);
# KC_SUITE_SCRIPTS=no runs the test programs only, not the scripts (the
# examples, MPI and Fortran runs).
set -u

if test $# -lt 1 || test $# -gt 3; then
  sed -n '3,11s/^# \{0,1\}//p' "$0" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || exit 2
name=${2:-example}
here=$(cd "$(dirname "$0")" && pwd)
pdir=${3:-$here/.libs}
# The plugin file itself names its directory.
case $pdir in
*/libkc-"$name".so | libkc-"$name".so)
  test -f "$pdir" && pdir=$(dirname "$pdir")
  ;;
esac
pdir=$(cd "$pdir" && pwd) || exit 2
out=${KC_SUITE_OUTDIR:-kc-suite}

if test ! -f "$build/tests/Makefile"; then
  echo "$build is not a configured kc build tree (no tests/Makefile)" >&2
  exit 2
fi
if test ! -f "$pdir/libkc-$name.so"; then
  echo "no $pdir/libkc-$name.so: build the plugin first" >&2
  exit 2
fi
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2

# Build the suite's programs without running them.  `make check TESTS=`
# would still rewrite the build tree's tests/test-suite.log (as an empty
# run's summary): that log goes to $out instead.
if test "${KC_SUITE_BUILD:-yes}" != no; then
  echo "building kc's test programs in $build/tests ..."
  make -C "$build/tests" check TESTS= \
    TEST_SUITE_LOG="$out/build-test-suite.log" >"$out/build.log" 2>&1 || {
    echo "building the tests failed; see $out/build.log" >&2
    tail -n 20 "$out/build.log" >&2
    exit 1
  }
fi

# The suite's lists, read from tests/Makefile itself.
printf 'kc-suite-print-%%:\n\t@echo $($*)\n' >"$out/print.mk"
progs=$(MAKEFLAGS= MAKELEVEL= make -s --no-print-directory -C "$build/tests" -f Makefile -f "$out/print.mk" \
  kc-suite-print-KC_CONFORMANCE) || exit 1
scripts=$(MAKEFLAGS= MAKELEVEL= make -s --no-print-directory -C "$build/tests" -f Makefile -f "$out/print.mk" \
  kc-suite-print-KC_CONFORMANCE_SH) || exit 1
test "${KC_SUITE_SCRIPTS:-yes}" != no || scripts=
if test -z "$progs$scripts"; then
  echo "$build/tests/Makefile lists no conformance tests" >&2
  exit 1
fi

npass=0 nfail=0 nskip=0 failed=
for t in $progs $scripts; do
  # A stub run-backend runs as a script: it asks for the backend and runs
  # the test program (or the suite's script of that name).
  stub=$out/$t.sh
  {
    echo "KC_BACKEND=$name"
    echo "KC_PLUGIN_PATH=$pdir\${KC_PLUGIN_PATH:+:\$KC_PLUGIN_PATH}"
    echo "export KC_BACKEND KC_PLUGIN_PATH"
    case " $scripts " in
      *" $t "*) echo "exec \${SHELL:-/bin/sh} \"\$KC_TEST_SRCDIR/$t.sh\"" ;;
      *) echo "exec \"\$KC_TEST_TOP_BUILDDIR/tests/$t\"" ;;
    esac
  } >"$stub"
  "$build/tests/run-backend" "$stub" >"$out/$t.log" 2>&1
  rc=$?
  case $rc in
    0) r=PASS npass=$((npass + 1)) ;;
    77) r=SKIP nskip=$((nskip + 1)) ;;
    *) r=FAIL nfail=$((nfail + 1)) failed="$failed $t" ;;
  esac
  echo "$r: $t.$name"
  test $r = PASS || sed -n '$p' "$out/$t.log" | sed 's/^/    /'
done

# As automake's test-suite.log: the counts, then each failed test's log
# under a "FAIL: name" heading underlined with '='.
{
  echo "# TOTAL: $((npass + nfail + nskip))"
  echo "# PASS:  $npass"
  echo "# SKIP:  $nskip"
  echo "# FAIL:  $nfail"
  for t in $failed; do
    echo
    echo "FAIL: $t.$name"
    echo "FAIL: $t.$name" | sed 's/./=/g'
    echo
    cat "$out/$t.log"
  done
} >"$out/test-suite.log"
echo "kc conformance suite on '$name' ($pdir/libkc-$name.so): $npass passed, $nfail failed, $nskip skipped"
test $nfail -eq 0
