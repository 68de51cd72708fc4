# tests/kc-tests.mk — included by each Makefile.am that has tests (tests/,
# plugins/threads/, bench/), which lists them in KC_DIR_TESTS and sets
# TESTS = $(KC_DIR_TESTS).
#
# `make check TESTS='t-for.threads pool-test'` in the top build directory
# runs the tests named wherever they are.  make passes TESTS on to every
# directory, and the top Makefile adds KC_CHECK_FROM_TOP=yes (Makefile.am):
# a directory then keeps the names that are its own tests, and the top's
# summary (tests/kc-check-summary) fails on a name that no directory ran.
# `make -C DIR check TESTS=...` takes TESTS as given, as automake does (a
# name the directory does not have fails there).
$(if $(KC_CHECK_FROM_TOP),$(eval override TESTS := $(filter $(KC_DIR_TESTS),$(TESTS))))
