#!/bin/sh
# kc-info's output against tests/t-kc-info.expected (the format doc/api.md and
# kc-info(1) document), with the test plugins of tests/testplugins/ in the search
# path: every key in its order, every plugin's verdict and message.
# Lines of the expected file are shell patterns (`*` for values that depend
# on the machine) after @VARIABLE@ substitution.  plugin: lines for files
# outside the test plugin directory (an installed kc) are left out of the
# comparison, but counted.  Then: a failing backend (exit 1), a named host
# plugin, and a bad argument (exit 2).
top=${KC_TEST_TOP_BUILDDIR:?run me through tests/run-backend}
srcdir=${KC_TEST_SRCDIR:?run me through tests/run-backend}
tpdir=${KC_TEST_PLUGIN_DIR:?}
kcinfo=$top/tools/kc-info
fail=0
tmp=${TMPDIR:-/tmp}/kc-t-kc-info.$$
trap 'rm -f "$tmp".*' EXIT

header() { sed -n "s/^#define $1 //p" "$2" | head -n 1; }
version=$(header KC_VERSION_STRING "$top/include/kc/version.h" | tr -d '"')
maj=$(header KC_BACKEND_ABI_MAJOR "$KC_TEST_TOP_SRCDIR/include/kc/backend.h")
min=$(header KC_BACKEND_ABI_MINOR "$KC_TEST_TOP_SRCDIR/include/kc/backend.h")

# 1. serial, with the test plugins in the path.
KC_PLUGIN_PATH=$tpdir KC_BACKEND=serial "$kcinfo" >"$tmp.out" 2>"$tmp.err"
rc=$?
echo "--- KC_PLUGIN_PATH=$tpdir KC_BACKEND=serial kc-info (exit $rc)"
cat "$tmp.out"
test $rc -eq 0 || { echo "FAIL: kc-info exited $rc"; fail=1; }
test -s "$tmp.err" && { echo "FAIL: kc-info wrote on stderr:"; cat "$tmp.err"; fail=1; }

found=$(grep -c '^plugin: ' "$tmp.out")
accepted=$(grep -c '^plugin: .*: accepted: ' "$tmp.out")
sed -e "s|@VERSION@|$version|g" -e "s|@ABI@|$maj.$min|g" \
  -e "s|@ABI_NEXT_MAJOR@|$((maj + 1))|g" \
  -e "s|@ABI_NEXT_MINOR@|$maj.$((min + 1))|g" \
  -e "s|@TPDIR@|$tpdir|g" -e "s|@FOUND@|$found|g" \
  -e "s|@ACCEPTED@|$accepted|g" \
  "$srcdir/t-kc-info.expected" >"$tmp.exp"
# Drop plugin: lines of other directories (an installed kc's plugins).
awk -v d="$tpdir/" 'index($0, "plugin: ") != 1 || index($0, "plugin: " d) == 1' \
  "$tmp.out" >"$tmp.act"

n_exp=$(wc -l <"$tmp.exp")
n_act=$(wc -l <"$tmp.act")
if test "$n_exp" -ne "$n_act"; then
  echo "FAIL: kc-info printed $n_act lines (without other plugin dirs'), expected $n_exp"
  fail=1
fi
i=0
while IFS= read -r pat <&3 && IFS= read -r line <&4; do
  i=$((i + 1))
  # shellcheck disable=SC2254
  case $line in
    $pat) ;;
    *)
      echo "FAIL: line $i of kc-info's output"
      echo "    got:      $line"
      echo "    expected: $pat"
      fail=1
      ;;
  esac
done 3<"$tmp.exp" 4<"$tmp.act"
test "$found" -ge 6 || { echo "FAIL: plugins-found should count the 6 test plugins"; fail=1; }

# 2. A backend that cannot be used: exit 1, the reason, nothing below it.
KC_PLUGIN_PATH=$tpdir KC_BACKEND=nodev "$kcinfo" >"$tmp.out" 2>&1
rc=$?
echo "--- KC_BACKEND=nodev kc-info (exit $rc): $(tail -n 2 "$tmp.out" | tr '\n' '|')"
test $rc -eq 1 || { echo "FAIL: kc-info exited $rc, expected 1"; fail=1; }
grep -qx "backend: none" "$tmp.out" || { echo "FAIL: no 'backend: none'"; fail=1; }
grep -qx "backend-error: KC_ENODEV: backend 'nodev' ($tpdir/libkc-nodev.so) found no device: test plugin nodev has no device by design" "$tmp.out" ||
  { echo "FAIL: no or a wrong backend-error: line"; fail=1; }
test "$(tail -n 1 "$tmp.out" | cut -d: -f1)" = backend-error ||
  { echo "FAIL: lines after backend-error:"; fail=1; }

# 3. A host plugin by name, with a thread count.
for b in threads openmp; do
  case " $KC_TEST_BACKENDS " in *" $b "*) ;; *) continue ;; esac
  KC_BACKEND=$b KC_NUM_THREADS=3 "$kcinfo" >"$tmp.out" 2>&1
  rc=$?
  echo "--- KC_BACKEND=$b KC_NUM_THREADS=3 kc-info (exit $rc)"
  test $rc -eq 0 || { echo "FAIL: exit $rc"; cat "$tmp.out"; fail=1; continue; }
  for want in "backend: $b" "backend-path: $top/plugins/$b/.libs/libkc-$b.so" \
    "num-threads: 3" "device: -1" "memory-spaces: host"; do
    grep -qxF "$want" "$tmp.out" || { echo "FAIL: no line '$want'"; fail=1; }
  done
  grep -qF "plugin: $top/plugins/$b/.libs/libkc-$b.so: accepted: $b, ABI $maj.$min, 1 device(s)" "$tmp.out" ||
    { echo "FAIL: $b's plugin: line is missing or not accepted"; fail=1; }
done

# 4. A bad argument: exit 2 and a usage line.
"$kcinfo" --no-such-option >"$tmp.out" 2>&1
rc=$?
test $rc -eq 2 || { echo "FAIL: kc-info --no-such-option exited $rc, expected 2"; fail=1; }
grep -q usage "$tmp.out" || { echo "FAIL: no usage message"; fail=1; }

test $fail -eq 0 && echo PASS
exit $fail
