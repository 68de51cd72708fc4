#!/bin/sh
# The wide grid's chunks on cuda are walked a warp at a time, each lane's
# KC_CUDA_WIDE_RUN indices a constant 32 apart (kc__for_drv in
# detail/cuda_drivers.h), so the compiler sees one address and fixed
# offsets and may issue every load of a thread's run before its first
# store.  With the old stride of blockDim.x, known only at run time, a
# body reading and writing one array (a[i] += b[i]) loaded each a[i] after
# the previous index's store.  Checks the PTX kcc makes for such a kernel:
# its __kcp entry stores a[] at the offsets +256, +512 and +768 bytes of
# one register (the run of 4 doubles); and where nvdisasm is at hand
# (the CUDA toolkit's; the GPU machine has it), that ptxas put all four
# loads of a[] before the first store.  The run itself is checked on the
# GPU by t-for.cuda (kt_count over a range of 2^21 + 5 indices: every
# index hit once).
# SKIP (77) when there is no PTX compiler.
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"

KCC_INCLUDEDIR=
export KCC_INCLUDEDIR
unset KC_NVCCFLAGS KC_PTX_ARCH KCC_VERBOSE

if test -z "$KC_NVCC" || ! command -v "$KC_NVCC" >/dev/null 2>&1; then
  echo "SKIP: no PTX compiler (KC_NVCC='$KC_NVCC'): kcc builds host-only" \
    "objects; configure with KC_NVCC=/path/to/nvcc to test PTX"
  exit 77
fi

fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
work=$PWD/t-wide-run.dir
rm -rf "$work"
mkdir -p "$work" || exit 99

cat >"$work/k.kc.c" <<'K'
#include <kc/kernel.h>
KC_FOR_ARGS(rmw, ((double *, a), (const double *restrict, b)), i,
            a[i] += b[i])
K
if ! "$KCC" --ptx $KC_CPPFLAGS "$work/k.kc.c" -o "$work/k.ptx" \
  >"$work/ptx.log" 2>&1; then
  sed 's/^/#   /' "$work/ptx.log"
  echo "FAIL: kcc --ptx failed"
  exit 1
fi
# The entry's text, one instruction a line.
awk 'index($0, ".entry rmw__kcp(") { on = 1 } on && /^}/ { on = 0 } on' \
  "$work/k.ptx" >"$work/entry.ptx"
test -s "$work/entry.ptx" || fail "no entry rmw__kcp in the PTX"

# A register that a[] is stored through at +256, +512 and +768.
reg=$(awk '/st\.global\.f64/ && /\+256\]/ {
    s = $0; sub(/.*\[/, "", s); sub(/\+256\].*/, "", s); print s; exit }' \
  "$work/entry.ptx")
if test -z "$reg"; then
  fail "no store at a constant offset of +256 bytes in rmw__kcp:" \
    "the chunk's indices are not a constant stride apart"
else
  for off in 512 768; do
    grep -E "st\.global\.f64[[:space:]]+\[$reg\+$off\]" "$work/entry.ptx" \
      >/dev/null ||
      fail "no store through $reg at +$off in rmw__kcp"
  done
  test $fails -eq 0 &&
    echo "ok: rmw__kcp stores a[] at $reg, $reg+256, +512, +768"
fi

# SASS, where the toolkit can show it.
bindir=$(dirname "$(command -v "$KC_NVCC")")
dis=$(command -v "$bindir/nvdisasm" 2>/dev/null)
ptxas=$(command -v "${PTXAS:-$bindir/ptxas}" 2>/dev/null)
if test $fails -eq 0 && test -n "$dis" && test -n "$ptxas"; then
  if "$ptxas" -arch=sm_90 -O3 "$work/k.ptx" -o "$work/k.cubin" \
    >"$work/ptxas.log" 2>&1 &&
    "$dis" -c "$work/k.cubin" >"$work/k.sass" 2>&1; then
    # In rmw__kcp's code, the straight run (between branches and exits)
    # that loads a[] at +0x300 (LDG.E.64, not .CONSTANT: b[]'s loads are)
    # must load a[] at no offset and at +0x100, +0x200 and +0x300 before
    # its first store.
    awk 'function flush() {
        if (has) { runs++; if (late || n0 + n1 + n2 + n3 != 4) bad++ }
        has = st = late = n0 = n1 = n2 = n3 = 0
      }
      /^\.text\.rmw__kcp:/ { on = 1; next } on && /^\.text\./ { on = 0 }
      !on { next }
      /BRA|EXIT/ { flush(); next }
      /STG\.E\.64/ { st++ }
      /LDG\.E\.64 / {
        if ($0 ~ /\+0x100\]/) n1 = 1
        else if ($0 ~ /\+0x200\]/) n2 = 1
        else if ($0 ~ /\+0x300\]/) { n3 = 1; has = 1 }
        else if ($0 !~ /\+0x/) n0 = 1
        else next
        if (st) late++
      }
      END { flush(); if (runs && !bad) print "ok"; else print "no", runs + 0, bad + 0 }' \
      "$work/k.sass" >"$work/order.txt"
    if test "$(cut -d' ' -f1 "$work/order.txt")" = ok; then
      echo "ok: sm_90 SASS loads a[i], a[i + 32], a[i + 64], a[i + 96] before any store of the run"
    else
      fail "sm_90 SASS: the run's four loads of a[] are not all before its" \
        "stores ($(cat "$work/order.txt"); $work/k.sass)"
    fi
  else
    sed 's/^/#   /' "$work/ptxas.log"
    fail "ptxas or nvdisasm failed"
  fi
elif test $fails -eq 0; then
  echo "note: no nvdisasm next to $KC_NVCC, or no ptxas: the SASS order" \
    "is not checked"
fi
test $fails -eq 0
