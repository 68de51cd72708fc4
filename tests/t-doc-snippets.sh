#!/bin/sh
# The C code blocks of the user documentation that say they are complete
# compile and run as written, against this build's headers and libkc.
#
# A block opts in with the info string "c compile" after its fence:
#
#     ```c compile                 a translation unit of its own
#     ```c compile file=main.c     one file of the page's program
#
# A block without file= is compiled alone: as a kernel file (kcc --no-ptx)
# when it includes <kc/kernel.h>, else with the C compiler.  The blocks of
# one page that name a file= are written under those names into one
# directory (a header among them is found by the others' #include "..."),
# and each .c among them is compiled there.  Every compile uses -Wall
# -Wextra -Werror.  A program (a block, or the files of a page, that
# defines main) is then linked against libkc and run on the serial backend;
# it must exit 0.  Blocks that are fragments stay unmarked.
#
# SKIPs (77) when the C compiler of the build is not there.
. "${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}/tests/kcc-test.env"
srcdir=${KC_TEST_TOP_SRCDIR:?run me through tests/run-backend}

# shellcheck disable=SC2086
set -- $CC
command -v "$1" >/dev/null 2>&1 || {
  echo "SKIP: the C compiler '$CC' is not installed"
  exit 77
}

pages="README.md doc/quickstart-kernels.md doc/api.md doc/kernels.md
  doc/queues.md doc/backends.md doc/mpi.md doc/fortran.md doc/python.md
  doc/profiling.md doc/building.md"

work=$PWD/t-doc-snippets.dir
rm -rf "$work"
mkdir -p "$work" || exit 99
trap 'rm -rf "$work"' EXIT

KC_BACKEND=serial
KCC_INCLUDEDIR=
export KC_BACKEND KCC_INCLUDEDIR
unset KC_PLUGIN_PATH KC_NVCCFLAGS KC_PTX_ARCH KCC_VERBOSE

fails=0 blocks=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
ok() { echo "ok: $*"; }
show() { sed 's/^/    /' "$1" | head -n 20; }

# compile SRC OBJ: the C compiler, or kcc for a kernel file.
compile() {
  case $1 in
  *.kc.c)
    # shellcheck disable=SC2086
    CC=$CC "$KCC" --no-ptx $KC_CPPFLAGS $KC_BUILD_CFLAGS -Wall -Wextra \
      -Werror -c "$1" -o "$2"
    ;;
  *)
    # shellcheck disable=SC2086
    $CC $KC_CPPFLAGS $KC_BUILD_CFLAGS -Wall -Wextra -Werror -c "$1" -o "$2"
    ;;
  esac
}

# build_and_run WHAT DIR SRC...: compiles each source in DIR; links and
# runs them when one defines main.
build_and_run() {
  what=$1 dir=$2
  shift 2
  objs='' has_main=no
  for s in "$@"; do
    if ! (cd "$dir" && compile "$s" "$s.o") >"$dir/build.log" 2>&1; then
      fail "$what: $s does not compile:"
      show "$dir/build.log"
      return
    fi
    objs="$objs $s.o"
    grep -q '^int main(' "$dir/$s" && has_main=yes
  done
  if test $has_main = no; then
    ok "$what compiles"
    return
  fi
  # shellcheck disable=SC2086
  if ! (cd "$dir" && $CC $KC_BUILD_CFLAGS -o prog $objs $KC_BUILD_LDFLAGS \
    -L"$KC_LIBDIR" -lkc -lm) >"$dir/build.log" 2>&1; then
    fail "$what does not link:"
    show "$dir/build.log"
    return
  fi
  if (cd "$dir" && LD_LIBRARY_PATH=$KC_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    ./prog) >"$dir/run.log" 2>&1; then
    ok "$what compiles and runs on serial: $(head -n 1 "$dir/run.log")"
  else
    fail "$what exits $? on serial:"
    show "$dir/run.log"
  fi
}

for page in $pages; do
  test -f "$srcdir/$page" || {
    fail "$page is missing"
    continue
  }
  pdir=$work/$(echo "$page" | tr / _)
  mkdir -p "$pdir" || exit 99
  # Each marked block to its own file; the list: "LINE FILE-OR-EMPTY".
  awk -v dir="$pdir" '
    in_block && /^```[ \t]*$/ { close(out); in_block = 0; next }
    in_block { print > out; next }
    /^```c[ \t]+compile([ \t]|$)/ {
      name = ""
      if (match($0, /file=[^ \t]+/))
        name = substr($0, RSTART + 5, RLENGTH - 5)
      out = dir "/block-" NR
      print NR, name > (dir "/list")
      in_block = 1
    }
    END { if (in_block) print "unterminated block" > (dir "/error") }
  ' "$srcdir/$page"
  if test -f "$pdir/error"; then
    fail "$page: a marked block has no closing fence"
    continue
  fi
  test -f "$pdir/list" || continue
  files=
  while read -r line name; do
    blocks=$((blocks + 1))
    if test -n "$name"; then
      mv "$pdir/block-$line" "$pdir/$name" || exit 99
      case $name in *.c) files="$files $name" ;; esac
    else
      bdir=$pdir/line-$line
      mkdir -p "$bdir" || exit 99
      if grep -q '^#include <kc/kernel.h>' "$pdir/block-$line"; then
        src=snippet.kc.c
      else
        src=snippet.c
      fi
      mv "$pdir/block-$line" "$bdir/$src" || exit 99
      build_and_run "$page:$line" "$bdir" "$src"
    fi
  done <"$pdir/list"
  # shellcheck disable=SC2086
  test -z "$files" ||
    build_and_run "$page: the program of its file= blocks (${files# })" \
      "$pdir" $files
done

if test $blocks -eq 0; then
  fail "no block marked \`\`\`c compile in any of the pages"
fi
test $fails -eq 0 && echo "PASS: $blocks blocks"
test $fails -eq 0
