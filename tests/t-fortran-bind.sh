#!/bin/sh
# The Fortran module kc (fortran/kc.f90) against the C API it binds
# (include/kc/kc.h, include/kc/error.h), so that the two cannot drift:
#  1. every function kc.h declares (KC_API) is bound in the module by an
#     interface with bind(C, name="<function>") and reachable through a
#     public procedure of the same name, or named in the module's list of
#     deliberately unbound functions;
#  2. every constant (the error codes, every enumerator, the numeric
#     #defines) exists in the module with the same value: a C and a
#     Fortran program generated from the same list print them, and the
#     outputs must be identical;
#  3. every struct of kc.h has a bind(C) type of the same name whose size,
#     field offsets and field sizes (every field, by its C name) are those
#     of the C struct: again two generated programs, sizeof/offsetof
#     against c_sizeof/c_loc differences;
#  4. every procedure the module makes public is called by the API test
#     (tests/fortran-api.f90).
# The lists come from the headers at test time, so a function, constant,
# struct or field added to kc.h fails this test until the module has it.
# SKIP when configure built no Fortran binding.
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
src=${KC_TEST_TOP_SRCDIR:?run me through tests/run-backend}
. "$top/tests/fortran-test.env" || exit 99
if test "$KC_FORTRAN" != yes; then
  echo "SKIP: configure built no Fortran binding: $KC_FORTRAN_WHY"
  exit 77
fi

# libgfortran hands Fortran strings (not NUL-terminated) to strndup with
# their length; ASan's strict_string_checks (CI's asan step) reads them up
# to a NUL and reports an overflow inside libgfortran.  Off for the
# Fortran programs; every other ASan check stays.
if test -n "${ASAN_OPTIONS:-}"; then
  ASAN_OPTIONS=$ASAN_OPTIONS:strict_string_checks=0
  export ASAN_OPTIONS
fi
kch=$src/include/kc/kc.h
errh=$src/include/kc/error.h
mod=$src/fortran/kc.f90
api=$src/tests/fortran-api.f90
dir=$top/tests/t-fortran-bind.dir
rm -rf "$dir" && mkdir -p "$dir" || exit 99
fail=0

# ------------------------------------------------------------ 1. functions
# The names of the module's "Deliberately unbound" comment block.
unbound=$(sed -n '/^! Deliberately unbound functions/,/^[^!]/p' "$mod" |
  sed -n 's/^!   \(kc_[a-z0-9_]*\).*/\1/p')
funcs=$(sed -n 's/^KC_API [^(]*[ *]\(kc_[a-z0-9_]*\)(.*/\1/p' "$kch")
# The names of the module's "public ::" statements.
public=$(sed -n 's/^ *public *:: *//p' "$mod" | tr ',' '\n' | tr -d ' &')
nf=0
for f in $funcs; do
  nf=$((nf + 1))
  if grep -q "bind(C, name=\"$f\")" "$mod"; then
    # ... and a Fortran program can call it: a public procedure of that
    # name (the interface itself, or the wrapper over it).
    if ! printf '%s\n' $public | grep -qx "$f"; then
      echo "FAIL: $f (kc.h) is bound in fortran/kc.f90 but no public procedure of the module has its name"
      fail=1
    fi
    continue
  elif printf '%s\n' $unbound | grep -qx "$f"; then
    echo "ok: $f is listed as deliberately unbound"
  else
    echo "FAIL: $f (kc.h) has no interface bind(C, name=\"$f\") in fortran/kc.f90"
    fail=1
  fi
done
test $nf -ge 40 || { echo "FAIL: only $nf functions found in kc.h"; fail=1; }
echo "ok: $nf functions of kc.h checked"

# ------------------------------------------------------------ 2. constants
{
  sed -n 's/^ *X(\([A-Z0-9_]*\),.*/KC_E\1/p' "$errh"
  # enumerators: lines "  KC_NAME = 0," or "  KC_NAME," inside enums
  awk '/^typedef enum/ { e = 1; next } e && /^}/ { e = 0 }
       e { if (match($0, /^ *KC_[A-Z0-9_]+/)) {
             s = substr($0, RSTART, RLENGTH); gsub(/ /, "", s); print s } }' "$kch"
  sed -n 's/^#define \(KC_[A-Z0-9_]*\) *(\{0,1\}-\{0,1\}[0-9][0-9]*)\{0,1\} *$/\1/p' "$kch"
} >"$dir/constants"
nc=$(wc -l <"$dir/constants")
test "$nc" -ge 40 || { echo "FAIL: only $nc constants found in kc.h"; fail=1; }
{
  echo '#include <stdio.h>'
  echo '#include <kc/kc.h>'
  echo 'int main(void) {'
  while read -r c; do
    printf '%s\n' "  printf(\"%s %lld\\n\", \"$c\", (long long)($c));"
  done <"$dir/constants"
  echo '  return 0;'
  echo '}'
} >"$dir/constants-c.c"
{
  echo 'program constants'
  echo '  use kc'
  echo '  implicit none'
  while read -r c; do
    echo "  write (*, '(a,1x,i0)') '$c', $c"
  done <"$dir/constants"
  echo 'end program constants'
} >"$dir/constants-f.f90"
while read -r c; do
  grep -q "parameter, public :: $c = " "$mod" ||
    { echo "FAIL: constant $c (kc.h) is missing from fortran/kc.f90"; fail=1; }
done <"$dir/constants"

