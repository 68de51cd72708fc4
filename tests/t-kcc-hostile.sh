#!/bin/sh
# kcc with hostile file names and paths: sources, directories (their own
# and -I), -D values and outputs (-o of an object and of a program) whose
# names hold spaces, quotes, $(...), backticks, newlines and leading
# dashes.  nvcc runs its steps through a shell with file names only
# wrapped in double quotes; the PTX compiler here is a stand-in that does
# the same (its preprocessing step is one `sh -c` command line) and
# records its argv, so a name that reached it would run `touch PWNED...`
# or show in the record.  Each program must build, run and print its
# kernel's result; the diagnostics of both passes and the dependency file
# must name the user's files.  With the configured nvcc (a GPU machine's),
# the compile step runs once more through it.
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"

fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
ok() { echo "ok: $*"; }
nl='
'
work=$PWD/t-kcc-hostile.dir
rm -rf "$work"
mkdir -p "$work/bin" || exit 99
cd "$work" || exit 99
KCC_INCLUDEDIR=
export KCC_INCLUDEDIR
unset KC_NVCCFLAGS KC_PTX_ARCH KCC_VERBOSE
LD_LIBRARY_PATH=$KC_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
KC_BACKEND=serial
export KC_BACKEND

# The stand-in PTX compiler.
cat >bin/nvcc <<'EOF'
#!/bin/sh
# Records its argv ("UNSAFE-ARG" for an argument with a newline) and, as
# nvcc does, runs its preprocessing step as one shell command line with
# every argument in double quotes; then writes a small PTX text.
nl='
'
for a in "$@"; do
  case $a in *"$nl"*) echo "UNSAFE-ARG" ;; *) printf '%s\n' "$a" ;; esac
done >>"$FAKE_NVCC_LOG"
case " $* " in *" --list-gpu-arch "*) echo compute_75; exit 0 ;; esac
line="${FAKE_NVCC_CC:-cc} -E -x c"
out=
while test $# -gt 0; do
  case $1 in
  -x) shift ;;
  -ptx | -arch=*) ;;
  -o) out=$2; shift ;;
  *) line="$line \"$1\"" ;;
  esac
  shift
done
sh -c "$line -o \"$out.i\"" || exit 1
sh -c "printf '// stand-in PTX\n.version 8.0\n' >\"$out\""
EOF
chmod +x bin/nvcc
FAKE_NVCC_LOG=$work/nvcc.argv
FAKE_NVCC_CC=$CC
export FAKE_NVCC_LOG FAKE_NVCC_CC

cat >main.c <<'EOF'
#include <stdio.h>
#include <kc/kernel.h>
KC_KERNEL_DECLARE(hk_fill);
typedef struct { long *out; } hk_f;
int main(void) {
  long out[8] = {0};
  hk_f f = {out};
  kc_policy p = kc_range(0, 8);
  if (kc_init() != 0 ||
      kc_parallel_for(NULL, KC_KERNEL(hk_fill), &p, &f, sizeof f) != 0 ||
      kc_fence() != 0) {
    printf("error: %s\n", kc_last_error());
    return 1;
  }
  printf("out=%ld\n", out[7]);
  return kc_finalize() != 0;
}
EOF
$CC $KC_BUILD_CFLAGS $KC_CPPFLAGS -c main.c -o main.o || exit 99

