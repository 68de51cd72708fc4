#!/bin/sh
# configure's options (configure.ac, "options"; doc/building.md): a value
# an option does not take stops configure before its first check, with a
# message that names the option and says what it takes; the values it does
# take give what they say; --help lists each of kc's options once.
#
# configure runs in a copy of what it reads before config.status (itself,
# build-aux/ and the file AC_CONFIG_SRCDIR names), so that a build tree
# configured in the sources does not get in the way, and with --no-create;
# config.status --file then shows the value of a substitution.
src=${KC_TEST_TOP_SRCDIR:?run me through tests/run-backend}
tmp=${TMPDIR:-/tmp}/kc-t-configure.$$
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/include/kc" &&
  cp "$src/configure" "$tmp/src/" &&
  cp -R "$src/build-aux" "$tmp/src/" &&
  cp "$src/include/kc/kc.h" "$tmp/src/include/kc/" || exit 99

# The variables the build tree was configured with (FFI_CFLAGS and
# FFI_LIBS where libffi lies outside the compiler's paths, CC, CFLAGS...),
# in the environment, where configure takes them from too: the accepted
# runs need them to pass the checks this script does not test.  KC_NVCC,
# PTXAS and KC_PTX_ARCH are this script's to set.
if test -x "${KC_TEST_TOP_BUILDDIR:-}/config.status"; then
  eval "set -- $("$KC_TEST_TOP_BUILDDIR/config.status" --config)"
  for a in "$@"; do
    case $a in
    KC_NVCC=* | PTXAS=* | KC_PTX_ARCH=*) ;;
    [A-Za-z_]*=*) export "$a" ;;
    esac
  done
fi

fail=0
bad() {
  echo "FAIL: $*"
  fail=1
}

# refusal MESSAGE STATUS ARGS...: the configure ARGS that just exited with
# STATUS (its output in $tmp/out) stopped with "configure: error: MESSAGE".
refusal() {
  want=$1
  st=$2
  shift 2
  if test "$st" -eq 0; then
    bad "configure $* succeeded; expected: $want"
  elif grep -qxF "configure: error: $want" "$tmp/out"; then
    echo "ok: configure $*: $want"
  else
    bad "configure $*: expected 'configure: error: $want', got:" \
      "$(grep 'error' "$tmp/out" | head -n 3)"
  fi
}

# refused MESSAGE ARGS...: configure ARGS stops with "configure: error:
# MESSAGE".  CC names no compiler, so a configure that does not refuse the
# option stops at its first compiler check instead, with another error.
refused() {
  want=$1
  shift
  (cd "$tmp/src" && ./configure CC=/nonexistent/kc-t-configure-cc "$@") \
    >"$tmp/out" 2>&1
  refusal "$want" $? "$@"
}

# refused_late MESSAGE ARGS...: the same for a value configure can only
# check once it has found what the value is for, after the compiler
# checks: configure runs with the build's compiler.
refused_late() {
  want=$1
  shift
  (cd "$tmp/src" && ./configure --no-create $quick "$@") >"$tmp/out" 2>&1
  refusal "$want" $? "$@"
}

# Options this script does not test, set so that each accepted run checks
# little beyond what it tests.
quick="--disable-fortran --disable-openmp --without-mpi"

# accepted ARGS...: configure ARGS succeeds (output in $tmp/out).
accepted() {
  rm -f "$tmp/src/config.status"
  if (cd "$tmp/src" && ./configure --no-create $quick "$@") >"$tmp/out" 2>&1; then
    echo "ok: configure $* succeeded"
    return 0
  fi
  bad "configure $* failed: $(grep 'error' "$tmp/out" | head -n 3)"
  return 1
}

# subst VAR WANTED: the last accepted configure substitutes WANTED for @VAR@.
subst() {
  printf '@%s@' "$1" >"$tmp/src/probe.in"
  got=$(cd "$tmp/src" && ./config.status -q --file=probe:probe.in && cat probe)
  if test "x$got" = "x$2"; then
    echo "ok:   @$1@ = '$got'"
  else
    bad "@$1@ is '$got', expected '$2'"
  fi
}

