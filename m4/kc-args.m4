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

# KC_ARG_PTX_ARCH(VARIABLE)
# -------------------------
# Stops configure unless the value of the shell variable VARIABLE is a PTX
# architecture as nvcc takes it with -ptx: compute_NN or sm_NN, NN a number
# without a leading zero, with an a or f after it for the variants
# (compute_75, sm_90a, compute_100f).  Anything else would reach kcc's
# nvcc command line, where a blank starts another option.
AC_DEFUN([KC_ARG_PTX_ARCH],
[AS_CASE([$$1],
  [sm_[[1-9]]* | compute_[[1-9]]*],
    [kc_arch_nn=${$1#*_}
     kc_arch_nn=${kc_arch_nn%[[af]]}
     AS_CASE([$kc_arch_nn], [*[[!0-9]]*], [kc_arch_nn=])],
  [kc_arch_nn=])
AS_IF([test -z "$kc_arch_nn"],
  [AC_MSG_ERROR([$1=$$1: use a virtual architecture compute_NN or a GPU sm_NN, with a or f after NN for the variants (compute_75, sm_90a)])])])