n=0
# one_case DIR FILE: builds FILE (a kernel source) in DIR, both created.
one_case() {
  d=$1
  f=$2
  n=$((n + 1))
  dir=./$d
  mkdir -p "$dir/inc $n" || exit 99
  src=$dir/$f
  obj=$dir/${f%.c}.o
  prog="$dir/prog $f"
  what="case $n ($(printf '%s' "$src" | tr '\n' '~'))"
  printf '#define HK_VALUE 40\ntypedef struct { long *out; } hk_f;\n' >"$dir/hk.h"
  printf '#define HK_INC 2\n' >"$dir/inc $n/hinc.h"
  cat >"$src" <<'EOF'
#include <kc/kernel.h>
#include "hk.h"
#include <hinc.h>
#ifdef HK_WARN
#warning kc-hostile-diagnostic
#endif
KC_FOR(hk_fill, hk_f, f, i, f->out[i] = HK_VALUE + HK_INC)
EOF
  : >"$FAKE_NVCC_LOG"
  if PATH=$work/bin:$PATH KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS $KC_CPPFLAGS \
    -I"$dir/inc $n" '-DHK_STR="$(touch PWNED-D) `touch PWNED-E`"' \
    -MD -MF "$obj.d" -c "$src" -o "$obj" 2>err; then
    if $CC $KC_BUILD_LDFLAGS main.o "$obj" -L"$KC_LIBDIR" -lkc -lm -o run &&
      test "$(./run)" = out=42; then
      ok "$what: compiled, and its kernel ran"
    else
      fail "$what: the object does not work"
    fi
  else
    cat err
    fail "$what: kcc -c failed"
  fi
  grep -q . "$FAKE_NVCC_LOG" || fail "$what: the PTX compiler was not run"
  if grep -v '^[A-Za-z0-9_./=:,+@%^-]*$' "$FAKE_NVCC_LOG"; then
    fail "$what: the PTX compiler got the arguments above"
  fi
  case $src in
  *"$nl"*) ;;
  *)
    if grep -q '/kcc\.' "$obj.d" || ! grep -q 'hinc\.h' "$obj.d" ||
      ! grep -q "$(basename -- "$d" | sed 's/[^A-Za-z0-9]/./g')" "$obj.d"; then
      sed 's/^/#   /' "$obj.d"
      fail "$what: the dependency file does not name the user's files"
    fi ;;
  esac
  # Diagnostics of both passes name the user's file.
  if test $n -le 2; then
    PATH=$work/bin:$PATH KC_NVCC=nvcc $KCC $KC_CPPFLAGS -I"$dir/inc $n" \
      -DHK_WARN -c "$src" -o "$obj" 2>err
    c=$(grep -c -F "$f" err)
    if test "$c" -ge 2 && grep -F "$f" err | grep -q kc-hostile-diagnostic; then
      ok "$what: both passes' diagnostics name the file"
    else
      sed 's/^/#   /' err
      fail "$what: diagnostics do not name the file in both passes"
    fi
  fi
  # Compile and link in one command, -o a hostile program name.
  : >"$FAKE_NVCC_LOG"
  if PATH=$work/bin:$PATH KC_NVCC=nvcc $KCC $KC_BUILD_CFLAGS \
    $KC_BUILD_LDFLAGS $KC_CPPFLAGS -I"$dir/inc $n" "$src" main.c \
    -L"$KC_LIBDIR" -lkc -lm -o "$prog" 2>err &&
    test "$("$prog")" = out=42; then
    ok "$what: kcc compile-and-link to a hostile -o"
  else
    cat err
    fail "$what: kcc compile-and-link"
  fi
  if grep -v '^[A-Za-z0-9_./=:,+@%^-]*$' "$FAKE_NVCC_LOG"; then
    fail "$what (link mode): the PTX compiler got the arguments above"
  fi
  # The real PTX compiler, where there is one.
  if test -n "$KC_NVCC" && command -v "$KC_NVCC" >/dev/null 2>&1; then
    if KC_NVCC=$KC_NVCC $KCC $KC_CPPFLAGS -I"$dir/inc $n" \
      '-DHK_STR="$(touch PWNED-D)"' -c "$src" -o "$obj" 2>err; then
      ok "$what: compiled with $KC_NVCC"
    else
      cat err
      fail "$what: kcc -c with $KC_NVCC failed"
    fi
  fi
}

one_case "dir with space" '$(touch PWNED-f).kc.c'
one_case "q'uo\"te" '`touch PWNED-g` "q" '"'s'"'.kc.c'
one_case '$(touch PWNED-d) `touch PWNED-e` $HOME;&' "n${nl}l.kc.c"
one_case "new${nl}line" -lead.kc.c
one_case -dash 'x;y|z&.kc.c'

pwned=$(find "$work" -name 'PWNED*' | tr '\n' ' ')
if test -n "$pwned"; then
  fail "a name reached a shell: $pwned"
else
  ok "no name reached a shell"
fi
echo "# $fails failure(s)"
if test $fails -ne 0; then
  echo "# left $work for inspection"
  exit 1
fi
cd .. && rm -rf "$work"
exit 0