# --------------------------------------------------------------- 3. structs
# Every "typedef struct NAME { ... } NAME;" of kc.h, comments removed, as
# lines "NAME FIELD" (arrays and function pointers by their name).
awk '{ text = text $0 "\n" }
  END {
    gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", text)
    while (match(text, /typedef struct [a-z_0-9]+ \{[^}]*\}/)) {
      s = substr(text, RSTART, RLENGTH)
      text = substr(text, RSTART + RLENGTH)
      name = s; sub(/^typedef struct /, "", name); sub(/ .*/, "", name)
      body = s; sub(/^[^{]*\{/, "", body); sub(/\}$/, "", body)
      gsub(/\n/, " ", body)
      n = split(body, decl, ";")
      print name
      for (d = 1; d <= n; d++) {
        x = decl[d]
        if (x ~ /^ *$/) continue
        if (x ~ /\(\*/) {                      # function pointer
          sub(/^[^(]*\(\*/, "", x); sub(/\).*/, "", x); print name, x; continue
        }
        gsub(/\[[^]]*\]/, "", x)                # array bounds
        m = split(x, part, ",")
        first = part[1]; sub(/ *$/, "", first)
        sub(/.*[ *]/, "", first); print name, first
        for (q = 2; q <= m; q++) {
          f = part[q]; gsub(/[ *]/, "", f); print name, f
        }
      }
    }
  }' "$kch" >"$dir/fields"
ns=$(awk 'NF == 1' "$dir/fields" | wc -l)
test "$ns" -ge 8 || { echo "FAIL: only $ns structs found in kc.h"; fail=1; }
{
  echo '#include <stddef.h>'
  echo '#include <stdio.h>'
  echo '#include <kc/kc.h>'
  echo 'int main(void) {'
  while read -r s f; do
    if test -z "$f"; then
      printf '%s\n' "  printf(\"%s size %zu\\n\", \"$s\", sizeof($s));"
    else
      printf '%s\n' "  printf(\"%s %s %zu %zu\\n\", \"$s\", \"$f\", offsetof($s, $f),"
      echo "         sizeof((($s *)0)->$f));"
    fi
  done <"$dir/fields"
  echo '  return 0;'
  echo '}'
} >"$dir/layout-c.c"
{
  echo 'program layout'
  echo '  use, intrinsic :: iso_c_binding'
  echo '  use kc'
  echo '  implicit none'
  awk 'NF == 1 { print "  type(" $1 "), target :: v_" $1 }' "$dir/fields"
  echo '  integer(c_intptr_t) :: base'
  while read -r s f; do
    if test -z "$f"; then
      echo "  write (*, '(a,1x,i0)') '$s size', c_sizeof(v_$s)"
      echo "  base = transfer(c_loc(v_$s), base)"
    else
      echo "  write (*, '(a,2(1x,i0))') '$s $f', &"
      echo "    transfer(c_loc(v_$s%$f), base) - base, &"
      echo "    c_sizeof(v_$s%$f)"
    fi
  done <"$dir/fields"
  echo 'end program layout'
} >"$dir/layout-f.f90"
while read -r s f; do
  test -z "$f" || continue
  grep -q "^  type, bind(C), public :: $s\$" "$mod" ||
    { echo "FAIL: struct $s (kc.h) has no bind(C) type in fortran/kc.f90"; fail=1; }
done <"$dir/fields"

# Build and run both sides of 2. and 3., and compare.
libpath=
for d in $KC_LIBDIRS; do libpath="$libpath -L$d -Wl,-rpath,$d"; done
for what in constants layout; do
  # shellcheck disable=SC2086
  if ! $CC $KC_CPPFLAGS $KC_BUILD_CFLAGS $KC_BUILD_LDFLAGS \
      -o "$dir/$what-c" "$dir/$what-c.c" >"$dir/$what-c.log" 2>&1; then
    echo "FAIL: the generated C program $dir/$what-c.c does not build:"
    sed 's/^/  /' "$dir/$what-c.log"
    fail=1
    continue
  fi
  # shellcheck disable=SC2086
  if ! $FC $FCFLAGS ${FC_MODINC}"$KC_FMODDIR" $KC_BUILD_LDFLAGS \
      -o "$dir/$what-f" "$dir/$what-f.f90" $libpath -lkc-fortran -lkc \
      >"$dir/$what-f.log" 2>&1; then
    echo "FAIL: the generated Fortran program $dir/$what-f.f90 does not build" \
      "(a name missing from the module?):"
    sed 's/^/  /' "$dir/$what-f.log"
    fail=1
    continue
  fi
  "$dir/$what-c" >"$dir/$what-c.out" && "$dir/$what-f" >"$dir/$what-f.out" ||
    { echo "FAIL: a $what program did not run"; fail=1; continue; }
  if diff "$dir/$what-c.out" "$dir/$what-f.out" >"$dir/$what.diff"; then
    echo "ok: $what: $(wc -l <"$dir/$what-c.out") values identical in C and Fortran"
  else
    echo "FAIL: $what differ between kc.h (<) and the module (>):"
    sed 's/^/  /' "$dir/$what.diff"
    fail=1
  fi
done

# ------------------------------------------------------- 4. the API test
procs=$(sed -n 's/^  public :: //p' "$mod" | tr ',' '\n' | tr -d ' ')
np=0
for p in $procs; do
  np=$((np + 1))
  grep -qi "$p(" "$api" ||
    { echo "FAIL: $p (public in the module) is never called by tests/fortran-api.f90"; fail=1; }
done
echo "ok: $np public procedures of the module, each called by fortran-api.f90"
exit $fail
