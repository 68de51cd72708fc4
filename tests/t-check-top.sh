#!/bin/sh
# `make check TESTS='...'` in the top build directory (Makefile.am,
# tests/kc-tests.mk): each directory with a test suite runs the named tests
# that are its own and no other (a name of tests/ used to fail in
# plugins/threads/, which has no rule for it); a plain `make check` runs
# every test of each directory; TESTS= runs none; `make -C DIR check
# TESTS=...` keeps automake's meaning, the names as given.
#
# No test is run: make prints the TESTS a directory's check would run, given
# the flags the top directory's recursion hands it (AM_MAKEFLAGS), which is
# what the top-level `make check` passes on with TESTS.  The tests'
# kc-check-summary --tests (names no directory ran) is t-check-report.sh's.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
# The make check running this test hands its own flags down through the
# environment (MAKEFLAGS, and the variables of its command line, which make
# exports: TESTS, KC_CHECK_FROM_TOP); these makes start afresh.
unset MAKEFLAGS MFLAGS MAKELEVEL TESTS KC_CHECK_FROM_TOP
mk() { make -s --no-print-directory "$@"; }
# shown DIR MAKE-ARGS...: the TESTS of DIR's check.
shown() {
  d=$1
  shift
  mk -C "$top/$d" --eval 'kc-t-check-top: ; @echo $(TESTS)' kc-t-check-top "$@"
}
# flags MAKE-ARGS...: what the top directory passes to every directory.
flags() {
  mk -C "$top" --eval 'kc-t-check-top: ; @echo $(AM_MAKEFLAGS)' \
    kc-t-check-top "$@"
}
subdirs=$(mk -C "$top" --eval 'kc-t-check-top: ; @echo $(SUBDIRS)' \
  kc-t-check-top) || exit 99

fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}

# The directories with a test suite, and the first test of each.
dirs= picks=
for d in $subdirs; do
  grep -q '^check-TESTS:' "$top/$d/Makefile" || continue
  dirs="$dirs $d"
  own=$(shown "$d") || exit 99
  # A plain make check from the top: the directory's own list, whole.
  got=$(shown "$d" $(flags))
  test "x$got" = "x$own" ||
    bad "$d: make check from the top runs '$got', not its tests '$own'"
  test -n "$own" && picks="$picks ${own%% *}"
done
echo "directories with tests:$dirs; one test of each:$picks"
case " $dirs " in
  *" tests "*) ;;
  *) bad "no test suite in tests/ (SUBDIRS: $subdirs)" ;;
esac
test "$(echo $picks | wc -w)" -ge 2 ||
  bad "fewer than two directories have tests: nothing to tell apart"

# TESTS naming one test of each: every directory runs its own, only.
fl=$(flags TESTS="$picks")
for d in $dirs; do
  own=$(shown "$d")
  want=
  for t in $picks; do
    case " $own " in *" $t "*) want="$want $t" ;; esac
  done
  got=$(shown "$d" TESTS="$picks" $fl)
  if test "x$got" = "x${want# }"; then
    echo "ok: make check TESTS='${picks# }': $d runs '$got'"
  else
    bad "make check TESTS='${picks# }': $d runs '$got', not '${want# }'"
  fi
  got=$(shown "$d" TESTS= $(flags TESTS=))
  test -z "$got" || bad "make check TESTS=: $d runs '$got'"
done

# Run in a directory, TESTS is automake's: as given.
got=$(shown tests TESTS='t-abi no-such-test')
test "x$got" = "xt-abi no-such-test" ||
  bad "make -C tests check TESTS='t-abi no-such-test' runs '$got'"
exit $fail