# box TEXT: the last configure's summary holds the line "| TEXT".
box() {
  if grep -qxF "| $1" "$tmp/out"; then
    echo "ok:   | $1"
  else
    key=$(echo $1 | cut -d ' ' -f 1)
    bad "the summary lacks '| $1': $(grep "^| *$key" "$tmp/out")"
  fi
}
# checked WHAT: the last configure printed "checking WHAT..."; not_checked
# WHAT: it did not.
checked() {
  if grep -q "^checking $1" "$tmp/out"; then
    echo "ok:   checked $1"
  else
    bad "configure did not check $1"
  fi
}
not_checked() {
  if grep -q "^checking $1" "$tmp/out"; then
    bad "configure checked $1: $(grep "^checking $1" "$tmp/out")"
  else
    echo "ok:   did not check $1"
  fi
}

# --help: AC_OPENMP declares a --disable-openmp of its own ("do not use
# OpenMP"), which was listed beside kc's --enable-openmp.
if (cd "$tmp/src" && ./configure --help) >"$tmp/help" 2>&1; then
  grep -e '-openmp' "$tmp/help" >"$tmp/openmp-help"
  if test "$(wc -l <"$tmp/openmp-help")" -eq 1 &&
    grep -q -e '--enable-openmp  *build the OpenMP backend' "$tmp/openmp-help"; then
    echo "ok: configure --help lists --enable-openmp once, with kc's meaning"
  else
    bad "configure --help lists openmp as:" "$(cat "$tmp/openmp-help")"
  fi
else
  bad "configure --help failed"
fi

# Installation directories: absolute, or from another directory variable.
dir_needed='needs a directory: --with-fmoddir=DIR, an absolute path (default: LIBDIR/kc/fortran)'
refused "--with-fmoddir $dir_needed" --with-fmoddir
refused "--with-fmoddir $dir_needed" --with-fmoddir=yes
refused "--with-fmoddir $dir_needed" --with-fmoddir=
no_fmod='kc.mod has to be installed somewhere: name the directory with --with-fmoddir=DIR, or build no Fortran binding with --disable-fortran'
refused "--without-fmoddir: $no_fmod" --without-fmoddir
refused "--without-fmoddir: $no_fmod" --with-fmoddir=no
refused '--with-fmoddir=lib/mod: DIR must be an absolute path, as for --libdir=DIR' \
  --with-fmoddir=lib/mod
refused '--with-pkgconfigdir needs a directory: --with-pkgconfigdir=DIR, an absolute path (default: LIBDIR/pkgconfig)' \
  --with-pkgconfigdir
refused '--without-pkgconfigdir: kc.pc has to be installed somewhere: name the directory with --with-pkgconfigdir=DIR' \
  --without-pkgconfigdir

# Switches: yes, no (and auto where the default is auto).
refused '--enable-werror=bogus: use yes or no' --enable-werror=bogus
for o in threads openmp cuda fortran; do
  refused "--enable-$o=bogus: use yes, no or auto" "--enable-$o=bogus"
done
refused '--with-mpi=: use yes, no, auto or an MPI compiler wrapper (--with-mpi=mpicc)' \
  --with-mpi=

# Stand-ins first on PATH, so that configure finds them wherever the test
# runs: nvcc and ptxas that do nothing (an nvcc that lists no
# architectures), and other-nvcc, which lists compute_75 and compute_90.
mkdir -p "$tmp/bin" &&
  printf '#!/bin/sh\nexit 0\n' >"$tmp/bin/nvcc" &&
  cp "$tmp/bin/nvcc" "$tmp/bin/ptxas" &&
  printf '#!/bin/sh\ntest "x$1" != x--list-gpu-arch || echo "compute_75\ncompute_90"\n' \
    >"$tmp/bin/other-nvcc" &&
  chmod +x "$tmp/bin/nvcc" "$tmp/bin/ptxas" "$tmp/bin/other-nvcc" || exit 99
PATH=$tmp/bin:$PATH
export PATH

# The defaults, the openmp backend's detection among them (every other
# run here passes --disable-openmp).
quick_all=$quick
quick="--disable-fortran --without-mpi"
accepted
rc=$?
quick=$quick_all
if test $rc -eq 0; then
  subst fmoddir '${libdir}/kc/fortran'
  subst pkgconfigdir '${libdir}/pkgconfig'
  subst KC_NVCC "$tmp/bin/nvcc"
  box "kcc PTX compiler: $tmp/bin/nvcc"
  subst PTXAS "$tmp/bin/ptxas"
  subst KC_PTX_ARCH compute_70
  checked 'for .* option to support OpenMP'
  case " $KC_TEST_BACKENDS " in
  *" openmp "*) box '  openmp   yes' ;;
  esac
