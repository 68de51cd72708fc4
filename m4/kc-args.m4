# kc-args.m4 — checks of the values given to configure's options
# (configure.ac, "options").  Each stops configure with a message that
# names the option and says what it takes.

# KC_ARG_CHOICE(OPTION, VALUE, CASE-PATTERN, WHAT-IT-TAKES)
# ---------------------------------------------------------
# Stops configure unless VALUE, the value given to OPTION (as
# --enable-NAME or --with-NAME), matches the shell case pattern, with
# "OPTION=VALUE: WHAT-IT-TAKES".
AC_DEFUN([KC_ARG_CHOICE],
[AS_CASE([$2], [$3], [],
  [AC_MSG_ERROR([$1=$2: $4])])])

# KC_ARG_DIR(NAME, DEFAULT, WITHOUT-HINT)
# ---------------------------------------
# --with-NAME=DIR, an installation directory, when it was given: DIR must be
# absolute or start with a variable ('${libdir}/x'), as configure's own
# directory options must.  --with-NAME alone (yes), an empty or relative DIR
# and --without-NAME (no) stop configure; the message of the last ends with
# WITHOUT-HINT.
AC_DEFUN([KC_ARG_DIR],
[AS_IF([test "${with_$1+set}" = set],
  [AS_CASE([$with_$1],
    [yes | ''],
      [AC_MSG_ERROR([--with-$1 needs a directory: --with-$1=DIR, an absolute path (default: $2)])],
    [no],
      [AC_MSG_ERROR([--without-$1: $3])],
    [[[\\/$]]*], [],
    [AC_MSG_ERROR([--with-$1=$with_$1: DIR must be an absolute path, as for --libdir=DIR])])])])
