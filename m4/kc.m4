# kc.m4 — Autoconf macros for projects that use kc.         -*- Autoconf -*-
# serial 1
#
# Installed by kc into $(datadir)/aclocal.  If kc's prefix is not one that
# aclocal searches (/usr, /usr/local), run autoreconf with
#   ACLOCAL_PATH=<kc-prefix>/share/aclocal autoreconf -fi
# or copy this file into your project's m4/ directory.
#
# KC_CHECK_KC([MIN-VERSION], [ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
# --------------------------------------------------------------------
# Finds kc through pkg-config (module `kc`, at least MIN-VERSION when given)
# and its kernel compiler driver kcc.  Sets, and AC_SUBSTs:
#
#   KC_CFLAGS       pkg-config --cflags kc
#   KC_LIBS         pkg-config --libs kc
#   KCC             the kcc to build .kc.c files with: the KCC given to
#                   configure, else kc.pc's `kcc` variable, else kcc on PATH
#   KC_PLUGINDIR    where kc looks for backend plugins (kc.pc's `plugindir`)
#   KC_BACKEND_ABI  the backend ABI major of that kc (kc.pc's `backend_abi`)
#
# and the shell variable kc_found to `yes` or `no`.  KC_CFLAGS, KC_LIBS and
# KCC are precious: setting them on configure's command line overrides the
# search.  Without ACTION-IF-NOT-FOUND, a missing kc or kcc stops configure
# with a message saying how to point it at kc.
#
# Build .kc.c files with kcc, for example in Makefile.am:
#
#   app_SOURCES = main.c
#   app_LDADD = kernels.kc.$(OBJEXT) $(KC_LIBS)
#   app_CFLAGS = $(KC_CFLAGS)
#   EXTRA_DIST = kernels.kc.c
#   CLEANFILES = kernels.kc.$(OBJEXT)
#   kernels.kc.$(OBJEXT): kernels.kc.c
#   	$(KCC) -c $(KC_CFLAGS) $(CPPFLAGS) $(CFLAGS) -o $@ $<
#
AC_DEFUN([KC_CHECK_KC],
[m4_ifndef([PKG_PROG_PKG_CONFIG],
  [m4_fatal([KC_CHECK_KC needs pkg.m4 from pkg-config (Debian: pkg-config or pkgconf)])])dnl
AC_REQUIRE([PKG_PROG_PKG_CONFIG])dnl
AC_ARG_VAR([KCC], [kc kernel compiler driver (default: from kc.pc, then PATH)])dnl
kc_found=yes
kc_why=
PKG_CHECK_MODULES([KC], [kc m4_ifval([$1], [>= $1])], [],
  [kc_found=no
   kc_why="pkg-config found no kc[]m4_ifval([$1], [ >= $1]) ($KC_PKG_ERRORS)"])
AS_IF([test "x$kc_found" = xyes && test "x$KCC" = x], [
  dnl The kcc installed with this kc first: a kcc earlier on PATH may
  dnl belong to another installation.
  kc_kcc_pc=`$PKG_CONFIG --variable=kcc kc 2>/dev/null`
  AS_IF([test "x$kc_kcc_pc" != x && test -x "$kc_kcc_pc"],
    [KCC=$kc_kcc_pc
     AC_MSG_CHECKING([for kcc])
     AC_MSG_RESULT([$KCC])],
    [AC_PATH_PROG([KCC], [kcc])])
  AS_IF([test "x$KCC" = x],
    [kc_found=no
     kc_why="kc is installed but its kernel compiler kcc is not (kc.pc names '$kc_kcc_pc', and there is none on PATH)"])
])
AS_IF([test "x$kc_found" = xyes], [
  KC_PLUGINDIR=`$PKG_CONFIG --variable=plugindir kc`
  KC_BACKEND_ABI=`$PKG_CONFIG --variable=backend_abi kc`
  AC_MSG_CHECKING([for kc's plugin directory])
  AC_MSG_RESULT([$KC_PLUGINDIR (backend ABI $KC_BACKEND_ABI)])
])
AC_SUBST([KCC])dnl
AC_SUBST([KC_PLUGINDIR])dnl
AC_SUBST([KC_BACKEND_ABI])dnl
AS_IF([test "x$kc_found" = xyes],
  [m4_default([$2], [:])],
  [m4_default([$3],
    [AC_MSG_ERROR([$kc_why.
If kc is installed in a prefix pkg-config does not search, run
  PKG_CONFIG_PATH=<kc-prefix>/lib/pkgconfig ./configure ...
or set KC_CFLAGS, KC_LIBS and KCC on the command line.])])])
])# KC_CHECK_KC