fi
# Directories given both ways; --disable-openmp; a PTX architecture
# (this nvcc lists none, so none is refused for it).
if accepted --with-fmoddir=/opt/kc-mod '--with-pkgconfigdir=${libdir}/pc' \
  --enable-werror=no --enable-fortran=no --enable-threads=auto \
  KC_PTX_ARCH=compute_100f; then
  subst fmoddir /opt/kc-mod
  subst pkgconfigdir '${libdir}/pc'
  subst KC_PTX_ARCH compute_100f
  not_checked 'for .* option to support OpenMP'
  box '  openmp   no  (disabled by --disable-openmp)'
fi

# kcc's device pass (--with-nvcc, KC_NVCC) and the tests' ptxas (PTXAS).
host_only='kcc builds host-only kernels)'
if accepted --without-nvcc PTXAS=no; then
  subst KC_NVCC ''
  box "kcc PTX compiler: none (disabled by --without-nvcc; $host_only"
  subst PTXAS ''
  box 'ptxas for tests:  none (disabled by PTXAS=no; PTX assembly tests will skip)'
  not_checked 'for ptxas'
fi
if accepted KC_NVCC=no; then
  subst KC_NVCC ''
  box "kcc PTX compiler: none (disabled by KC_NVCC=no; $host_only"
fi
if accepted KC_NVCC=; then
  subst KC_NVCC ''
  box "kcc PTX compiler: none (disabled by an empty KC_NVCC; $host_only"
fi
# other-nvcc lists compute_90: sm_90a is its GPU code of that architecture.
if accepted "--with-nvcc=$tmp/bin/other-nvcc" KC_PTX_ARCH=sm_90a; then
  subst KC_NVCC "$tmp/bin/other-nvcc"
  subst KC_PTX_ARCH sm_90a
fi
refused_late "KC_PTX_ARCH=compute_70: $tmp/bin/other-nvcc does not support it (it lists compute_75 compute_90)" \
  "--with-nvcc=$tmp/bin/other-nvcc" KC_PTX_ARCH=compute_70
# Shared libraries off, by --disable-shared or by libtool's
# --enable-shared=LIST without kc in it (the message named only the first).
shared_off="shared libraries are off (--disable-shared, or --enable-shared=LIST without kc in it): kc's backends are plugins that need the shared libkc (a static libkc.a may be built beside it with --enable-static)"
refused_late "$shared_off" --disable-shared
refused_late "$shared_off" --enable-shared=foo
refused '--with-nvcc=: use yes, no, auto or the compiler (--with-nvcc=/usr/local/cuda/bin/nvcc)' \
  --with-nvcc=
refused '--without-nvcc contradicts KC_NVCC=/opt/nvcc: give one of them' \
  --without-nvcc KC_NVCC=/opt/nvcc
refused "--with-nvcc=$tmp/bin/nvcc contradicts KC_NVCC=/opt/nvcc: give one of them" \
  "--with-nvcc=$tmp/bin/nvcc" KC_NVCC=/opt/nvcc
refused '--with-nvcc contradicts KC_NVCC=no: give one of them' \
  --with-nvcc KC_NVCC=no
refused "KC_NVCC=$tmp/none/nvcc -O2: there is no program $tmp/none/nvcc (--without-nvcc builds without kcc's device pass)" \
  "KC_NVCC=$tmp/none/nvcc -O2"
refused "PTXAS=$tmp/none/ptxas: there is no program $tmp/none/ptxas (PTXAS=no: the tests assemble no PTX)" \
  "PTXAS=$tmp/none/ptxas"
arch_use='use a virtual architecture compute_NN or a GPU sm_NN, with a or f after NN for the variants (compute_75, sm_90a)'
for a in bogus compute_ sm_9x compute_075 sm_90b 'compute_90 -G' 'sm_90;x'; do
  refused "KC_PTX_ARCH=$a: $arch_use" "KC_PTX_ARCH=$a"
done
exit $fail
