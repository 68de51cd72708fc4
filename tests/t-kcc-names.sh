#!/bin/sh
# A kernel file must compile whatever macros its user defines, as long as
# they are not names of kc's interface: `-DF=1`, `-DR=...`, `-DX=...` are
# common in scientific code.  Before, kc's headers declared template
# parameters (F, R, V, Op, K, B, X ...), parameters, locals and members of
# its own structs under plain names, forwarded hint names (SUM, MAX, NONE,
# FOR) and type suffixes (I32, F64) through macro layers that expanded
# them, and spelt attributes plainly (unused, weak): a user macro of such
# a name broke the device pass or the host expansion.  Now they are kc__
# names, pasted at the first level, or __attribute__((__unused__)).
#
# tests/kcc/names.kc.c has every kernel macro, the atomics and the team
# accessors, and no user name of its own that is defined here.  It is
# compiled through kcc with every name below defined as 1: the host pass
# alone with gcc (and clang), and both passes with the configured nvcc.
# Not defined: the names of kc's interface (the parameter names of
# kc.h's prototypes and typedefs, the members of its structs and of the
# plugin ABI's, detail/cuda_abi.h); `state`, a member in glibc's
# <stdlib.h>; and, in the device pass only, names CUDA's own headers
# declare (CUDA 13: T, U, most one-letter lower-case names, mask, width,
# size ...: an empty .cu file fails with them; always_inline, in CUDA's
# __forceinline__).  Last, every template parameter of kc's headers is
# checked to be a kc__ name, so that a new one cannot bring the problem
# back.
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"
. "${KC_TEST_TOP_SRCDIR:?run me through tests/run-backend}/tests/kcc-test-lib.sh"
srcdir=$KC_TEST_TOP_SRCDIR
src=$srcdir/tests/kcc/names.kc.c
dir=$PWD/t-kcc-names.dir
rm -rf "$dir" && mkdir -p "$dir" || exit 99
unset KC_NVCCFLAGS KC_PTX_ARCH KCC_VERBOSE

# Defined in both passes.
both='A B C D E F G H I J K L M N O P Q R S V W X Y Z
Op Fn Cmp Sh LEFT Packed
SUM PROD MIN MAX NONE FOR ADD SUB I32 I64 U32 U64 F32 F64
unused used constructor weak visibility
agg apply bits carry cb ce cmp db eb epoch ex exported fb fits flag fx half
i inc ix j l lane last left lmo mo nb nd nt nv nw o ob off old onepass
ordered own part parts per pm pre publish r0 r1 raw run scan scratch sh
skip slot slots span st step stride t0 t1 tb td te ticket tid tot tt u
vals vl wait warp whi whole wlo wn wt x0'
# Defined in the host pass only (CUDA's headers declare them).
host_only='T U c d f in len mask n next ns param prev s v w what width x y
always_inline'

# compiles WHAT NAMES KCC-ARGS...: kcc must compile names.kc.c with each
# of NAMES defined as 1 and KCC-ARGS.
compiles() {
  what=$1 names=$2
  shift 2
  defs=
  for n in $names; do defs="$defs -D$n=1"; done
  # shellcheck disable=SC2086
  if "$@" $KC_CPPFLAGS -Wall -Wextra -Werror $defs -c "$src" \
    -o "$dir/names.o" >"$dir/err" 2>&1; then
    ok "$what"
  else
    fail "$what:"
    grep -m 12 'error' "$dir/err" | sed 's/^/    /'
  fi
}
compiles "host pass ($CC), no name of kc's hit" "$both $host_only" \
  $KCC --no-ptx
if command -v clang >/dev/null 2>&1; then
  compiles "host pass (clang), no name of kc's hit" "$both $host_only" \
    env CC=clang $KCC --no-ptx
fi
if have_nvcc; then
  compiles "both passes ($KC_NVCC), no name of kc's hit" "$both" \
    env KC_NVCC="$KC_NVCC" $KCC
else
  echo "# SKIP: no nvcc; the device pass was not tried"
fi

# Template parameters: kc__ names only.
bad=$(cd "$srcdir/include" && awk '
  /template *</ {
    # The parameter list: from the "<" after "template" to its ">".
    s = substr($0, index($0, "template"))
    s = substr(s, index(s, "<") + 1)
    depth = 1
    paren = 0
    for (k = 1; k <= length(s) && depth > 0; k++) {
      c = substr(s, k, 1)
      if (c == "(") paren++
      else if (c == ")") paren--
      else if (paren == 0 && c == "<") depth++
      else if (paren == 0 && c == ">") depth--
    }
    s = substr(s, 1, k - 1)
    while (match(s, /(class|typename|bool|int|unsigned)(\.\.\.)? +[A-Za-z_][A-Za-z0-9_]*|\(\*[A-Za-z_][A-Za-z0-9_]*\)/)) {
      w = substr(s, RSTART, RLENGTH)
      s = substr(s, RSTART + RLENGTH)
      gsub(/^.* |[()*]/, "", w)
      if (w !~ /^kc__/)
        printf "%s:%d (%s) ", FILENAME, FNR, w
    }
  }' kc/*.h kc/detail/*.h)
if test -n "$bad"; then
  fail "template parameters that are not kc__ names: $bad"
else
  ok "every template parameter of kc's headers is a kc__ name"
fi

finish "$dir"
