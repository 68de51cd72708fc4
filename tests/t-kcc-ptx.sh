#!/bin/sh
# kcc: the PTX kcc produces assembles for sm_90, and every object
# registers the kernels its PTX holds.
#
#  1. Every PTX file the build made (kcc.mk keeps each object's embedded
#     PTX beside it as foo.kc.ptx) assembles with `ptxas -arch=sm_90`.
#  2. Every .kc.c file of the source tree (examples, tests, bench, also
#     those the build has not reached yet) compiles to PTX with
#     `kcc --ptx`, and that assembles too.
#  3. For every kcc object of the build, each kernel handle it defines
#     (kc__kernel_<name>, what its constructor registers) has the two
#     device entries <name>__kcp and <name>__kcg in the object's PTX, and
#     the PTX has no kc entry without a handle.
# SKIP when there is no PTX compiler or no ptxas.
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"
. "${KC_TEST_TOP_SRCDIR:?run me through tests/run-backend}/tests/kcc-test-lib.sh"

if ! have_nvcc; then
  echo "SKIP: no PTX compiler (KC_NVCC='$KC_NVCC'): kcc builds host-only" \
    "objects; configure with KC_NVCC=/path/to/nvcc to test PTX"
  exit 77
fi
if test -z "$PTXAS" || ! command -v "$PTXAS" >/dev/null 2>&1; then
  echo "SKIP: no ptxas (PTXAS='$PTXAS'): configure with" \
    "PTXAS=/path/to/ptxas to assemble kcc's PTX"
  exit 77
fi

top_build=$KC_TEST_TOP_BUILDDIR
top_src=$KC_TEST_TOP_SRCDIR
KCC_INCLUDEDIR=
export KCC_INCLUDEDIR
unset KC_NVCCFLAGS KC_PTX_ARCH KCC_VERBOSE

work=$PWD/t-kcc-ptx.dir
rm -rf "$work"
mkdir -p "$work" || exit 99

assemble() { # assemble FILE.ptx WHAT
  if $PTXAS -arch=sm_90 "$1" -o "$work/out.cubin" 2>"$work/ptxas.err"; then
    ok "$2: $(wc -c <"$1") bytes of PTX assemble for sm_90"
  else
    sed 's/^/#   /' "$work/ptxas.err"
    fail "$2: ptxas -arch=sm_90 failed"
  fi
}

# 1. The PTX the build embedded.
saved=$(find "$top_build" -name '*.kc.ptx' ! -path '*/.libs/*' \
  ! -path '*/t-kcc*.dir/*' | sort)
n_saved=0
for p in $saved; do
  assemble "$p" "${p#"$top_build"/}"
  n_saved=$((n_saved + 1))
done
if test $n_saved -eq 0; then
  fail "the build kept no PTX (foo.kc.ptx beside kcc's objects)"
fi

# 2. Every .kc.c of the source tree.
n_src=0
# Not the kcc tests' own work directories (t-kcc*.dir: an in-tree build
# runs them beside this one, with kernels that need their options).
for src in $(find "$top_src/examples" "$top_src/tests" "$top_src/bench" \
  -name '*.kc.c' ! -path '*/t-kcc*.dir/*' 2>/dev/null | sort); do
  rel=${src#"$top_src"/}
  out=$work/$(echo "$rel" | tr / _).ptx
  if $KCC --ptx -I"$top_src/include" -I"$top_build/include" \
    -I"$(dirname "$src")" "$src" -o "$out" 2>"$work/kcc.err"; then
    assemble "$out" "$rel"
  else
    sed 's/^/#   /' "$work/kcc.err"
    fail "$rel: kcc --ptx failed"
  fi
  n_src=$((n_src + 1))
done
test $n_src -gt 0 || fail "found no .kc.c file under $top_src"

# 3. Handles against entries, object by object.
for p in $saved; do
  obj=${p%.ptx}.o
  test -f "$obj" || continue
  rel=${obj#"$top_build"/}
  handles=$($NM "$obj" | sed -n 's/.* [BDS] kc__kernel_\(.*\)$/\1/p' | sort)
  entries=$(sed -n 's/^.*\.entry \([A-Za-z0-9_]*\)__kc[pg](.*$/\1/p' "$p" |
    sort -u)
  if test -z "$handles"; then
    fail "$rel defines no kernel handle"
    continue
  fi
  for k in $handles; do
    for e in kcp kcg; do
      grep -q "\.entry ${k}__$e(" "$p" ||
        fail "$rel registers '$k' but its PTX has no entry ${k}__$e"
    done
  done
  if test "$(echo $handles)" != "$(echo $entries)"; then
    fail "$rel: handles ($(echo $handles)) != PTX kernels ($(echo $entries))"
  else
    ok "$rel registers $(echo $handles | wc -w) kernels, each with" \
      "its two PTX entries"
  fi
done

echo "# $n_saved embedded PTX files, $n_src sources; $fails failure(s)"
test $fails -eq 0 || exit 1
rm -rf "$work"
exit 0
